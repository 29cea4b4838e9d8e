// Spec part 5, Authentication > Assistant authority, signed in and signed out: a stale token (a signed-in token on a
// signed-out session, a signed-out token on a signed-in one) acts signed out, its account actions get sign_in_required;
// a signed-out proxy token is verified on its own and carries the signed-out base, never more. The rest of the
// subsection (the direct tokens, the effective scopes) is in 05-authentication.assistant-authority.
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { ALL_PERMISSIONS, AssistantAgent, reportAuthorization, signedOutProxyToken, signOutSession } from './_shared/assistant.js';
import { errorOf } from '../lib/expect/dpop.js';
import { brief, expectProblem, expectStatus, expectSuccess, fail, failSoft, inCase, is2xx } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { nowSeconds } from '../lib/jws.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectNamesVariant, expectNotNamesVariant } from '../lib/expect/cart.js';
import { expectInvalidToken, expectSignInRequired } from '../lib/expect/refusals.js';
import { OP, probe, sendAssistant } from './_shared/probe-agents.js';
import { VARIANT } from './_shared/seed-data.js';
import { judgeCases } from '../engine/runner/cases.js';

/**
 * An account action of a stale token (acting signed out): 403 sign_in_required with `DPoP error="sign_in_required"`. Served,
 * the token acted signed in: a failure of the case's clauses and of AUTH-ASST-10, judged softly so that the other stale
 * cases are reached (the probes change nothing); another refusal is AUTH-ASST-10's.
 */
function expectActsSignedOut(shop: Shop, res: ShopResponse, { what, clause: clauses }: { what: string; clause: readonly string[] }): void {
  if (is2xx(res))
    return failSoft(`${what}: refused (acting signed out)`, '403 sign_in_required', brief(res), { clause: [...clauses, 'AUTH-ASST-10'] });
  inCase(what, () => {
    if (errorOf(res) !== 'sign_in_required') fail('refused as not signed in', 'sign_in_required', brief(res), { clause: 'AUTH-ASST-10' });
    // The challenge's scheme is the request's (DPoP): another one breaks the sign_in_required rule itself too.
    expectSignInRequired(shop, res, 'DPoP', { clause: ['AUTH-ASST-10', 'AUTH-SIGNIN-2'] });
  });
}

/** A stale case: the clauses a served account action fails, what it is, how its agent (and its token) are made. */
type StaleCase = [clauses: readonly string[], what: string, make: () => Promise<[AssistantAgent, string | undefined]>];

/** A signed-in token on a session the proxy signed out after it was served once (the report's semantics, item 3). */
const signedOutByProxy = (shop: Shop): StaleCase => [
  ['AUTH-ASST-9', 'AUTH-ACTIVE-2'],
  'a signed-in token on a session the proxy then signed out',
  async () => {
    const agent = await AssistantAgent.create(shop);
    expectSuccess((await agent.get('/v1/me/profile')).res, { what: 'control: the profile while signed in', clause: 'AUTH-ASST-9' });
    await signOutSession(shop, agent.identity, ALL_PERMISSIONS);
    return [agent, undefined];
  },
];

/** A signed-in token after the proxy reported the agent revoked. */
const revokedByProxy = (shop: Shop): StaleCase => [
  ['AUTH-ASST-9'],
  'a signed-in token after the account revoked the agent',
  async () => {
    const agent = await AssistantAgent.create(shop);
    await reportAuthorization(shop, agent.identity, 'revoked');
    return [agent, undefined];
  },
];

/**
 * One stale case: its account actions act signed out, its catalog and cart reads are served, and it never reaches the
 * account's cart. With `mayEnd` (a case made by a proxy report, whose effect the spec does not pin), the report may have
 * ended the session instead: every account action then answers 401 invalid_token in the DPoP scheme (an unknown session),
 * and the base capabilities of a session that is gone are not judged.
 */
async function judgeStale(shop: Shop, [clauses, what, make]: StaleCase, { mayEnd }: { mayEnd: boolean }): Promise<void> {
  const clause = clauses[0]!;
  const [agent, token] = await make();
  const send = sendAssistant(agent, token);
  let ended = false;
  for (const id of ['getProfile', 'listOrders', 'addAddress', 'checkoutSavedCard']) {
    const res = await send(probe(OP(id)));
    if (mayEnd && res.status === 401) ended = true;
    if (ended) inCase(`${what}: ${id} (the report ended the session)`, () => expectInvalidToken(shop, res, { clause, scheme: 'DPoP' }));
    else expectActsSignedOut(shop, res, { what: `${what}: ${id}`, clause: clauses });
  }
  if (ended) {
    shop.info.annotations.push({
      type: 'note',
      description: `${what}: the proxy report ended the session (401 invalid_token); its base capabilities are not judged`,
    });
    return;
  }
  expectSuccess(await send({ method: 'GET', path: '/v1/catalog/products' }), { what: `${what}: searchProducts`, clause: 'AUTH-ACTIVE-2' });
  expectSuccess(await send({ method: 'POST', path: '/v1/cart/items', json: cartLine() }), {
    what: `${what}: addCartItem`,
    clause: 'AUTH-ACTIVE-2',
  });
  // Acting signed out, it never reached the cart of the account its session or its token names: that read goes at once
  // with the agent's own, both after its line was added, judged in turn.
  const account = agent.identity.sub ?? agent.sub;
  const [cart, accountCart] = await Promise.all([
    send({ method: 'GET', path: '/v1/cart' }),
    shop.mint.customer({ sub: account }).then((t) => shop.http.get('/v1/cart', { token: t })),
  ]);
  expectNamesVariant(cart, VARIANT, { what: `${what}: getCart`, clause });
  expectNotNamesVariant(accountCart, VARIANT, { what: `${what}: the account's cart`, clause });
}

test(
  ...check(
    {
      id: 'authentication.agents.assistant.stale-tokens',
      title:
        'a signed-in token on a signed-out session and a signed-out token on a signed-in session act signed out: catalog and cart only, account actions 403 sign_in_required with DPoP error="sign_in_required"',
      clauses: ['AUTH-ASST-8', 'AUTH-ASST-9', 'AUTH-ASST-10', 'AUTH-SIGNIN-1', 'AUTH-SIGNIN-2', 'ERR-TABLE-10', 'AUTH-ACTIVE-2'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      // A session signed out keeps only the base capabilities (AUTH-ACTIVE-2). The two cases made by a proxy report may
      // also have ended the session (a revocation that deletes it): 401 invalid_token is accepted there.
      const stale: [StaleCase, boolean][] = [
        [
          [
            ['AUTH-ASST-9', 'AUTH-ACTIVE-2'],
            'a signed-in token on a session registered signed out',
            async () => [await AssistantAgent.create(shop, { signedIn: false }), undefined],
          ],
          false,
        ],
        [signedOutByProxy(shop), true],
        [revokedByProxy(shop), true],
        [
          [
            ['AUTH-ASST-8'],
            'a signed-out token on a signed-in session',
            async () => {
              const agent = await AssistantAgent.create(shop);
              return [
                agent,
                await signedOutProxyToken(shop, { sid: agent.identity.sessionId, jkt: agent.key.thumbprint, scope: ALL_PERMISSIONS }),
              ];
            },
          ],
          false,
        ],
      ];
      // Each case is a session of its own: cases of their own (engine/runner/cases.ts).
      await judgeCases(stale, ([c, mayEnd]) => judgeStale(shop, c, { mayEnd }));
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.assistant.stale-tokens.reference',
      title:
        'a session the proxy signed out, or an agent it reported revoked, keeps its session and acts signed out: account actions 403 sign_in_required',
      clauses: ['AUTH-ASST-9', 'AUTH-ASST-10', 'AUTH-SIGNIN-1', 'AUTH-ACTIVE-2'],
      level: 'reference',
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      await judgeCases([signedOutByProxy(shop), revokedByProxy(shop)], (c) => judgeStale(shop, c, { mayEnd: false }));
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.assistant.signed-out-base',
      title:
        'a signed-out proxy token (empty scope, or naming account scopes) on a signed-out session has exactly the base catalog and cart authority',
      clauses: ['AUTH-ASST-14', 'AUTH-ASST-16', 'AUTH-ACTIVE-2', 'AUTH-SCOPE-6'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const scopes = [
        ['empty scope', ''],
        ['scope naming account scopes', 'catalog:read cart:read cart:write account:read orders:read checkout'],
      ] as const;
      // Each scope is a session of its own (its requests in turn): cases of their own.
      await judgeCases(scopes, async ([what, scope]) => {
        const agent = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true, scope, permissions: ALL_PERMISSIONS });
        expectSuccess((await agent.get('/v1/catalog/products')).res, { what: `${what}: searchProducts`, clause: 'AUTH-ASST-16' });
        expectSuccess((await agent.post('/v1/cart/items', { json: cartLine() })).res, {
          what: `${what}: addCartItem`,
          clause: 'AUTH-ASST-14',
        });
        expectNamesVariant((await agent.get('/v1/cart')).res, VARIANT, { what: `${what}: getCart`, clause: 'AUTH-ASST-14' });
        for (const id of ['getProfile', 'listPaymentMethods', 'addAddress', 'checkoutSavedCard']) {
          const call = probe(OP(id));
          const res = (await agent.request(call.method, call.path, call.json !== undefined ? { json: call.json } : {})).res;
          inCase(`${what}: ${id}`, () => {
            // Signed out, the session keeps only the base capabilities (AUTH-ACTIVE-2), whatever its token's scope (AUTH-ASST-14).
            expectStatus(res, 403, { clause: ['AUTH-ASST-14', 'AUTH-ACTIVE-2'] });
            expectProblem(res, { status: 403, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'AUTH-ACTIVE-2' });
          });
        }
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.assistant.signed-out-forgery',
      title:
        'a signed-out proxy token is verified: another key, another typ, an account sub or expiry is 401 invalid_token in the DPoP scheme',
      clauses: ['AUTH-ASST-16', 'AUTH-ASST-5'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
      expectSuccess((await agent.get('/v1/cart')).res, { what: 'control: the genuine signed-out token', clause: 'AUTH-ASST-16' });
      const o = { sid: agent.identity.sessionId, jkt: agent.key.thumbprint };
      const forged: [string, Promise<string>][] = [
        ['signed with another key', signedOutProxyToken(shop, { ...o, key: `not-the-proxy-secret-${freshHex()}` })],
        ['expired', signedOutProxyToken(shop, { ...o, claims: { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 } })],
        ['typ at+jwt', signedOutProxyToken(shop, { ...o, header: { typ: 'at+jwt' } })],
        ['an account sub', signedOutProxyToken(shop, { ...o, claims: { sub: shop.subject('cust') } })],
        [
          'another client',
          signedOutProxyToken(shop, {
            ...o,
            claims: { client_id: shop.profile.clients.website, sub: `${shop.profile.clients.website}@clients` },
          }),
        ],
      ];
      for (const [what, token] of forged) {
        const res = (await agent.get('/v1/cart', { token: await token })).res;
        inCase(what, () => expectInvalidToken(shop, res, { clause: 'AUTH-ASST-16', scheme: 'DPoP', only: true }));
      }
    },
  ),
);
