// Spec part 4, Endpoints > Public and special routes, for the conversation write routes (`/assistant/conversations...`) and
// their row of Limits: 64 KiB, checked via `Content-Length`.
//
// Levels. The spec shows neither the methods nor the payloads of the conversation routes. The spec-level check drives the
// target's own routes and bodies, learned from its description documents (openConversation, postConversationMessage),
// and judges only what the spec says. The status of the refusal (413) and the answer on the declared length alone are
// the reference's.
//
// Data. Every check provisions its own assistant session (conformance/checks/_shared/assistant.ts): nothing is shared between checks.
import { check, test } from '../engine/runner/check.js';
import { AssistantAgent } from './_shared/assistant.js';
import { brief, expectProblem, expectStatus, fail, expect4xx } from '../lib/assert.js';
import { LIMITS } from '../../contract/limits.js';
import { COLLECTION, conversationRoute, messageBody, openConversation } from './_shared/open-conversation.js';

test(
  ...check(
    {
      id: 'endpoints.conversations.write-cap',
      title:
        'a conversation write of 64 KiB + 1 byte (Content-Length 65537) is refused with a problem document; one of exactly 64 KiB is not refused for its size',
      clauses: ['LIM-CONV-1'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { id } = await openConversation(agent);
      const { method, path } = conversationRoute('postConversationMessage', id);
      const cap = LIMITS.conversationWriteBytes;
      const over = (await agent.request(method, path, { body: messageBody(cap + 1), headers: { 'content-type': 'application/json' } })).res;
      expect4xx(over, { what: `a ${cap + 1}-byte conversation write`, clause: 'LIM-CONV-1' });
      expectProblem(over, {
        status: over.status,
        error: String(over.body?.error ?? '<missing>'),
        docsUrl: shop.docsUrl,
        clause: 'LIM-CONV-1',
      });
      const fits = (await agent.request(method, path, { body: messageBody(cap), headers: { 'content-type': 'application/json' } })).res;
      if (fits.status === 413 || fits.body?.error === over.body?.error)
        fail(`a ${cap}-byte conversation write`, 'not refused for its size', brief(fits), { clause: 'LIM-CONV-1' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conversations.write-cap.reference',
      title:
        'over 64 KiB by Content-Length is 413 payload_too_large, answered on the declared length before the body is read; 64 KiB exactly is written (201)',
      clauses: ['LIM-CONV-1'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
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
      const headers = {
        authorization: `DPoP ${agent.token}`,
        dpop: proof,
        'content-type': 'application/json',
        'content-length': String(cap + 1),
      };
      const declared = await shop.http
        .request('POST', path, { headers, body: '{"text":"', hold: true, timeoutMs: 3000 })
        .catch(() => undefined);
      const status = declared?.status ?? 'no answer';
      if (status !== 413)
        fail('a declared Content-Length over 64 KiB with the body not sent', '413 at once (checked via Content-Length)', status, {
          clause: 'LIM-CONV-1',
        });
    },
  ),
);
