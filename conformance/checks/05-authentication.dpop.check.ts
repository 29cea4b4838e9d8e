// Spec part 5, Authentication > Assistant authority, with the DPoP rows of Errors: what a correct proof may vary (htu
// query, scheme case, extra members), server nonces (every answer to a DPoP request carries DPoP-Nonce), proof replay
// (refused on every instance), and where the token travels (Authorization only) and how a rejected one is answered (in the
// DPoP scheme only). The negative matrix of proofs is in 05-authentication.dpop-negatives.
//
// Levels. Where RFC 9449 lets a server answer either `invalid_dpop_proof` or `use_dpop_nonce`, spec-level checks accept
// both; the reference-level checks (ids ending in `.reference`) hold the reference to the code it documents.
import { check, learned, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { AssistantAgent, htuOf } from './_shared/assistant.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectChallenge, expectProblem, expectSuccess, fail, inCase, nonceOf } from '../lib/assert.js';
import { nowSeconds } from '../lib/jws.js';
import { CART, readyAgent, readyAgents } from './_shared/dpop-agents.js';
import { expectDpopFailure, expectNonceHeader, expectSingleDpopChallenge, PROOF_OR_NONCE } from '../lib/expect/dpop.js';

// ---------------------------------------------------------------------------------------------------------- positives

test(
  ...check(
    {
      id: 'authentication.dpop.htu-query',
      title:
        'a request with a query string is accepted with htu without the query, and with htu carrying query and fragment (RFC 9449 §4.3: ignored)',
      clauses: ['AUTH-ASST-1', 'AUTH-KIND-12'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const path = '/v1/catalog/products?limit=2';
      const cases: [string, string | undefined][] = [
        ['htu without the query', undefined],
        ['htu with the query', `${htuOf(shop, path)}?limit=2`],
        ['htu with query and fragment', `${htuOf(shop, path)}?limit=2#top`],
      ];
      // Each case on a session of its own (readyAgents: each with its newest nonce), a case of its own.
      const agents = await readyAgents(shop, cases.length, { clause: 'AUTH-ASST-1' });
      await judgeCases(cases, async ([what, htu], i) => {
        expectSuccess((await agents[i]!.get(path, htu === undefined ? {} : { proof: { htu } })).res, { what, clause: 'AUTH-ASST-1' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.tolerant',
      title: 'the DPoP scheme name is case-insensitive, and extra proof claims and header members are ignored',
      clauses: ['AUTH-ASST-1'],
      requires: ['assistants'],
    },
    async (shop) => {
      const cases: [string, Parameters<AssistantAgent['get']>[1]][] = [
        ['Authorization scheme dpop', { scheme: 'dpop' }],
        ['Authorization scheme DPOP', { scheme: 'DPOP' }],
        ['extra claims', { proof: { claims: { extra: 'ignored', exp: nowSeconds() + 60 } } }],
        ['an extra header member (kid)', { proof: { header: { kid: 'ignored' } } }],
      ];
      // Each case on a session of its own (readyAgents: each with its newest nonce), a case of its own.
      const agents = await readyAgents(shop, cases.length, { clause: 'AUTH-ASST-1' });
      await judgeCases(cases, async ([what, options], i) => {
        expectSuccess((await agents[i]!.get(CART, options)).res, { what, clause: 'AUTH-ASST-1' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.nonce',
      title:
        'a proof without a nonce is accepted or answered 401 use_dpop_nonce with a DPoP-Nonce; with that nonce it is accepted; every answer carries DPoP-Nonce',
      clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4', 'AUTH-ASST-1'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const first = (await agent.get(CART, { retryOnNonce: false })).res;
      expectNonceHeader(first, { clause: 'AUTH-ORDER-4' });
      if (first.status !== 200) {
        inCase('a proof without a nonce', () => expectDpopFailure(shop, first, ['use_dpop_nonce'], { clause: 'ERR-TABLE-4' }));
        const second = (await agent.get(CART, { proof: { nonce: nonceOf(first.headers)! }, retryOnNonce: false })).res;
        expectSuccess(second, { what: 'the same request with the DPoP-Nonce of the challenge', clause: 'ERR-TABLE-4' });
        expectNonceHeader(second, { clause: 'AUTH-ORDER-4' });
      }
      // Success and failure alike carry a nonce (AUTH-ORDER-4): a refused write too.
      const refused = (await agent.post('/v1/cart/items', { json: { variant_id: 42 } })).res;
      expectNonceHeader(refused, { clause: 'AUTH-ORDER-4' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.nonce.reference',
      title:
        'the reference requires a nonce: a proof without one is 401 use_dpop_nonce with a single DPoP challenge and DPoP-Nonce, then accepted',
      clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { res, nonceChallenge } = await agent.get(CART);
      if (!nonceChallenge) fail('a proof without a nonce', '401 use_dpop_nonce', 'accepted', { clause: 'ERR-TABLE-4' });
      inCase('a proof without a nonce', () =>
        expectDpopFailure(shop, nonceChallenge!, ['use_dpop_nonce'], { clause: 'ERR-TABLE-4', algs: true }),
      );
      expectSuccess(res, { what: 'the retry with the nonce', clause: 'ERR-TABLE-4' });
      expectNonceHeader(res, { clause: 'AUTH-ORDER-4' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.replay',
      title:
        'an accepted proof sent again is refused (401 with a DPoP challenge); of concurrent uses of one fresh proof at most one succeeds',
      clauses: ['AUTH-ASST-11', 'AUTH-ORDER-12', 'ERR-TABLE-4'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await readyAgent(shop, { clause: 'AUTH-ORDER-12' });
      // A fresh proof is accepted once: it is not refused as a replay of itself (each stage runs once).
      const accepted = await agent.get(CART, { retryOnNonce: false });
      expectSuccess(accepted.res, { what: 'a fresh proof', clause: 'AUTH-ORDER-12' });
      // On a write too (the agent's own fresh account cart): the stages of a write run once as well.
      const write = await agent.request('POST', '/v1/cart/items', { json: cartLine(), retryOnNonce: false });
      expectSuccess(write.res, { what: 'a fresh proof on a write (add a cart line)', clause: 'AUTH-ORDER-12' });
      const replay = await agent.get(CART, { headers: { dpop: accepted.proof }, proof: false, retryOnNonce: false });
      inCase('the same proof again', () => expectDpopFailure(shop, replay.res, PROOF_OR_NONCE, { clause: 'AUTH-ASST-11' }));
      // Concurrent uses of one fresh proof: the jti is recorded atomically, so at most one goes through.
      const proof = await agent.proof('GET', CART);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => agent.get(CART, { headers: { dpop: proof }, proof: false, retryOnNonce: false })),
      );
      const ok = answers.filter((a) => a.res.status >= 200 && a.res.status < 300).length;
      if (ok > 1) fail('concurrent uses of one proof that succeeded', 'at most 1', ok, { clause: 'AUTH-ASST-11' });
      for (const a of answers)
        if (a.res.status >= 300)
          inCase('a concurrent replay', () => expectDpopFailure(shop, a.res, PROOF_OR_NONCE, { clause: 'AUTH-ASST-11' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.replay.reference',
      title: 'a replayed proof is 401 invalid_dpop_proof',
      clauses: ['AUTH-ASST-11', 'ERR-TABLE-4'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await readyAgent(shop, { clause: 'AUTH-ASST-11' });
      const accepted = await agent.get(CART, { retryOnNonce: false });
      expectSuccess(accepted.res, { what: 'a fresh proof', clause: 'AUTH-ASST-11' });
      const replay = await agent.get(CART, { headers: { dpop: accepted.proof }, proof: false, retryOnNonce: false });
      expectDpopFailure(shop, replay.res, ['invalid_dpop_proof'], { clause: 'AUTH-ASST-11', algs: true });
    },
  ),
);

// ------------------------------------------------------------------------------------------------------ token carriers

test(
  ...check(
    {
      id: 'authentication.dpop.token-carriers',
      title:
        'an assistant token in the query string or a cookie is not accepted on any route (cart read and write, account read, conversations): 401 invalid_token, as with no token',
      clauses: ['AUTH-ASST-3', 'AUTH-ASST-4', 'ERR-TABLE-1'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await readyAgent(shop, { clause: 'AUTH-ASST-3' });
      // "Never in a URL or a cookie": every route group an assistant reaches, reads and writes.
      const routes: [string, string, unknown][] = [
        ['GET', CART, undefined],
        ['POST', '/v1/cart/items', cartLine()],
        ['GET', '/v1/me/profile', undefined],
      ];
      if (learned().has('listConversations')) {
        const list = learned().operation('listConversations');
        routes.push([list.method, list.path, undefined]);
      }
      // The cases do not depend on each other: none goes through the agent (its nonce stays the one of the control, as
      // when they were sent in turn) and each is refused for where its token travels. Each a case of its own.
      const cases = routes.flatMap(([method, path, json]): [string, string, () => Promise<ShopResponse>][] => {
        const proof = () => agent.proof(method, path);
        const body = json !== undefined ? { json } : {};
        return [
          [
            'AUTH-ASST-3',
            `${method} ${path}: query access_token with a proof`,
            async () =>
              shop.http.request(method, `${path}?access_token=${encodeURIComponent(agent.token)}`, {
                headers: { dpop: await proof() },
                ...body,
              }),
          ],
          [
            'AUTH-ASST-4',
            `${method} ${path}: cookie access_token with a proof`,
            async () =>
              shop.http.request(method, path, { headers: { cookie: `access_token=${agent.token}`, dpop: await proof() }, ...body }),
          ],
        ];
      });
      await judgeCases(cases, async ([clause, what, send]) => {
        const res = await send();
        inCase(what, () => {
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause });
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.dpop.token-defects',
      title: 'a malformed, expired or rejected assistant token with a correct proof is 401 invalid_token in the DPoP scheme only',
      clauses: ['AUTH-ASST-5', 'ERR-TABLE-2'],
      requires: ['assistants'],
    },
    async (shop) => {
      // Each token is minted for the session that presents it; each case on a session of its own (readyAgents: each with
      // its newest nonce), a case of its own.
      const tokens: [string, (agent: AssistantAgent) => Promise<string>][] = [
        ['expired an hour ago', (agent) => agent.mintToken({ claims: { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 } })],
        [
          'signed by a foreign key',
          async (agent) => {
            const t = await agent.mintToken();
            const [h, p] = t.split('.');
            const other = (await shop.mint.customer({ sub: shop.subject('cust') })).split('.')[2];
            return `${h}.${p}.${other}`;
          },
        ],
        ['another audience', (agent) => agent.mintToken({ claims: { aud: 'https://other.example' } })],
        ['malformed', async () => 'abc.def.ghi'],
      ];
      const agents = await readyAgents(shop, tokens.length, { clause: 'AUTH-ASST-5' });
      await judgeCases(tokens, async ([what, mint], i) => {
        const agent = agents[i]!;
        const res = (await agent.get(CART, { token: await mint(agent), retryOnNonce: false })).res;
        inCase(what, () => {
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-ASST-5' });
          expectSingleDpopChallenge(res, 'invalid_token', { clause: 'AUTH-ASST-5' });
        });
      });
    },
  ),
);
