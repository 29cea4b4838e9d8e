// Spec part 5, Authentication, for invited agents: the web-agent-forwarder machine token plus a bearer-bound
// `invited-agent+jwt` context (Credentials per consumer; Caller kinds) acts on the account of its context; a context bound
// to another token or to none, of another typ, forged or expired is refused. The context's key creates no customer
// authority and travels only with the web-agent-forwarder token (Customer authority).
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { check, test } from '../engine/runner/check.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { ALL_PERMISSIONS } from './_shared/assistant.js';
import { expectProblem, expectSuccess, fail, inCase, expectSameJson } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { nowSeconds } from '../lib/jws.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectNamesVariant, expectNotNamesVariant } from '../lib/expect/cart.js';
import { expectCredentialRefused, expectInvalidToken } from '../lib/expect/refusals.js';
import { invitedAgent } from './_shared/probe-agents.js';
import { VARIANT } from './_shared/seed-data.js';
import { contextHeader } from './_shared/artifact-headers.js';

test(
  ...check(
    {
      id: 'authentication.agents.invited.acts-for-account',
      title: 'an invited agent (web-agent forwarder + context) acts on the account of its context: the customer sees its cart line',
      clauses: ['AUTH-KIND-10', 'AUTH-CRED-5', 'AUTH-ORDER-5', 'PUR-CALLERS-1'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const inv = await invitedAgent(shop);
      expectSuccess(await shop.http.post('/v1/cart/items', { headers: inv.headers, json: cartLine() }), {
        what: 'invited agent adds a line',
        clause: 'AUTH-KIND-10',
      });
      // After the write, the three reads go at once, judged in turn.
      const [agentCart, customerCart, profile] = await Promise.all([
        shop.http.get('/v1/cart', { headers: inv.headers }),
        shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: inv.sub }) }),
        shop.http.get('/v1/me/profile', { headers: inv.headers }),
      ]);
      expectNamesVariant(agentCart, VARIANT, { what: 'invited agent reads the cart', clause: 'AUTH-KIND-10' });
      expectNamesVariant(customerCart, VARIANT, { what: 'the customer of the context sub reads the line', clause: 'AUTH-ORDER-5' });
      expectSuccess(profile, { what: 'invited agent reads the profile (assistant:read)', clause: 'AUTH-CRED-5' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.me.reference',
      title: "GET /v1/me of an invited agent: caller_kind invited-agent, the forwarder client, the context's account",
      clauses: ['AUTH-KIND-10', 'END-LIST-6'],
      level: 'reference',
      requires: ['invitedAgents'],
    },
    async (shop) => {
      const inv = await invitedAgent(shop);
      const me = await shop.http.get('/v1/me', { headers: inv.headers });
      expectSuccess(me, { what: 'GET /v1/me', clause: 'END-LIST-6' });
      const got = [me.body?.caller_kind, me.body?.client_id, me.body?.account?.sub];
      const want = ['invited-agent', shop.profile.clients.webAgentForwarder, inv.sub];
      expectSameJson(got, want, { what: 'GET /v1/me [caller_kind, client_id, account.sub]', clause: 'AUTH-KIND-10' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.context-bearer-bound',
      title: 'a context bound to another access token (ath), or to none, is refused; the same context with its own token works',
      clauses: ['AUTH-CRED-6'],
      requires: ['invitedAgents'],
    },
    async (shop) => {
      const inv = await invitedAgent(shop);
      const otherForwarder = await shop.mint.invitedAgentForwarder();
      const sub = shop.subject('inv');
      const base = { sub, agentId: `inv_agent_${freshHex()}`, permissions: ALL_PERMISSIONS };
      const cases: [string, Record<string, string>][] = [
        ['a context lifted onto another forwarder token', { authorization: `Bearer ${otherForwarder}`, [contextHeader()]: inv.context }],
        [
          'a context bound to another token',
          {
            authorization: `Bearer ${otherForwarder}`,
            [contextHeader()]: await shop.mint.invitedAgentContext({ ...base, forwarderToken: `${otherForwarder}x` }),
          },
        ],
        [
          'a context with no ath',
          {
            authorization: `Bearer ${otherForwarder}`,
            [contextHeader()]: await shop.mint.invitedAgentContext({ ...base, forwarderToken: otherForwarder, claims: { ath: undefined } }),
          },
        ],
      ];
      // Cart reads: the control and the refused contexts go at once, judged in turn (the control first).
      const [control, answers] = await Promise.all([
        shop.http.get('/v1/cart', { headers: inv.headers }),
        mapCases(cases, ([, headers]) => shop.http.get('/v1/cart', { headers })),
      ]);
      expectSuccess(control, { what: 'control: the context with its own forwarder token', clause: 'AUTH-CRED-6' });
      for (const [i, [what]] of cases.entries()) inCase(what, () => expectCredentialRefused(shop, answers[i]!, { clause: 'AUTH-CRED-6' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.context-defects.reference',
      title: 'a context that is unbound, of another typ, forged or expired is 401 invalid_token with a Bearer challenge only',
      clauses: ['AUTH-CRED-6', 'AUTH-CRED-7', 'AUTH-KIND-10'],
      level: 'reference',
      requires: ['invitedAgents'],
    },
    async (shop) => {
      const forwarder = await shop.mint.invitedAgentForwarder();
      const base = {
        sub: shop.subject('inv'),
        agentId: `inv_agent_${freshHex()}`,
        permissions: ALL_PERMISSIONS,
        forwarderToken: forwarder,
      };
      const cases: [string, string, Promise<string>][] = [
        ['AUTH-CRED-6', 'bound to another token', shop.mint.invitedAgentContext({ ...base, forwarderToken: 'another.token.value' })],
        ['AUTH-CRED-7', 'typ JWT', shop.mint.invitedAgentContext({ ...base, header: { typ: 'JWT' } })],
        ['AUTH-CRED-7', 'no typ', shop.mint.invitedAgentContext({ ...base, header: { typ: undefined } })],
        ['AUTH-KIND-10', 'signed with another key', shop.mint.invitedAgentContext({ ...base, key: `not-the-context-key-${freshHex()}` })],
        [
          'AUTH-KIND-10',
          'expired',
          shop.mint.invitedAgentContext({ ...base, claims: { iat: nowSeconds() - 600, exp: nowSeconds() - 300 } }),
        ],
      ];
      // Refused cart reads, one case per defect.
      await judgeCases(cases, async ([clause, what, context]) => {
        const res = await shop.http.get('/v1/cart', {
          headers: { authorization: `Bearer ${forwarder}`, [contextHeader()]: await context },
        });
        inCase(what, () => expectInvalidToken(shop, res, { clause, scheme: 'Bearer', only: true }));
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.context-typ',
      title: 'an invited-agent context whose typ is not invited-agent+jwt is refused (JWT, at+jwt, none)',
      clauses: ['AUTH-CRED-7'],
      requires: ['invitedAgents'],
    },
    async (shop) => {
      const control = await invitedAgent(shop);
      // Cart reads, each an invited agent of its own: the control and the refused ones go at once, judged in turn.
      const typs = ['JWT', 'at+jwt', undefined];
      const [controlRead, answers] = await Promise.all([
        shop.http.get('/v1/cart', { headers: control.headers }),
        mapCases(typs, async (typ) =>
          shop.http.get('/v1/cart', { headers: (await invitedAgent(shop, { context: { header: { typ } } })).headers }),
        ),
      ]);
      expectSuccess(controlRead, { what: 'control: typ invited-agent+jwt', clause: 'AUTH-CRED-7' });
      for (const [i, typ] of typs.entries())
        inCase(`typ ${typ ?? '(none)'}`, () => expectCredentialRefused(shop, answers[i]!, { clause: 'AUTH-CRED-7' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.web-forwarder-only',
      title:
        "a context with a storefront, website, delegated, operator or MCP-forwarder token grants nothing: refused, or no authority over the context's account",
      clauses: ['AUTH-CUST-9'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const c = shop.profile.clients;
      const sub = shop.subject('inv');
      const tokens: [string, string, Record<string, string>][] = [
        ['the storefront (guest) token', await shop.mint.guest(), { 'guest-session': shop.guestSession() }],
        ['a website customer token of another account', await shop.mint.customer({ sub: shop.subject('cust') }), {}],
        ['a delegated token of another account', await shop.mint.delegated({ sub: shop.subject('cust') }), {}],
        ['the MCP agent forwarder token', await shop.mint.mcpAgentForwarder(), {}],
        ['a machine token of the website client', await shop.mint.machine(c.website), {}],
        ['the backoffice token', await shop.mint.operator(), { operator: operatorAttribution(shop.profile) }],
      ];
      // Each token is a case, its own caller (a guest session, another account, a machine), writing then reading in turn.
      // The context's account is read after all of them.
      await judgeCases(tokens, async ([what, token, extra]) => {
        const context = await shop.mint.invitedAgentContext({
          sub,
          agentId: `inv_agent_${freshHex()}`,
          permissions: ALL_PERMISSIONS,
          forwarderToken: token,
        });
        const headers = { authorization: `Bearer ${token}`, [contextHeader()]: context, ...extra };
        const write = await shop.http.post('/v1/cart/items', { headers, json: cartLine() });
        const profile = await shop.http.get('/v1/me/profile', { headers });
        inCase(what, () => {
          if (write.status >= 500 || profile.status >= 500)
            fail('status', 'not a server error', `${write.status} / ${profile.status}`, { clause: 'AUTH-CUST-9' });
        });
      });
      // Whatever each request got, none reached the context's account.
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), VARIANT, {
        what: "the cart of the context's account",
        clause: 'AUTH-CUST-9',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.web-forwarder-only.reference',
      title:
        'a context with the MCP-forwarder token is 401 invalid_token; next to a guest or customer token the header is refused with 400 invalid_request (contract/headers.ts)',
      clauses: ['AUTH-CUST-9', 'AUTH-ORDER-6'],
      level: 'reference',
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('inv');
      const mcp = await shop.mint.mcpAgentForwarder();
      const ctx = (token: string) =>
        shop.mint.invitedAgentContext({ sub, agentId: `inv_agent_${freshHex()}`, permissions: ALL_PERMISSIONS, forwarderToken: token });
      const mcpHeaders = { authorization: `Bearer ${mcp}`, [contextHeader()]: await ctx(mcp) };
      const customer = await shop.mint.customer({ sub: shop.subject('cust') });
      const guest = await shop.mint.guest();
      // Refused reads, one case each: the MCP forwarder's (invalid_token), then the context next to another caller's token.
      const cases: [string, Record<string, string>, 'invalid_token' | 'invalid_request'][] = [
        ['the MCP agent forwarder token', mcpHeaders, 'invalid_token'],
        ['a customer token', { authorization: `Bearer ${customer}`, [contextHeader()]: await ctx(customer) }, 'invalid_request'],
        [
          'the storefront (guest) token',
          { authorization: `Bearer ${guest}`, 'guest-session': shop.guestSession(), [contextHeader()]: await ctx(guest) },
          'invalid_request',
        ],
      ];
      await judgeCases(cases, async ([what, headers, refusal]) => {
        const res = await shop.http.get('/v1/cart', { headers });
        if (refusal === 'invalid_token') return expectInvalidToken(shop, res, { clause: 'AUTH-CUST-9', scheme: 'Bearer', only: true });
        inCase(what, () => expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-CUST-9' }));
      });
    },
  ),
);
