// Spec part 5, Authentication > Assistant authority: assistants present their own DPoP-bound session tokens (or
// separately verified signed-out proxy tokens); their authority is their token's permissions intersected with the
// session's live scopes, the same everywhere; direct tokens are single-level personal_agent exchanges of the shared proxy
// client. Stale and signed-out tokens are in 05-authentication.assistant-authority.signed-out; DPoP proofs themselves in
// 05-authentication.dpop*; forwarders and budgets in 05-authentication.assistant-forwarders.
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { check, test } from '../engine/runner/check.js';
import { ALL_PERMISSIONS, AssistantAgent, reportAuthorization } from './_shared/assistant.js';
import { expectSuccess, fail, inCase, expectSameJson } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectNamesVariant } from '../lib/expect/cart.js';
import { expectCredentialRefused } from '../lib/expect/refusals.js';
import { expectPermissions, sendAssistant, UNKNOWN_PERMISSIONS } from './_shared/probe-agents.js';
import { VARIANT } from './_shared/seed-data.js';
import { judgeCases } from '../engine/runner/cases.js';
test(
  ...check(
    {
      id: 'authentication.agents.assistant.direct',
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
      id: 'authentication.agents.assistant.me.reference',
      title: "GET /v1/me of an assistant: caller_kind assistant, origin assistant, the session's account (none when signed out)",
      clauses: ['AUTH-KIND-12', 'END-LIST-6'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      // Two sessions of their own, signed in and signed out: cases of their own.
      await judgeCases(
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
        (judge) => judge(),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.assistant.effective-scopes',
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
        'AUTH-SCOPE-10',
        'ERR-SCOPE-1',
      ],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const base = 'catalog:read cart:read cart:write';
      const cases: [string, readonly string[], string | undefined, readonly string[], (readonly string[])?][] = [
        // [clause, session live scopes, token scope (undefined: every customer scope), expected permissions, the live scopes
        // the account then narrows its grant to (the same token then holds only those)]
        ['AUTH-SCOPE-4', ALL_PERMISSIONS, undefined, ALL_PERMISSIONS],
        ['AUTH-SCOPE-6', [], undefined, []],
        ['AUTH-SCOPE-7', ['assistant:read'], undefined, ['assistant:read']],
        ['AUTH-SCOPE-8', ['assistant:write'], undefined, ['assistant:write']],
        ['AUTH-SCOPE-9', ['checkout'], undefined, ['checkout']],
        // Unknown live scopes unlock nothing beyond the base scopes: made-up names, and names every object of a server's
        // language holds (a lookup table that is a plain object finds `constructor` in it).
        ['AUTH-SCOPE-10', UNKNOWN_PERMISSIONS, undefined, []],
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
        // Live: the account narrows its grant after the token was minted.
        ['AUTH-ASST-6', ALL_PERMISSIONS, undefined, ALL_PERMISSIONS, ['assistant:read']],
      ];
      // Each case is a session of its own (the live case's steps in turn): cases of their own.
      await judgeCases(cases, async ([clause, live, scope, expected, narrowed]) => {
        const agent = await AssistantAgent.create(shop, { permissions: live, ...(scope !== undefined ? { scope } : {}) });
        await expectPermissions(shop, sendAssistant(agent), expected, { clause, naming: 'permission' });
        if (narrowed === undefined) return;
        await reportAuthorization(shop, agent.identity, 'granted', narrowed);
        await expectPermissions(shop, sendAssistant(agent), narrowed, { clause, naming: 'permission' });
      });
    },
  ),
);

// A signed-in assistant reaches the agent-protocol server with its own token of the agent audience (presented directly,
// with DPoP); the forwarder's Assistant-Subject pair is for the signed-out assistant only (authentication.agents.assistant.forwarded-*).
test(
  ...check(
    {
      id: 'authentication.agents.assistant.same-rule-everywhere',
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
      id: 'authentication.agents.assistant.direct-token-shape',
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
