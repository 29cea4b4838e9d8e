// explore's invited-agent context shapes (conformance/explore/contexts.ts): the arbitrary reaches every variation, shapes
// survive a replay file, expectedOfContext says what the spec pins on hand-picked shapes (the permission table, the
// order of the refusals), and buildContext writes the forwarder token, claims, JOSE header, signature and carrier each
// shape names (the JWTs decoded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/catalogue.js';
import { PERMISSIONS } from '../../../contract/scopes.js';
import { accessTokenHash, createMinter, publicJwks } from '../../../conformance/lib/mint.js';
import {
  buildContext,
  contextShapeArbitrary,
  contextVariationNames,
  contextVariationNamesOf,
  describeContext,
  expectedOfContext,
  isMeaningfulContext,
  judgeContextAnswer,
  judgeShapedContext,
  scopesOfPermissions,
  UNKNOWN_PERMISSION,
  type ContextShape,
  type TokenExpectation,
} from '../../../conformance/explore/contexts.js';
import { ANY_4XX } from '../../../conformance/explore/sessions.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
const NOW = new Date('2030-01-02T03:04:05.678Z');
const IAT = Math.floor(NOW.getTime() / 1000);
const mint = createMinter(profile, { now: () => NOW });
const SUB = 'cust_checkout_8';
const OTHER_SUB = 'cust_checkout_7';
const op = (id: string) => OPERATIONS_BY_ID.get(id)!;

test('the arbitrary reaches every variation, none, two and three at once, only meaningful shapes; descriptions', () => {
  const samples = fc.sample(contextShapeArbitrary(), { seed: 7, numRuns: 4000 });
  const seen = new Set(samples.flatMap(contextVariationNamesOf));
  assert.deepEqual(
    contextVariationNames().filter((v) => !seen.has(v)),
    [],
    'variations never drawn',
  );
  const counts = new Set(samples.map((s) => Object.keys(s).length));
  for (const n of [0, 1, 2, 3]) assert.ok(counts.has(n), `a shape of ${n} variations`);
  assert.ok(samples.filter((s) => Object.keys(s).length === 1).length > samples.length / 2, 'mostly one variation at a time');
  for (const s of samples) {
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'JSON round trip');
    assert.ok(isMeaningfulContext(s), describeContext(s));
  }
  assert.equal(isMeaningfulContext({ carrier: 'absent', sub: 'empty' }), false);
  assert.equal(isMeaningfulContext({ alg: 'none', signing: 'altered' }), false);
  assert.equal(isMeaningfulContext({ carrier: 'absent', forwarder: 'expired' }), true);
  assert.equal(describeContext({}), 'as minted');
  assert.equal(
    describeContext({ permissions: 'read-only', forwarder: 'expired' }),
    'permissions: assistant:read only, forwarder: expired an hour ago',
  );
});

test('scopesOfPermissions: the permission table, unknown names unlocking nothing beyond the base', () => {
  const base = ['catalog:read', 'cart:read', 'cart:write'];
  assert.deepEqual(scopesOfPermissions([]), base);
  assert.deepEqual(scopesOfPermissions(['assistant:read']), [...base, 'account:read', 'payment_methods:read', 'orders:read']);
  assert.deepEqual(scopesOfPermissions(['assistant:write', 'checkout']), [...base, 'account:write', 'orders:write', 'checkout']);
  assert.deepEqual(scopesOfPermissions([UNKNOWN_PERMISSION, 'orders:read', 'ASSISTANT:READ', 'toString']), base);
  assert.equal(scopesOfPermissions(undefined), undefined);
});

const REFUSED = { 401: '*', 403: '*' };
const INVALID = { 401: ['invalid_token'] };
const SCOPE = { 403: ['insufficient_scope'] };
type Want = 'accept' | 'either' | { errorsOf: object; clauses?: string[] };
const VECTORS: [string, ContextShape, Want, string?][] = [
  ['getCart', {}, 'accept'],
  ['listOrders', {}, 'accept'],
  ['checkoutSavedCard', {}, 'accept'],
  ['getCart', { typ: 'JWT' }, { errorsOf: REFUSED, clauses: ['AUTH-CRED-7'] }],
  ['getCart', { typ: 'upper' }, 'either'],
  ['getCart', { typ: 'media-type' }, 'either'],
  ['getCart', { alg: 'none' }, { errorsOf: REFUSED, clauses: ['AUTH-CRED-5'] }],
  ['getCart', { alg: 'es256' }, { errorsOf: REFUSED }],
  ['getCart', { alg: 'hs512' }, 'either'],
  ['getCart', { signing: 'guest-key' }, { errorsOf: REFUSED, clauses: ['AUTH-KIND-10'] }],
  ['getCart', { sub: 'absent' }, { errorsOf: REFUSED, clauses: ['AUTH-KIND-10'] }],
  ['getCart', { sub: 'other-account' }, 'accept', 'acts for the other account'],
  ['getCart', { sub: 'unknown' }, 'either'],
  ['getCart', { sub: 'machine' }, 'either'],
  ['getCart', { agent_id: 'absent' }, 'either'],
  ['getCart', { agent_id: 'other' }, 'accept'],
  ['getCart', { exp: 'past-far' }, { errorsOf: REFUSED, clauses: ['AUTH-KIND-10'] }],
  ['getCart', { exp: 'past-seconds' }, 'either'],
  ['getCart', { exp: 'future-far' }, 'either'],
  ['getCart', { iat: 'absent' }, 'either'],
  ['getCart', { ath: 'other-token' }, { errorsOf: REFUSED, clauses: ['AUTH-CRED-6'] }],
  ['getCart', { ath: 'absent' }, { errorsOf: REFUSED, clauses: ['AUTH-CRED-6'] }],
  ['getCart', { aud: 'api' }, 'accept'],
  ['getCart', { aud: 'other' }, 'either'],
  // The permission table: the cart needs only the base scopes; the account's reads assistant:read; checkout checkout.
  ['getCart', { permissions: 'none' }, 'accept', 'AUTH-SCOPE-6'],
  ['addCartItem', { permissions: 'unknown-only' }, 'accept'],
  ['listOrders', { permissions: 'none' }, { errorsOf: SCOPE, clauses: ['AUTH-SCOPE-4', 'AUTH-SCOPE-6', 'ERR-TABLE-9'] }],
  ['listOrders', { permissions: 'write-only' }, { errorsOf: SCOPE, clauses: ['AUTH-SCOPE-4'] }],
  ['listOrders', { permissions: 'read-only' }, 'accept'],
  ['listOrders', { permissions: 'api-scopes' }, { errorsOf: SCOPE, clauses: ['AUTH-SCOPE-10'] }],
  ['listOrders', { permissions: 'upper-case' }, { errorsOf: SCOPE, clauses: ['AUTH-SCOPE-10'] }],
  ['listOrders', { permissions: 'unknown-extra' }, 'accept'],
  ['addAddress', { permissions: 'read-only' }, { errorsOf: SCOPE }],
  ['checkoutSavedCard', { permissions: 'read-only' }, { errorsOf: SCOPE, clauses: ['AUTH-SCOPE-11'] }],
  ['checkoutSavedCard', { permissions: 'checkout-only' }, 'accept'],
  ['listOrders', { permissions: 'absent' }, 'either'],
  ['getCart', { permissions: 'wrong-type' }, 'either'],
  ['getIdentity', { permissions: 'none' }, 'either', "the checkout reads' scopes are not shown"],
  ['searchOpsOrders', {}, { errorsOf: ANY_4XX, clauses: ['PUR-RULE-3'] }],
  // The forwarder: its token verified first, its artifact counted, its forwarding scope at the guard.
  ['getCart', { forwarder: 'other-audience' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-4'] }],
  ['getCart', { forwarder: 'expired', typ: 'JWT' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-6'] }],
  ['getCart', { forwarder: 'mcp-forwarder' }, { errorsOf: REFUSED, clauses: ['AUTH-CUST-9'] }],
  ['getCart', { forwarder: 'no-forward-scope' }, { errorsOf: REFUSED, clauses: ['AUTH-SCOPE-5'] }],
  ['listOrders', { forwarder: 'no-forward-scope', permissions: 'none' }, { errorsOf: REFUSED }],
  ['getCart', { forwarder: 'storefront' }, 'either'],
  ['getCart', { forwarder: 'customer', typ: 'JWT' }, 'either'],
  ['getCart', { carrier: 'absent' }, { errorsOf: REFUSED, clauses: ['AUTH-ASST-17'] }],
  ['getCart', { carrier: 'cookie' }, { errorsOf: REFUSED, clauses: ['AUTH-ASST-17'] }],
  ['getCart', { carrier: 'two-artifacts' }, { errorsOf: REFUSED, clauses: ['AUTH-ASST-18'] }],
  ['getCart', { carrier: 'twice' }, 'either'],
  // The context refused before the guard; an unsure context member lets its refusal join the guard's.
  ['listOrders', { typ: 'JWT', permissions: 'none' }, { errorsOf: REFUSED, clauses: ['AUTH-CRED-7'] }],
  ['listOrders', { iat: 'absent', permissions: 'none' }, { errorsOf: { 401: '*', 403: '*' } }],
  ['getCart', { carrier: 'absent', forwarder: 'other-audience' }, { errorsOf: INVALID }],
];

const kindOf = (e: TokenExpectation) => (e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either');

test('expectedOfContext: hand-picked shapes', () => {
  for (const [operationId, shape, want, note] of VECTORS) {
    const e = expectedOfContext(shape, { profile, operation: op(operationId) });
    const what = `${operationId} ${describeContext(shape)}${note ? ` (${note})` : ''}`;
    if (typeof want === 'string') {
      assert.equal(kindOf(e), want, what);
      continue;
    }
    assert.equal(e.accept, false, what);
    if (e.accept !== false) continue;
    assert.deepEqual(e.errorsOf, want.errorsOf, what);
    for (const c of want.clauses ?? []) assert.ok(e.clauses.includes(c), `${what}: clause ${c} in ${e.clauses.join(' ')}`);
  }
});

test('expectedOfContext: every clause cited exists; judgeContextAnswer and the explore judge', () => {
  for (const id of ['getCart', 'listOrders', 'checkoutSavedCard', 'addAddress', 'searchOpsOrders'])
    for (const s of fc.sample(contextShapeArbitrary(), { seed: 3, numRuns: 1500 })) {
      const e = expectedOfContext(s, { profile, operation: op(id) });
      if (e.accept === true) continue;
      for (const c of e.clauses) assert.ok(CLAUSES_BY_ID.has(c), `${c} (${describeContext(s)})`);
      if (e.accept === 'either') assert.ok(e.why.length > 0);
      else assert.ok(e.statuses.length > 0 && e.statuses.every((st) => st >= 400 && st < 500));
    }
  const unbound = expectedOfContext({ ath: 'absent' }, { profile });
  const scope = expectedOfContext({ permissions: 'none' }, { profile, operation: op('listOrders') });
  const cases: [TokenExpectation, number, unknown, boolean][] = [
    [{ accept: true }, 200, undefined, true],
    [{ accept: true }, 403, 'insufficient_scope', false],
    [unbound, 401, 'invalid_token', true],
    [unbound, 403, 'caller_not_allowed', true],
    [unbound, 400, 'invalid_request', false],
    [unbound, 200, undefined, false],
    [scope, 403, 'insufficient_scope', true],
    [scope, 403, 'caller_not_allowed', false],
    [scope, 200, undefined, false],
    [{ accept: 'either', clauses: ['AUTH-KIND-10'], why: 'x' }, 500, 'internal_error', false],
  ];
  for (const [e, status, error, fits] of cases)
    assert.equal(judgeContextAnswer(e, status, error) === undefined, fits, `${status} ${String(error)}`);
  const orders = { profile, operation: op('getOrder') };
  assert.equal(judgeShapedContext({}, orders, 404, 'not_found'), undefined, 'an unknown order of an accepted agent');
  assert.ok(judgeShapedContext({}, orders, 403, 'insufficient_scope'));
  assert.ok(judgeShapedContext({ permissions: 'none' }, orders, 404, 'not_found'));
});

// --- buildContext -----------------------------------------------------------------------------------------------------------

const HEADER = 'Invited-Agent-Context';
const CONTEXT_KEY = new TextEncoder().encode(profile.secrets.webSessionContextKey);
const jwks = createLocalJWKSet(publicJwks(profile));
const build = (shape: ContextShape) =>
  buildContext(shape, { profile, mint, sub: SUB, otherSub: OTHER_SUB, agentId: 'xpl_agent_a', contextHeader: HEADER });
const bearerOf = (h: Record<string, string | string[]>) => String(h.authorization).replace(/^Bearer /, '');

async function decoded(shape: ContextShape) {
  const b = await build(shape);
  const context = String(b.headers['invited-agent-context']);
  const forwarder = bearerOf(b.headers);
  return {
    b,
    context,
    forwarder,
    payload: decodeJwt(context) as Record<string, unknown>,
    header: decodeProtectedHeader(context) as Record<string, unknown>,
  };
}

test('buildContext: the sound context verifies with the context key, bound to the forwarder token that verifies', async () => {
  const { b, context, forwarder, payload } = await decoded({});
  assert.deepEqual(Object.keys(b.headers).sort(), ['authorization', 'invited-agent-context']);
  assert.equal(b.actsAs, 'own');
  const verified = await jwtVerify(context, CONTEXT_KEY, { typ: 'invited-agent+jwt', algorithms: ['HS256'], currentDate: NOW });
  assert.deepEqual(verified.payload, payload);
  assert.equal(payload.sub, SUB);
  assert.equal(payload.agent_id, 'xpl_agent_a');
  assert.deepEqual(payload.permissions, [...PERMISSIONS]);
  assert.equal(payload.ath, accessTokenHash(forwarder));
  assert.equal(payload.iat, IAT);
  const fw = await jwtVerify(forwarder, jwks, { currentDate: NOW, audience: profile.audiences.api, issuer: profile.issuer });
  assert.equal(fw.payload.client_id, profile.clients.webAgentForwarder);
  assert.match(String(fw.payload.scope), /agent:forward/);
});

test('buildContext: claims as each variation names them', async () => {
  const claim = async (shape: ContextShape, name: string) => (await decoded(shape)).payload[name];
  assert.equal(await claim({ sub: 'other-account' }, 'sub'), OTHER_SUB);
  assert.equal((await build({ sub: 'other-account' })).actsAs, 'other');
  assert.equal(await claim({ sub: 'absent' }, 'sub'), undefined);
  assert.equal(await claim({ sub: 'wrong-type' }, 'sub'), 12345);
  assert.equal(await claim({ sub: 'machine' }, 'sub'), `${profile.clients.storefront}@clients`);
  assert.match(String(await claim({ sub: 'unknown' }, 'sub')), /^xpl_unknown_/);
  assert.equal(await claim({ agent_id: 'empty' }, 'agent_id'), '');
  assert.deepEqual(await claim({ permissions: 'read-only' }, 'permissions'), ['assistant:read']);
  assert.deepEqual(await claim({ permissions: 'none' }, 'permissions'), []);
  assert.equal(await claim({ permissions: 'absent' }, 'permissions'), undefined);
  assert.equal(await claim({ permissions: 'wrong-type' }, 'permissions'), PERMISSIONS.join(' '));
  const far = (await decoded({ exp: 'past-far' })).payload;
  assert.deepEqual([far.exp, far.iat, far.admitted_at], [IAT - 3600, IAT - 3900, IAT - 3900], 'iat and the snapshot go back with exp');
  assert.equal(await claim({ exp: 'string' }, 'exp'), String(IAT + 300));
  assert.equal(await claim({ iat: 'future' }, 'iat'), IAT + 3600);
  assert.equal(await claim({ iat: 'absent', exp: 'past-far' }, 'iat'), undefined);
  assert.equal(await claim({ aud: 'api' }, 'aud'), profile.audiences.api);
  const other = await decoded({ ath: 'other-token' });
  assert.notEqual(other.payload.ath, accessTokenHash(other.forwarder));
  assert.match(String(other.payload.ath), /^[\w-]{43}$/);
  assert.equal(await claim({ ath: 'absent' }, 'ath'), undefined);
});

test('buildContext: header, algorithm and signature as each variation names them', async () => {
  const hmac = (context: string, alg: 'sha256' | 'sha512', key: string) =>
    createHmac(alg, Buffer.from(key, 'utf8'))
      .update(context.slice(0, context.lastIndexOf('.')))
      .digest('base64url');
  const sigOf = (context: string) => context.slice(context.lastIndexOf('.') + 1);
  assert.equal((await decoded({ typ: 'JWT' })).header.typ, 'JWT');
  assert.equal('typ' in (await decoded({ typ: 'absent' })).header, false);
  assert.equal((await decoded({ typ: 'upper' })).header.typ, 'INVITED-AGENT+JWT');
  assert.equal((await decoded({ typ: 'media-type' })).header.typ, 'application/invited-agent+jwt');
  const none = await decoded({ alg: 'none' });
  assert.equal(none.header.alg, 'none');
  assert.equal(sigOf(none.context), '');
  const hs512 = await decoded({ alg: 'hs512' });
  assert.equal(hs512.header.alg, 'HS512');
  assert.equal(sigOf(hs512.context), hmac(hs512.context, 'sha512', profile.secrets.webSessionContextKey));
  const lower = await decoded({ alg: 'lower-case' });
  assert.equal(lower.header.alg, 'hs256');
  assert.equal(sigOf(lower.context), hmac(lower.context, 'sha256', profile.secrets.webSessionContextKey));
  const es = await decoded({ alg: 'es256' });
  assert.equal(es.header.alg, 'ES256');
  await jwtVerify(es.context, jwks, { currentDate: NOW, typ: 'invited-agent+jwt' });
  const guest = await decoded({ signing: 'guest-key' });
  assert.equal(sigOf(guest.context), hmac(guest.context, 'sha256', profile.secrets.guestSessionKey));
  const sound = (c: string) => hmac(c, 'sha256', profile.secrets.webSessionContextKey);
  for (const signing of ['other-key', 'altered'] as const) {
    const d = await decoded({ signing });
    assert.equal(d.header.alg, 'HS256');
    assert.notEqual(sigOf(d.context), sound(d.context), signing);
    assert.equal(sigOf(d.context).length, 43, signing);
  }
  assert.equal(sigOf((await decoded({ signing: 'unsigned' })).context), '');
});

test('buildContext: the forwarder token and the carrier as each variation names them', async () => {
  const forwarderClaims = async (shape: ContextShape) => {
    const d = await decoded(shape);
    assert.equal(d.payload.ath, accessTokenHash(d.forwarder), 'the context is bound to the token it travels with');
    return decodeJwt(d.forwarder);
  };
  assert.equal((await forwarderClaims({ forwarder: 'other-audience' })).aud, 'https://elsewhere.invalid/api');
  assert.equal((await forwarderClaims({ forwarder: 'expired' })).exp, IAT - 3600);
  assert.doesNotMatch(String((await forwarderClaims({ forwarder: 'no-forward-scope' })).scope), /agent:forward/);
  assert.equal((await forwarderClaims({ forwarder: 'storefront' })).client_id, profile.clients.storefront);
  assert.equal((await forwarderClaims({ forwarder: 'mcp-forwarder' })).client_id, profile.clients.mcpAgentForwarder);
  const customer = await forwarderClaims({ forwarder: 'customer' });
  assert.deepEqual([customer.client_id, customer.sub], [profile.clients.website, SUB]);
  assert.equal((await build({ forwarder: 'storefront' })).actsAs, undefined);

  assert.deepEqual(Object.keys((await build({ carrier: 'absent' })).headers), ['authorization']);
  const twice = (await build({ carrier: 'twice' })).headers[HEADER.toLowerCase()];
  assert.ok(Array.isArray(twice) && twice.length === 2 && twice[0] === twice[1]);
  const cookie = (await build({ carrier: 'cookie' })).headers;
  assert.deepEqual(Object.keys(cookie).sort(), ['authorization', 'cookie']);
  assert.match(String(cookie.cookie), /^Invited-Agent-Context=[\w-]+\.[\w-]+\.[\w-]+$/);
  const two = (await build({ carrier: 'two-artifacts' })).headers;
  assert.deepEqual(Object.keys(two).sort(), ['assistant-subject', 'authorization', 'invited-agent-context']);
});
