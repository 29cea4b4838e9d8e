// Spec part 5, Authentication: the agents that act through an account permission snapshot. Invited agents (the
// web-agent-forwarder machine token plus a bearer-bound `invited-agent+jwt` context, docs/tokens.md) and assistants
// (DPoP-bound session tokens presented directly, signed-out proxy tokens, and forwarders carrying exactly one original
// artifact, docs/assistants.md). Their permissions are never translated: they map to API scopes (spec, Scope translation),
// and for assistants they are intersected with the live session's scopes (Assistant authority).
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/lib/assistant.ts). The caller-kind × operation matrix at
// the end sends every operation of contract/operations.ts as each agent kind, with bodies that fail validation (so nothing
// is written): the guard precedes input validation, so a 400 shows that the guard let the caller through.
import { randomUUID } from 'node:crypto';
import { CALLER_LISTS } from '../../contract/callers.js';
import { OPERATIONS, type Operation } from '../../contract/operations.js';
import { AGENT_FORWARD_SCOPE, PERMISSIONS } from '../../contract/scopes.js';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import {
  ALL_PERMISSIONS,
  ASSISTANT_BROWSER_SESSION_HEADER,
  AssistantAgent,
  browserSession,
  errorOf,
  provisionAssistantSession,
  reportAuthorization,
  signedOutProxyToken,
  signOutSession,
} from '../lib/assistant.js';
import { CheckFailure, expectChallenge, expectProblem, fail } from '../lib/assert.js';
import { createDpopKey } from '../lib/dpop.js';
import type { InvitedAgentContextOptions } from '../lib/mint.js';
import { parseChallenges } from '../lib/www-authenticate.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

const VARIANT = 'var_0101';
const PRODUCT_HANDLE = 'waxed-canvas-field-jacket';
const addItem = { variant_id: VARIANT, quantity: 1 };


const epoch = () => Math.floor(Date.now() / 1000);
const hex = () => randomUUID().replace(/-/g, '');

function inCase(what: string, assertion: () => void): void {
  try {
    assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

const show = (res: ShopResponse) => `${res.status} ${res.text.slice(0, 300)}`;

function expectSuccess(res: ShopResponse, what: string, clause: string): void {
  if (res.status < 200 || res.status > 299) fail(`${what}: status`, '2xx', show(res), clause);
}

function expectNamesVariant(res: ShopResponse, what: string, clause: string): void {
  expectSuccess(res, what, clause);
  if (!res.text.includes(VARIANT)) fail(`${what}: the cart names ${VARIANT}`, `a body mentioning ${VARIANT}`, res.text.slice(0, 300), clause);
}

function expectNotNamesVariant(res: ShopResponse, what: string, clause: string): void {
  expectSuccess(res, what, clause);
  if (res.text.includes(VARIANT)) fail(`${what}: the cart names no ${VARIANT}`, 'no such variant', res.text.slice(0, 300), clause);
}

/** Errors with which the authentication stages and the guard refuse a caller (as opposed to the handler's answers). */
const GUARD_ERRORS = new Set(['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce', 'caller_not_allowed', 'insufficient_scope', 'sign_in_required', 'account_access_ended']);

/** Past the guard: whatever the handler or validation says next, it is not a refusal of the caller. */
function expectPassesGuard(res: ShopResponse, what: string, clause: string): void {
  const error = errorOf(res);
  if (res.status === 401 || res.status === 429 || (error !== undefined && GUARD_ERRORS.has(error))) {
    fail(`${what}: admitted past the guard`, 'a handler or validation answer (2xx, 400, 404, 409, 422)', show(res), clause);
  }
  if (res.status >= 500) fail(`${what}: status`, 'not a server error', show(res), clause);
}

/** 403 insufficient_scope; `scope` is the scope the problem must name, or a list of acceptable names. */
function expectInsufficientScope(shop: Shop, res: ShopResponse, clause: string, scope?: string | readonly string[]): void {
  const doc = expectProblem(res, { status: 403, error: 'insufficient_scope', docsUrl: shop.docsUrl, clause, ...(typeof scope === 'string' ? { scope } : {}) });
  if (Array.isArray(scope) && !scope.includes(doc.scope as string)) fail('problem "scope"', scope.join(' or '), doc.scope, clause);
}

/** A refusal of the credential: 401 (invalid_token, a challenge) or 403 (any problem): the spec says "refused" or "401 or 403". */
function expectRefused(shop: Shop, res: ShopResponse, clause: string): void {
  if (res.status === 401) {
    expectProblem(res, { status: 401, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause });
    if (res.headers.get('www-authenticate') === null) fail('WWW-Authenticate on a 401', 'a challenge', null, clause);
    return;
  }
  if (res.status === 403) {
    expectProblem(res, { status: 403, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause });
    return;
  }
  fail('refused', '401 or 403', show(res), clause);
}

/** 401 invalid_token with a challenge of `scheme` only. */
function expectInvalidToken(shop: Shop, res: ShopResponse, clause: string, scheme: 'Bearer' | 'DPoP'): void {
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme, error: 'invalid_token', clause });
  const other = scheme === 'Bearer' ? 'dpop' : 'bearer';
  if (parseChallenges(res.headers.get('www-authenticate')!).some((c) => c.scheme.toLowerCase() === other)) {
    fail('WWW-Authenticate: one scheme', scheme, res.headers.get('www-authenticate'), clause);
  }
}

/** 403 sign_in_required with `WWW-Authenticate: <scheme> error="sign_in_required"` (spec, Assistant authority; Errors). */
function expectSignInRequired(shop: Shop, res: ShopResponse, scheme: 'Bearer' | 'DPoP', clause: string): void {
  expectProblem(res, { status: 403, error: 'sign_in_required', docsUrl: shop.docsUrl, clause: 'AUTH-SIGNIN-1' });
  expectChallenge(res, { scheme, error: 'sign_in_required', clause });
}

// ------------------------------------------------------------------------------------- operations as probes and matrix

interface Call {
  method: string;
  path: string;
  json?: unknown;
}

/**
 * A request for `op` that reaches the guard and, past it, changes nothing: ids no record has, and bodies that fail
 * validation (or name nothing). Reads are sent as they are.
 */
function probe(op: Operation): Call {
  const path = op.path
    .replace('{handle}', PRODUCT_HANDLE)
    .replace('{variant_id}', VARIANT)
    .replace('{id}', `none_${hex()}`);
  if (op.method === 'POST' || op.method === 'PATCH' || op.method === 'PUT') return { method: op.method, path, json: { conformance_probe: true } };
  return { method: op.method, path };
}

const OP = (id: string): Operation => {
  const op = OPERATIONS.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

/** Probes of the permission table: operation → the permission it needs (undefined: base authority). */
const PERMISSION_PROBES: readonly [string, string | undefined][] = [
  ['searchProducts', undefined],
  ['getCart', undefined],
  ['addCartItem', undefined],
  ['getProfile', 'assistant:read'],
  ['listPaymentMethods', 'assistant:read'],
  ['listOrders', 'assistant:read'],
  ['addAddress', 'assistant:write'],
  ['cancelOrder', 'assistant:write'],
  ['checkoutSavedCard', 'checkout'],
];

type Send = (call: Call) => Promise<ShopResponse>;

/**
 * The agent's authority equals what `permissions` map to: each probe passes the guard when its permission is held (or it
 * needs none), and is 403 insufficient_scope otherwise, naming the permission (assistants, ERR-SCOPE-1) or either the
 * permission or the API scope (invited agents: the spec names no form).
 */
async function expectAuthority(shop: Shop, send: Send, permissions: readonly string[], clause: string, naming: 'permission' | 'either'): Promise<void> {
  for (const [id, needs] of PERMISSION_PROBES) {
    const op = OP(id);
    const res = await send(probe(op));
    const held = needs === undefined || permissions.includes(needs);
    inCase(`${id} with permissions [${permissions.join(', ')}]`, () => {
      if (held) return expectPassesGuard(res, id, clause);
      expectInsufficientScope(shop, res, naming === 'permission' ? 'ERR-SCOPE-1' : clause, naming === 'permission' ? needs! : [needs!, ...op.apiScopes]);
    });
  }
}

// ---------------------------------------------------------------------------------------------------- invited agents

interface Invited {
  sub: string;
  agentId: string;
  forwarder: string;
  context: string;
  headers: Record<string, string>;
}

/** An invited agent: a forwarder token and a context bound to it (docs/tokens.md, "Invited-agent context"). */
async function invitedAgent(shop: Shop, o: { sub?: string; permissions?: readonly string[]; forwarderScope?: string; forwarder?: string; context?: Partial<InvitedAgentContextOptions> } = {}): Promise<Invited> {
  const sub = o.sub ?? shop.subject('inv');
  const agentId = `inv_agent_${hex()}`;
  const forwarder = o.forwarder ?? (await shop.mint.invitedAgentForwarder(o.forwarderScope !== undefined ? { scope: o.forwarderScope } : {}));
  const context = await shop.mint.invitedAgentContext({ sub, agentId, permissions: o.permissions ?? ALL_PERMISSIONS, forwarderToken: forwarder, ...o.context });
  return { sub, agentId, forwarder, context, headers: { authorization: `Bearer ${forwarder}`, 'invited-agent-context': context } };
}

const sendInvited = (shop: Shop, inv: Pick<Invited, 'headers'>): Send => (call) => shop.http.request(call.method, call.path, { headers: inv.headers, ...(call.json !== undefined ? { json: call.json } : {}) });

test(...check({ id: 'agents.invited.acts-for-account', title: 'an invited agent (web-agent forwarder + context) acts on the account of its context: the customer sees its cart line', clauses: ['AUTH-KIND-10', 'AUTH-CRED-5', 'AUTH-ORDER-5', 'PUR-CALLERS-1'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const inv = await invitedAgent(shop);
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: inv.headers, json: addItem }), 'invited agent adds a line', 'AUTH-KIND-10');
  expectNamesVariant(await shop.http.get('/v1/cart', { headers: inv.headers }), 'invited agent reads the cart', 'AUTH-KIND-10');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: inv.sub }) }), 'the customer of the context sub reads the line', 'AUTH-ORDER-5');
  expectSuccess(await shop.http.get('/v1/me/profile', { headers: inv.headers }), 'invited agent reads the profile (assistant:read)', 'AUTH-CRED-5');
}));

test(...check({ id: 'agents.invited.me.reference', title: 'GET /v1/me of an invited agent: caller_kind invited-agent, the forwarder client, the context\'s account', clauses: ['AUTH-KIND-10', 'END-LIST-6'], level: 'reference', requires: ['invitedAgents'] }, async (shop) => {
  const inv = await invitedAgent(shop);
  const me = await shop.http.get('/v1/me', { headers: inv.headers });
  expectSuccess(me, 'GET /v1/me', 'END-LIST-6');
  const got = [me.body?.caller_kind, me.body?.client_id, me.body?.account?.sub];
  const want = ['invited-agent', shop.profile.clients.webAgentForwarder, inv.sub];
  if (JSON.stringify(got) !== JSON.stringify(want)) fail('GET /v1/me [caller_kind, client_id, account.sub]', want, got, 'AUTH-KIND-10');
}));

test(...check({ id: 'agents.invited.permissions', title: 'an invited agent\'s permissions map to API scopes: base, assistant:read, assistant:write, checkout each unlock exactly their operations', clauses: ['AUTH-SCOPE-4', 'AUTH-SCOPE-6', 'AUTH-SCOPE-7', 'AUTH-SCOPE-8', 'AUTH-SCOPE-9', 'ERR-TABLE-9'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const sets: [string, readonly string[]][] = [
    ['AUTH-SCOPE-6', []],
    ['AUTH-SCOPE-7', ['assistant:read']],
    ['AUTH-SCOPE-8', ['assistant:write']],
    ['AUTH-SCOPE-9', ['checkout']],
    ['AUTH-SCOPE-4', PERMISSIONS],
  ];
  for (const [clause, permissions] of sets) {
    await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions })), permissions, clause, 'either');
  }
}));

test(...check({ id: 'agents.invited.permissions.reference', title: 'an invited agent refused for a scope is told the permission it lacks (scope assistant:read, assistant:write, checkout)', clauses: ['AUTH-SCOPE-4', 'ERR-TABLE-9'], level: 'reference', requires: ['invitedAgents'], seed: true }, async (shop) => {
  await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: [] })), [], 'AUTH-SCOPE-4', 'permission');
}));

test(...check({ id: 'agents.invited.read-only-checkout', title: 'a read-only invited agent (no checkout permission) cannot check out: 403 insufficient_scope', clauses: ['AUTH-SCOPE-11', 'ERR-TABLE-9'], requires: ['invitedAgents'] }, async (shop) => {
  for (const permissions of [['assistant:read'], ['assistant:read', 'assistant:write']]) {
    const inv = await invitedAgent(shop, { permissions });
    const res = await shop.http.post('/v1/checkouts/saved-card', { headers: inv.headers, json: {} });
    inCase(`permissions [${permissions.join(', ')}]`, () => expectInsufficientScope(shop, res, 'AUTH-SCOPE-11', ['checkout']));
  }
}));

test(...check({ id: 'agents.invited.unknown-permissions', title: 'unknown permissions (API scope names, account:security, made-up ones) unlock nothing beyond the base scopes', clauses: ['AUTH-SCOPE-10', 'AUTH-SCOPE-6'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const unknown = ['account:read', 'orders:write', 'payment_methods:read', 'account:security', 'admin', 'assistant:*', 'checkout:all'];
  await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: unknown })), unknown, 'AUTH-SCOPE-10', 'either');
}));

test(...check({ id: 'agents.invited.forwarder-scopes-do-not-widen', title: 'API scopes on the forwarder token do not widen an invited agent: its context\'s permissions alone apply', clauses: ['AUTH-SCOPE-3'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const wide = [AGENT_FORWARD_SCOPE, 'catalog:read', 'cart:read', 'cart:write', 'account:read', 'account:write', 'payment_methods:read', 'orders:read', 'orders:write', 'checkout'].join(' ');
  await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: [], forwarderScope: wide })), [], 'AUTH-SCOPE-3', 'either');
}));

test(...check({ id: 'agents.invited.forwarder-needs-agent-forward', title: 'a web-agent-forwarder token without agent:forward cannot forward an invited agent (refused)', clauses: ['AUTH-SCOPE-5'], requires: ['invitedAgents'] }, async (shop) => {
  for (const scope of ['catalog:read cart:read cart:write', 'account:read checkout', '']) {
    const inv = await invitedAgent(shop, { forwarderScope: scope });
    const res = await shop.http.get('/v1/cart', { headers: inv.headers });
    inCase(`forwarder scope "${scope}"`, () => expectRefused(shop, res, 'AUTH-SCOPE-5'));
  }
}));

test(...check({ id: 'agents.invited.forwarder-needs-agent-forward.reference', title: 'a forwarder token without agent:forward: 403 insufficient_scope naming agent:forward', clauses: ['AUTH-SCOPE-5'], level: 'reference', requires: ['invitedAgents'] }, async (shop) => {
  const inv = await invitedAgent(shop, { forwarderScope: 'catalog:read cart:read cart:write' });
  expectInsufficientScope(shop, await shop.http.get('/v1/cart', { headers: inv.headers }), 'AUTH-SCOPE-5', AGENT_FORWARD_SCOPE);
}));

test(...check({ id: 'agents.invited.context-bearer-bound', title: 'a context bound to another access token (ath), or to none, is refused; the same context with its own token works', clauses: ['AUTH-CRED-6'], requires: ['invitedAgents'] }, async (shop) => {
  const inv = await invitedAgent(shop);
  expectSuccess(await shop.http.get('/v1/cart', { headers: inv.headers }), 'control: the context with its own forwarder token', 'AUTH-CRED-6');
  const otherForwarder = await shop.mint.invitedAgentForwarder();
  const sub = shop.subject('inv');
  const base = { sub, agentId: `inv_agent_${hex()}`, permissions: ALL_PERMISSIONS };
  const cases: [string, Record<string, string>][] = [
    ['a context lifted onto another forwarder token', { authorization: `Bearer ${otherForwarder}`, 'invited-agent-context': inv.context }],
    ['a context bound to another token', { authorization: `Bearer ${otherForwarder}`, 'invited-agent-context': await shop.mint.invitedAgentContext({ ...base, forwarderToken: `${otherForwarder}x` }) }],
    ['a context with no ath', { authorization: `Bearer ${otherForwarder}`, 'invited-agent-context': await shop.mint.invitedAgentContext({ ...base, forwarderToken: otherForwarder, claims: { ath: undefined } }) }],
  ];
  for (const [what, headers] of cases) {
    const res = await shop.http.get('/v1/cart', { headers });
    inCase(what, () => expectRefused(shop, res, 'AUTH-CRED-6'));
  }
}));

test(...check({ id: 'agents.invited.context-defects.reference', title: 'a context that is unbound, of another typ, forged or expired is 401 invalid_token with a Bearer challenge only', clauses: ['AUTH-CRED-6', 'AUTH-CRED-7', 'AUTH-KIND-10'], level: 'reference', requires: ['invitedAgents'] }, async (shop) => {
  const forwarder = await shop.mint.invitedAgentForwarder();
  const base = { sub: shop.subject('inv'), agentId: `inv_agent_${hex()}`, permissions: ALL_PERMISSIONS, forwarderToken: forwarder };
  const cases: [string, string, Promise<string>][] = [
    ['AUTH-CRED-6', 'bound to another token', shop.mint.invitedAgentContext({ ...base, forwarderToken: 'another.token.value' })],
    ['AUTH-CRED-7', 'typ JWT', shop.mint.invitedAgentContext({ ...base, header: { typ: 'JWT' } })],
    ['AUTH-CRED-7', 'no typ', shop.mint.invitedAgentContext({ ...base, header: { typ: undefined } })],
    ['AUTH-KIND-10', 'signed with another key', shop.mint.invitedAgentContext({ ...base, key: `not-the-context-key-${hex()}` })],
    ['AUTH-KIND-10', 'expired', shop.mint.invitedAgentContext({ ...base, claims: { iat: epoch() - 600, exp: epoch() - 300 } })],
  ];
  for (const [clause, what, context] of cases) {
    const res = await shop.http.get('/v1/cart', { headers: { authorization: `Bearer ${forwarder}`, 'invited-agent-context': await context } });
    inCase(what, () => expectInvalidToken(shop, res, clause, 'Bearer'));
  }
}));

test(...check({ id: 'agents.invited.context-typ', title: 'an invited-agent context whose typ is not invited-agent+jwt is refused (JWT, at+jwt, none)', clauses: ['AUTH-CRED-7'], requires: ['invitedAgents'] }, async (shop) => {
  const control = await invitedAgent(shop);
  expectSuccess(await shop.http.get('/v1/cart', { headers: control.headers }), 'control: typ invited-agent+jwt', 'AUTH-CRED-7');
  for (const typ of ['JWT', 'at+jwt', undefined]) {
    const inv = await invitedAgent(shop, { context: { header: { typ } } });
    const res = await shop.http.get('/v1/cart', { headers: inv.headers });
    inCase(`typ ${typ ?? '(none)'}`, () => expectRefused(shop, res, 'AUTH-CRED-7'));
  }
}));

test(...check({ id: 'agents.invited.web-forwarder-only', title: 'a context with a storefront, website, delegated, operator or MCP-forwarder token grants nothing: refused, or no authority over the context\'s account', clauses: ['AUTH-CUST-9'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const c = shop.profile.clients;
  const sub = shop.subject('inv');
  const tokens: [string, string, Record<string, string>][] = [
    ['the storefront (guest) token', await shop.mint.guest(), { 'guest-session': shop.guestSession() }],
    ['a website customer token of another account', await shop.mint.customer({ sub: shop.subject('cust') }), {}],
    ['a delegated token of another account', await shop.mint.delegated({ sub: shop.subject('cust') }), {}],
    ['the MCP agent forwarder token', await shop.mint.mcpAgentForwarder(), {}],
    ['a machine token of the website client', await shop.mint.machine(c.website), {}],
    ['the backoffice token', await shop.mint.operator(), { operator: 'conformance@shop.test' }],
  ];
  for (const [what, token, extra] of tokens) {
    const context = await shop.mint.invitedAgentContext({ sub, agentId: `inv_agent_${hex()}`, permissions: ALL_PERMISSIONS, forwarderToken: token });
    const headers = { authorization: `Bearer ${token}`, 'invited-agent-context': context, ...extra };
    const write = await shop.http.post('/v1/cart/items', { headers, json: addItem });
    const profile = await shop.http.get('/v1/me/profile', { headers });
    inCase(what, () => {
      if (write.status >= 500 || profile.status >= 500) fail('status', 'not a server error', `${write.status} / ${profile.status}`, 'AUTH-CUST-9');
    });
  }
  // Whatever each request got, none reached the context's account.
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), 'the cart of the context\'s account', 'AUTH-CUST-9');
}));

test(...check({ id: 'agents.invited.web-forwarder-only.reference', title: 'a context with the MCP-forwarder token is 401 invalid_token; next to a guest or customer token the header is refused with 400 invalid_request (contract/headers.ts)', clauses: ['AUTH-CUST-9', 'AUTH-ORDER-6'], level: 'reference', requires: ['invitedAgents'], seed: true }, async (shop) => {
  const sub = shop.subject('inv');
  const mcp = await shop.mint.mcpAgentForwarder();
  const ctx = (token: string) => shop.mint.invitedAgentContext({ sub, agentId: `inv_agent_${hex()}`, permissions: ALL_PERMISSIONS, forwarderToken: token });
  expectInvalidToken(shop, await shop.http.get('/v1/cart', { headers: { authorization: `Bearer ${mcp}`, 'invited-agent-context': await ctx(mcp) } }), 'AUTH-CUST-9', 'Bearer');
  const customer = await shop.mint.customer({ sub: shop.subject('cust') });
  const guest = await shop.mint.guest();
  const cases: [string, Record<string, string>][] = [
    ['a customer token', { authorization: `Bearer ${customer}`, 'invited-agent-context': await ctx(customer) }],
    ['the storefront (guest) token', { authorization: `Bearer ${guest}`, 'guest-session': shop.guestSession(), 'invited-agent-context': await ctx(guest) }],
  ];
  for (const [what, headers] of cases) {
    const res = await shop.http.get('/v1/cart', { headers });
    inCase(what, () => expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-CUST-9' }));
  }
}));

test(...check({ id: 'agents.invited.admission-snapshot', title: 'an invited agent acts with its context\'s permissions (the admission snapshot), whatever the proxy later grants the agent', clauses: ['AUTH-KIND-10', 'AUTH-SCOPE-3'], requires: ['invitedAgents'], seed: true }, async (shop) => {
  const inv = await invitedAgent(shop, { permissions: ['assistant:read'], context: { admittedAt: epoch() - 86_400 } });
  expectSuccess(await shop.http.get('/v1/me/profile', { headers: inv.headers }), 'a day-old admission with assistant:read reads the profile', 'AUTH-KIND-10');
  // The proxy later reports another grant for the same agent and account: the signed snapshot is still what applies.
  await reportAuthorization(shop, { sub: inv.sub, agentId: inv.agentId }, 'granted', ['checkout']);
  expectSuccess(await shop.http.get('/v1/me/profile', { headers: inv.headers }), 'after a grant without assistant:read', 'AUTH-KIND-10');
  expectInsufficientScope(shop, await shop.http.post('/v1/checkouts/saved-card', { headers: inv.headers, json: {} }), 'AUTH-SCOPE-3', ['checkout']);
}));

// ---------------------------------------------------------------------------------------------------------- assistants

const sendAssistant = (agent: AssistantAgent, token?: string): Send => async (call) =>
  (await agent.request(call.method, call.path, { ...(call.json !== undefined ? { json: call.json } : {}), ...(token ? { token } : {}) })).res;

test(...check({ id: 'agents.assistant.direct', title: 'an assistant presenting its own DPoP-bound token acts on its session\'s account: the customer sees its cart line', clauses: ['AUTH-KIND-12', 'AUTH-CRED-10', 'AUTH-ASST-1', 'PUR-CALLERS-1'], requires: ['assistants'], seed: true }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  expectSuccess((await agent.post('/v1/cart/items', { json: addItem })).res, 'assistant adds a line', 'AUTH-KIND-12');
  expectNamesVariant((await agent.get('/v1/cart')).res, 'assistant reads the cart', 'AUTH-KIND-12');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: agent.identity.sub! }) }), 'the customer of the session\'s account reads the line', 'AUTH-CRED-10');
  expectSuccess((await agent.get('/v1/me/profile')).res, 'assistant reads the profile', 'AUTH-CRED-10');
}));

test(...check({ id: 'agents.assistant.me.reference', title: 'GET /v1/me of an assistant: caller_kind assistant, origin assistant, the session\'s account (none when signed out)', clauses: ['AUTH-KIND-12', 'END-LIST-6'], level: 'reference', requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const me = (await agent.get('/v1/me')).res;
  expectSuccess(me, 'GET /v1/me', 'END-LIST-6');
  const got = [me.body?.caller_kind, me.body?.origin, me.body?.client_id, me.body?.account?.sub];
  const want = ['assistant', 'assistant', shop.profile.clients.personalAgentProxy, agent.identity.sub];
  if (JSON.stringify(got) !== JSON.stringify(want)) fail('GET /v1/me [caller_kind, origin, client_id, account.sub]', want, got, 'AUTH-KIND-12');
  const out = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
  const meOut = (await out.get('/v1/me')).res;
  expectSuccess(meOut, 'GET /v1/me signed out', 'END-LIST-6');
  if (meOut.body?.caller_kind !== 'assistant' || meOut.body?.account !== null) fail('GET /v1/me of a signed-out assistant [caller_kind, account]', ['assistant', null], [meOut.body?.caller_kind, meOut.body?.account], 'AUTH-KIND-12');
}));

test(...check({ id: 'agents.assistant.effective-scopes', title: 'an assistant\'s authority is its token\'s permissions intersected with the session\'s live scopes; refusals name the missing permission', clauses: ['AUTH-ASST-6', 'AUTH-SCOPE-3', 'AUTH-SCOPE-4', 'AUTH-SCOPE-6', 'AUTH-SCOPE-7', 'AUTH-SCOPE-8', 'AUTH-SCOPE-9', 'ERR-SCOPE-1'], requires: ['assistants'], seed: true }, async (shop) => {
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
    ['AUTH-ASST-6', ['assistant:read', 'checkout'], `${base} account:read payment_methods:read orders:read account:write orders:write`, ['assistant:read']],
  ];
  for (const [clause, live, scope, expected] of cases) {
    const agent = await AssistantAgent.create(shop, { permissions: live, ...(scope !== undefined ? { scope } : {}) });
    await expectAuthority(shop, sendAssistant(agent), expected, clause, 'permission');
  }
}));

test(...check({ id: 'agents.assistant.same-rule-everywhere', title: 'the effective-scope rule is the same for a token of the agent audience and for the same token forwarded by the agent-protocol server', clauses: ['AUTH-ASST-7', 'AUTH-ASST-6', 'ERR-SCOPE-1'], requires: ['assistants'], seed: true }, async (shop) => {
  const agentAudience = await AssistantAgent.create(shop, { permissions: ['assistant:read'], audience: 'agent' });
  await expectAuthority(shop, sendAssistant(agentAudience), ['assistant:read'], 'AUTH-ASST-7', 'permission');
  const forwarded = await AssistantAgent.create(shop, { permissions: ['assistant:read'] });
  const forwarder = await shop.mint.mcpAgentForwarder();
  const headers = { authorization: `Bearer ${forwarder}`, 'assistant-subject': forwarded.token };
  await expectAuthority(shop, (call) => shop.http.request(call.method, call.path, { headers, ...(call.json !== undefined ? { json: call.json } : {}) }), ['assistant:read'], 'AUTH-ASST-7', 'permission');
}));

test(...check({ id: 'agents.assistant.stale-tokens', title: 'a signed-in token on a signed-out session and a signed-out token on a signed-in session act signed out: catalog and cart only, account actions 403 sign_in_required with DPoP error="sign_in_required"', clauses: ['AUTH-ASST-8', 'AUTH-ASST-9', 'AUTH-ASST-10', 'AUTH-SIGNIN-1', 'AUTH-SIGNIN-2', 'ERR-TABLE-10', 'AUTH-ACTIVE-2'], requires: ['assistants'], seed: true }, async (shop) => {
  const stale: [string, string, () => Promise<[AssistantAgent, string | undefined]>][] = [
    ['AUTH-ASST-9', 'a signed-in token on a session registered signed out', async () => [await AssistantAgent.create(shop, { signedIn: false }), undefined]],
    ['AUTH-ASST-9', 'a signed-in token on a session the proxy then signed out', async () => {
      const agent = await AssistantAgent.create(shop);
      expectSuccess((await agent.get('/v1/me/profile')).res, 'control: the profile while signed in', 'AUTH-ASST-9');
      await signOutSession(shop, agent.identity, ALL_PERMISSIONS);
      return [agent, undefined];
    }],
    ['AUTH-ASST-9', 'a signed-in token after the account revoked the agent', async () => {
      const agent = await AssistantAgent.create(shop);
      await reportAuthorization(shop, agent.identity, 'revoked');
      return [agent, undefined];
    }],
    ['AUTH-ASST-8', 'a signed-out token on a signed-in session', async () => {
      const agent = await AssistantAgent.create(shop);
      return [agent, await signedOutProxyToken(shop, { sid: agent.identity.sessionId, jkt: agent.key.thumbprint, scope: ALL_PERMISSIONS })];
    }],
  ];
  for (const [clause, what, make] of stale) {
    const [agent, token] = await make();
    const send = sendAssistant(agent, token);
    for (const id of ['getProfile', 'listOrders', 'addAddress', 'checkoutSavedCard']) {
      const res = await send(probe(OP(id)));
      inCase(`${what}: ${id}`, () => expectSignInRequired(shop, res, 'DPoP', 'AUTH-ASST-10'));
    }
    expectSuccess(await send({ method: 'GET', path: '/v1/catalog/products' }), `${what}: searchProducts`, 'AUTH-ACTIVE-2');
    expectSuccess(await send({ method: 'POST', path: '/v1/cart/items', json: addItem }), `${what}: addCartItem`, 'AUTH-ACTIVE-2');
    expectNamesVariant(await send({ method: 'GET', path: '/v1/cart' }), `${what}: getCart`, clause);
    // Acting signed out, it never reached the cart of the account its session or its token names.
    const account = agent.identity.sub ?? agent.sub;
    expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: account }) }), `${what}: the account's cart`, clause);
  }
}));

test(...check({ id: 'agents.assistant.sign-in-required-scheme', title: 'sign_in_required is 403 in the scheme chosen from the request: Bearer for a forwarder\'s machine token', clauses: ['AUTH-SIGNIN-1', 'AUTH-SIGNIN-2', 'ERR-TABLE-10', 'AUTH-CRED-9'], requires: ['assistants'] }, async (shop) => {
  const identity = await provisionAssistantSession(shop, { signedIn: false, permissions: [] });
  const key = await createDpopKey();
  const original = await signedOutProxyToken(shop, { sid: identity.sessionId, jkt: key.thumbprint });
  const res = await shop.http.get('/v1/me/profile', { headers: { authorization: `Bearer ${await shop.mint.mcpAgentForwarder()}`, 'assistant-subject': original } });
  expectSignInRequired(shop, res, 'Bearer', 'AUTH-SIGNIN-2');
}));

test(...check({ id: 'agents.assistant.signed-out-base', title: 'a signed-out proxy token (empty scope, or naming account scopes) on a signed-out session has exactly the base catalog and cart authority', clauses: ['AUTH-ASST-14', 'AUTH-ASST-16', 'AUTH-ACTIVE-2', 'AUTH-SCOPE-6'], requires: ['assistants'], seed: true }, async (shop) => {
  for (const [what, scope] of [['empty scope', ''], ['scope naming account scopes', 'catalog:read cart:read cart:write account:read orders:read checkout']] as const) {
    const agent = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true, scope, permissions: ALL_PERMISSIONS });
    expectSuccess((await agent.get('/v1/catalog/products')).res, `${what}: searchProducts`, 'AUTH-ASST-16');
    expectSuccess((await agent.post('/v1/cart/items', { json: addItem })).res, `${what}: addCartItem`, 'AUTH-ASST-14');
    expectNamesVariant((await agent.get('/v1/cart')).res, `${what}: getCart`, 'AUTH-ASST-14');
    for (const id of ['getProfile', 'listPaymentMethods', 'addAddress', 'checkoutSavedCard']) {
      const call = probe(OP(id));
      const res = (await agent.request(call.method, call.path, call.json !== undefined ? { json: call.json } : {})).res;
      inCase(`${what}: ${id}`, () => {
        if (res.status !== 403) fail('status', 403, show(res), 'AUTH-ASST-14');
        expectProblem(res, { status: 403, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'AUTH-ACTIVE-2' });
      });
    }
  }
}));

test(...check({ id: 'agents.assistant.signed-out-forgery', title: 'a signed-out proxy token is verified: another key, another typ, an account sub or expiry is 401 invalid_token in the DPoP scheme', clauses: ['AUTH-ASST-16', 'AUTH-ASST-5'], requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
  expectSuccess((await agent.get('/v1/cart')).res, 'control: the genuine signed-out token', 'AUTH-ASST-16');
  const o = { sid: agent.identity.sessionId, jkt: agent.key.thumbprint };
  const forged: [string, Promise<string>][] = [
    ['signed with another key', signedOutProxyToken(shop, { ...o, key: `not-the-proxy-secret-${hex()}` })],
    ['expired', signedOutProxyToken(shop, { ...o, claims: { iat: epoch() - 7200, exp: epoch() - 3600 } })],
    ['typ at+jwt', signedOutProxyToken(shop, { ...o, header: { typ: 'at+jwt' } })],
    ['an account sub', signedOutProxyToken(shop, { ...o, claims: { sub: shop.subject('cust') } })],
    ['another client', signedOutProxyToken(shop, { ...o, claims: { client_id: shop.profile.clients.website, sub: `${shop.profile.clients.website}@clients` } })],
  ];
  for (const [what, token] of forged) {
    const res = (await agent.get('/v1/cart', { token: await token })).res;
    inCase(what, () => expectInvalidToken(shop, res, 'AUTH-ASST-16', 'DPoP'));
  }
}));

test(...check({ id: 'agents.assistant.direct-token-shape', title: 'direct assistant tokens are single-level personal_agent exchanges of the proxy client: a deeper or other act chain, or another client, is refused', clauses: ['AUTH-ASST-15'], requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  expectSuccess((await agent.get('/v1/cart')).res, 'control: a single-level personal_agent token', 'AUTH-ASST-15');
  const c = shop.profile.clients;
  const variants: [string, Record<string, unknown>][] = [
    ['a two-level act chain', { act: { sub: 'personal_agent', act: { sub: 'another_agent' } } }],
    ['another actor', { act: { sub: 'another_agent' } }],
    ['no act', { act: undefined }],
    ['the website client', { client_id: c.website }],
    ['the agent-protocol client', { client_id: c.agentProtocol }],
    ['an unknown client', { client_id: `stranger-${hex()}` }],
  ];
  for (const [what, claims] of variants) {
    const res = (await agent.get('/v1/cart', { token: await agent.mintToken({ claims }) })).res;
    inCase(what, () => expectRefused(shop, res, 'AUTH-ASST-15'));
  }
}));

test(...check({ id: 'agents.assistant.forwarders-need-one-artifact', title: 'the web and MCP agent forwarders only forward agents: with no original artifact, or with two, they are refused', clauses: ['AUTH-ASST-17', 'AUTH-ASST-18'], requires: ['assistants'], seed: true }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const web = await shop.mint.invitedAgentForwarder();
  const mcp = await shop.mint.mcpAgentForwarder();
  const context = await shop.mint.invitedAgentContext({ sub: agent.identity.sub!, agentId: `inv_agent_${hex()}`, permissions: ALL_PERMISSIONS, forwarderToken: web });
  const browser = browserSession(shop, agent.identity.sessionId);
  const cases: [string, string, Record<string, string>][] = [
    ['AUTH-ASST-17', 'the web agent forwarder alone', { authorization: `Bearer ${web}` }],
    ['AUTH-ASST-17', 'the MCP agent forwarder alone', { authorization: `Bearer ${mcp}` }],
    ['AUTH-ASST-18', 'the MCP forwarder with Assistant-Subject and an invited-agent context', { authorization: `Bearer ${mcp}`, 'assistant-subject': agent.token, 'invited-agent-context': context }],
    ['AUTH-ASST-18', 'the web forwarder with an invited-agent context and Assistant-Subject', { authorization: `Bearer ${web}`, 'invited-agent-context': context, 'assistant-subject': agent.token }],
    ['AUTH-ASST-18', 'the web forwarder with an invited-agent context and a browser session', { authorization: `Bearer ${web}`, 'invited-agent-context': context, [ASSISTANT_BROWSER_SESSION_HEADER.toLowerCase()]: browser }],
    ['AUTH-ASST-18', 'the web forwarder with a browser session and Assistant-Subject', { authorization: `Bearer ${web}`, [ASSISTANT_BROWSER_SESSION_HEADER.toLowerCase()]: browser, 'assistant-subject': agent.token }],
  ];
  for (const [clause, what, headers] of cases) {
    for (const [method, path, json] of [['GET', '/v1/cart', undefined], ['POST', '/v1/cart/items', addItem]] as const) {
      const res = await shop.http.request(method, path, { headers, ...(json ? { json } : {}) });
      inCase(`${what}, ${method} ${path}`, () => expectRefused(shop, res, clause));
    }
  }
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: agent.identity.sub! }) }), 'the account cart after the refused writes', 'AUTH-ASST-18');
}));

test(...check({ id: 'agents.assistant.forwarded', title: 'a forwarder with one artifact speaks for that assistant: the MCP forwarder with Assistant-Subject, the web forwarder with the assistant\'s browser session', clauses: ['AUTH-CRED-8', 'AUTH-CRED-9', 'AUTH-ORDER-5'], requires: ['assistants'], seed: true }, async (shop) => {
  // MCP forwarder + the signed-out assistant's original token: the assistant's own session cart.
  const out = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
  const mcpHeaders = { authorization: `Bearer ${await shop.mint.mcpAgentForwarder()}`, 'assistant-subject': out.token };
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: mcpHeaders, json: addItem }), 'MCP forwarder adds a line for the signed-out assistant', 'AUTH-CRED-9');
  expectNamesVariant((await out.get('/v1/cart')).res, 'the assistant reads its session cart directly', 'AUTH-ORDER-5');
  // Web forwarder + the browser session of a signed-in assistant: the session's account.
  const signedIn = await AssistantAgent.create(shop);
  const webHeaders = { authorization: `Bearer ${await shop.mint.invitedAgentForwarder()}`, [ASSISTANT_BROWSER_SESSION_HEADER.toLowerCase()]: browserSession(shop, signedIn.identity.sessionId) };
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: webHeaders, json: addItem }), 'web forwarder adds a line for the browser session', 'AUTH-CRED-8');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: signedIn.identity.sub! }) }), 'the customer of the session\'s account reads the line', 'AUTH-CRED-8');
  expectSuccess(await shop.http.get('/v1/me/profile', { headers: webHeaders }), 'web forwarder reads the profile for the session', 'AUTH-CRED-8');
}));

test(...check({ id: 'agents.assistant.forwarder-needs-agent-forward', title: 'an MCP forwarder token without agent:forward cannot forward an assistant (refused)', clauses: ['AUTH-SCOPE-5'], requires: ['assistants'] }, async (shop) => {
  const out = await AssistantAgent.create(shop, { signedIn: false, signedOutToken: true });
  for (const scope of ['catalog:read cart:read cart:write', '']) {
    const headers = { authorization: `Bearer ${await shop.mint.mcpAgentForwarder({ scope })}`, 'assistant-subject': out.token };
    const res = await shop.http.get('/v1/cart', { headers });
    inCase(`forwarder scope "${scope}"`, () => expectRefused(shop, res, 'AUTH-SCOPE-5'));
  }
}));

/** A declared assistant budget (profile rateLimits, when its schema names one), or a skip: the spec shows no numbers. */
function assistantBudget(shop: Shop, name: 'assistantSessionBudget' | 'assistantClientBudget'): number {
  const declared = (shop.profile.rateLimits as Record<string, unknown> | undefined)?.[name];
  if (typeof declared !== 'number') return notApplicable(`the profile declares no assistant rate-limit budget (rateLimits.${name}); the spec shows no numbers`);
  if (declared > 500) return notApplicable(`the assistant budget ${declared} is too large to spend in a check`);
  return declared;
}

async function expectBudgetSpent(shop: Shop, agents: readonly AssistantAgent[], budget: number, clause: string): Promise<void> {
  let last: ShopResponse | undefined;
  for (let i = 0; i <= budget + 1; i++) {
    last = (await agents[i % agents.length]!.get('/v1/catalog/collections')).res;
    if (last.status === 429) break;
  }
  if (!last || last.status !== 429) fail('the budget is spent', `a 429 within ${budget + 2} requests`, last ? show(last) : 'no request', clause);
  expectProblem(last!, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause });
  if (!last!.headers.get('retry-after')) fail('Retry-After', 'present', null, clause);
}

test(...check({ id: 'agents.assistant.session-budget', title: 'an assistant session has a budget: past it, 429 rate_limited with Retry-After', clauses: ['LIM-RATE-2'], requires: ['assistants'] }, async (shop) => {
  const budget = assistantBudget(shop, 'assistantSessionBudget');
  await expectBudgetSpent(shop, [await AssistantAgent.create(shop)], budget, 'LIM-RATE-2');
}));

test(...check({ id: 'agents.assistant.client-budget', title: 'an assistant client has a budget across its sessions: past it, 429 rate_limited with Retry-After', clauses: ['LIM-RATE-3'], requires: ['assistants'] }, async (shop) => {
  const budget = assistantBudget(shop, 'assistantClientBudget');
  const clientId = `asst_client_${hex()}`;
  const agents = [await AssistantAgent.create(shop, { clientId }), await AssistantAgent.create(shop, { clientId })];
  await expectBudgetSpent(shop, agents, budget, 'LIM-RATE-3');
}));

// ---------------------------------------------------------------------------------------- caller kind × operation matrix

type AgentKind = 'invited-agent' | 'assistant';

/** The spec shows the callers of a row when the row's list is shown and the row does not leave its callers out. */
const callersShown = (op: Operation) => !op.notShown?.includes('callers') && CALLER_LISTS[op.callers].shownInSpec;

async function senderFor(shop: Shop, kind: AgentKind): Promise<Send> {
  if (kind === 'invited-agent') return sendInvited(shop, await invitedAgent(shop));
  return sendAssistant(await AssistantAgent.create(shop));
}

async function expectMatrix(shop: Shop, kind: AgentKind, ops: readonly Operation[], level: 'spec' | 'reference'): Promise<void> {
  const send = await senderFor(shop, kind);
  for (const op of ops) {
    const res = await send(probe(op));
    const allowed = CALLER_LISTS[op.callers].members.includes(kind);
    const clause = op.group === 'operator' ? 'PUR-RULE-3' : 'PUR-RULE-2';
    inCase(`${kind} on ${op.operationId} (${op.method} ${op.path})`, () => {
      if (allowed) return expectPassesGuard(res, op.operationId, clause);
      // /v1/ops/* is operator-only (spec, rule 1); its rows are not shown, so the spec level asks for a refusal only.
      if (level === 'spec' && op.group === 'operator') return expectRefused(shop, res, clause);
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-8' });
      if (res.headers.get('www-authenticate') !== null) fail('WWW-Authenticate on caller_not_allowed', null, res.headers.get('www-authenticate'), 'ERR-TABLE-8');
    });
  }
}

const MATRIX: readonly [AgentKind, 'invitedAgents' | 'assistants'][] = [['invited-agent', 'invitedAgents'], ['assistant', 'assistants']];

for (const [kind, capability] of MATRIX) {
  test(...check({
    id: `agents.matrix.${kind}`,
    title: `${kind} × every operation whose callers the spec shows (and /v1/ops/*): listed operations pass the guard, the others are refused`,
    clauses: ['PUR-RULE-2', 'PUR-RULE-3', 'END-LIST-1', 'END-LIST-2', 'END-LIST-3', 'END-LIST-4', kind === 'assistant' ? 'AUTH-KIND-12' : 'AUTH-KIND-10'],
    requires: [capability],
    seed: true,
  }, async (shop) => {
    await expectMatrix(shop, kind, OPERATIONS.filter((op) => callersShown(op) || op.group === 'operator'), 'spec');
  }));

  test(...check({
    id: `agents.matrix.${kind}.reference`,
    title: `${kind} × every operation of contract/operations.ts: the reference's caller lists, 403 caller_not_allowed (no challenge) outside them`,
    clauses: ['PUR-RULE-2', 'PUR-RULE-3', 'ERR-TABLE-8', 'END-LIST-6'],
    level: 'reference',
    requires: [capability],
    seed: true,
  }, async (shop) => {
    await expectMatrix(shop, kind, OPERATIONS, 'reference');
  }));
}
