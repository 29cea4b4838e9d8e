// Spec part 4, Endpoints, for the operator operations under /v1/ops/* (spec, What the service does 1: "/v1/ops/* is
// operator-only"; Credentials per consumer: the backoffice machine token plus an Operator attribution header).
//
// Levels. The spec shows none of the operator rows ("the operations under /v1/ops/*: not shown"): their paths, payloads,
// scopes and codes are the reference's (contract/operations.ts, reference/src/schemas/ops.ts). At spec level only
// PUR-RULE-3 is judged: no other caller kind gets a successful answer on these paths, whatever they are. Everything else
// is reference level.
//
// Writes. Checks run against long-lived deployments, in parallel, again and again: every write here is one the domain
// refuses (a refund of a refunded order, a cancellation of a delivered one, stock below zero), or a +1/-1 stock pair that
// leaves the stock as it was. The happy paths of cancellation and refunds change seed data for good and are left to
// test/reference/http-ops.test.ts. The audit log of operator writes is not observable from outside (no read route).
import { check, test, type Shop } from '../engine/check.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { RequestOptions, ShopResponse } from '../engine/http.js';
import { CheckFailure, expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { newGuestSession } from '../lib/guest-session.js';
import { randomBytes } from 'node:crypto';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';

// ---------------------------------------------------------------------------------------------------------------- helpers


const OPERATOR = 'conformance@shop.test';


// Seed data (docs/seed.md) whose verdicts never change: the domain refuses each of these writes, so nothing is written.
const DELIVERED = 'ord_1001';
const REFUNDED = 'ord_1004';
const CANCELLED = 'ord_1007';
const OUT_OF_STOCK = 'var_0104';
/** A variant with plenty of stock that no other check names: the +1/-1 pair below adjusts it. */
const ADJUSTED = 'var_1402';
const ADJUSTED_HANDLE = 'ceramic-planter';

interface OpsRequest { operationId: string; method: string; path: string; json?: unknown }

/** The contract's route of an operator operation, with `{id}` filled in. */
function route(operationId: string, id?: string): { method: string; path: string } {
  const op = OPERATIONS_BY_ID.get(operationId);
  if (!op) throw new Error(`contract has no operation ${operationId}`);
  return { method: op.method, path: id === undefined ? op.path : op.path.replace('{id}', id) };
}

/** One request per operator operation, each refused by the domain even if a broken guard let it through. */
const REQUESTS: readonly OpsRequest[] = [
  { operationId: 'searchOpsOrders', ...route('searchOpsOrders') },
  { operationId: 'getOpsOrder', ...route('getOpsOrder', DELIVERED) },
  { operationId: 'cancelOpsOrder', ...route('cancelOpsOrder', DELIVERED), json: { reason: 'conformance check' } },
  { operationId: 'refundOpsOrder', ...route('refundOpsOrder', REFUNDED), json: { reason: 'conformance check' } },
  { operationId: 'adjustStock', ...route('adjustStock', OUT_OF_STOCK), json: { delta: -1, reason: 'conformance check' } },
];

const operator = async (shop: Shop, o: { scope?: string; header?: boolean } = {}): Promise<Pick<RequestOptions, 'token' | 'headers'>> => ({
  token: await shop.mint.operator(o.scope !== undefined ? { scope: o.scope } : {}),
  headers: o.header === false ? {} : { operator: OPERATOR },
});

const send = (shop: Shop, r: { method: string; path: string; json?: unknown }, who: Pick<RequestOptions, 'token' | 'headers'>) =>
  shop.http.request(r.method, r.path, { ...who, ...(r.json !== undefined ? { json: r.json } : {}) });

/** The non-operator callers the profile lets the suite present. */
async function nonOperators(shop: Shop): Promise<[string, Pick<RequestOptions, 'token' | 'headers'>][]> {
  const callers: [string, Pick<RequestOptions, 'token' | 'headers'>][] = [['customer', { token: await shop.mint.customer({ sub: shop.subject('cust') }) }]];
  if (shop.profile.capabilities.delegated) callers.push(['delegated', { token: await shop.mint.delegated({ sub: shop.subject('cust'), channel: 'openapi' }) }]);
  if (shop.profile.capabilities.guests) {
    callers.push(['guest', { token: await shop.mint.guest(), headers: { 'guest-session': newGuestSession(shop.profile.secrets.guestSessionKey), 'shopper-ip': freshShopperIp() } }]);
  }
  return callers;
}

function problem(shop: Shop, res: ShopResponse, status: number, error: string, clause: string, extra: { scope?: string } = {}): Record<string, unknown> {
  const doc = expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause, ...extra });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
  return doc;
}

function ok(res: ShopResponse, clause: string): any {
  expectStatus(res, 200, { clause });
  expectNoStore(res, { clause: 'END-CONV-9' });
  return res.body;
}

// ------------------------------------------------------------------------------------------------------- spec level

test(...check({
  id: 'endpoints.ops.non-operators-refused',
  title: 'customer, delegated and guest callers get no successful answer from any operator operation (reads and writes under /v1/ops/*)',
  clauses: ['PUR-RULE-3'],
  seed: true,
}, async (shop) => {
  for (const [kind, who] of await nonOperators(shop)) {
    for (const r of REQUESTS) {
      const res = await send(shop, r, who);
      if (res.status >= 200 && res.status < 400) fail(`${r.method} ${r.path} as ${kind}`, 'a refusal (4xx), /v1/ops/* is operator-only', `${res.status} ${res.text.slice(0, 200)}`, 'PUR-RULE-3');
      if (res.status >= 400) expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'PUR-RULE-3' });
    }
  }
}));

// -------------------------------------------------------------------------------------------------- reference level

test(...check({
  id: 'endpoints.ops.callers.reference',
  title: 'the five operator operations admit operators only: other kinds 403 caller_not_allowed (no challenge), an operator passes the guard',
  clauses: ['PUR-SERVE-5', 'PUR-RULE-3', 'END-LIST-5', 'ERR-TABLE-8', 'AUTH-KIND-11'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  for (const [kind, who] of await nonOperators(shop)) {
    for (const r of REQUESTS) {
      const res = await send(shop, r, who);
      problem(shop, res, 403, 'caller_not_allowed', 'PUR-RULE-3');
      if (res.headers.get('www-authenticate') !== null) fail(`WWW-Authenticate on caller_not_allowed (${kind}, ${r.operationId})`, 'absent', res.headers.get('www-authenticate'), 'ERR-TABLE-8');
    }
  }
  const who = await operator(shop);
  for (const r of REQUESTS) {
    const res = await send(shop, r, who);
    if (res.status === 401 || res.status === 403) fail(`operator on ${r.operationId}`, 'past the guard (not 401/403)', `${res.status} ${String(res.body?.error)}`, 'PUR-SERVE-5');
  }
}));

test(...check({
  id: 'endpoints.ops.operator-header.reference',
  title: 'a backoffice token without the Operator attribution header is 400 invalid_request on every operator operation',
  clauses: ['AUTH-CRED-4'],
  level: 'reference',
  requires: ['operators'],
}, async (shop) => {
  const who = await operator(shop, { header: false });
  for (const r of REQUESTS) problem(shop, await send(shop, r, who), 400, 'invalid_request', 'AUTH-CRED-4');
}));

test(...check({
  id: 'endpoints.ops.scopes.reference',
  title: 'operator reads need ops:read and writes ops:write: a token without it is 403 insufficient_scope naming it',
  clauses: ['ERR-TABLE-9'],
  level: 'reference',
  requires: ['operators'],
}, async (shop) => {
  const readOnly = await operator(shop, { scope: 'ops:read' });
  const writeOnly = await operator(shop, { scope: 'ops:write' });
  for (const r of REQUESTS) {
    const write = r.method !== 'GET';
    problem(shop, await send(shop, r, write ? readOnly : writeOnly), 403, 'insufficient_scope', 'ERR-TABLE-9', { scope: write ? 'ops:write' : 'ops:read' });
  }
}));

test(...check({
  id: 'endpoints.ops.search.reference',
  title: 'searchOpsOrders finds orders of every account by status, account and order number, newest first, in pages',
  clauses: ['PUR-SERVE-5', 'END-CONV-9'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  const who = await operator(shop);
  const search = async (query: string) => ok(await shop.http.get(`/v1/ops/orders?${query}`, who), 'PUR-SERVE-5') as { items: Record<string, unknown>[]; next_cursor: string | null };

  const delivered = await search('status=delivered&limit=100');
  if (!delivered.items.every((o) => o.status === 'delivered')) fail('statuses of status=delivered', 'all delivered', delivered.items.map((o) => o.status), 'PUR-SERVE-5');
  const accounts = new Set(delivered.items.map((o) => o.account));
  for (const sub of ['cust_ada', 'cust_ben', 'cust_chloe', 'cust_dev']) if (!accounts.has(sub)) fail('accounts of delivered orders', `includes ${sub}`, [...accounts], 'PUR-SERVE-5');
  const placed = delivered.items.map((o) => String(o.placed_at));
  if (placed.join() !== [...placed].sort().reverse().join()) fail('order of the results', 'newest first', placed, 'PUR-SERVE-5');

  const byNumber = await search(`q=${encodeURIComponent('#1001')}`);
  const found = byNumber.items.find((o) => o.id === DELIVERED);
  if (!found) fail('q=#1001', `finds ${DELIVERED}`, byNumber.items.map((o) => o.id), 'PUR-SERVE-5');
  for (const key of ['id', 'number', 'account', 'status', 'payment_status', 'currency', 'total_cents', 'placed_at']) {
    if (!(key in found!)) fail(`member "${key}" of an order summary`, 'present', Object.keys(found!), 'PUR-SERVE-5');
  }
  if (found!.number !== '#1001' || found!.account !== 'cust_ada') fail(`summary of ${DELIVERED}`, { number: '#1001', account: 'cust_ada' }, found, 'PUR-SERVE-5');

  const ada = await search('account=cust_ada&limit=100');
  if (ada.items.length === 0 || !ada.items.every((o) => o.account === 'cust_ada')) fail('account=cust_ada', 'only cust_ada\'s orders', ada.items.map((o) => o.account), 'PUR-SERVE-5');

  const first = await search('limit=2');
  if (first.items.length !== 2 || typeof first.next_cursor !== 'string') fail('limit=2 on the seed', '2 items and a next_cursor', first, 'PUR-SERVE-5');
  const second = await search(`limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
  const overlap = second.items.filter((o) => first.items.some((p) => p.id === o.id));
  if (second.items.length === 0 || overlap.length > 0) fail('the page after next_cursor', 'further orders, none repeated', second.items.map((o) => o.id), 'PUR-SERVE-5');

  problem(shop, await shop.http.get('/v1/ops/orders?status=misplaced', who), 400, 'invalid_request', 'PUR-SERVE-5');
}));

test(...check({
  id: 'endpoints.ops.read.reference',
  title: 'getOpsOrder reads any account\'s order with its lines, payments and returns; an unknown id is 404 not_found',
  clauses: ['PUR-SERVE-5', 'END-CONV-9'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  const who = await operator(shop);
  const o = ok(await shop.http.get(`/v1/ops/orders/${DELIVERED}`, who), 'PUR-SERVE-5');
  if (o?.id !== DELIVERED || o.account !== 'cust_ada' || o.status !== 'delivered') fail(`order ${DELIVERED}`, { id: DELIVERED, account: 'cust_ada', status: 'delivered' }, o, 'PUR-SERVE-5');
  if (!Array.isArray(o.lines) || o.lines.length === 0) fail('lines', 'a non-empty list', o.lines, 'PUR-SERVE-5');
  if (!Array.isArray(o.returns)) fail('returns', 'a list', o.returns, 'PUR-SERVE-5');
  const payment = Array.isArray(o.payments) ? o.payments.find((p: { provider_ref?: unknown }) => p.provider_ref === `pi_seed_${DELIVERED}`) : undefined;
  if (!payment) fail('payments', `the seed payment pi_seed_${DELIVERED}`, o.payments, 'PUR-SERVE-5');
  if (payment.amount_cents !== o.total_cents) fail('payment amount', o.total_cents, payment.amount_cents, 'PUR-SERVE-5');

  const refunded = ok(await shop.http.get(`/v1/ops/orders/${REFUNDED}`, who), 'PUR-SERVE-5');
  if (refunded?.payments?.[0]?.status !== 'refunded' || refunded.payments[0].refundable_cents !== 0) fail(`payment of ${REFUNDED}`, { status: 'refunded', refundable_cents: 0 }, refunded?.payments?.[0], 'PUR-SERVE-5');

  problem(shop, await shop.http.get('/v1/ops/orders/ord_0000', who), 404, 'not_found', 'PUR-SERVE-5');
}));

test(...check({
  id: 'endpoints.ops.cancel-refused.reference',
  title: 'cancelOpsOrder of a delivered or cancelled order is 409 order_not_cancellable and changes nothing; an unknown order is 404; the body is strict',
  clauses: ['PUR-SERVE-5'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  const who = await operator(shop);
  for (const [id, status] of [[DELIVERED, 'delivered'], [CANCELLED, 'cancelled']] as const) {
    problem(shop, await send(shop, { ...route('cancelOpsOrder', id), json: { reason: 'conformance check' } }, who), 409, 'order_not_cancellable', 'PUR-SERVE-5');
    const after = ok(await shop.http.get(`/v1/ops/orders/${id}`, who), 'PUR-SERVE-5');
    if (after?.status !== status) fail(`status of ${id} after a refused cancellation`, status, after?.status, 'PUR-SERVE-5');
  }
  problem(shop, await send(shop, { ...route('cancelOpsOrder', 'ord_0000'), json: { reason: 'conformance check' } }, who), 404, 'not_found', 'PUR-SERVE-5');
  for (const json of [{}, { reason: 'conformance check', refund: false }]) {
    problem(shop, await send(shop, { ...route('cancelOpsOrder', DELIVERED), json }, who), 400, 'invalid_request', 'PUR-SERVE-5');
  }
}));

test(...check({
  id: 'endpoints.ops.refund-refused.reference',
  title: 'refundOpsOrder with nothing left to refund is 409 order_not_refundable (refunded order, failed payment, more than captured); unknown 404',
  clauses: ['PUR-SERVE-5'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  const who = await operator(shop);
  const refund = (id: string, json: unknown) => send(shop, { ...route('refundOpsOrder', id), json }, who);
  problem(shop, await refund(REFUNDED, { reason: 'conformance check' }), 409, 'order_not_refundable', 'PUR-SERVE-5');
  problem(shop, await refund(CANCELLED, { reason: 'conformance check' }), 409, 'order_not_refundable', 'PUR-SERVE-5');
  const delivered = ok(await shop.http.get(`/v1/ops/orders/${DELIVERED}`, who), 'PUR-SERVE-5');
  // More than the order's total is more than any refundable amount, however much earlier runs refunded.
  problem(shop, await refund(DELIVERED, { amount_cents: Number(delivered.total_cents) + 1, reason: 'conformance check' }), 409, 'order_not_refundable', 'PUR-SERVE-5');
  problem(shop, await refund('ord_0000', { reason: 'conformance check' }), 404, 'not_found', 'PUR-SERVE-5');
  for (const json of [{ reason: 'conformance check', amount_cents: 0 }, { amount_cents: 1 }, { reason: 'conformance check', amount_cents: 1, currency: 'USD' }]) {
    problem(shop, await refund(DELIVERED, json), 400, 'invalid_request', 'PUR-SERVE-5');
  }
}));

test(...check({
  id: 'endpoints.ops.stock.reference',
  title: 'adjustStock: below zero is 409 insufficient_stock; +1 then -1 answers the new stock each time and leaves it unchanged; delta 0 or unknown variant refused',
  clauses: ['PUR-SERVE-5'],
  level: 'reference',
  requires: ['operators'],
  seed: true,
}, async (shop) => {
  const who = await operator(shop);
  const adjust = (variant: string, json: unknown) => send(shop, { ...route('adjustStock', variant), json }, who);
  problem(shop, await adjust(OUT_OF_STOCK, { delta: -1, reason: 'conformance check' }), 409, 'insufficient_stock', 'PUR-SERVE-5');

  const customer = await shop.mint.customer({ sub: shop.subject('cust') });
  const catalogStock = async () => {
    const res = await shop.http.get(`/v1/catalog/products/${ADJUSTED_HANDLE}`, { token: customer });
    expectStatus(res, 200, { clause: 'PUR-SERVE-5' });
    const v = Array.isArray(res.body?.variants) ? res.body.variants.find((x: { id?: unknown }) => x.id === ADJUSTED) : undefined;
    return v?.available_quantity as unknown;
  };
  const before = await catalogStock();
  if (typeof before !== 'number') fail(`stock of ${ADJUSTED} in the catalog`, 'a number', before, 'PUR-SERVE-5');
  const up = ok(await adjust(ADJUSTED, { delta: 1, reason: 'conformance check +1' }), 'PUR-SERVE-5');
  if (up?.variant_id !== ADJUSTED || up.stock !== (before as number) + 1) fail('answer of +1', { variant_id: ADJUSTED, stock: (before as number) + 1 }, up, 'PUR-SERVE-5');
  const down = ok(await adjust(ADJUSTED, { delta: -1, reason: 'conformance check -1' }), 'PUR-SERVE-5');
  if (down?.stock !== before) fail('answer of -1', { stock: before }, down, 'PUR-SERVE-5');
  const after = await catalogStock();
  if (after !== before) fail(`stock of ${ADJUSTED} in the catalog after +1 and -1`, before, after, 'PUR-SERVE-5');

  problem(shop, await adjust(ADJUSTED, { delta: 0, reason: 'conformance check' }), 400, 'invalid_request', 'PUR-SERVE-5');
  problem(shop, await adjust(ADJUSTED, { delta: 10_001, reason: 'conformance check' }), 400, 'invalid_request', 'PUR-SERVE-5');
  problem(shop, await adjust('var_9999', { delta: 1, reason: 'conformance check' }), 404, 'not_found', 'PUR-SERVE-5');
}));
