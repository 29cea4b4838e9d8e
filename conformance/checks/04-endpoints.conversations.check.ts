// Spec part 4, Endpoints > Public and special routes: `/assistant/conversations...` ("DPoP plus live session admission"),
// with what other parts say about them: the challenge scheme of conversation paths (Authentication > Challenge scheme), the
// conversation variant of the actor stage that refuses browser sessions (Request processing order), and
// `direct_conversation_open` with `conversation_id` (Errors; Resources > Problem document). The 64 KiB write cap and the
// event streams have files of their own (04-endpoints.conversations.write-cap, 04-endpoints.conversations.event-stream).
//
// Levels. The spec shows neither the methods nor the payloads of the conversation routes, nor which endpoints stream. The
// spec-level checks that need a conversation drive the reference's routes (docs/conversations.md: POST
// /assistant/conversations `{ mode }`, POST …/{id}/messages `{ text }`, GET …/{id}/events) and judge only what the spec
// says; when the target does not serve those routes they end as not applicable, with the reason. Exact statuses the spec
// leaves open (409 for direct_conversation_open, 403 caller_not_allowed for a browser session) and the browser-session
// artifact (web agent forwarder plus `Assistant-Browser-Session`) are the reference's, judged at the reference level.
//
// Data. Every check provisions its own assistant session (conformance/checks/_shared/assistant.ts): nothing is shared between checks.
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { check, notApplicable, test } from '../engine/runner/check.js';
import { AssistantAgent, browserSession } from './_shared/assistant.js';
import {
  brief,
  expectChallenge,
  expectDpopNonce,
  expectNoStore,
  expectProblem,
  expectStatus,
  fail,
  inCase,
  expectSameJson,
  expect4xx,
} from '../lib/assert.js';
import { freshId } from '../lib/fresh-id.js';
import { expectDpopChallengesOnly } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import {
  COLLECTION,
  conversationRoute,
  directOpenBody,
  openBody,
  openConversation,
  sendConversation,
} from './_shared/open-conversation.js';
import { browserArtifact } from './_shared/artifact-headers.js';
import { locationOf } from './_shared/location.js';

// ----------------------------------------------------------------------------------------------- DPoP on conversation paths

test(
  ...check(
    {
      id: 'endpoints.conversations.scheme.no-token',
      title: 'under /assistant/conversations a request without a token is 401 invalid_token with a DPoP challenge and no Bearer challenge',
      clauses: ['AUTH-SCHEME-1', 'END-PUBLIC-19'],
      requires: ['assistants'],
    },
    async (shop) => {
      // Methods are not shown: a probe the target does not route may be 404/405; every 401 must be in the DPoP scheme only.
      const probes: [string, string][] = [
        ['POST', COLLECTION],
        ['GET', COLLECTION],
        ['GET', `${COLLECTION}/${freshId('conv')}`],
        ['POST', `${COLLECTION}/${freshId('conv')}/messages`],
      ];
      // Without a token nothing is written: a case each, judged in their order once all are in.
      const answers = await mapCases(probes, ([method, path]) =>
        shop.http.request(method, path, method === 'POST' ? { json: { mode: 'direct', text: 'hello' } } : {}),
      );
      let seen = 0;
      for (const [i, [method, path]] of probes.entries()) {
        const res = answers[i]!;
        if (res.status !== 401) continue;
        seen++;
        inCase(`${method} ${path} without a token`, () => {
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause: 'AUTH-SCHEME-1' });
          expectDpopChallengesOnly(res, { clause: 'AUTH-SCHEME-1' });
        });
      }
      if (seen === 0)
        fail('requests under /assistant/conversations without a token', 'at least one 401 (authentication required)', 'none', {
          clause: 'END-PUBLIC-19',
        });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conversations.scheme.bearer',
      title:
        "under /assistant/conversations a Bearer token is never enough: the assistant's own token as Bearer is 401 invalid_token (DPoP challenge); a customer Bearer token is refused",
      clauses: ['END-PUBLIC-19', 'AUTH-SCHEME-1', 'ERR-TABLE-3'],
      requires: ['assistants'],
    },
    async (shop) => {
      const open = conversationRoute('openConversation');
      // The customer's refused open needs nothing of the assistant: it goes beside the assistant's provisioning and its token's
      // refused use as Bearer; both are judged in turn. The assistant's own DPoP request comes after both, as before.
      const [[agent, asBearer], asCustomer] = await Promise.all([
        (async () => {
          const created = await AssistantAgent.create(shop);
          return [created, await shop.http.request(open.method, open.path, { token: created.token, json: openBody() })] as const;
        })(),
        (async () => shop.http.request(open.method, open.path, { token: await customerToken(shop), json: openBody() }))(),
      ]);
      inCase('the assistant token as Bearer', () => {
        expectProblem(asBearer, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-3' });
        expectChallenge(asBearer, { scheme: 'DPoP', error: 'invalid_token', clause: 'ERR-TABLE-3' });
        expectDpopChallengesOnly(asBearer, { clause: 'AUTH-SCHEME-1' });
      });
      inCase('a customer Bearer token', () => {
        expectStatus(asCustomer, [401, 403], { clause: 'END-PUBLIC-19' });
        expectProblem(asCustomer, {
          status: asCustomer.status,
          error: String(asCustomer.body?.error ?? '<missing>'),
          docsUrl: shop.docsUrl,
          clause: 'END-PUBLIC-19',
        });
        if (asCustomer.headers.get('www-authenticate') !== null) expectDpopChallengesOnly(asCustomer, { clause: 'AUTH-SCHEME-1' });
      });
      // The same assistant with DPoP and a proof is admitted: the refusals above are the scheme's, not the session's.
      const { res } = await agent.request(open.method, open.path, { json: openBody() });
      if (res.status === 401 || res.status === 403)
        fail('the same assistant with DPoP and a proof', 'admitted (not 401/403)', brief(res), { clause: 'END-PUBLIC-19' });
    },
  ),
);

// ------------------------------------------------------------------------------------------------------------ the routes

test(
  ...check(
    {
      id: 'endpoints.conversations.round-trip.reference',
      everyResponse: true,
      title:
        'a signed-in DPoP session opens (201, Location), writes (201), reads, lists and closes (200) a conversation; another session gets 404 not_found',
      clauses: ['END-PUBLIC-19', 'END-CONV-1', 'END-CONV-2', 'END-CONV-9', 'AUTH-ORDER-4'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { id, res: opened } = await openConversation(agent, 'direct');
      expectStatus(opened, 201, { clause: 'END-CONV-1' });
      if (locationOf(shop, opened, COLLECTION)?.path !== `${COLLECTION}/${id}`)
        fail('Location of the new conversation', `${COLLECTION}/${id}`, opened.headers.get('location'), { clause: 'END-CONV-2' });
      expectNoStore(opened, { clause: 'END-CONV-9' });
      expectDpopNonce(opened, { at: 'a success' });
      if (opened.body?.status !== 'open' || opened.body?.mode !== 'direct')
        fail('the new conversation', '{ mode: direct, status: open }', opened.body, { clause: 'END-PUBLIC-19' });

      const wrote = (await agent.post(`${COLLECTION}/${id}/messages`, { json: { text: 'Hello, store.' } })).res;
      expectStatus(wrote, 201, { clause: 'END-CONV-1' });
      if (wrote.body?.author !== 'assistant' || wrote.body?.text !== 'Hello, store.')
        fail('the written message', '{ author: assistant, text }', wrote.body, { clause: 'END-PUBLIC-19' });

      const read = (await agent.get(`${COLLECTION}/${id}`)).res;
      expectStatus(read, 200, { clause: 'END-PUBLIC-19' });
      expectNoStore(read, { clause: 'END-CONV-9' });
      const texts = Array.isArray(read.body?.messages) ? read.body.messages.map((m: { text?: unknown }) => m.text) : read.body;
      expectSameJson(texts, ['Hello, store.'], { what: 'messages of the conversation', clause: 'END-PUBLIC-19' });

      const list = (await agent.get(COLLECTION)).res;
      expectStatus(list, 200, { clause: 'END-PUBLIC-19' });
      const ids = Array.isArray(list.body?.conversations) ? list.body.conversations.map((c: { id?: unknown }) => c.id) : list.body;
      expectSameJson(ids, [id], { what: "the session's conversations", clause: 'END-PUBLIC-19' });

      // Conversations belong to the session: another session (of another account) sees none of them.
      const other = await AssistantAgent.create(shop);
      for (const [method, path] of [
        ['GET', `${COLLECTION}/${id}`],
        ['POST', `${COLLECTION}/${id}/close`],
      ] as const) {
        const res = (await other.request(method, path)).res;
        inCase(`${method} ${path} by another session`, () =>
          expectProblem(res, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' }),
        );
      }

      const closed = (await agent.post(`${COLLECTION}/${id}/close`)).res;
      expectStatus(closed, 200, { clause: 'END-PUBLIC-19' });
      if (closed.body?.status !== 'closed') fail('status after close', 'closed', closed.body?.status, { clause: 'END-PUBLIC-19' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conversations.direct-open',
      title:
        'a second open direct conversation of a session is refused with direct_conversation_open, whose conversation_id names the open one',
      clauses: ['ERR-TABLE-15', 'RES-PROBLEM-12'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { id } = await openConversation(agent, 'direct');
      const { res } = await sendConversation(agent, 'openConversation', undefined, directOpenBody());
      // The spec names the code, not the status: any 4xx problem document with the code.
      expect4xx(res, { what: 'a second direct conversation', clause: 'ERR-TABLE-15' });
      expectProblem(res, { status: res.status, error: 'direct_conversation_open', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-15' });
      // One fact stated twice: the error table's row (direct_conversation_open with `conversation_id`) and the member's rule.
      if (res.body?.conversation_id !== id)
        fail('problem "conversation_id"', id, res.body?.conversation_id, { clause: ['ERR-TABLE-15', 'RES-PROBLEM-12'] });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conversations.direct-open.reference',
      everyResponse: true,
      title:
        'direct_conversation_open is 409 with conversation_id and Cache-Control: no-store; handoff conversations are not limited; once closed, a new direct one opens',
      clauses: ['ERR-TABLE-15', 'RES-PROBLEM-12', 'END-CONV-9'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { id } = await openConversation(agent, 'direct');
      const second = (await agent.post(COLLECTION, { json: { mode: 'direct' } })).res;
      expectProblem(second, { status: 409, error: 'direct_conversation_open', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-15' });
      if (second.body?.conversation_id !== id)
        fail('problem "conversation_id"', id, second.body?.conversation_id, { clause: ['ERR-TABLE-15', 'RES-PROBLEM-12'] });
      expectNoStore(second, { clause: 'END-CONV-9' });
      for (let i = 0; i < 2; i++) {
        const handoff = (await agent.post(COLLECTION, { json: { mode: 'handoff' } })).res;
        expectStatus(handoff, 201, { clause: 'ERR-TABLE-15' });
      }
      expectStatus((await agent.post(`${COLLECTION}/${id}/close`)).res, 200, { clause: 'ERR-TABLE-15' });
      const again = (await agent.post(COLLECTION, { json: { mode: 'direct' } })).res;
      expectStatus(again, 201, { clause: 'ERR-TABLE-15' });
    },
  ),
);

// ---------------------------------------------------------------------------------------------------- browser sessions

test(
  ...check(
    {
      id: 'endpoints.conversations.browser-session.reference',
      title:
        'an assistant browser session (web agent forwarder + Assistant-Browser-Session) is refused on conversation routes with 403 caller_not_allowed, before the body is validated, while the cart admits it',
      clauses: ['AUTH-ORDER-7', 'AUTH-ORDER-1'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const forwarder = await shop.mint.invitedAgentForwarder();
      const headers = { ...browserArtifact(browserSession(shop, agent.identity.sessionId)) };
      const cart = await shop.http.get('/v1/cart', { token: forwarder, headers });
      if (cart.status !== 200)
        return notApplicable(`the target does not admit the reference's browser-session artifact on GET /v1/cart (${cart.status})`);
      const { id } = await openConversation(agent, 'handoff');
      const cases: [string, string, unknown][] = [
        ['POST', COLLECTION, { mode: 'direct' }],
        // An invalid body: the refusal of the actor stage comes before input validation.
        ['POST', COLLECTION, { mode: 'not-a-mode', extra: true }],
        ['GET', `${COLLECTION}/${id}`, undefined],
        ['GET', `${COLLECTION}/${id}/events`, undefined],
      ];
      // Every case is refused at the actor stage: cases of their own.
      await judgeCases(cases, async ([method, path, json]) => {
        const res = await shop.http.request(method, path, { token: forwarder, headers, ...(json !== undefined ? { json } : {}) });
        inCase(`${method} ${path} from a browser session`, () =>
          expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-7' }),
        );
      });
    },
  ),
);
