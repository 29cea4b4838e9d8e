// Spec part 5, Authentication > Challenge scheme and Request processing order, on the conversation routes, which take
// "DPoP plus live session admission" (Endpoints > Public and special routes): every challenge there is in the DPoP scheme,
// no Bearer credential is enough, and the conversation variant of the actor stage refuses an assistant's browser session.
// Every check provisions its own assistant session.
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { AssistantAgent, signOutSession } from './_shared/assistant.js';
import { errorOf } from '../lib/expect/dpop.js';
import { expectChallenge, expectProblem, expectStatus, expectSuccess, inCase, is2xx } from '../lib/assert.js';
import { freshId } from '../lib/fresh-id.js';
import { OPERATIONS } from '../../contract/operations.js';
import { conversationRoute, messageOf, openBody, sendConversation } from './_shared/open-conversation.js';
import { expectDpopChallengesOnly } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import { forwardedBrowserHeaders } from './_shared/artifact-headers.js';
import { CONVERSATIONS_PATH } from '../../contract/routes.js';

/** The assistant's own DPoP request on a conversation route: listConversations where described, else openConversation. */
const admitConversation = (agent: AssistantAgent) =>
  learned().has('listConversations')
    ? sendConversation(agent, 'listConversations')
    : sendConversation(agent, 'openConversation', undefined, openBody());

/** A signed-out session refused on a conversation route: 403 sign_in_required with `DPoP error="sign_in_required"`. */
function expectSignedOutRefusal(shop: Shop, res: ShopResponse): void {
  expectProblem(res, { status: 403, error: 'sign_in_required', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
  expectChallenge(res, { scheme: 'DPoP', error: 'sign_in_required', clause: 'ERR-TABLE-10' });
}

/** The conversation operations of the contract that the target's documents describe. */
const conversationOperations = (): string[] =>
  OPERATIONS.filter((op) => op.group === 'conversation' && learned().has(op.operationId)).map((op) => op.operationId);

test(
  ...check(
    {
      id: 'authentication.dpop.conversations.scheme',
      title:
        "on /assistant/conversations every challenge is in the DPoP scheme and no Bearer credential is enough; the assistant's own DPoP session is admitted",
      clauses: ['AUTH-SCHEME-1', 'END-PUBLIC-19', 'ERR-TABLE-10'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const customer = await customerToken(shop);
      const forwarder = await shop.mint.mcpAgentForwarder();
      const credentials: [string, Record<string, string>, boolean][] = [
        // [what, headers, must be a 401 invalid_token]
        ['no token', {}, true],
        ['a garbage Bearer token', { authorization: 'Bearer abc.def.ghi' }, true],
        ['the assistant token as Bearer', { authorization: `Bearer ${agent.token}` }, true],
        ['a customer Bearer token', { authorization: `Bearer ${customer}` }, false],
        [
          'the MCP forwarder with the assistant token in Assistant-Subject',
          { authorization: `Bearer ${forwarder}`, 'assistant-subject': agent.token },
          false,
        ],
      ];
      // The target's conversation routes (its description documents; methods and sub-paths are not shown by the spec), on a
      // conversation id nobody has: every credential here is refused before the id is looked up.
      const id = freshId('conv');
      const routes = conversationOperations().map((opId) => {
        const { method, path } = conversationRoute(opId, id);
        const json = opId === 'openConversation' ? openBody() : opId === 'postConversationMessage' ? messageOf('probe') : undefined;
        return [method, path, json] as const;
      });
      // Every credential is refused and nothing is written: each route and credential is a case of its own.
      const pairs = routes.flatMap((route) => credentials.map((credential) => [route, credential] as const));
      await judgeCases(pairs, async ([[method, path, json], [what, headers, unauthenticated]]) => {
        const res = await shop.http.request(method, path, { headers, ...(json !== undefined ? { json } : {}) });
        inCase(`${method} ${path} with ${what}`, () => {
          expectStatus(res, [401, 403], { what: 'refused (a Bearer credential is never enough)', clause: 'END-PUBLIC-19' });
          expectProblem(res, { status: res.status, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
          if (unauthenticated) expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-1' });
          expectDpopChallengesOnly(res, { clause: 'AUTH-SCHEME-1' });
        });
      });
      // DPoP plus live session admission: the assistant's own signed-in session is let in. Once the proxy signed the session
      // out, the spec's account-action rule does not name conversations: a target may admit a signed-out session there, or
      // refuse it as not signed in (403 sign_in_required, DPoP challenge); the reference's refusal is judged at its level.
      const listed = (await admitConversation(agent)).res;
      expectSuccess(listed, { what: 'the assistant lists its conversations with DPoP', clause: 'END-PUBLIC-19' });
      await signOutSession(shop, agent.identity);
      const stale = (await admitConversation(agent)).res;
      inCase('the same token after the session signed out', () => {
        if (is2xx(stale)) return;
        expectSignedOutRefusal(shop, stale);
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.conversations.browser-session',
      title: 'an assistant browser session (web agent forwarder) admitted on /v1/cart is refused on /assistant/conversations',
      clauses: ['AUTH-ORDER-7', 'AUTH-CRED-8'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const headers = await forwardedBrowserHeaders(shop, agent.identity.sessionId);
      // A read and refusals that write nothing: the control first, then each conversation request a case of its own.
      const routes = conversationOperations()
        .filter((o) => o === 'listConversations' || o === 'openConversation')
        .map((opId) => ({ opId, ...conversationRoute(opId) }));
      expectSuccess(await shop.http.get('/v1/cart', { headers }), {
        what: 'control: the browser session on getCart',
        clause: 'AUTH-CRED-8',
      });
      await judgeCases(routes, async ({ opId, method, path }) => {
        const res = await shop.http.request(method, path, { headers, ...(opId === 'openConversation' ? { json: openBody() } : {}) });
        inCase(`${method} ${path}`, () => {
          expectStatus(res, [401, 403], { what: 'refused', clause: 'AUTH-ORDER-7' });
          expectProblem(res, { status: res.status, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-7' });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.conversations.browser-session.reference',
      title: 'an assistant browser session on /assistant/conversations is 403 caller_not_allowed',
      clauses: ['AUTH-ORDER-7'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const headers = await forwardedBrowserHeaders(shop, agent.identity.sessionId);
      expectProblem(await shop.http.get(CONVERSATIONS_PATH, { headers }), {
        status: 403,
        error: 'caller_not_allowed',
        docsUrl: shop.docsUrl,
        clause: 'AUTH-ORDER-7',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.conversations.signed-out.reference',
      title: 'an assistant token whose session the proxy signed out is 403 sign_in_required on /assistant/conversations',
      clauses: ['END-PUBLIC-19', 'ERR-TABLE-10'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      expectSuccess((await admitConversation(agent)).res, { what: 'control: the signed-in session', clause: 'END-PUBLIC-19' });
      await signOutSession(shop, agent.identity);
      expectSignedOutRefusal(shop, (await admitConversation(agent)).res);
    },
  ),
);
