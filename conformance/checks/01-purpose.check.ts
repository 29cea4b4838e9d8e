// Spec part 1, Purpose: what the service is and is not. Storefront-only capabilities are not endpoints (probed at plausible
// paths, and looked for in both description documents), no storefront-only or operator-bypassing URLs, every served
// operation is published, no RPC, no batching, no CORS, and Idempotency-Key is accepted and ignored.
//
// Not here yet: PUR-BANNER-* (the identity read), PUR-IDEM-3/4 (checkout) and the human-only rules that need account
// routes; they come with those routes. "Answers" means 2xx or 3xx: the suite follows no redirect.
import { randomBytes, randomUUID } from 'node:crypto';
import { check, test, type Shop, notApplicable } from '../engine/check.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { ShopResponse } from '../engine/http.js';
import { CheckFailure, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { baselineOf, expectChanged } from '../lib/compare.js';
import { OPERATIONS_BY_ID, type HttpMethod } from '../../contract/operations.js';

// --- helpers (check files import nothing from each other) -------------------------------------------------------------




const is2xx = (res: { status: number }) => res.status >= 200 && res.status < 300;
const is4xx = (res: { status: number }) => res.status >= 400 && res.status < 500;
const answers = (res: { status: number }) => res.status >= 200 && res.status < 400;

function expectRefusal(res: ShopResponse, docsUrl: string, clause: string): void {
  if (!is4xx(res)) fail('refusal status', '4xx', res.status, clause);
  expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl, clause });
}

const customerToken = (shop: Shop, sub?: string) => shop.mint.customer({ sub: sub ?? shop.subject('cust') });
const VARIANT = 'var_0101';
const addBody = () => ({ variant_id: VARIANT, quantity: 1 });

/** The OpenAPI `paths` of both description documents, keyed by path with every `{param}` written `{}`. */
type Described = Map<string, Set<string>>;
const normalizePath = (p: string) => p.replace(/\{[^}]*\}/g, '{}');
async function describedOperations(shop: Shop): Promise<{ doc: string; described: Described; raw: unknown }[]> {
  const out: { doc: string; described: Described; raw: unknown }[] = [];
  for (const doc of ['/openapi.json', '/assistant/openapi.json']) {
    const res = await shop.http.get(doc);
    const described: Described = new Map();
    const paths = res.body?.paths;
    if (typeof paths === 'object' && paths !== null) {
      for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
        const methods = new Set(typeof item === 'object' && item !== null ? Object.keys(item).map((m) => m.toUpperCase()) : []);
        described.set(normalizePath(path), methods);
      }
    }
    out.push({ doc, described, raw: res.body });
  }
  return out;
}

// --- storefront-only capabilities are not service endpoints -----------------------------------------------------------------

interface Probe {
  method: HttpMethod;
  /** Path template; `{id}` is filled with `id` (default: an id nobody has). */
  path: string;
  id?: string;
}

const STOREFRONT_ONLY: readonly { name: string; clause: string; what: string; seed?: boolean; probes: readonly Probe[] }[] = [
  {
    name: 'guest-cart-merge', clause: 'PUR-STOREFRONT-2', what: 'guest-cart merge',
    probes: [
      { method: 'POST', path: '/v1/cart/merge' }, { method: 'POST', path: '/v1/cart/merges' }, { method: 'POST', path: '/v1/me/cart/merge' },
      { method: 'POST', path: '/v1/carts/merge' }, { method: 'POST', path: '/v1/guest-cart/merge' }, { method: 'POST', path: '/v1/cart/claim' },
    ],
  },
  {
    // Read-only probes at an order Ada owns (docs/seed.md), so that a receipt route would have something to show.
    name: 'status-receipt-pages', clause: 'PUR-STOREFRONT-3', what: 'status receipt pages', seed: true,
    probes: [
      { method: 'GET', path: '/v1/orders/{id}/receipt', id: 'ord_1001' }, { method: 'GET', path: '/v1/me/orders/{id}/receipt', id: 'ord_1001' },
      { method: 'GET', path: '/v1/receipts/{id}', id: 'ord_1001' }, { method: 'GET', path: '/v1/orders/{id}/status', id: 'ord_1001' },
      { method: 'GET', path: '/v1/order-status/{id}', id: 'ord_1001' }, { method: 'GET', path: '/v1/status/{id}', id: 'ord_1001' },
    ],
  },
  {
    name: 'profile-page', clause: 'PUR-STOREFRONT-4', what: 'the profile page',
    probes: [
      { method: 'GET', path: '/v1/me/profile-page' }, { method: 'GET', path: '/v1/profile' }, { method: 'GET', path: '/v1/account' },
      { method: 'GET', path: '/v1/me/account' }, { method: 'PUT', path: '/v1/me/profile' }, { method: 'PATCH', path: '/v1/me/profile' },
    ],
  },
  {
    name: 'email-verification-sync', clause: 'PUR-STOREFRONT-5', what: 'email-verification sync after sign-in',
    probes: [
      { method: 'POST', path: '/v1/me/email-verification/sync' }, { method: 'POST', path: '/v1/me/email-verification' },
      { method: 'POST', path: '/v1/me/email/sync' }, { method: 'POST', path: '/v1/me/verify-email' },
      { method: 'POST', path: '/v1/auth/email-verification/sync' }, { method: 'POST', path: '/v1/email-verification/sync' },
    ],
  },
  {
    name: 'guest-order-claim', clause: 'PUR-STOREFRONT-6', what: 'claim of verified guest orders',
    probes: [
      { method: 'POST', path: '/v1/me/orders/claim' }, { method: 'POST', path: '/v1/orders/claim' }, { method: 'POST', path: '/v1/me/guest-orders/claim' },
      { method: 'POST', path: '/v1/guest-orders/claim' }, { method: 'POST', path: '/v1/me/order-claims' }, { method: 'POST', path: '/v1/me/orders/{id}/claim' },
    ],
  },
  {
    name: 'card-controls', clause: 'PUR-STOREFRONT-7', what: 'card controls (payment methods are list-only)',
    probes: [
      { method: 'POST', path: '/v1/me/payment-methods' }, { method: 'PUT', path: '/v1/me/payment-methods/{id}' },
      { method: 'PATCH', path: '/v1/me/payment-methods/{id}' }, { method: 'DELETE', path: '/v1/me/payment-methods/{id}' },
      { method: 'POST', path: '/v1/me/payment-methods/{id}/default' }, { method: 'POST', path: '/v1/me/payment-methods/{id}/freeze' },
      { method: 'POST', path: '/v1/me/cards/{id}/lock' },
    ],
  },
  {
    name: 'address-update-default', clause: 'PUR-STOREFRONT-8', what: 'address update and address default',
    probes: [
      { method: 'PUT', path: '/v1/me/addresses/{id}' }, { method: 'PATCH', path: '/v1/me/addresses/{id}' },
      { method: 'POST', path: '/v1/me/addresses/{id}/default' }, { method: 'PUT', path: '/v1/me/addresses/{id}/default' },
      { method: 'PUT', path: '/v1/me/default-address' }, { method: 'POST', path: '/v1/me/default-address' }, { method: 'GET', path: '/v1/me/default-address' },
    ],
  },
  {
    name: 'private-activity', clause: 'PUR-STOREFRONT-9', what: 'private activity',
    probes: [
      { method: 'GET', path: '/v1/me/activity' }, { method: 'GET', path: '/v1/me/private-activity' }, { method: 'GET', path: '/v1/me/activity-log' },
      { method: 'GET', path: '/v1/me/activities' }, { method: 'GET', path: '/v1/activity' },
    ],
  },
  {
    name: 'connected-agents', clause: 'PUR-STOREFRONT-10', what: 'connected agents',
    probes: [
      { method: 'GET', path: '/v1/me/agents' }, { method: 'GET', path: '/v1/me/connected-agents' }, { method: 'GET', path: '/v1/me/agents/connected' },
      { method: 'DELETE', path: '/v1/me/connected-agents/{id}' }, { method: 'DELETE', path: '/v1/me/agents/{id}' }, { method: 'GET', path: '/v1/agents/connected' },
    ],
  },
  {
    name: 'agent-invitations', clause: 'PUR-STOREFRONT-11', what: 'agent invitations, their acceptance and inspection',
    probes: [
      { method: 'GET', path: '/v1/me/agent-invitations' }, { method: 'POST', path: '/v1/me/agent-invitations' },
      { method: 'GET', path: '/v1/agent-invitations/{id}' }, { method: 'POST', path: '/v1/agent-invitations/{id}/accept' },
      { method: 'POST', path: '/v1/me/agent-invitations/{id}/accept' }, { method: 'GET', path: '/v1/invitations/{id}' },
      { method: 'POST', path: '/v1/invitations/{id}/accept' },
    ],
  },
  {
    name: 'delegated-sign-in', clause: 'PUR-STOREFRONT-12', what: 'delegated sign-in',
    probes: [
      { method: 'POST', path: '/v1/delegated-sign-in' }, { method: 'POST', path: '/v1/agents/sign-in' }, { method: 'POST', path: '/v1/me/delegated-sign-in' },
      { method: 'POST', path: '/v1/auth/delegated' }, { method: 'POST', path: '/v1/agent-sign-in' }, { method: 'POST', path: '/v1/sign-in/delegated' },
    ],
  },
  {
    name: 'sign-out-everywhere', clause: 'PUR-STOREFRONT-13', what: 'sign-out-everywhere',
    probes: [
      { method: 'POST', path: '/v1/me/sign-out-everywhere' }, { method: 'POST', path: '/v1/me/sessions/revoke' }, { method: 'DELETE', path: '/v1/me/sessions' },
      { method: 'POST', path: '/v1/sign-out-everywhere' }, { method: 'POST', path: '/v1/me/logout-all' }, { method: 'POST', path: '/v1/me/sign-out' },
    ],
  },
  {
    name: 'account-security', clause: 'PUR-STOREFRONT-14', what: 'the account-security family',
    probes: [
      { method: 'POST', path: '/v1/me/fresh-verifications' }, { method: 'GET', path: '/v1/me/security-methods' }, { method: 'POST', path: '/v1/me/security-methods' },
      { method: 'POST', path: '/v1/me/embedded-verification' }, { method: 'PUT', path: '/v1/me/phone' }, { method: 'POST', path: '/v1/me/phone-change' },
      { method: 'PATCH', path: '/v1/me/email' }, { method: 'POST', path: '/v1/me/email-change' }, { method: 'GET', path: '/v1/me/contact-methods' },
      { method: 'POST', path: '/v1/me/security-intents' }, { method: 'DELETE', path: '/v1/me' }, { method: 'DELETE', path: '/v1/me/account' },
      { method: 'POST', path: '/v1/me/account/deletion' }, { method: 'POST', path: '/v1/me/deletion' },
    ],
  },
];

for (const cap of STOREFRONT_ONLY) {
  const clauses = ['PUR-STOREFRONT-1', cap.clause, ...(cap.clause === 'PUR-STOREFRONT-14' ? ['PUR-HUMAN-3'] : [])];
  test(...check({
    id: `purpose.storefront-only.${cap.name}`,
    title: `storefront-only, not a service endpoint: ${cap.what} (no answer at plausible paths, not in either description document)`,
    clauses,
    ...(cap.seed ? { seed: true } : {}),
  }, async (shop) => {
    // Reads as the seeded account that owns the probed ids; writes always as a fresh account, so that a service which does
    // serve them changes nothing anyone else relies on.
    const reader = cap.seed ? await customerToken(shop, 'cust_ada') : undefined;
    for (const probe of cap.probes) {
      const token = probe.method === 'GET' && reader ? reader : await customerToken(shop);
      const path = probe.path.replace('{id}', probe.id ?? `conformance_${randomUUID().slice(0, 8)}`);
      const res = await shop.http.request(probe.method, path, { token, ...(probe.method === 'GET' || probe.method === 'DELETE' ? {} : { json: {} }) });
      if (answers(res)) fail(`${probe.method} ${path} (${cap.what})`, 'no answer (not 2xx/3xx)', res.status, cap.clause);
    }
    for (const { doc, described } of await describedOperations(shop)) {
      for (const probe of cap.probes) {
        if (described.get(normalizePath(probe.path))?.has(probe.method)) fail(`${doc} lists ${probe.method} ${probe.path} (${cap.what})`, 'not listed', 'listed', 'PUR-STOREFRONT-1');
      }
    }
  }));
}

test(...check({
  id: 'purpose.human-only.not-described',
  title: 'no operation of either description document requires account:security',
  clauses: ['PUR-HUMAN-4'],
}, async (shop) => {
  for (const doc of ['/openapi.json', '/assistant/openapi.json']) {
    const res = await shop.http.get(doc);
    expectStatus(res, 200, { clause: 'PUR-HUMAN-4' });
    const paths = res.body?.paths;
    // Without OpenAPI paths, the whole document stands in for its operations.
    const operations: [string, unknown][] = typeof paths === 'object' && paths !== null
      ? Object.entries(paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) => Object.entries(item ?? {}).map(([m, op]): [string, unknown] => [`${m.toUpperCase()} ${p}`, op]))
      : [[doc, res.body]];
    for (const [name, op] of operations) {
      if (JSON.stringify(op ?? null).includes('account:security')) fail(`${doc}: ${name} mentions account:security`, 'no human-only operation', name, 'PUR-HUMAN-4');
    }
  }
}));

// --- one URL per operation, every URL public -----------------------------------------------------------------------------------

const SERVED = ['searchProducts', 'getProduct', 'listCollections', 'getCart', 'addCartItem', 'updateCartItem', 'removeCartItem'] as const;

test(...check({
  id: 'purpose.operations-described',
  title: 'every served operation route is declared in the published description document (/openapi.json)',
  clauses: ['PUR-RULE-5'],
}, async (shop) => {
  const [general] = await describedOperations(shop);
  if (!general || general.described.size === 0) fail('/openapi.json "paths"', 'the declared routes', general?.raw, 'PUR-RULE-5');
  for (const operationId of SERVED) {
    const op = OPERATIONS_BY_ID.get(operationId)!;
    if (!general.described.get(normalizePath(op.path))?.has(op.method)) fail(`/openapi.json declares ${op.method} ${op.path} (${operationId})`, 'declared', 'absent', 'PUR-RULE-5');
  }
}));

test(...check({
  id: 'purpose.operations-described.reference',
  title: 'the general description document names each served operation by its operationId',
  clauses: ['PUR-RULE-5'],
  level: 'reference',
}, async (shop) => {
  const doc = (await shop.http.get('/openapi.json')).body;
  for (const operationId of SERVED) {
    const op = OPERATIONS_BY_ID.get(operationId)!;
    const described = doc?.paths?.[op.path]?.[op.method.toLowerCase()]?.operationId;
    if (described !== operationId) fail(`operationId of ${op.method} ${op.path}`, operationId, described, 'PUR-RULE-5');
  }
}));

test(...check({
  id: 'purpose.no-storefront-prefixed-urls',
  title: 'no website- or storefront-prefixed variant of an operation answers, for customers or guests',
  clauses: ['PUR-RULE-6', 'PUR-RULE-1'],
}, async (shop) => {
  const paths = [
    '/website/v1/cart', '/storefront/v1/cart', '/v1/storefront/cart', '/v1/website/cart', '/storefront/cart', '/website/cart',
    '/web/v1/cart', '/v1/web/cart', '/storefront/v1/catalog/products', '/v1/storefront/catalog/products', '/website/v1/catalog/collections',
  ];
  const callers: { token: string; headers?: Record<string, string> }[] = [{ token: await customerToken(shop) }];
  if (shop.profile.capabilities.guests) callers.push({ token: await shop.mint.guest(), headers: { 'guest-session': shop.guestSession(), 'shopper-ip': freshShopperIp() } });
  for (const caller of callers) {
    for (const path of paths) {
      const res = await shop.http.get(path, caller);
      if (answers(res)) fail(`GET ${path}`, 'no answer (not 2xx/3xx)', res.status, 'PUR-RULE-6');
    }
    const add = await shop.http.post('/storefront/v1/cart/items', { ...caller, json: addBody() });
    if (answers(add)) fail('POST /storefront/v1/cart/items', 'no answer (not 2xx/3xx)', add.status, 'PUR-RULE-6');
  }
}));

test(...check({
  id: 'purpose.ops-operator-only',
  title: 'paths under /v1/ops/* give no successful answer to customer, delegated or guest callers',
  clauses: ['PUR-RULE-3'],
}, async (shop) => {
  const callers: [string, { token: string; headers?: Record<string, string> }][] = [['customer', { token: await customerToken(shop) }]];
  if (shop.profile.capabilities.delegated) callers.push(['delegated', { token: await shop.mint.delegated({ sub: shop.subject('cust'), channel: 'openapi' }) }]);
  if (shop.profile.capabilities.guests) callers.push(['guest', { token: await shop.mint.guest(), headers: { 'guest-session': shop.guestSession(), 'shopper-ip': freshShopperIp() } }]);
  for (const [kind, caller] of callers) {
    for (const path of ['/v1/ops', '/v1/ops/orders', '/v1/ops/accounts', '/v1/ops/customers', '/v1/ops/recovery', '/v1/ops/carts']) {
      const res = await shop.http.get(path, caller);
      if (is2xx(res)) fail(`GET ${path} as ${kind}`, 'not 2xx (operator-only)', res.status, 'PUR-RULE-3');
    }
  }
}));

// --- no RPC, no batching, no CORS ------------------------------------------------------------------------------------------------

test(...check({
  id: 'purpose.no-rpc',
  title: 'no JSON-RPC endpoint: a JSON-RPC call gets no successful answer at plausible paths',
  clauses: ['PUR-PROTO-1'],
}, async (shop) => {
  const token = await customerToken(shop);
  for (const path of ['/', '/v1', '/rpc', '/jsonrpc', '/json-rpc', '/v1/rpc', '/v1/jsonrpc', '/api/rpc']) {
    const res = await shop.http.post(path, { token, json: { jsonrpc: '2.0', id: 1, method: 'getCart', params: {} } });
    if (is2xx(res)) fail(`POST ${path} with a JSON-RPC call`, 'not 2xx', res.status, 'PUR-PROTO-1');
  }
}));

// A JSON array of request envelopes is what batching means; an array of add bodies is not used at spec level, since the
// shape of the add body is not shown (a multi-line add taking a list would be one operation, not a batch).
test(...check({
  id: 'purpose.no-batching',
  title: 'no request batching: a JSON array of requests is refused with a problem, and no batch endpoint answers',
  clauses: ['PUR-PROTO-2'],
}, async (shop) => {
  const token = await customerToken(shop);
  const requests = [
    { method: 'POST', path: '/v1/cart/items', headers: { 'content-type': 'application/json' }, body: addBody() },
    { method: 'GET', path: '/v1/cart' },
  ];
  expectRefusal(await shop.http.post('/v1/cart/items', { token, json: requests }), shop.docsUrl, 'PUR-PROTO-2');
  for (const path of ['/batch', '/v1/batch', '/v1/$batch', '/v1/bulk', '/v1/cart/items/batch', '/v1/cart/items:batch', '/v1/cart/batch']) {
    for (const json of [requests, { requests }]) {
      const res = await shop.http.post(path, { token, json });
      if (is2xx(res)) fail(`POST ${path} with a batch of requests`, 'not 2xx', res.status, 'PUR-PROTO-2');
    }
  }
}));

test(...check({
  id: 'purpose.no-batching.reference',
  title: 'a JSON array of add bodies is 400 invalid_request and adds nothing',
  clauses: ['PUR-PROTO-2'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  expectProblem(await shop.http.post('/v1/cart/items', { token, json: [addBody(), addBody()] }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'PUR-PROTO-2' });
  const cart = await shop.http.get('/v1/cart', { token });
  if (!Array.isArray(cart.body?.lines) || cart.body.lines.length !== 0) fail('cart lines after the refused array', [], cart.body?.lines, 'PUR-PROTO-2');
}));

const ORIGIN = 'https://cross-origin.example';

function expectNoCors(res: ShopResponse, what: string): void {
  const cors = [...res.headers.keys()].filter((name) => name.toLowerCase().startsWith('access-control-'));
  if (cors.length > 0) fail(`CORS headers on ${what}`, 'none', Object.fromEntries(cors.map((n) => [n, res.headers.get(n)])), 'PUR-PROTO-3');
}

test(...check({
  id: 'purpose.no-cors.preflight',
  title: 'an OPTIONS preflight with Origin gets no Access-Control-* headers',
  clauses: ['PUR-PROTO-3'],
}, async (shop) => {
  for (const [path, method] of [['/v1/cart/items', 'POST'], ['/v1/cart', 'GET'], ['/v1/catalog/products', 'GET'], ['/openapi.json', 'GET'], ['/health', 'GET']] as const) {
    const res = await shop.http.request('OPTIONS', path, {
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
    });
    expectNoCors(res, `OPTIONS ${path}`);
  }
}));

test(...check({
  id: 'purpose.no-cors.requests',
  title: 'requests carrying Origin get no Access-Control-* headers, on success and on failure',
  clauses: ['PUR-PROTO-3'],
}, async (shop) => {
  const token = await customerToken(shop);
  const headers = { origin: ORIGIN };
  expectNoCors(await shop.http.get('/v1/catalog/products', { token, headers }), 'GET /v1/catalog/products');
  expectNoCors(await shop.http.get('/v1/cart', { token, headers }), 'GET /v1/cart');
  expectNoCors(await shop.http.get('/v1/cart', { headers }), 'GET /v1/cart without a token');
  expectNoCors(await shop.http.post('/v1/cart/items', { token, headers, json: addBody() }), 'POST /v1/cart/items');
  expectNoCors(await shop.http.get('/health', { headers }), 'GET /health');
  expectNoCors(await shop.http.get('/openapi.json', { headers }), 'GET /openapi.json');
}));

// --- Idempotency-Key: accepted and ignored ---------------------------------------------------------------------------------------

test(...check({
  id: 'purpose.idempotency-key',
  title: 'Idempotency-Key is accepted and ignored: two adds with the same key are both applied',
  clauses: ['PUR-IDEM-1', 'PUR-IDEM-2'],
  seed: true,
}, async (shop) => {
  // Control without the header: payload shapes are not shown, so a service that refuses the reference's body shows nothing.
  const control = await shop.http.post('/v1/cart/items', { token: await customerToken(shop), json: addBody() });
  if (is4xx(control)) throw notApplicable(`the service refused the reference's addCartItem body with ${control.status} (payload shapes are not shown by the spec)`);

  const token = await customerToken(shop);
  const headers = { 'idempotency-key': randomUUID() };
  const read = await shop.http.get('/v1/cart', { token, headers });
  if (!is2xx(read)) fail('getCart with an Idempotency-Key', '2xx', read.status, 'PUR-IDEM-1');
  const first = await shop.http.post('/v1/cart/items', { token, headers, json: addBody() });
  if (!is2xx(first)) fail('first addCartItem with an Idempotency-Key', `2xx (like the same add without it: ${control.status})`, first.status, 'PUR-IDEM-1');
  const afterFirst = baselineOf(await shop.http.get('/v1/cart', { token }), await shop.http.get('/v1/cart', { token }));
  const second = await shop.http.post('/v1/cart/items', { token, headers, json: addBody() });
  if (!is2xx(second)) fail('second addCartItem with the same Idempotency-Key', '2xx', second.status, 'PUR-IDEM-1');
  const afterSecond = await shop.http.get('/v1/cart', { token });
  // The second add was processed: the cart changed (a replayed response would leave it as the first add left it).
  expectChanged(afterFirst, afterSecond, 'cart after a second add with the same Idempotency-Key (the add applied again)', 'PUR-IDEM-2');
}));

test(...check({
  id: 'purpose.idempotency-key.reference',
  title: 'two adds of one unit with the same Idempotency-Key are both 201 and leave a line of 2',
  clauses: ['PUR-IDEM-1', 'PUR-IDEM-2'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  const headers = { 'idempotency-key': randomUUID() };
  expectStatus(await shop.http.post('/v1/cart/items', { token, headers, json: addBody() }), 201, { clause: 'PUR-IDEM-1' });
  const again = await shop.http.post('/v1/cart/items', { token, headers, json: addBody() });
  expectStatus(again, 201, { clause: 'PUR-IDEM-1' });
  const line = Array.isArray(again.body?.lines) ? (again.body.lines as { variant_id: string; quantity: number }[]).find((l) => l.variant_id === VARIANT) : undefined;
  if (line?.quantity !== 2) fail('quantity after two adds with the same key', 2, line, 'PUR-IDEM-2');
}));
