// Spec part 4, Endpoints: the account data operations (profile, addresses, saved cards, orders, identity) and the checkout
// reads: which caller kinds and scopes each admits, ownership of every row under /v1/me/*, the create/delete conventions on
// addresses, and what the identity read may carry. Part 1 (What the service does, rule 5) is checked with the identity read.
//
// Levels. The spec shows no payload shapes: the addAddress body `{ name, line1, city, postal_code, country, ... }`, every
// response member, the order states and their refusal codes are the reference's (docs/account.md), so they are checked at
// level reference. Spec-level checks that need an address send the reference's body and are not applicable when the service
// refuses it with a 4xx; they observe responses through the seed's data (docs/seed.md), never through member names.
// Ownership: the spec says every row is scoped by ownership; it does not say whether another account's id answers 403 or
// 404, so spec-level checks accept either, and the reference's 404 (exactly as a nonexistent id) is checked at its level.
// Seed orders are never moved to another state here: transition checks ask only for refusals on orders whose state the
// refusal leaves as it was, so reruns and parallel workers see the seed as docs/seed.md describes it.
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import { callerGuardCheck, guardRefused } from '../engine/callers.js';
import type { RequestOptions, ShopResponse } from '../engine/http.js';
import { CheckFailure, expectCreated, expectNoContent, expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { baselineOf, expectUnchanged } from '../lib/compare.js';
import { CALLER_LISTS, type CallerKind, type CallerListName } from '../../contract/callers.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';

// --- helpers (check files import nothing from each other) -------------------------------------------------------------


const is2xx = (res: { status: number }) => res.status >= 200 && res.status < 300;
const is4xx = (res: { status: number }) => res.status >= 400 && res.status < 500;
const show = (res: ShopResponse) => `${res.status} ${res.text.slice(0, 300)}`;

function expectSuccess(res: ShopResponse, what: string, clause: string): void {
  if (!is2xx(res)) fail(`${what}: status`, '2xx', show(res), clause);
}

/** Spec level: another account's row is refused, 403 or 404, with a problem document (the spec does not say which). */
function expectOwnershipRefusal(shop: Shop, res: ShopResponse, what: string, clause: string): void {
  if (res.status !== 403 && res.status !== 404) fail(`${what}: refused as not the caller's`, [403, 404], show(res), clause);
  expectProblem(res, { status: res.status, error: typeof res.body?.error === 'string' ? res.body.error : '<missing>', docsUrl: shop.docsUrl, clause });
}

/** The reference's addAddress body (docs/account.md). */
const ADDRESS = { name: 'Conformance Probe', line1: '1 Check Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };

const customer = (shop: Shop, sub = shop.subject('cust'), scope?: string | readonly string[]) =>
  shop.mint.customer({ sub, ...(scope !== undefined ? { scope } : {}) });

/** Adds an address with the reference's body; a 4xx means the service names its members otherwise: not applicable. */
async function addAddressOrSkip(shop: Shop, token: string, clause: string): Promise<ShopResponse> {
  const res = await shop.http.post('/v1/me/addresses', { token, json: ADDRESS });
  if (is4xx(res)) {
    throw notApplicable(`the service refused the reference's addAddress body with ${res.status} (payload shapes are not shown by the spec), so no address could be made`);
  }
  expectSuccess(res, 'addAddress with a valid body', clause);
  return res;
}

/** The id of a created address: the body's `id`, else the last segment of Location; none means not applicable. */
function createdAddressId(res: ShopResponse): string {
  if (typeof res.body?.id === 'string' && res.body.id !== '') return res.body.id;
  const location = res.headers.get('location');
  const last = location ? new URL(location, 'http://base.invalid').pathname.split('/').filter(Boolean).at(-1) : undefined;
  if (last) return decodeURIComponent(last);
  throw notApplicable('the addAddress answer names no id (neither an `id` member nor a Location), so the address cannot be addressed');
}

// --- the operations and the caller kinds the suite can present ---------------------------------------------------------

const ACCOUNT_OPS = ['getProfile', 'listAddresses', 'addAddress', 'deleteAddress', 'listPaymentMethods', 'listOrders', 'getOrder', 'cancelOrder', 'requestReturn'] as const;
const CHECKOUT_READS = ['getIdentity', 'getCheckoutAddress', 'getCheckoutMethods'] as const;
type Op = (typeof ACCOUNT_OPS)[number] | (typeof CHECKOUT_READS)[number];

/** An id no deployment holds: admitted callers get past the guard and then a 4xx for the missing row, nothing written. */
const NO_ORDER = 'ord_0000';
const NO_ADDRESS = 'addr_0000';

function requestFor(op: Op): { path: string; json?: unknown } {
  const o = OPERATIONS_BY_ID.get(op);
  if (!o) throw new Error(`contract has no operation ${op}`);
  const path = o.path.replace('{id}', op === 'deleteAddress' ? NO_ADDRESS : NO_ORDER);
  switch (op) {
    case 'addAddress':
      return { path, json: ADDRESS };
    case 'cancelOrder':
      return { path, json: {} };
    case 'requestReturn':
      return { path, json: { reason: 'conformance probe' } };
    default:
      return { path };
  }
}





// --- caller-kind guard of each operation -------------------------------------------------------------------------------

for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) test(...callerGuardCheck(op, () => requestFor(op)));

// --- scopes ------------------------------------------------------------------------------------------------------------

/** Every API scope a signed-in customer can hold (docs/tokens.md), less one. */
const ALL_CUSTOMER_SCOPES = ['catalog:read', 'cart:read', 'cart:write', 'account:read', 'payment_methods:read', 'orders:read', 'account:write', 'orders:write'];
const without = (scope: string) => ALL_CUSTOMER_SCOPES.filter((s) => s !== scope);

test(...check({
  id: 'endpoints.account.scopes',
  title: 'each account operation without its API scope (account:read, account:write, payment_methods:read, orders:read, orders:write) is 403 insufficient_scope naming it',
  clauses: [...ACCOUNT_OPS.map((op) => `END-OPS-${op.toUpperCase()}-1`), 'ERR-TABLE-9', 'AUTH-CUST-1', 'RES-PROBLEM-11'],
}, async (shop) => {
  for (const op of ACCOUNT_OPS) {
    const operation = OPERATIONS_BY_ID.get(op)!;
    const { path, json } = requestFor(op);
    for (const scope of operation.apiScopes) {
      const token = await customer(shop, shop.subject('cust'), without(scope));
      const res = await shop.http.request(operation.method, path, { token, ...(json !== undefined ? { json } : {}) });
      expectProblem(res, { status: 403, error: 'insufficient_scope', scope, docsUrl: shop.docsUrl, clause: `END-OPS-${op.toUpperCase()}-1` });
    }
    // Control: with every scope the same request passes the guard.
    const res = await shop.http.request(operation.method, path, { token: await customer(shop), ...(json !== undefined ? { json } : {}) });
    if (guardRefused(res)) fail(`control: ${op} with every customer scope`, 'past the guard', show(res), 'AUTH-CUST-1');
  }
}));

test(...check({
  id: 'endpoints.account.scopes.delegated',
  title: 'a delegated caller without orders:read or account:write is 403 insufficient_scope on listOrders and addAddress',
  clauses: ['AUTH-SCOPE-2', 'ERR-TABLE-9', 'END-OPS-LISTORDERS-1', 'END-OPS-ADDADDRESS-1'],
  requires: ['delegated'],
}, async (shop) => {
  const token = await shop.mint.delegated({ sub: shop.subject('cust'), channel: 'openapi', scope: without('orders:read').filter((s) => s !== 'account:write') });
  expectProblem(await shop.http.get('/v1/me/orders', { token }), { status: 403, error: 'insufficient_scope', scope: 'orders:read', docsUrl: shop.docsUrl, clause: 'AUTH-SCOPE-2' });
  expectProblem(await shop.http.post('/v1/me/addresses', { token, json: ADDRESS }), { status: 403, error: 'insufficient_scope', scope: 'account:write', docsUrl: shop.docsUrl, clause: 'AUTH-SCOPE-2' });
}));

test(...check({
  id: 'endpoints.account.scopes.checkout-reads.reference',
  title: 'the checkout reads need account:read (identity, checkout address) and payment_methods:read (checkout methods)',
  clauses: ['END-OPS-GETIDENTITY-1', 'END-OPS-GETCHECKOUTADDRESS-1', 'END-OPS-GETCHECKOUTMETHODS-1', 'ERR-TABLE-9'],
  level: 'reference',
}, async (shop) => {
  for (const [path, scope, clause] of [
    ['/v1/me/identity', 'account:read', 'END-OPS-GETIDENTITY-1'],
    ['/v1/me/checkout-address', 'account:read', 'END-OPS-GETCHECKOUTADDRESS-1'],
    ['/v1/me/checkout-methods', 'payment_methods:read', 'END-OPS-GETCHECKOUTMETHODS-1'],
  ] as const) {
    const token = await customer(shop, shop.subject('cust'), without(scope));
    expectProblem(await shop.http.get(path, { token }), { status: 403, error: 'insufficient_scope', scope, docsUrl: shop.docsUrl, clause });
  }
}));

// --- active accounts -----------------------------------------------------------------------------------------------------

const ENDED = ['cust_deleting', 'cust_deleted', 'cust_transition'] as const;

test(...check({
  id: 'endpoints.account.ended-accounts',
  title: 'an account in deleting, deleted or contact_transition is 401 account_access_ended on every account route and checkout read',
  clauses: ['AUTH-ACTIVE-1', 'ERR-TABLE-5', 'AUTH-ORDER-1'],
  seed: true,
}, async (shop) => {
  expectSuccess(await shop.http.get('/v1/me/profile', { token: await customer(shop) }), 'control: an active account reads its profile', 'AUTH-ACTIVE-1');
  for (const sub of ENDED) {
    const tokens = [await customer(shop, sub), ...(shop.profile.capabilities.delegated ? [await shop.mint.delegated({ sub, channel: 'openapi' })] : [])];
    for (const token of tokens) {
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) {
        const operation = OPERATIONS_BY_ID.get(op)!;
        // The live actor (lifecycle) is resolved before the guard: a delegated caller of an ended account is told so even on
        // the checkout reads, whose list does not admit it.
        const { path, json } = requestFor(op);
        const res = await shop.http.request(operation.method, path, { token, ...(json !== undefined ? { json } : {}) });
        expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'AUTH-ACTIVE-1' });
      }
    }
  }
}));

// --- reads of the account's own data -----------------------------------------------------------------------------------

const ADA = {
  sub: 'cust_ada', name: 'Ada Lovelace', email: 'ada.lovelace@example.com', line1: '12 Analytical Way', phone: '+1 718 555 0101',
  last4: ['4242', '8431'], orderIds: ['ord_1013', 'ord_1009', 'ord_1004', 'ord_1001'], addressIds: ['addr_ada02', 'addr_ada01'],
};
/** Data of other seed accounts that Ada's reads must never show (docs/seed.md). */
const NOT_ADAS = ['addr_ben', 'pm_ben', 'ord_1002', 'ord_1011', 'Okafor', 'ben.okafor@', 'addr_chloe', 'Chloé', 'Raman', 'pm_dev'];

test(...check({
  id: 'endpoints.account.reads',
  title: 'a customer reads its profile, addresses, saved cards, orders and one order: 2xx, no-store, its own seed data',
  clauses: ['PUR-SERVE-4', 'END-ME-1', 'END-CONV-9'],
  seed: true,
}, async (shop) => {
  const token = await customer(shop, ADA.sub);
  const reads: [string, string][] = [
    ['/v1/me/profile', ADA.name],
    ['/v1/me/addresses', ADA.line1],
    ['/v1/me/payment-methods', ADA.last4[0]!],
    ['/v1/me/orders', 'ord_1001'],
    ['/v1/me/orders/ord_1001', 'ord_1001'],
  ];
  for (const [path, own] of reads) {
    const res = await shop.http.get(path, { token });
    expectSuccess(res, `GET ${path} as cust_ada`, 'PUR-SERVE-4');
    expectNoStore(res, { clause: 'END-CONV-9' });
    if (!res.text.includes(own)) fail(`GET ${path} as cust_ada shows Ada's seed data`, `a body mentioning ${own}`, res.text.slice(0, 300), 'PUR-SERVE-4');
    for (const other of NOT_ADAS) if (res.text.includes(other)) fail(`GET ${path} as cust_ada shows another account's data`, `nothing of ${other}`, res.text.slice(0, 300), 'END-ME-1');
  }
}));

test(...check({
  id: 'endpoints.account.isolation',
  title: 'a fresh account sees none of another account\'s profile, identity, addresses, saved cards or orders',
  clauses: ['END-ME-1'],
  seed: true,
}, async (shop) => {
  const token = await customer(shop);
  const needles = [ADA.sub, ADA.name, ADA.email, ADA.line1, ...ADA.addressIds, 'pm_ada', ...ADA.orderIds, ...NOT_ADAS];
  for (const path of ['/v1/me/profile', '/v1/me/addresses', '/v1/me/payment-methods', '/v1/me/orders', '/v1/me/checkout-address', '/v1/me/checkout-methods']) {
    const res = await shop.http.get(path, { token });
    expectSuccess(res, `GET ${path} as a fresh account`, 'END-ME-1');
    for (const n of needles) if (res.text.includes(n)) fail(`GET ${path} as a fresh account`, `nothing of ${n}`, res.text.slice(0, 300), 'END-ME-1');
  }
}));

// --- identity (What the service does 5; Endpoints, identity read) -------------------------------------------------------

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const URL_LIKE = /\bhttps?:\/\//i;
const JWT_LIKE = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;

/** Every string and boolean leaf of a JSON value, with its path. */
function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  return [[path, value]];
}

test(...check({
  id: 'endpoints.account.identity',
  title: 'the identity read carries the display name and an eligibility boolean, and no email, address, phone, card, URL or token',
  clauses: ['PUR-BANNER-1', 'PUR-BANNER-2', 'END-IDENT-1', 'END-IDENT-2', 'END-OPS-GETIDENTITY-1', 'PUR-SERVE-4'],
  seed: true,
}, async (shop) => {
  // cust_ada is eligible for the self-service feature, cust_chloe is not (docs/seed.md).
  const ada = await shop.http.get('/v1/me/identity', { token: await customer(shop, ADA.sub) });
  const chloe = await shop.http.get('/v1/me/identity', { token: await customer(shop, 'cust_chloe') });
  for (const [who, res] of [['cust_ada', ada], ['cust_chloe', chloe]] as const) {
    expectSuccess(res, `getIdentity as ${who}`, 'PUR-SERVE-4');
    if (typeof res.body !== 'object' || res.body === null) fail(`getIdentity body (${who})`, 'a JSON object', res.text.slice(0, 300), 'PUR-SERVE-4');
    if (EMAIL.test(res.text) || res.text.includes('@')) fail(`getIdentity (${who}) carries an email address`, 'no email', res.text.slice(0, 300), 'PUR-BANNER-2');
    if (URL_LIKE.test(res.text)) fail(`getIdentity (${who}) carries a URL`, 'no URL of the self-service feature', res.text.slice(0, 300), 'END-IDENT-2');
    if (JWT_LIKE.test(res.text)) fail(`getIdentity (${who}) carries a token`, 'no token of the self-service feature', res.text.slice(0, 300), 'END-IDENT-2');
  }
  if (!leaves(ada.body).some(([, v]) => v === ADA.name)) fail('getIdentity shows the display name', `a member equal to ${JSON.stringify(ADA.name)}`, ada.text.slice(0, 300), 'PUR-BANNER-1');
  for (const personal of [ADA.email, ADA.line1, ADA.phone, ...ADA.last4, ...ADA.addressIds, 'pm_ada']) {
    if (ada.text.includes(personal)) fail('getIdentity carries only the display name of the account\'s personal data', `nothing of ${personal}`, ada.text.slice(0, 300), 'PUR-BANNER-1');
  }
  // The eligibility boolean: some boolean member that is true for Ada and false for Chloé.
  const chloeLeaves = new Map(leaves(chloe.body));
  const flips = leaves(ada.body).filter(([path, v]) => v === true && chloeLeaves.get(path) === false);
  if (flips.length === 0) fail('getIdentity carries the self-service eligibility boolean', 'a boolean member true for cust_ada and false for cust_chloe', `${ada.text.slice(0, 200)} / ${chloe.text.slice(0, 200)}`, 'END-IDENT-1');
}));

test(...check({
  id: 'endpoints.account.identity.reference',
  title: 'getIdentity answers exactly { display_name, self_service_eligible }',
  clauses: ['PUR-BANNER-1', 'END-IDENT-1', 'END-IDENT-2'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  for (const [sub, body] of [['cust_ada', { display_name: 'Ada Lovelace', self_service_eligible: true }], ['cust_chloe', { display_name: 'Chloé Martin', self_service_eligible: false }]] as const) {
    const res = await shop.http.get('/v1/me/identity', { token: await customer(shop, sub) });
    expectStatus(res, 200, { clause: 'PUR-BANNER-1' });
    if (JSON.stringify(res.body) !== JSON.stringify(body)) fail(`getIdentity of ${sub}`, body, res.body, 'PUR-BANNER-1');
  }
}));

// --- creates and deletes ---------------------------------------------------------------------------------------------------

test(...check({
  id: 'endpoints.account.address-create-delete',
  title: 'addAddress answers 201; the address is listed; deleteAddress answers 204 with no body and the address is gone',
  clauses: ['END-CONV-1', 'END-CONV-3', 'END-CONV-9', 'PUR-SERVE-4', 'END-OPS-ADDADDRESS-1', 'END-OPS-DELETEADDRESS-1'],
}, async (shop) => {
  const token = await customer(shop);
  const created = await addAddressOrSkip(shop, token, 'END-CONV-1');
  expectCreated(created, { clause: 'END-CONV-1' });
  expectNoStore(created, { clause: 'END-CONV-9' });
  const id = createdAddressId(created);
  const listed = await shop.http.get('/v1/me/addresses', { token });
  expectSuccess(listed, 'listAddresses after the add', 'PUR-SERVE-4');
  if (!listed.text.includes(id)) fail('listAddresses after the add', `a list naming ${id}`, listed.text.slice(0, 300), 'PUR-SERVE-4');
  const del = await shop.http.delete(`/v1/me/addresses/${encodeURIComponent(id)}`, { token });
  expectNoContent(del, { clause: 'END-CONV-3' });
  expectNoStore(del, { clause: 'END-CONV-9' });
  const after = await shop.http.get('/v1/me/addresses', { token });
  expectSuccess(after, 'listAddresses after the delete', 'PUR-SERVE-4');
  if (after.text.includes(id)) fail('listAddresses after the delete', `no ${id}`, after.text.slice(0, 300), 'END-CONV-3');
}));

test(...check({
  id: 'endpoints.account.address-create-delete.reference',
  title: 'addAddress: 201 with the address and Location /v1/me/addresses/<id>, where DELETE answers 204; again 404 not_found',
  clauses: ['END-CONV-1', 'END-CONV-3'],
  level: 'reference',
}, async (shop) => {
  const token = await customer(shop);
  const created = await shop.http.post('/v1/me/addresses', { token, json: { ...ADDRESS, line2: 'Unit 2', phone: '+1 217 555 0100' } });
  const location = expectCreated(created, { location: /^\/v1\/me\/addresses\/addr_[a-z0-9]+$/, clause: 'END-CONV-1' })!;
  if (location !== `/v1/me/addresses/${created.body?.id}`) fail('Location names the created address', `/v1/me/addresses/${created.body?.id}`, location, 'END-CONV-1');
  const expected = { ...ADDRESS, line2: 'Unit 2', phone: '+1 217 555 0100' };
  for (const [k, v] of Object.entries(expected)) if (created.body?.[k] !== v) fail(`created address "${k}"`, v, created.body?.[k], 'END-CONV-1');
  const list = await shop.http.get('/v1/me/addresses', { token });
  if (JSON.stringify(list.body?.items) !== JSON.stringify([created.body])) fail('listAddresses of a new account after one add', [created.body], list.body?.items, 'END-CONV-1');
  const checkout = await shop.http.get('/v1/me/checkout-address', { token });
  if (checkout.body?.address?.id !== created.body.id) fail('getCheckoutAddress: the newest address', created.body.id, checkout.body, 'END-CONV-1');
  expectNoContent(await shop.http.delete(location, { token }), { clause: 'END-CONV-3' });
  expectProblem(await shop.http.delete(location, { token }), { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-CONV-3' });
  const none = await shop.http.get('/v1/me/checkout-address', { token });
  if (JSON.stringify(none.body) !== JSON.stringify({ address: null })) fail('getCheckoutAddress with no address', { address: null }, none.body, 'END-CONV-3');
}));

test(...check({
  id: 'endpoints.account.address-validation.reference',
  title: 'addAddress refuses a country that is not ISO 3166-1 alpha-2, an over-long name and unknown members with 400 invalid_request; nothing is saved',
  clauses: ['ERR-TABLE-11', 'RES-PROBLEM-10'],
  level: 'reference',
}, async (shop) => {
  const token = await customer(shop);
  const cases: [string, unknown, string][] = [
    ['country XX', { ...ADDRESS, country: 'XX' }, 'body.country'],
    ['country usa', { ...ADDRESS, country: 'usa' }, 'body.country'],
    ['a 101-character name', { ...ADDRESS, name: 'n'.repeat(101) }, 'body.name'],
    ['an unknown member', { ...ADDRESS, is_default: true }, 'body'],
    ['no line1', { ...ADDRESS, line1: undefined }, 'body.line1'],
  ];
  for (const [what, body, path] of cases) {
    const res = await shop.http.post('/v1/me/addresses', { token, json: body });
    const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-11' });
    const issues = doc.issues as { path: string }[] | undefined;
    if (!Array.isArray(issues) || !issues.some((i) => i.path === path)) fail(`issues of addAddress with ${what}`, `an issue at ${path}`, issues, 'ERR-TABLE-11');
  }
  expectProblem(await shop.http.delete('/v1/me/addresses/not-an-id', { token }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-11' });
  const list = await shop.http.get('/v1/me/addresses', { token });
  if (JSON.stringify(list.body) !== JSON.stringify({ items: [] })) fail('addresses after refused adds', { items: [] }, list.body, 'ERR-TABLE-11');
}));

// --- ownership of rows by id ---------------------------------------------------------------------------------------------

test(...check({
  id: 'endpoints.account.ownership.address',
  title: 'another account cannot delete an account\'s address: refused (403 or 404) and the address is still listed for its owner',
  clauses: ['END-ME-2', 'END-OPS-DELETEADDRESS-1'],
}, async (shop) => {
  const a = await customer(shop);
  const b = await customer(shop);
  const id = createdAddressId(await addAddressOrSkip(shop, a, 'END-ME-2'));
  expectOwnershipRefusal(shop, await shop.http.delete(`/v1/me/addresses/${encodeURIComponent(id)}`, { token: b }), 'B deletes A\'s address', 'END-ME-2');
  const listed = await shop.http.get('/v1/me/addresses', { token: a });
  expectSuccess(listed, 'A lists its addresses', 'END-ME-2');
  if (!listed.text.includes(id)) fail('A\'s address after B\'s delete', `still listed (${id})`, listed.text.slice(0, 300), 'END-ME-2');
  const bList = await shop.http.get('/v1/me/addresses', { token: b });
  if (bList.text.includes(id)) fail('B\'s addresses', `no ${id}`, bList.text.slice(0, 300), 'END-ME-1');
}));

/** An order as its owner reads it, for before/after comparisons. */
async function ownOrder(shop: Shop, token: string, id: string, clause: string): Promise<ShopResponse> {
  const res = await shop.http.get(`/v1/me/orders/${id}`, { token });
  expectSuccess(res, `the owner reads ${id}`, clause);
  return res;
}

test(...check({
  id: 'endpoints.account.ownership.orders',
  title: 'reading cust_ada\'s orders, cancelling cust_ben\'s paid order, returning a delivered order or deleting an address of another account is refused (403 or 404) and nothing changes',
  clauses: ['END-ME-2', 'END-ME-1', 'END-OPS-GETORDER-1', 'END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1'],
  seed: true,
}, async (shop) => {
  const ada = await customer(shop, ADA.sub);
  const ben = await customer(shop, 'cust_ben');
  const other = await customer(shop);
  // ord_1011 is paid (cancellable by Ben), ord_1001 delivered (returnable by Ada): a leak would change them. (Not Ada's
  // pending ord_1013: the webhook checks settle it, so its state is not stable within a run.)
  const twice = async (read: () => Promise<ShopResponse>) => baselineOf(await read(), await read());
  const before = { ord_1011: await twice(() => ownOrder(shop, ben, 'ord_1011', 'END-ME-2')), ord_1001: await twice(() => ownOrder(shop, ada, 'ord_1001', 'END-ME-2')) };
  const addressesBefore = await twice(() => shop.http.get('/v1/me/addresses', { token: ada }));
  for (const id of ADA.orderIds) {
    const res = await shop.http.get(`/v1/me/orders/${id}`, { token: other });
    expectOwnershipRefusal(shop, res, `a fresh account reads ${id}`, 'END-ME-2');
    if (res.text.includes(ADA.name) || res.text.includes(ADA.line1)) fail(`refusal of ${id}`, 'nothing of Ada', res.text.slice(0, 300), 'END-ME-1');
  }
  expectOwnershipRefusal(shop, await shop.http.post('/v1/me/orders/ord_1011/cancellation', { token: other, json: {} }), 'a fresh account cancels cust_ben\'s ord_1011', 'END-ME-2');
  expectOwnershipRefusal(shop, await shop.http.post('/v1/me/orders/ord_1011/cancellation', { token: ada, json: {} }), 'cust_ada cancels cust_ben\'s ord_1011', 'END-ME-2');
  expectOwnershipRefusal(shop, await shop.http.post('/v1/me/orders/ord_1001/returns', { token: other, json: { reason: 'not mine' } }), 'a fresh account returns ord_1001', 'END-ME-2');
  expectOwnershipRefusal(shop, await shop.http.delete(`/v1/me/addresses/${ADA.addressIds[1]}`, { token: other }), 'a fresh account deletes addr_ada01', 'END-ME-2');
  expectUnchanged(before.ord_1011, await ownOrder(shop, ben, 'ord_1011', 'END-ME-2'), 'cust_ben\'s ord_1011 after others\' cancellations', 'END-ME-2');
  expectUnchanged(before.ord_1001, await ownOrder(shop, ada, 'ord_1001', 'END-ME-2'), 'cust_ada\'s ord_1001 after another account\'s return', 'END-ME-2');
  expectUnchanged(addressesBefore, await shop.http.get('/v1/me/addresses', { token: ada }), 'cust_ada\'s addresses after another account\'s delete', 'END-ME-2');
}));

test(...check({
  id: 'endpoints.account.ownership.reference',
  title: 'another account\'s order or address answers 404 not_found exactly like an id that does not exist',
  clauses: ['END-ME-2'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customer(shop);
  const same = (what: string, mine: ShopResponse, missing: ShopResponse) => {
    const a = expectProblem(mine, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
    const b = expectProblem(missing, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
    if (a.detail !== b.detail) fail(`${what}: the refusal tells nothing of the row's existence`, b.detail, a.detail, 'END-ME-2');
  };
  same('getOrder', await shop.http.get('/v1/me/orders/ord_1001', { token }), await shop.http.get(`/v1/me/orders/${NO_ORDER}`, { token }));
  same('cancelOrder', await shop.http.post('/v1/me/orders/ord_1011/cancellation', { token, json: {} }), await shop.http.post(`/v1/me/orders/${NO_ORDER}/cancellation`, { token, json: {} }));
  same('requestReturn', await shop.http.post('/v1/me/orders/ord_1001/returns', { token, json: { reason: 'x' } }), await shop.http.post(`/v1/me/orders/${NO_ORDER}/returns`, { token, json: { reason: 'x' } }));
  same('deleteAddress', await shop.http.delete('/v1/me/addresses/addr_ada01', { token }), await shop.http.delete(`/v1/me/addresses/${NO_ADDRESS}`, { token }));
}));

// --- orders: reference shapes, paging, refused transitions ----------------------------------------------------------------

test(...check({
  id: 'endpoints.account.orders.paging.reference',
  title: 'listOrders pages cust_ada\'s four orders newest first with limit=1 and next_cursor; status filters; bad limits are 400',
  clauses: ['END-OPS-LISTORDERS-1', 'PUR-SERVE-4'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customer(shop, ADA.sub);
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const res: ShopResponse = await shop.http.get(`/v1/me/orders?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expectStatus(res, 200, { clause: 'END-OPS-LISTORDERS-1' });
    seen.push(...(res.body.items as { id: string }[]).map((o) => o.id));
    cursor = res.body.next_cursor;
    if (cursor === null) break;
  }
  if (JSON.stringify(seen) !== JSON.stringify(ADA.orderIds)) fail('cust_ada\'s orders paged with limit=1', ADA.orderIds, seen, 'END-OPS-LISTORDERS-1');
  const refunded = await shop.http.get('/v1/me/orders?status=refunded', { token });
  if (JSON.stringify(refunded.body?.items?.map((o: { id: string }) => o.id)) !== JSON.stringify(['ord_1004'])) fail('status=refunded', ['ord_1004'], refunded.body, 'END-OPS-LISTORDERS-1');
  for (const q of ['limit=0', 'limit=101', 'status=lost']) {
    expectProblem(await shop.http.get(`/v1/me/orders?${q}`, { token }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'END-OPS-LISTORDERS-1' });
  }
}));

const keysOf = (v: unknown) => (typeof v === 'object' && v !== null ? Object.keys(v).sort() : v);

test(...check({
  id: 'endpoints.account.shapes.reference',
  title: 'the account records have the reference\'s members (docs/account.md); no provider reference leaves the service',
  clauses: ['PUR-SERVE-4', 'END-OPS-GETPROFILE-1', 'END-OPS-LISTPAYMENTMETHODS-1', 'END-OPS-GETORDER-1', 'END-OPS-GETCHECKOUTMETHODS-1', 'END-OPS-GETCHECKOUTADDRESS-1'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customer(shop, ADA.sub);
  const get = async (path: string) => {
    const res = await shop.http.get(path, { token });
    expectStatus(res, 200, { clause: 'PUR-SERVE-4' });
    if (/pm_card_|pi_seed_/.test(res.text)) fail(`GET ${path} leaks a payment-provider reference`, 'none', res.text.slice(0, 300), 'PUR-SERVE-4');
    return res.body;
  };
  const expectKeys = (what: string, value: unknown, keys: string[], clause: string) => {
    if (JSON.stringify(keysOf(value)) !== JSON.stringify([...keys].sort())) fail(`members of ${what}`, [...keys].sort(), keysOf(value), clause);
  };
  const ADDRESS_KEYS = ['id', 'name', 'line1', 'line2', 'city', 'region', 'postal_code', 'country', 'phone', 'created_at'];
  const profile = await get('/v1/me/profile');
  expectKeys('Profile', profile, ['sub', 'email', 'display_name', 'created_at'], 'END-OPS-GETPROFILE-1');
  if (profile.sub !== ADA.sub || profile.email !== ADA.email || profile.display_name !== ADA.name) fail('cust_ada\'s profile', { sub: ADA.sub, email: ADA.email, display_name: ADA.name }, profile, 'END-OPS-GETPROFILE-1');
  const addresses = await get('/v1/me/addresses');
  expectKeys('AddressList', addresses, ['items'], 'PUR-SERVE-4');
  if (JSON.stringify(addresses.items.map((a: { id: string }) => a.id)) !== JSON.stringify(ADA.addressIds)) fail('cust_ada\'s addresses, newest first', ADA.addressIds, addresses.items, 'PUR-SERVE-4');
  for (const a of addresses.items) expectKeys('Address', a, ADDRESS_KEYS, 'PUR-SERVE-4');
  const cards = await get('/v1/me/payment-methods');
  for (const c of cards.items) expectKeys('PaymentMethod', c, ['id', 'brand', 'last4', 'exp_month', 'exp_year', 'expired'], 'END-OPS-LISTPAYMENTMETHODS-1');
  const orders = await get('/v1/me/orders');
  expectKeys('OrderPage', orders, ['items', 'next_cursor'], 'PUR-SERVE-4');
  for (const o of orders.items) expectKeys('OrderSummary', o, ['id', 'number', 'status', 'placed_at', 'currency', 'total_cents', 'item_count'], 'PUR-SERVE-4');
  const order = await get('/v1/me/orders/ord_1001');
  expectKeys('OrderDetail', order, ['id', 'number', 'status', 'placed_at', 'updated_at', 'currency', 'lines', 'item_count', 'subtotal_cents', 'shipping_cents', 'tax_cents', 'total_cents', 'address_id', 'payment_method_id', 'payment_status', 'returns', 'cancellable', 'returnable'], 'END-OPS-GETORDER-1');
  const lineSum = (order.lines as { line_total_cents: number }[]).reduce((n, l) => n + l.line_total_cents, 0);
  if (order.subtotal_cents !== lineSum || order.total_cents !== order.subtotal_cents + order.shipping_cents + order.tax_cents) {
    fail('ord_1001 totals', 'subtotal = sum of lines; total = subtotal + shipping + tax', order, 'END-OPS-GETORDER-1');
  }
  const methods = await get('/v1/me/checkout-methods');
  for (const c of methods.items) expectKeys('CheckoutMethod', c, ['id', 'brand', 'last4', 'exp_month', 'exp_year'], 'END-OPS-GETCHECKOUTMETHODS-1');
  const checkoutAddress = await get('/v1/me/checkout-address');
  expectKeys('CheckoutAddress', checkoutAddress, ['address'], 'END-OPS-GETCHECKOUTADDRESS-1');
  if (checkoutAddress.address?.id !== ADA.addressIds[0]) fail('cust_ada\'s checkout address (the newest)', ADA.addressIds[0], checkoutAddress.address, 'END-OPS-GETCHECKOUTADDRESS-1');
  const eve = await shop.http.get('/v1/me/checkout-methods', { token: await customer(shop, 'cust_eve') });
  if (JSON.stringify(eve.body) !== JSON.stringify({ items: [] })) fail('checkout methods of cust_eve (no card)', { items: [] }, eve.body, 'END-OPS-GETCHECKOUTMETHODS-1');
}));

// Orders whose state a refusal leaves as it is (docs/seed.md) and that no check moves: cancelling is legal only from
// pending_payment and paid, returning only from delivered and only once. The seed's one pending_payment order (ord_1013)
// is left out: the webhook checks settle it to paid, so its state depends on which checks ran before.
const NOT_CANCELLABLE = [['cust_ada', 'ord_1009', 'fulfilled'], ['cust_ada', 'ord_1001', 'delivered'], ['cust_ada', 'ord_1004', 'refunded'], ['cust_ben', 'ord_1008', 'cancelled'], ['cust_ben', 'ord_1006', 'return_requested']] as const;
const NOT_RETURNABLE = [['cust_ben', 'ord_1011', 'paid'], ['cust_ada', 'ord_1009', 'fulfilled'], ['cust_ada', 'ord_1004', 'refunded'], ['cust_ben', 'ord_1008', 'cancelled'], ['cust_ben', 'ord_1006', 'return_requested']] as const;

test(...check({
  id: 'endpoints.account.transitions.reference',
  title: 'cancelOrder outside pending_payment/paid is 409 order_not_cancellable, requestReturn outside delivered (or twice) 409 order_not_returnable; the orders are unchanged',
  clauses: ['END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1', 'PUR-SERVE-4'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const tokens = { cust_ada: await customer(shop, 'cust_ada'), cust_ben: await customer(shop, 'cust_ben') };
  const read = async (sub: keyof typeof tokens, id: string) => {
    const res = await shop.http.get(`/v1/me/orders/${id}`, { token: tokens[sub] });
    expectStatus(res, 200, { clause: 'PUR-SERVE-4' });
    return res.body;
  };
  for (const [sub, id, status] of NOT_CANCELLABLE) {
    const before = await read(sub, id);
    if (before.status !== status) fail(`seed state of ${id}`, status, before.status, 'END-OPS-CANCELORDER-1');
    if (before.cancellable !== false) fail(`${id} "cancellable"`, false, before.cancellable, 'END-OPS-CANCELORDER-1');
    expectProblem(await shop.http.post(`/v1/me/orders/${id}/cancellation`, { token: tokens[sub], json: { reason: 'conformance' } }), { status: 409, error: 'order_not_cancellable', docsUrl: shop.docsUrl, clause: 'END-OPS-CANCELORDER-1' });
    const after = await read(sub, id);
    if (JSON.stringify(after) !== JSON.stringify(before)) fail(`${id} after a refused cancellation`, before, after, 'END-OPS-CANCELORDER-1');
  }
  for (const [sub, id, status] of NOT_RETURNABLE) {
    const before = await read(sub, id);
    if (before.status !== status) fail(`seed state of ${id}`, status, before.status, 'END-OPS-REQUESTRETURN-1');
    expectProblem(await shop.http.post(`/v1/me/orders/${id}/returns`, { token: tokens[sub], json: { reason: 'conformance' } }), { status: 409, error: 'order_not_returnable', docsUrl: shop.docsUrl, clause: 'END-OPS-REQUESTRETURN-1' });
    const after = await read(sub, id);
    if (JSON.stringify(after) !== JSON.stringify(before)) fail(`${id} after a refused return`, before, after, 'END-OPS-REQUESTRETURN-1');
  }
}));

test(...check({
  id: 'endpoints.account.order-bodies.reference',
  title: 'cancelOrder and requestReturn bodies are strict: unknown members, a missing reason and empty lines are 400 invalid_request',
  clauses: ['ERR-TABLE-11', 'END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customer(shop, 'cust_ben');
  // ord_1008 is cancelled and ord_1006 return_requested: even a body that got through would change nothing.
  for (const [path, body] of [['/v1/me/orders/ord_1008/cancellation', { reason: 'x', refund: false }], ['/v1/me/orders/ord_1006/returns', { lines: [] }], ['/v1/me/orders/ord_1006/returns', { reason: 'x', extra: 1 }]] as const) {
    expectProblem(await shop.http.post(path, { token, json: body }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-11' });
  }
}));
