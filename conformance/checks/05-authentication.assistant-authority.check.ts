// Spec part 5, Authentication > Assistant authority: assistants present their own DPoP-bound session tokens (or
// separately verified signed-out proxy tokens); their authority is their token's permissions intersected with the
// session's live scopes, the same everywhere; stale tokens act signed out and account actions get sign_in_required; direct
// tokens are single-level personal_agent exchanges of the shared proxy client. DPoP proofs themselves are checked in
// 05-authentication.dpop*; forwarders and budgets in 05-authentication.assistant-forwarders.
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { check, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { ALL_PERMISSIONS, AssistantAgent, errorOf, reportAuthorization, signedOutProxyToken, signOutSession } from './_shared/assistant.js';
import { brief, expectProblem, expectStatus, expectSuccess, fail, failSoft, inCase, is2xx, expectSameJson } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { nowSeconds } from '../lib/jws.js';
import { cartLine, expectNamesVariant, expectNotNamesVariant } from './_shared/expect-cart.js';
import { expectCredentialRefused, expectInvalidToken, expectSignInRequired } from './_shared/expect-refusals.js';
import { expectPermissions, OP, probe, sendAssistant } from './_shared/probe-agents.js';
import { VARIANT } from './_shared/seed-data.js';
import { CASES_AT_ONCE, judgeConcurrently } from '../engine/in-flight.js';

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

test(
  ...check(
    {
      id: 'agents.assistant.direct',
      title: "an assistant presenting its own DPoP-bound token acts on its session's account: the customer sees its cart line",
      clauses: ['AUTH-KIND-12', 'AUTH-CRED-10', 'AUTH-ASST-1', 'PUR-CALLERS-1'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      expectSuccess((await agent.post('/v1/cart/items', { json: cartLine() })).res, {
        what: 'assistant adds a line',
        clause: 'AUTH-KIND-12',
      });
      // Once the line is added, the reads: the customer's goes at once with the agent's, which stay in turn (one session and
      // its nonce); all are judged in the order listed.
      const [[cart, profile], customerCart] = await Promise.all([
        (async () => [(await agent.get('/v1/cart')).res, (await agent.get('/v1/me/profile')).res] as const)(),
        shop.mint.customer({ sub: agent.identity.sub! }).then((token) => shop.http.get('/v1/cart', { token })),
      ]);
      expectNamesVariant(cart, VARIANT, { what: 'assistant reads the cart', clause: 'AUTH-KIND-12' });
      expectNamesVariant(customerCart, VARIANT, {
        what: "the customer of the session's account reads the line",
        clause: 'AUTH-CRED-10',
      });
      expectSuccess(profile, { what: 'assistant reads the profile', clause: 'AUTH-CRED-10' });
    },
  ),
);

test(
  ...check(
    {
      id: 'agents.assistant.me.reference',
      title: "GET /v1/me of an assistant: caller_kind assistant, origin assistant, the session's account (none when signed out)",
      clauses: ['AUTH-KIND-12', 'END-LIST-6'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      // Two sessions of their own, signed in and signed out: at once, judged in turn.
      await judgeConcurrently(
        [
          async () => {
            const agent = await AssistantAgent.create(shop);
            const me = (await agent.get('/v1/me')).res;
            expectSuccess(me, { what: 'GET /v1/me', clause: 'END-LIST-6' });
            const got = [me.body?.caller_kind, me.body?.origin, me.body?.client_id, me.body?.account?.sub];
            const want = ['assistant', 'assistant', shop.profile.clients.personalAgentProxy, agent.identity.sub];
            expectSameJson(got, want, { what: 'GET /v1/me [caller_kind, origin, client_id, account.sub]', clause: 'AUTH-KIND-12' });
          },
          async () => {
            const out = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
            const meOut = (await out.get('/v1/me')).res;
            expectSuccess(meOut, { what: 'GET /v1/me signed out', clause: 'END-LIST-6' });
            if (meOut.body?.caller_kind !== 'assistant' || meOut.body?.account !== null)
              fail(
                'GET /v1/me of a signed-out assistant [caller_kind, account]',
                ['assistant', null],
                [meOut.body?.caller_kind, meOut.body?.account],
                { clause: 'AUTH-KIND-12' },
              );
          },
        ],
        CASES_AT_ONCE,
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'agents.assistant.effective-scopes',
      title:
        "an assistant's authority is its token's permissions intersected with the session's live scopes; refusals name the missing permission",
      clauses: [
        'AUTH-ASST-6',
        'AUTH-SCOPE-3',
        'AUTH-SCOPE-4',
        'AUTH-SCOPE-6',
        'AUTH-SCOPE-7',
        'AUTH-SCOPE-8',
        'AUTH-SCOPE-9',
        'ERR-SCOPE-1',
      ],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const base = 'catalog:read cart:read cart:write';
      const cases: [string, readonly string[], string | undefined, readonly string[]][] = [
        // [clause, session live scopes, token scope (undefined: every customer scope), expected permissions]
        ['AUTH-SCOPE-4', ALL_PERMISSIONS, undefined, ALL_PERMISSIONS],
        ['AUTH-SCOPE-6', [], undefined, []],
        ['AUTH-SCOPE-7', ['assistant:read'], undefined, ['assistant:read']],
        ['AUTH-SCOPE-8', ['assistant:write'], undefined, ['assistant:write']],
        ['AUTH-SCOPE-9', ['checkout'], undefined, ['checkout']],
        // The token narrows the session: only what both hold applies.
        ['AUTH-ASST-6', ALL_PERMISSIONS, `${base} account:read payment_methods:read orders:read`, ['assistant:read']],
        ['AUTH-ASST-6', ALL_PERMISSIONS, `${base} checkout`, ['checkout']],
        ['AUTH-ASST-6', ALL_PERMISSIONS, base, []],
        [
          'AUTH-ASST-6',
          ['assistant:read', 'checkout'],
          `${base} account:read payment_methods:read orders:read account:write orders:write`,
          ['assistant:read'],
        ],
      ];
      // Each case is a session of its own, and so is the live case last (the account narrows its grant after the token was
      // minted; the same token then holds only the new scopes: its own steps in turn): they are judged at once, their
      // verdict the one of the cases in turn.
      await judgeConcurrently(
        [
          ...cases.map(([clause, live, scope, expected]) => async () => {
            const agent = await AssistantAgent.create(shop, { permissions: live, ...(scope !== undefined ? { scope } : {}) });
            await expectPermissions(shop, sendAssistant(agent), expected, { clause, naming: 'permission' });
          }),
          async () => {
            const agent = await AssistantAgent.create(shop);
            await expectPermissions(shop, sendAssistant(agent), ALL_PERMISSIONS, { clause: 'AUTH-ASST-6', naming: 'permission' });
            await reportAuthorization(shop, agent.identity, 'granted', ['assistant:read']);
            await expectPermissions(shop, sendAssistant(agent), ['assistant:read'], { clause: 'AUTH-ASST-6', naming: 'permission' });
          },
        ],
        cases.length + 1,
      );
    },
  ),
);

// A signed-in assistant reaches the agent-protocol server with its own token of the agent audience (presented directly,
// with DPoP); the forwarder's Assistant-Subject pair is for the signed-out assistant only (agents.assistant.forwarded-*).
test(
  ...check(
    {
      id: 'agents.assistant.same-rule-everywhere',
      title: 'the effective-scope rule is the same for a token of the agent audience as for one of the API audience',
      clauses: ['AUTH-ASST-7', 'AUTH-ASST-6', 'ERR-SCOPE-1', 'AUTH-KIND-12'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const agentAudience = await AssistantAgent.create(shop, { permissions: ['assistant:read'], audience: 'agent' });
      // Recognized as an assistant for the agent audience as for the API's: its cart is served.
      expectSuccess((await agentAudience.get('/v1/cart')).res, {
        what: 'an assistant token of the agent audience, its cart',
        clause: 'AUTH-KIND-12',
      });
      await expectPermissions(shop, sendAssistant(agentAudience), ['assistant:read'], { clause: 'AUTH-ASST-7', naming: 'permission' });
    },
  ),
);

test(
  ...check(
    {
      id: 'agents.assistant.stale-tokens',
      title:
        'a signed-in token on a signed-out session and a signed-out token on a signed-in session act signed out: catalog and cart only, account actions 403 sign_in_required with DPoP error="sign_in_required"',
      clauses: ['AUTH-ASST-8', 'AUTH-ASST-9', 'AUTH-ASST-10', 'AUTH-SIGNIN-1', 'AUTH-SIGNIN-2', 'ERR-TABLE-10', 'AUTH-ACTIVE-2'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      // [clauses a served account action fails, what, make]: a session signed out keeps only the base capabilities (AUTH-ACTIVE-2).
      const stale: [readonly string[], string, () => Promise<[AssistantAgent, string | undefined]>][] = [
        [
          ['AUTH-ASST-9', 'AUTH-ACTIVE-2'],
          'a signed-in token on a session registered signed out',
          async () => [await AssistantAgent.create(shop, { signedIn: false }), undefined],
        ],
        [
          ['AUTH-ASST-9', 'AUTH-ACTIVE-2'],
          'a signed-in token on a session the proxy then signed out',
          async () => {
            const agent = await AssistantAgent.create(shop);
            expectSuccess((await agent.get('/v1/me/profile')).res, { what: 'control: the profile while signed in', clause: 'AUTH-ASST-9' });
            await signOutSession(shop, agent.identity, ALL_PERMISSIONS);
            return [agent, undefined];
          },
        ],
        [
          ['AUTH-ASST-9'],
          'a signed-in token after the account revoked the agent',
          async () => {
            const agent = await AssistantAgent.create(shop);
            await reportAuthorization(shop, agent.identity, 'revoked');
            return [agent, undefined];
          },
        ],
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
      ];
      // Each case is a session of its own: they are judged at once, their verdict the one of the cases in turn.
      await judgeConcurrently(
        stale.map(([clauses, what, make]) => async () => {
          const clause = clauses[0]!;
          const [agent, token] = await make();
          const send = sendAssistant(agent, token);
          for (const id of ['getProfile', 'listOrders', 'addAddress', 'checkoutSavedCard']) {
            const res = await send(probe(OP(id)));
            expectActsSignedOut(shop, res, { what: `${what}: ${id}`, clause: clauses });
          }
          expectSuccess(await send({ method: 'GET', path: '/v1/catalog/products' }), {
            what: `${what}: searchProducts`,
            clause: 'AUTH-ACTIVE-2',
          });
          expectSuccess(await send({ method: 'POST', path: '/v1/cart/items', json: cartLine() }), {
            what: `${what}: addCartItem`,
            clause: 'AUTH-ACTIVE-2',
          });
          // Acting signed out, it never reached the cart of the account its session or its token names: that read goes at once
          // with the agent's own, both after its line was added, judged in turn.
          const account = agent.identity.sub ?? agent.sub;
          const [cart, accountCart] = await Promise.all([
            send({ method: 'GET', path: '/v1/cart' }),
            shop.mint.customer({ sub: account }).then((token) => shop.http.get('/v1/cart', { token })),
          ]);
          expectNamesVariant(cart, VARIANT, { what: `${what}: getCart`, clause });
          expectNotNamesVariant(accountCart, VARIANT, { what: `${what}: the account's cart`, clause });
        }),
        CASES_AT_ONCE,
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'agents.assistant.signed-out-base',
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
      // Each scope is a session of its own (its requests in turn): the two at once, their verdict the one of the two in turn.
      await judgeConcurrently(
        scopes.map(([what, scope]) => async () => {
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
        }),
        CASES_AT_ONCE,
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'agents.assistant.signed-out-forgery',
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

test(
  ...check(
    {
      id: 'agents.assistant.direct-token-shape',
      title:
        'direct assistant tokens are single-level personal_agent exchanges of the proxy client: a deeper or other act chain, or another client, is refused',
      clauses: ['AUTH-ASST-15'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      expectSuccess((await agent.get('/v1/cart')).res, { what: 'control: a single-level personal_agent token', clause: 'AUTH-ASST-15' });
      const c = shop.profile.clients;
      const variants: [string, Record<string, unknown>][] = [
        ['a two-level act chain', { act: { sub: 'personal_agent', act: { sub: 'another_agent' } } }],
        ['another actor', { act: { sub: 'another_agent' } }],
        ['no act', { act: undefined }],
        ['the website client', { client_id: c.website }],
        ['the agent-protocol client', { client_id: c.agentProtocol }],
        ['an unknown client', { client_id: `stranger-${freshHex()}` }],
      ];
      for (const [what, claims] of variants) {
        const res = (await agent.get('/v1/cart', { token: await agent.mintToken({ claims }) })).res;
        inCase(what, () => expectCredentialRefused(shop, res, { clause: 'AUTH-ASST-15' }));
      }
    },
  ),
);
