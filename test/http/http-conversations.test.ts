// Assistant conversations over HTTP (docs/conversations.md): DPoP plus live session admission, the routes, the 64 KiB cap on
// conversation writes, the event stream and its keep-alive, the hub's internal routes. Keep-alives are every 50 ms here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { startReference, bearer, type Harness } from '../helpers/reference.js';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { expectChallenge, expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { activeConversationSubscriptions } from '../../reference/src/store/conversations.js';
import { formatEvent, KEEP_ALIVE_COMMENT, openEventStream, type EventStream } from '../../reference/src/sse.js';
import { parseLastEventId } from '../../reference/src/routes/conversations.js';
import { conversationWriteCapStage } from '../../reference/src/pipeline/01-body-readers.js';
import { requestStage } from '../../reference/src/pipeline/01-request.js';
import { boundary } from '../../reference/src/boundary.js';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ASSISTANT_BROWSER_SESSION_HEADER, signBrowserSession } from '../../reference/src/admission/assistant.js';

type Res = Awaited<ReturnType<Harness['call']>>;

const KEEP_ALIVE_MS = 50;
const ALL = ['assistant:read', 'assistant:write', 'checkout'];

let h: Harness;
before(async () => (h = await startReference({ overrides: { eventStreamKeepAliveMs: KEEP_ALIVE_MS } })));
after(() => h.close());

const proxy = () => ({ 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! });
const hub = () => bearer(h.profile.secrets.conversationHubSecret!);
const fresh = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** One assistant: a session signed in to an account (reported by the proxy), a DPoP key, a bound token, the last nonce. */
interface Agent {
  sub: string;
  sid: string;
  key: DpopKey;
  token: string;
  nonce?: string;
}

async function signedInAgent(o: { sub?: string } = {}): Promise<Agent> {
  const sub = o.sub ?? fresh('cust_conv');
  const sid = fresh('sess');
  const res = await h.call('/internal/assistant/agents/connected', {
    method: 'POST',
    headers: proxy(),
    json: { subject: sub, agent_id: fresh('agent'), client_id: 'conv-client', permissions: ALL, session_id: sid },
  });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  const key = await createDpopKey();
  return { sub, sid, key, token: await h.minter.assistant({ sub, sid, jkt: key.thumbprint }) };
}

async function signedOutAgent(): Promise<Agent> {
  const sid = fresh('sess');
  const res = await h.call('/internal/assistant/sessions/signed-out', {
    method: 'POST',
    headers: proxy(),
    json: { session_id: sid, client_id: 'conv-client', scopes: [] },
  });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  const key = await createDpopKey();
  const sub = fresh('cust_conv');
  return { sub, sid, key, token: await h.minter.assistant({ sub, sid, jkt: key.thumbprint }) };
}

async function dpopHeaders(a: Agent, method: string, path: string): Promise<Record<string, string>> {
  const htu = h.url + path.split('?')[0];
  const proof = await dpopProof({ key: a.key, htm: method, htu, accessToken: a.token, ...(a.nonce ? { nonce: a.nonce } : {}) });
  return { authorization: `DPoP ${a.token}`, dpop: proof };
}

/** An assistant request with a fresh proof; a `use_dpop_nonce` answer is retried once with the nonce it gave. */
async function call(
  a: Agent,
  method: string,
  path: string,
  init: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Res> {
  for (let attempt = 0; ; attempt++) {
    const headers = { ...(await dpopHeaders(a, method, path)), ...init.headers };
    const res = await h.call(path, {
      method,
      headers,
      ...(init.json !== undefined ? { json: init.json } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const nonce = res.headers.get('dpop-nonce');
    if (nonce) a.nonce = nonce;
    if (attempt === 0 && res.status === 401 && res.body?.error === 'use_dpop_nonce') continue;
    return res;
  }
}

async function openConversation(a: Agent, mode: 'direct' | 'handoff' = 'direct', topic?: string): Promise<string> {
  const res = await call(a, 'POST', '/assistant/conversations', { json: { mode, ...(topic ? { topic } : {}) } });
  assert.equal(res.status, 201, res.text);
  return res.body.id as string;
}

/** Sends the head of a POST declaring `declared` bytes and only a few of them; resolves with the raw answer (or rejects after 2 s). */
function partialPost(base: string, path: string, headers: Record<string, string>, declared: number): Promise<string> {
  const url = new URL(base);
  return new Promise<string>((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname, () => {
      const lines = Object.entries({ host: url.host, 'content-type': 'application/json', ...headers, 'content-length': String(declared) })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      s.write(`POST ${path} HTTP/1.1\r\n${lines}\r\n{"text":"`);
    });
    let data = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no answer within 2 s: the body was waited for (${JSON.stringify(data)})`));
    }, 2000);
    s.on('data', (d) => {
      data += d;
      if (data.includes('\r\n\r\n')) {
        clearTimeout(timer);
        s.destroy();
        resolve(data);
      }
    });
    s.on('error', reject);
  });
}

/** A request body of exactly `bytes` bytes: a valid message padded with JSON whitespace. */
function bodyOfSize(bytes: number): string {
  const core = JSON.stringify({ text: 'padded message' });
  assert.ok(bytes >= core.length);
  return core.slice(0, -1) + ' '.repeat(bytes - core.length) + '}';
}

// ------------------------------------------------------------------------------------------------------- event streams

/** An open event stream read as text; `until` waits for the accumulated text to satisfy a predicate. */
interface Stream {
  status: number;
  headers: Headers;
  text(): string;
  until(predicate: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  abort(): void;
}

async function openStream(a: Agent, id: string, headers: Record<string, string> = {}): Promise<Stream> {
  const path = `/assistant/conversations/${id}/events`;
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    const res = await fetch(h.url + path, {
      headers: { ...(await dpopHeaders(a, 'GET', path)), accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    const nonce = res.headers.get('dpop-nonce');
    if (nonce) a.nonce = nonce;
    if (res.status !== 200) {
      const text = await res.text();
      if (attempt === 0 && res.status === 401 && text.includes('use_dpop_nonce')) continue;
      throw Object.assign(new Error(`event stream: ${res.status} ${text}`), { status: res.status, text });
    }
    let buffer = '';
    const waiters = new Set<() => void>();
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    const ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          for (const w of waiters) w();
        }
      } catch {
        // aborted by the test
      }
    })();
    return {
      status: res.status,
      headers: res.headers,
      text: () => buffer,
      ended,
      abort: () => controller.abort(),
      until(predicate, what, timeoutMs = 3000) {
        return new Promise((resolve, reject) => {
          const check = () => {
            if (predicate(buffer)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(buffer);
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`timed out waiting for ${what}; stream so far: ${JSON.stringify(buffer.slice(-500))}`));
          }, timeoutMs);
          waiters.add(check);
          check();
        });
      },
    };
  }
}

/** The events of a stream's text (comments dropped): `{ id, event, data }` with data parsed as JSON. */
function eventsOf(text: string): { id?: string; event?: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').some((l) => l.startsWith('data:')))
    .map((block) => {
      const e: { id?: string; event?: string; data: any } = { data: undefined };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      e.data = JSON.parse(data.join('\n'));
      return e;
    });
}

const waitUntil = async (predicate: () => boolean, what: string, timeoutMs = 2000) => {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

// --------------------------------------------------------------------------------------------------------------- tests

describe('challenges (no assistant admission needed)', () => {
  test('no token: 401 invalid_token with only `DPoP error="invalid_token", algs="ES256"`', async () => {
    for (const [method, path] of [
      ['GET', '/assistant/conversations'],
      ['POST', '/assistant/conversations'],
      ['GET', `/assistant/conversations/${fresh('conv')}`],
      ['GET', `/assistant/conversations/${fresh('conv')}/events`],
    ] as const) {
      const res = await h.call(path, { method, ...(method === 'POST' ? { json: { mode: 'direct' } } : {}) });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
      assert.equal(res.headers.get('www-authenticate'), 'DPoP error="invalid_token", algs="ES256"', `${method} ${path}`);
      expectNoStore(res);
    }
  });

  test('a garbage token as Bearer is answered in the DPoP scheme', async () => {
    const res = await h.call('/assistant/conversations', { headers: bearer('abc.def.ghi') });
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    assert.equal(res.headers.get('www-authenticate'), 'DPoP error="invalid_token", algs="ES256"');
  });

  test('the event-stream writer: field lines, multi-line data, the keep-alive comment', () => {
    assert.equal(formatEvent({ id: 3, event: 'message', data: { a: 1 } }), 'id: 3\nevent: message\ndata: {"a":1}\n\n');
    assert.equal(formatEvent({ data: 'two\nlines' }), 'data: two\ndata: lines\n\n');
    assert.equal(formatEvent({ id: 'x\ny', event: 'e\rv', data: 'd' }), 'id: xy\nevent: ev\ndata: d\n\n');
    assert.equal(KEEP_ALIVE_COMMENT, ': keep-alive\n\n');
    assert.equal(parseLastEventId(undefined), 0);
    assert.equal(parseLastEventId(' 7 '), 7);
    assert.equal(parseLastEventId('-1'), 0);
    assert.equal(parseLastEventId('abc'), 0);
  });

  test('the event-stream writer opens with a keep-alive comment at once, not a beat (15 s here) later', async () => {
    const app = express();
    let opened: EventStream | undefined;
    app.get('/s', (_req, res) => {
      opened = openEventStream(res, { keepAliveMs: 15_000 });
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const controller = new AbortController();
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/s`, { signal: controller.signal });
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const reader = res.body!.getReader();
      // The first read resolves with the comment, long before the 15 s beat (the test's own timeout is far shorter).
      const first = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no comment within 5 s of the head')), 5000).unref()),
      ]);
      assert.equal(new TextDecoder().decode(first.value), KEEP_ALIVE_COMMENT);
    } finally {
      controller.abort();
      opened?.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('the Content-Length cap stage answers 413 on the declared length alone, before decoding reads anything', async () => {
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const app = express();
    let reached = 0;
    app.use(requestStage(log));
    app.post('/w', conversationWriteCapStage(), express.json({ limit: 256 * 1024 }), (_req, res) => {
      reached++;
      res.status(201).end();
    });
    app.use(boundary(h.profile.docsUrl, log));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const raw = await partialPost(base, '/w', {}, 64 * 1024 + 1);
      assert.match(raw, /^HTTP\/1\.1 413 /);
      // The rest is discarded, not left unread: closing with unread bytes would reset the connection (reference/src/drain.ts).
      assert.doesNotMatch(raw, /connection: close/i);
      assert.match(raw, /"error":"payload_too_large"/);
      const fits = await fetch(`${base}/w`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodyOfSize(64 * 1024),
      });
      assert.equal(fits.status, 201);
      assert.equal(reached, 1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('both description documents publish the conversation operations', async () => {
    for (const path of ['/openapi.json', '/assistant/openapi.json']) {
      const doc = (await h.call(path)).body;
      assert.ok(doc.paths['/assistant/conversations'].post, path);
      assert.equal(doc.paths['/assistant/conversations'].post.operationId, 'openConversation');
      assert.ok(doc.paths['/assistant/conversations/{id}/events'].get, path);
      assert.ok(doc.paths['/assistant/conversations/{id}/messages'].post.responses['413'], path);
      assert.ok(doc.paths['/assistant/conversations'].post.responses['409'].description.includes('direct_conversation_open'), path);
      assert.deepEqual(doc.paths['/assistant/conversations'].post['x-callers'], ['assistant']);
    }
  });

  test('hub routes: an unknown conversation is 404 not_found', async () => {
    const turn = await h.call(`/internal/conversations/${fresh('conv')}/turn`, {
      method: 'POST',
      headers: hub(),
      json: { turn_id: fresh('turn'), author: 'agent', text: 'Hello' },
    });
    expectProblem(turn, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
    const timeout = await h.call(`/internal/conversations/${fresh('conv')}/handoff-timeout`, {
      method: 'POST',
      headers: hub(),
      json: { handoff_id: fresh('ho'), timed_out_at: '2030-01-01T00:00:00Z' },
    });
    expectProblem(timeout, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
  });
});

describe('conversations (needs assistant admission)', () => {
  test('open, write, read, list and close a conversation', async () => {
    const a = await signedInAgent();
    const opened = await call(a, 'POST', '/assistant/conversations', { json: { mode: 'direct', topic: 'Where is my order?' } });
    assert.equal(opened.status, 201, opened.text);
    const id = opened.body.id as string;
    assert.match(id, /^conv_[0-9a-f]{32}$/);
    assert.equal(opened.headers.get('location'), `/assistant/conversations/${id}`);
    assert.ok(opened.headers.get('dpop-nonce'), 'every answer to a DPoP request carries a fresh nonce');
    expectNoStore(opened);
    assert.deepEqual(
      {
        mode: opened.body.mode,
        status: opened.body.status,
        topic: opened.body.topic,
        ended_at: opened.body.ended_at,
        messages: opened.body.messages,
      },
      { mode: 'direct', status: 'open', topic: 'Where is my order?', ended_at: null, messages: [] },
    );

    const wrote = await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'Hello, store.' } });
    assert.equal(wrote.status, 201, wrote.text);
    assert.equal(wrote.headers.get('location'), null);
    assert.equal(wrote.body.author, 'assistant');
    assert.equal(wrote.body.text, 'Hello, store.');

    const read = await call(a, 'GET', `/assistant/conversations/${id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body.messages.map((m: any) => [m.author, m.text, m.seq]),
      [['assistant', 'Hello, store.', wrote.body.seq]],
    );

    const list = await call(a, 'GET', '/assistant/conversations');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.conversations.map((c: any) => [c.id, c.status, c.message_count]),
      [[id, 'open', 1]],
    );

    const closed = await call(a, 'POST', `/assistant/conversations/${id}/close`);
    assert.equal(closed.status, 200, closed.text);
    assert.equal(closed.body.status, 'closed');
    assert.ok(closed.body.ended_at);
    const again = await call(a, 'POST', `/assistant/conversations/${id}/close`);
    assert.equal(again.status, 200);
    assert.equal(again.body.ended_at, closed.body.ended_at, 'closing twice changes nothing');

    const late = await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'Still there?' } });
    expectProblem(late, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    assert.equal(late.body.issues[0].code, 'conversation_not_open');
  });

  test('bodies are strict: an unknown member, a bad mode, an empty message are 400 invalid_request', async () => {
    const a = await signedInAgent();
    for (const json of [{ mode: 'direct', extra: 1 }, { mode: 'group' }, {}]) {
      expectProblem(await call(a, 'POST', '/assistant/conversations', { json }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: h.profile.docsUrl,
      });
    }
    const id = await openConversation(a, 'handoff');
    for (const json of [{ text: '' }, { text: 'x', author: 'agent' }]) {
      expectProblem(await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: h.profile.docsUrl,
      });
    }
    expectProblem(await call(a, 'GET', `/assistant/conversations/${'x'.repeat(129)}`), {
      status: 400,
      error: 'invalid_request',
      docsUrl: h.profile.docsUrl,
    });
  });

  test('a second open direct conversation is 409 direct_conversation_open naming the open one; handoffs are not limited', async () => {
    const a = await signedInAgent();
    const first = await openConversation(a, 'direct');
    const second = await call(a, 'POST', '/assistant/conversations', { json: { mode: 'direct' } });
    expectProblem(second, { status: 409, error: 'direct_conversation_open', docsUrl: h.profile.docsUrl });
    assert.equal(second.body.conversation_id, first);
    expectNoStore(second);
    await openConversation(a, 'handoff');
    await openConversation(a, 'handoff');
    // Another session of the same account has its own direct conversation.
    const b = await signedInAgent({ sub: a.sub });
    await openConversation(b, 'direct');
    // Once closed, a new direct conversation opens.
    assert.equal((await call(a, 'POST', `/assistant/conversations/${first}/close`)).status, 200);
    const third = await openConversation(a, 'direct');
    assert.notEqual(third, first);
  });

  test('conversation writes are capped at 64 KiB by Content-Length: 65 536 bytes accepted, 65 537 refused with 413', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'handoff');
    const path = `/assistant/conversations/${id}/messages`;
    const fits = await call(a, 'POST', path, { body: bodyOfSize(64 * 1024), headers: { 'content-type': 'application/json' } });
    assert.equal(fits.status, 201, fits.text);
    const over = await call(a, 'POST', path, { body: bodyOfSize(64 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expectProblem(over, { status: 413, error: 'payload_too_large', docsUrl: h.profile.docsUrl });
    const open = await call(a, 'POST', '/assistant/conversations', {
      body: JSON.stringify({ mode: 'handoff' }).slice(0, -1) + ' '.repeat(64 * 1024) + '}',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(open, { status: 413, error: 'payload_too_large', docsUrl: h.profile.docsUrl });
    const read = await call(a, 'GET', `/assistant/conversations/${id}`);
    assert.equal(read.body.messages.length, 1, 'the refused write left nothing');
  });

  test('a declared Content-Length over 64 KiB is refused before the body is read', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'handoff');
    const path = `/assistant/conversations/${id}/messages`;
    const headers = await dpopHeaders(a, 'POST', path);
    // Only a few bytes of the declared 65 537 are sent: an answer can only come from the declared length.
    const raw = await partialPost(h.url, path, headers, 64 * 1024 + 1);
    assert.match(raw, /^HTTP\/1\.1 413 /);
  });

  test('the event stream: no-store, a fresh DPoP nonce, the past events, keep-alives, a hub turn, and the end', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'direct');
    const first = await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'Before the stream' } });
    const stream = await openStream(a, id);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers.get('cache-control'), 'no-store');
      assert.ok(stream.headers.get('dpop-nonce'));
      assert.ok(stream.headers.get('x-request-id'));
      await stream.until((t) => eventsOf(t).length >= 1, 'the replayed message');
      const replayed = eventsOf(stream.text())[0]!;
      assert.deepEqual([replayed.id, replayed.event, replayed.data.text], [String(first.body.seq), 'message', 'Before the stream']);
      await stream.until((t) => t.includes(': keep-alive\n\n'), 'a keep-alive comment', 1000);
      const keepAlives = () => stream.text().split(': keep-alive\n\n').length - 1;
      const before = keepAlives();
      await stream.until(() => keepAlives() >= before + 2, 'two more keep-alives', 1000);

      const turnId = fresh('turn');
      const turn = await h.call(`/internal/conversations/${id}/turn`, {
        method: 'POST',
        headers: hub(),
        json: { turn_id: turnId, author: 'agent', text: 'Hello from the store' },
      });
      assert.equal(turn.status, 202, turn.text);
      await stream.until((t) => eventsOf(t).some((e) => e.data.author === 'agent'), 'the hub turn');
      // A repeated turn_id is accepted and adds nothing.
      assert.equal(
        (
          await h.call(`/internal/conversations/${id}/turn`, {
            method: 'POST',
            headers: hub(),
            json: { turn_id: turnId, author: 'agent', text: 'Hello from the store' },
          })
        ).status,
        202,
      );

      const mine = await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'Thanks' } });
      await stream.until((t) => eventsOf(t).some((e) => e.data.text === 'Thanks'), "the assistant's own message");
      assert.equal((await call(a, 'POST', `/assistant/conversations/${id}/close`)).status, 200);
      await stream.until((t) => eventsOf(t).some((e) => e.event === 'status'), 'the status event');
      await stream.ended;
      const events = eventsOf(stream.text());
      assert.deepEqual(
        events.map((e) => e.event),
        ['message', 'message', 'message', 'status'],
      );
      assert.deepEqual(
        events.map((e) => Number(e.id)),
        [first.body.seq, first.body.seq + 1, mine.body.seq, mine.body.seq + 1],
      );
      assert.equal(events[3]!.data.status, 'closed');
      const read = await call(a, 'GET', `/assistant/conversations/${id}`);
      assert.deepEqual(
        read.body.messages.map((m: any) => m.author),
        ['assistant', 'agent', 'assistant'],
        'the repeated turn added nothing',
      );
    } finally {
      stream.abort();
    }
  });

  test('Last-Event-ID replays only what came after it; the stream of an ended conversation replays and ends', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'handoff');
    const m1 = await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'one' } });
    await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'two' } });
    const resumed = await openStream(a, id, { 'last-event-id': String(m1.body.seq) });
    try {
      await resumed.until((t) => eventsOf(t).length >= 1, 'the event after Last-Event-ID');
      await resumed.until((t) => t.includes(': keep-alive'), 'a keep-alive');
      assert.deepEqual(
        eventsOf(resumed.text()).map((e) => e.data.text),
        ['two'],
      );
    } finally {
      resumed.abort();
    }
    const head = await call(a, 'HEAD', `/assistant/conversations/${id}/events`);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(head.text, '');
    await call(a, 'POST', `/assistant/conversations/${id}/close`);
    const ended = await openStream(a, id);
    await ended.ended;
    const all = eventsOf(ended.text());
    assert.deepEqual(
      all.map((e) => e.event),
      ['message', 'message', 'status'],
    );
    // Past the last event of an ended conversation: nothing to replay, and the stream ends all the same.
    const past = await openStream(a, id, { 'last-event-id': all[2]!.id! });
    await past.ended;
    assert.deepEqual(eventsOf(past.text()), []);
  });

  test('the stream does not outlive the access token', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'handoff');
    const short: Agent = { ...a, token: await h.minter.assistant({ sub: a.sub, sid: a.sid, jkt: a.key.thumbprint, expiresIn: 2 }) };
    const started = Date.now();
    const stream = await openStream(short, id);
    await stream.until((t) => t.includes(': keep-alive'), 'a keep-alive');
    await stream.ended;
    const ms = Date.now() - started;
    assert.ok(ms < 3500, `ended after ${ms} ms`);
  });

  test('a client that goes away releases its subscription and its timers', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'direct');
    const baseline = activeConversationSubscriptions();
    const stream = await openStream(a, id);
    await stream.until((t) => t.includes(': keep-alive'), 'a keep-alive');
    assert.equal(activeConversationSubscriptions(), baseline + 1);
    stream.abort();
    await waitUntil(() => activeConversationSubscriptions() === baseline, 'the subscription to be released');
    // The conversation still works, and a hub turn finds nobody listening without harm.
    const turn = await h.call(`/internal/conversations/${id}/turn`, {
      method: 'POST',
      headers: hub(),
      json: { turn_id: fresh('turn'), author: 'system', text: 'ping' },
    });
    assert.equal(turn.status, 202);
  });

  test('handoff-timeout ends an open handoff conversation (status event, timed_out); not a direct one; repeated is 202', async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'handoff');
    const stream = await openStream(a, id);
    try {
      const body = { handoff_id: fresh('ho'), timed_out_at: new Date().toISOString() };
      const res = await h.call(`/internal/conversations/${id}/handoff-timeout`, { method: 'POST', headers: hub(), json: body });
      assert.equal(res.status, 202, res.text);
      await stream.ended;
      const events = eventsOf(stream.text());
      assert.deepEqual(
        events.map((e) => [e.event, e.data.status]),
        [['status', 'timed_out']],
      );
      assert.equal(
        (await h.call(`/internal/conversations/${id}/handoff-timeout`, { method: 'POST', headers: hub(), json: body })).status,
        202,
      );
    } finally {
      stream.abort();
    }
    const read = await call(a, 'GET', `/assistant/conversations/${id}`);
    assert.equal(read.body.status, 'timed_out');
    assert.ok(read.body.ended_at);
    expectProblem(await call(a, 'POST', `/assistant/conversations/${id}/messages`, { json: { text: 'hello?' } }), {
      status: 400,
      error: 'invalid_request',
      docsUrl: h.profile.docsUrl,
    });
    const turn = await h.call(`/internal/conversations/${id}/turn`, {
      method: 'POST',
      headers: hub(),
      json: { turn_id: fresh('turn'), author: 'agent', text: 'late' },
    });
    expectProblem(turn, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });

    const direct = await openConversation(a, 'direct');
    const onDirect = await h.call(`/internal/conversations/${direct}/handoff-timeout`, {
      method: 'POST',
      headers: hub(),
      json: { handoff_id: fresh('ho'), timed_out_at: new Date().toISOString() },
    });
    expectProblem(onDirect, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
    // The hub routes keep their own credential.
    const wrong = await h.call(`/internal/conversations/${direct}/turn`, {
      method: 'POST',
      headers: bearer('not-the-hub-secret-at-all'),
      json: { turn_id: fresh('turn'), author: 'agent', text: 'x' },
    });
    expectProblem(wrong, { status: 401, error: 'invalid_credentials', docsUrl: h.profile.docsUrl });
  });

  test("another session's conversation is 404 not_found on every route", async () => {
    const a = await signedInAgent();
    const id = await openConversation(a, 'direct');
    for (const other of [await signedInAgent(), await signedInAgent({ sub: a.sub })]) {
      for (const [method, path, json] of [
        ['GET', `/assistant/conversations/${id}`, undefined],
        ['POST', `/assistant/conversations/${id}/messages`, { text: 'hi' }],
        ['POST', `/assistant/conversations/${id}/close`, undefined],
        ['GET', `/assistant/conversations/${id}/events`, undefined],
      ] as const) {
        expectProblem(await call(other, method, path, json !== undefined ? { json } : {}), {
          status: 404,
          error: 'not_found',
          docsUrl: h.profile.docsUrl,
        });
      }
      assert.deepEqual((await call(other, 'GET', '/assistant/conversations')).body.conversations, []);
    }
    assert.equal((await call(a, 'GET', `/assistant/conversations/${id}`)).body.status, 'open', 'nobody else closed it');
  });

  test('the assistant token sent as Bearer is 401 invalid_token with a DPoP challenge', async () => {
    const a = await signedInAgent();
    const res = await h.call('/assistant/conversations', { headers: bearer(a.token) });
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token' });
    assert.ok(!/Bearer/i.test(res.headers.get('www-authenticate') ?? ''), 'no Bearer challenge');
  });

  test('a customer token is never enough: refused, any challenge in the DPoP scheme', async () => {
    const token = await h.minter.customer({ sub: fresh('cust') });
    for (const headers of [bearer(token), { authorization: `DPoP ${token}` }]) {
      const res = await h.call('/assistant/conversations', { headers });
      assert.ok(res.status === 401 || res.status === 403, res.text);
      assert.ok(!/Bearer/i.test(res.headers.get('www-authenticate') ?? ''), res.headers.get('www-authenticate') ?? '');
    }
  });

  test('a signed-out session is 403 sign_in_required in the DPoP scheme', async () => {
    const a = await signedOutAgent();
    const res = await call(a, 'POST', '/assistant/conversations', { json: { mode: 'direct' } });
    expectProblem(res, { status: 403, error: 'sign_in_required', docsUrl: h.profile.docsUrl });
    expectChallenge(res, { scheme: 'DPoP', error: 'sign_in_required' });
  });

  test('an assistant browser session (web agent forwarder) is refused on conversation routes', async () => {
    const a = await signedInAgent();
    const forwarder = await h.minter.invitedAgentForwarder();
    const res = await h.call('/assistant/conversations', {
      headers: {
        ...bearer(forwarder),
        [ASSISTANT_BROWSER_SESSION_HEADER]: signBrowserSession(a.sid, h.profile.secrets.webSessionContextKey),
      },
    });
    expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: h.profile.docsUrl });
    // The same browser session is admitted elsewhere (the cart), so the refusal is the conversation variant's.
    const cart = await h.call('/v1/cart', {
      headers: {
        ...bearer(forwarder),
        [ASSISTANT_BROWSER_SESSION_HEADER]: signBrowserSession(a.sid, h.profile.secrets.webSessionContextKey),
      },
    });
    assert.equal(cart.status, 200, cart.text);
  });

  test('an assistant forwarded by the MCP agent forwarder is refused: a Bearer channel is not DPoP', async () => {
    const a = await signedInAgent();
    const forwarder = await h.minter.mcpAgentForwarder();
    const res = await h.call('/assistant/conversations', { headers: { ...bearer(forwarder), 'assistant-subject': a.token } });
    assert.ok(res.status === 401 || res.status === 403, res.text);
    assert.ok(!/Bearer/i.test(res.headers.get('www-authenticate') ?? ''));
    // The guard refuses before input validation: an invalid body changes nothing.
    const invalid = await h.call('/assistant/conversations', {
      method: 'POST',
      headers: { ...bearer(forwarder), 'assistant-subject': a.token },
      json: { mode: 'sideways', extra: 1 },
    });
    assert.equal(invalid.status, 403, invalid.text);
    assert.equal(invalid.body.error, 'caller_not_allowed');
  });
});
