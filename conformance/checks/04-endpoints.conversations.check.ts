// Spec part 4, Endpoints > Public and special routes: `/assistant/conversations...` ("DPoP plus live session admission"),
// with what other parts say about them: the challenge scheme of conversation paths (Authentication > Challenge scheme), the
// conversation variant of the actor stage that refuses browser sessions (Request processing order), event streams and
// their keep-alive (Events > Streaming; Limits), the 64 KiB cap on conversation writes checked via Content-Length (Limits)
// and `direct_conversation_open` with `conversation_id` (Errors; Resources > Problem document).
//
// Levels. The spec shows neither the methods nor the payloads of the conversation routes, nor which endpoints stream. The
// spec-level checks that need a conversation drive the reference's routes (docs/conversations.md: POST
// /assistant/conversations `{ mode }`, POST …/{id}/messages `{ text }`, GET …/{id}/events) and judge only what the spec
// says; when the target does not serve those routes they end as not applicable, with the reason. Exact statuses the spec
// leaves open (409 for direct_conversation_open, 413 for the cap, 403 caller_not_allowed for a browser session) and the
// browser-session artifact (web agent forwarder plus `Assistant-Browser-Session`) are the reference's, judged at the
// reference level.
//
// Data. Every check provisions its own assistant session (conformance/lib/assistant.ts): nothing is shared between checks.
import { createHmac, randomUUID } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { AssistantAgent, errorOf } from '../lib/assistant.js';
import { CheckFailure, expectChallenge, expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { findChallenge, parseChallenges } from '../lib/www-authenticate.js';
import { LIMITS } from '../../contract/limits.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

const COLLECTION = '/assistant/conversations';
const KEEP_ALIVE_MS = LIMITS.eventStreamKeepAliveSeconds * 1000;
/** Scheduling and network slack allowed on top of the 15 seconds. */
const KEEP_ALIVE_SLACK_MS = 1500;


const show = (res: ShopResponse) => `${res.status} ${res.text.slice(0, 300)}`;
const fresh = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** Names the case a failure belongs to. */
function inCase(what: string, assertion: () => void): void {
  try {
    assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

/** A 401 whose WWW-Authenticate offers the DPoP scheme and no Bearer challenge. */
function expectDpopOnly(res: ShopResponse, clause: string): void {
  const header = res.headers.get('www-authenticate');
  if (header === null) return fail('WWW-Authenticate', 'a DPoP challenge', null, clause);
  let challenges;
  try {
    challenges = parseChallenges(header);
  } catch {
    return fail('WWW-Authenticate syntax', 'RFC 9110 challenges', header, clause);
  }
  if (!findChallenge(challenges, 'DPoP')) fail('WWW-Authenticate scheme', 'DPoP', header, clause);
  if (findChallenge(challenges, 'Bearer')) fail('WWW-Authenticate on a conversation path', 'no Bearer challenge', header, clause);
}

/** Opens a conversation through the reference's route; not applicable when the target does not serve it. */
async function openConversation(agent: AssistantAgent, mode: 'direct' | 'handoff'): Promise<{ id: string; res: ShopResponse }> {
  const { res } = await agent.post(COLLECTION, { json: { mode } });
  if (res.status === 404 || res.status === 405) {
    return notApplicable(`the target does not serve the reference's POST ${COLLECTION} (${res.status}); the spec shows no conversation route`);
  }
  if (res.status !== 201 || typeof res.body?.id !== 'string') {
    // Past the DPoP and session admission, an open must succeed: anything else is the reference's route failing.
    fail(`POST ${COLLECTION} { mode: "${mode}" } by a signed-in DPoP session`, '201 with the conversation id', show(res), 'END-PUBLIC-19');
  }
  return { id: res.body.id as string, res };
}

/** A request body of exactly `bytes` bytes: a valid message padded with JSON whitespace. */
function messageBody(bytes: number): string {
  const core = JSON.stringify({ text: 'A message padded to size.' });
  return core.slice(0, -1) + ' '.repeat(bytes - core.length) + '}';
}

// ---------------------------------------------------------------------------------------------------------- event streams

interface OpenStream {
  /** The response head. */
  res: { status: number; headers: Headers };
  /** ms from sending the request to the response head. */
  headMs: number;
  /** Everything read so far. */
  text(): string;
  /** Waits until the text satisfies `predicate`; resolves with the ms since the response head, or null on timeout/end. */
  until(predicate: (text: string) => boolean, timeoutMs: number): Promise<number | null>;
  close(): void;
}

/**
 * GET of an event stream with a DPoP proof (retried once on `use_dpop_nonce`), read incrementally through the suite's
 * client (engine/http.ts), which records the exchange with what was read of the stream as its body.
 */
async function openEventStream(shop: Shop, agent: AssistantAgent, path: string, headers: Record<string, string> = {}): Promise<OpenStream | ShopResponse> {
  for (let attempt = 0; ; attempt++) {
    const proof = await agent.proof('GET', path);
    const stream = await shop.http.stream('GET', path, { headers: { authorization: `DPoP ${agent.token}`, dpop: proof, accept: 'text/event-stream', ...headers } });
    const nonce = stream.headers.get('dpop-nonce');
    if (nonce) agent.nonce = nonce;
    const contentType = stream.headers.get('content-type') ?? '';
    if (stream.status !== 200 || !contentType.toLowerCase().startsWith('text/event-stream')) {
      const answer = await stream.response();
      if (attempt === 0 && answer.status === 401 && errorOf(answer) === 'use_dpop_nonce') continue;
      return answer;
    }
    return { res: stream, headMs: stream.headMs, text: stream.text, until: stream.until, close: stream.close };
  }
}

const isStream = (s: OpenStream | ShopResponse): s is OpenStream => 'until' in s;

/** Comment lines of an event stream (lines starting with a colon, WHATWG HTML §9.2.6). */
const hasComment = (text: string) => /(^|\n):[^\n]*\n/.test(text);

/** The events (blocks with data lines) of an event stream, data parsed as JSON where it is JSON. */
function eventsOf(text: string): { id?: string; event?: string; data: unknown }[] {
  return text.split('\n\n').filter((b) => b.split('\n').some((l) => l.startsWith('data:'))).map((block) => {
    const e: { id?: string; event?: string; data: unknown } = { data: undefined };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const m = /^([a-z]+): ?(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'id') e.id = m[2];
      else if (m[1] === 'event') e.event = m[2];
      else if (m[1] === 'data') data.push(m[2]!);
    }
    try {
      e.data = JSON.parse(data.join('\n'));
    } catch {
      e.data = data.join('\n');
    }
    return e;
  });
}

// ----------------------------------------------------------------------------------------------- DPoP on conversation paths

test(...check({
  id: 'conversations.scheme.no-token',
  title: 'under /assistant/conversations a request without a token is 401 invalid_token with a DPoP challenge and no Bearer challenge',
  clauses: ['AUTH-SCHEME-1', 'END-PUBLIC-19'],
  requires: ['assistants'],
}, async (shop) => {
  // Methods are not shown: a probe the target does not route may be 404/405; every 401 must be in the DPoP scheme only.
  const probes: [string, string][] = [['POST', COLLECTION], ['GET', COLLECTION], ['GET', `${COLLECTION}/${fresh('conv')}`], ['POST', `${COLLECTION}/${fresh('conv')}/messages`]];
  let seen = 0;
  for (const [method, path] of probes) {
    const res = await shop.http.request(method, path, method === 'POST' ? { json: { mode: 'direct', text: 'hello' } } : {});
    if (res.status !== 401) continue;
    seen++;
    inCase(`${method} ${path} without a token`, () => {
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
      expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause: 'AUTH-SCHEME-1' });
      expectDpopOnly(res, 'AUTH-SCHEME-1');
    });
  }
  if (seen === 0) fail('requests under /assistant/conversations without a token', 'at least one 401 (authentication required)', 'none', 'END-PUBLIC-19');
}));

test(...check({
  id: 'conversations.scheme.bearer',
  title: 'under /assistant/conversations a Bearer token is never enough: the assistant\'s own token as Bearer is 401 invalid_token (DPoP challenge); a customer Bearer token is refused',
  clauses: ['END-PUBLIC-19', 'AUTH-SCHEME-1', 'ERR-TABLE-3'],
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const asBearer = await shop.http.post(COLLECTION, { token: agent.token, json: { mode: 'direct' } });
  inCase('the assistant token as Bearer', () => {
    expectProblem(asBearer, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-3' });
    expectChallenge(asBearer, { scheme: 'DPoP', error: 'invalid_token', clause: 'ERR-TABLE-3' });
    expectDpopOnly(asBearer, 'AUTH-SCHEME-1');
  });
  const customer = await shop.mint.customer({ sub: shop.subject('cust') });
  const asCustomer = await shop.http.post(COLLECTION, { token: customer, json: { mode: 'direct' } });
  inCase('a customer Bearer token', () => {
    if (asCustomer.status !== 401 && asCustomer.status !== 403) fail('status', '401 or 403', show(asCustomer), 'END-PUBLIC-19');
    expectProblem(asCustomer, { status: asCustomer.status, error: String(asCustomer.body?.error ?? '<missing>'), docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
    if (asCustomer.headers.get('www-authenticate') !== null) expectDpopOnly(asCustomer, 'AUTH-SCHEME-1');
  });
  // The same assistant with DPoP and a proof is admitted: the refusals above are the scheme's, not the session's.
  const { res } = await agent.post(COLLECTION, { json: { mode: 'direct' } });
  if (res.status === 401 || res.status === 403) fail('the same assistant with DPoP and a proof', 'admitted (not 401/403)', show(res), 'END-PUBLIC-19');
}));

// ------------------------------------------------------------------------------------------------------------ the routes

test(...check({
  id: 'conversations.round-trip.reference',
  title: 'a signed-in DPoP session opens (201, Location), writes (201), reads, lists and closes (200) a conversation; another session gets 404 not_found',
  clauses: ['END-PUBLIC-19', 'END-CONV-1', 'END-CONV-2', 'END-CONV-9', 'AUTH-ORDER-4'],
  level: 'reference',
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { id, res: opened } = await openConversation(agent, 'direct');
  expectStatus(opened, 201, { clause: 'END-CONV-1' });
  if (opened.headers.get('location') !== `${COLLECTION}/${id}`) fail('Location of the new conversation', `${COLLECTION}/${id}`, opened.headers.get('location'), 'END-CONV-2');
  expectNoStore(opened, { clause: 'END-CONV-9' });
  if (!opened.headers.get('dpop-nonce')) fail('DPoP-Nonce on a success', 'present', null, 'AUTH-ORDER-4');
  if (opened.body?.status !== 'open' || opened.body?.mode !== 'direct') fail('the new conversation', '{ mode: direct, status: open }', opened.body, 'END-PUBLIC-19');

  const wrote = (await agent.post(`${COLLECTION}/${id}/messages`, { json: { text: 'Hello, store.' } })).res;
  expectStatus(wrote, 201, { clause: 'END-CONV-1' });
  if (wrote.body?.author !== 'assistant' || wrote.body?.text !== 'Hello, store.') fail('the written message', '{ author: assistant, text }', wrote.body, 'END-PUBLIC-19');

  const read = (await agent.get(`${COLLECTION}/${id}`)).res;
  expectStatus(read, 200, { clause: 'END-PUBLIC-19' });
  expectNoStore(read, { clause: 'END-CONV-9' });
  const texts = Array.isArray(read.body?.messages) ? read.body.messages.map((m: { text?: unknown }) => m.text) : read.body;
  if (JSON.stringify(texts) !== JSON.stringify(['Hello, store.'])) fail('messages of the conversation', ['Hello, store.'], texts, 'END-PUBLIC-19');

  const list = (await agent.get(COLLECTION)).res;
  expectStatus(list, 200, { clause: 'END-PUBLIC-19' });
  const ids = Array.isArray(list.body?.conversations) ? list.body.conversations.map((c: { id?: unknown }) => c.id) : list.body;
  if (JSON.stringify(ids) !== JSON.stringify([id])) fail('the session\'s conversations', [id], ids, 'END-PUBLIC-19');

  // Conversations belong to the session: another session (of another account) sees none of them.
  const other = await AssistantAgent.create(shop);
  for (const [method, path] of [['GET', `${COLLECTION}/${id}`], ['POST', `${COLLECTION}/${id}/close`]] as const) {
    const res = (await other.request(method, path)).res;
    inCase(`${method} ${path} by another session`, () => expectProblem(res, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' }));
  }

  const closed = (await agent.post(`${COLLECTION}/${id}/close`)).res;
  expectStatus(closed, 200, { clause: 'END-PUBLIC-19' });
  if (closed.body?.status !== 'closed') fail('status after close', 'closed', closed.body?.status, 'END-PUBLIC-19');
}));

test(...check({
  id: 'conversations.direct-open',
  title: 'a second open direct conversation of a session is refused with direct_conversation_open, whose conversation_id names the open one',
  clauses: ['ERR-TABLE-15', 'RES-PROBLEM-12'],
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'direct');
  const { res } = await agent.post(COLLECTION, { json: { mode: 'direct' } });
  // The spec names the code, not the status: any 4xx problem document with the code.
  if (res.status < 400 || res.status > 499) fail('a second direct conversation', 'refused (4xx)', show(res), 'ERR-TABLE-15');
  expectProblem(res, { status: res.status, error: 'direct_conversation_open', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-15' });
  if (res.body?.conversation_id !== id) fail('problem "conversation_id"', id, res.body?.conversation_id, 'RES-PROBLEM-12');
}));

test(...check({
  id: 'conversations.direct-open.reference',
  title: 'direct_conversation_open is 409 with conversation_id and Cache-Control: no-store; handoff conversations are not limited; once closed, a new direct one opens',
  clauses: ['ERR-TABLE-15', 'RES-PROBLEM-12', 'END-CONV-9'],
  level: 'reference',
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'direct');
  const second = (await agent.post(COLLECTION, { json: { mode: 'direct' } })).res;
  expectProblem(second, { status: 409, error: 'direct_conversation_open', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-15' });
  if (second.body?.conversation_id !== id) fail('problem "conversation_id"', id, second.body?.conversation_id, 'RES-PROBLEM-12');
  expectNoStore(second, { clause: 'END-CONV-9' });
  for (let i = 0; i < 2; i++) {
    const handoff = (await agent.post(COLLECTION, { json: { mode: 'handoff' } })).res;
    expectStatus(handoff, 201, { clause: 'ERR-TABLE-15' });
  }
  expectStatus((await agent.post(`${COLLECTION}/${id}/close`)).res, 200, { clause: 'ERR-TABLE-15' });
  const again = (await agent.post(COLLECTION, { json: { mode: 'direct' } })).res;
  expectStatus(again, 201, { clause: 'ERR-TABLE-15' });
}));

// ------------------------------------------------------------------------------------------------------ the 64 KiB cap

test(...check({
  id: 'conversations.write-cap',
  title: 'a conversation write of 64 KiB + 1 byte (Content-Length 65537) is refused with a problem document; one of exactly 64 KiB is not refused for its size',
  clauses: ['LIM-CONV-1'],
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'handoff');
  const path = `${COLLECTION}/${id}/messages`;
  const cap = LIMITS.conversationWriteBytes;
  const over = (await agent.post(path, { body: messageBody(cap + 1), headers: { 'content-type': 'application/json' } })).res;
  if (over.status < 400 || over.status > 499) fail(`a ${cap + 1}-byte conversation write`, 'refused (4xx)', show(over), 'LIM-CONV-1');
  expectProblem(over, { status: over.status, error: String(over.body?.error ?? '<missing>'), docsUrl: shop.docsUrl, clause: 'LIM-CONV-1' });
  const fits = (await agent.post(path, { body: messageBody(cap), headers: { 'content-type': 'application/json' } })).res;
  if (fits.status === 413 || fits.body?.error === over.body?.error) fail(`a ${cap}-byte conversation write`, 'not refused for its size', show(fits), 'LIM-CONV-1');
}));

test(...check({
  id: 'conversations.write-cap.reference',
  title: 'over 64 KiB by Content-Length is 413 payload_too_large, answered on the declared length before the body is read; 64 KiB exactly is written (201)',
  clauses: ['LIM-CONV-1'],
  level: 'reference',
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'handoff');
  const path = `${COLLECTION}/${id}/messages`;
  const cap = LIMITS.conversationWriteBytes;
  const over = (await agent.post(path, { body: messageBody(cap + 1), headers: { 'content-type': 'application/json' } })).res;
  expectProblem(over, { status: 413, error: 'payload_too_large', docsUrl: shop.docsUrl, clause: 'LIM-CONV-1' });
  const fits = (await agent.post(path, { body: messageBody(cap), headers: { 'content-type': 'application/json' } })).res;
  expectStatus(fits, 201, { clause: 'LIM-CONV-1' });

  // Declared 65 537 bytes, a few sent and the request left open: only the declared length can produce an answer.
  const proof = await agent.proof('POST', path);
  const headers = { authorization: `DPoP ${agent.token}`, dpop: proof, 'content-type': 'application/json', 'content-length': String(cap + 1) };
  const declared = await shop.http.request('POST', path, { headers, body: '{"text":"', hold: true, timeoutMs: 3000 }).catch(() => undefined);
  const status = declared?.status ?? 'no answer';
  if (status !== 413) fail('a declared Content-Length over 64 KiB with the body not sent', '413 at once (checked via Content-Length)', status, 'LIM-CONV-1');
}));

// --------------------------------------------------------------------------------------------------------- event streams

test(...check({
  id: 'conversations.event-stream.keep-alive',
  title: 'the conversation event stream (text/event-stream, Cache-Control: no-store) gets a keep-alive comment within 15 seconds',
  clauses: ['EVT-STREAM-1', 'LIM-STREAM-1', 'END-CONV-9'],
  requires: ['assistants'],
}, async (shop) => {
  // The one check that waits for a keep-alive: up to 15 s plus slack.
  shop.info.setTimeout(shop.info.timeout + KEEP_ALIVE_MS + 15_000);
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'handoff');
  const path = `${COLLECTION}/${id}/events`;
  const stream = await openEventStream(shop, agent, path);
  if (!isStream(stream)) {
    if (stream.status === 404 || stream.status === 405 || stream.status === 406) return notApplicable(`the target does not serve the reference's event stream GET ${COLLECTION}/{id}/events (${stream.status}); the spec does not say which endpoints stream`);
    return fail(`GET ${path}`, '200 text/event-stream', show(stream), 'EVT-STREAM-1');
  }
  try {
    expectNoStore({ headers: stream.res.headers }, { clause: 'END-CONV-9' });
    const ms = await stream.until(hasComment, KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS);
    if (ms === null) fail('a keep-alive comment on the event stream', `within ${LIMITS.eventStreamKeepAliveSeconds} s`, `none after ${((KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS) / 1000).toFixed(1)} s (read: ${JSON.stringify(stream.text().slice(-200))})`, 'EVT-STREAM-1');
    shop.info.annotations.push({ type: 'note', description: `first keep-alive comment after ${ms} ms` });
  } finally {
    stream.close();
  }
}));

test(...check({
  id: 'conversations.event-stream.reference',
  title: 'the event stream replays the conversation\'s events, carries a hub turn as it happens (`message`), and ends after the `status` event of a close',
  clauses: ['EVT-STREAM-1', 'END-PUBLIC-14', 'AUTH-ORDER-4'],
  level: 'reference',
  requires: ['assistants'],
}, async (shop) => {
  const hubSecret = shop.profile.secrets.conversationHubSecret;
  if (hubSecret === null) return notApplicable('the profile has no conversationHubSecret: the suite cannot deliver a hub turn');
  const agent = await AssistantAgent.create(shop);
  const { id } = await openConversation(agent, 'direct');
  const wrote = (await agent.post(`${COLLECTION}/${id}/messages`, { json: { text: 'Before the stream' } })).res;
  expectStatus(wrote, 201, { clause: 'EVT-STREAM-1' });
  const stream = await openEventStream(shop, agent, `${COLLECTION}/${id}/events`);
  if (!isStream(stream)) return fail('the event stream', '200 text/event-stream', show(stream), 'EVT-STREAM-1');
  try {
    if (!stream.res.headers.get('dpop-nonce')) fail('DPoP-Nonce on the event stream', 'present', null, 'AUTH-ORDER-4');
    if ((await stream.until((t) => eventsOf(t).length >= 1, 3000)) === null) fail('the replayed message', 'an event', stream.text(), 'EVT-STREAM-1');
    const first = eventsOf(stream.text())[0]!;
    if (first.event !== 'message' || first.id !== String(wrote.body?.seq)) fail('the replayed event', `message with id ${wrote.body?.seq}`, first, 'EVT-STREAM-1');

    const turn = await shop.http.post(`/internal/conversations/${id}/turn`, { token: hubSecret, json: { turn_id: fresh('turn'), author: 'agent', text: 'Hello from the store' } });
    expectStatus(turn, 202, { clause: 'END-PUBLIC-14' });
    const withTurn = await stream.until((t) => eventsOf(t).some((e) => (e.data as { author?: unknown })?.author === 'agent'), 3000);
    if (withTurn === null) fail('the hub turn on the stream', 'a message event by agent', stream.text(), 'EVT-STREAM-1');

    expectStatus((await agent.post(`${COLLECTION}/${id}/close`)).res, 200, { clause: 'EVT-STREAM-1' });
    const ended = await stream.until((t) => eventsOf(t).some((e) => e.event === 'status'), 3000);
    if (ended === null) fail('the status event of the close', 'event: status', stream.text(), 'EVT-STREAM-1');
    const status = eventsOf(stream.text()).find((e) => e.event === 'status')!;
    if ((status.data as { status?: unknown })?.status !== 'closed') fail('data of the status event', { status: 'closed' }, status.data, 'EVT-STREAM-1');
  } finally {
    stream.close();
  }
}));

// ---------------------------------------------------------------------------------------------------- browser sessions

/** The reference's browser-session artifact (docs/assistants.md): `asb1.<sid>.<base64url HMAC-SHA-256(WEB_SESSION_CONTEXT_KEY, "asb1.<sid>")>`. */
function browserSession(shop: Shop, sessionId: string): string {
  const mac = createHmac('sha256', shop.profile.secrets.webSessionContextKey).update(`asb1.${sessionId}`, 'utf8').digest('base64url');
  return `asb1.${sessionId}.${mac}`;
}

test(...check({
  id: 'conversations.browser-session.reference',
  title: 'an assistant browser session (web agent forwarder + Assistant-Browser-Session) is refused on conversation routes with 403 caller_not_allowed, before the body is validated, while the cart admits it',
  clauses: ['AUTH-ORDER-7', 'AUTH-ORDER-1'],
  level: 'reference',
  requires: ['assistants'],
}, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const forwarder = await shop.mint.invitedAgentForwarder();
  const headers = { 'assistant-browser-session': browserSession(shop, agent.identity.sessionId) };
  const cart = await shop.http.get('/v1/cart', { token: forwarder, headers });
  if (cart.status !== 200) return notApplicable(`the target does not admit the reference's browser-session artifact on GET /v1/cart (${cart.status})`);
  const { id } = await openConversation(agent, 'handoff');
  const cases: [string, string, unknown][] = [
    ['POST', COLLECTION, { mode: 'direct' }],
    // An invalid body: the refusal of the actor stage comes before input validation.
    ['POST', COLLECTION, { mode: 'not-a-mode', extra: true }],
    ['GET', `${COLLECTION}/${id}`, undefined],
    ['GET', `${COLLECTION}/${id}/events`, undefined],
  ];
  for (const [method, path, json] of cases) {
    const res = await shop.http.request(method, path, { token: forwarder, headers, ...(json !== undefined ? { json } : {}) });
    inCase(`${method} ${path} from a browser session`, () => expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-7' }));
  }
}));
