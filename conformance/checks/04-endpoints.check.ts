// Spec part 4, Endpoints: the public routes, the conventions (201/204, JSON bodies, catalog validators, no-store), the
// caller-kind guard of every operation the service serves today, and the cart's behaviour.
//
// Levels. The spec shows no payload shapes ("Payload shapes of every operation ... not shown"): the body
// `{ "variant_id", "quantity" }` and every response member are the reference's. A spec-level check that needs a cart line
// therefore sends the reference's body and, when the service refuses that body with a 4xx, is skipped as not applicable
// (the service may well name its members otherwise); it fails only on what the spec itself says.
import { randomBytes } from 'node:crypto';
import { check, test, type Shop, notApplicable } from '../engine/check.js';
import { callerGuardCheck } from '../engine/callers.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { RequestOptions, ShopResponse } from '../engine/http.js';
import { CheckFailure, expectCacheControl, expectNoStore, expectProblem, expectStatus, expectWeakEtag, parseCacheControl, fail } from '../lib/assert.js';
import { CALLER_LISTS, type CallerKind, type CallerListName } from '../../contract/callers.js';
import { OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';

// --- helpers (check files import nothing from each other) -------------------------------------------------------------




const is2xx = (res: { status: number }) => res.status >= 200 && res.status < 300;
const is4xx = (res: { status: number }) => res.status >= 400 && res.status < 500;

/** Any 4xx problem document (status and code left to the service). */
function expectRefusal(res: ShopResponse, docsUrl: string, clause: string): void {
  if (!is4xx(res)) fail('refusal status', '4xx', res.status, clause);
  expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl, clause });
}

/** A seeded variant with plenty of stock (docs/seed.md) and the reference's addCartItem body. */
const VARIANT = 'var_0101';
const addBody = (variant = VARIANT, quantity = 1) => ({ variant_id: variant, quantity });
const SEED_HANDLE = 'waxed-canvas-field-jacket';

const customerToken = (shop: Shop) => shop.mint.customer({ sub: shop.subject('cust') });

/** Adds a line with the reference's body; a 4xx means the service does not take that body, and the check does not apply. */
async function addLineOrSkip(shop: Shop, token: string, clause: string, variant = VARIANT, quantity = 1): Promise<ShopResponse> {
  const res = await shop.http.post('/v1/cart/items', { token, json: addBody(variant, quantity) });
  if (is4xx(res)) {
    throw notApplicable(`the service refused the reference's addCartItem body {"variant_id","quantity"} with ${res.status} (payload shapes are not shown by the spec), so no cart line could be made`);
  }
  if (!is2xx(res)) fail('addCartItem status with a valid body', '2xx', res.status, clause);
  return res;
}

// --- public routes ----------------------------------------------------------------------------------------------------

test(...check({ id: 'endpoints.public.health', title: 'GET /health answers 200 without authentication', clauses: ['END-PUBLIC-1'] }, async (shop) => {
  expectStatus(await shop.http.get('/health'), 200, { clause: 'END-PUBLIC-1' });
}));

/** A description document: 200 without credentials, a JSON object naming its OpenAPI version, cacheable for 300 s. */
function expectDescription(res: ShopResponse, clauseAuth: string, clauseCache: string): void {
  expectStatus(res, 200, { clause: clauseAuth });
  const doc = res.body;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('description document', 'a JSON object', res.text.slice(0, 200), clauseAuth);
  if (typeof doc.openapi !== 'string' || doc.openapi === '') fail('description document member "openapi"', 'a version string', doc.openapi, clauseAuth);
  expectCacheControl(res, ['max-age=300'], { clause: clauseCache });
  const cc = parseCacheControl(res.headers.get('cache-control'));
  for (const d of ['no-store', 'no-cache']) if (cc.has(d)) fail(`Cache-Control directive ${d} (the document is cached 300 s)`, 'absent', res.headers.get('cache-control'), clauseCache);
}

test(...check({ id: 'endpoints.public.openapi', title: 'GET /openapi.json answers without authentication and is cacheable for 300 seconds', clauses: ['END-PUBLIC-2', 'END-PUBLIC-3'] }, async (shop) => {
  expectDescription(await shop.http.get('/openapi.json'), 'END-PUBLIC-2', 'END-PUBLIC-3');
}));

test(...check({ id: 'endpoints.public.assistant-openapi', title: 'GET /assistant/openapi.json answers without authentication and is cacheable for 300 seconds', clauses: ['END-PUBLIC-4', 'END-PUBLIC-5'] }, async (shop) => {
  expectDescription(await shop.http.get('/assistant/openapi.json'), 'END-PUBLIC-4', 'END-PUBLIC-5');
}));

test(...check({ id: 'endpoints.public.description-documents.reference', title: 'description documents: OpenAPI 3.1.0, Cache-Control exactly "public, max-age=300"', clauses: ['END-PUBLIC-3', 'END-PUBLIC-5'], level: 'reference' }, async (shop) => {
  for (const [path, clause] of [['/openapi.json', 'END-PUBLIC-3'], ['/assistant/openapi.json', 'END-PUBLIC-5']] as const) {
    const res = await shop.http.get(path);
    expectStatus(res, 200, { clause });
    if (res.body?.openapi !== '3.1.0') fail(`${path} "openapi"`, '3.1.0', res.body?.openapi, clause);
    expectCacheControl(res, ['public', 'max-age=300'], { clause, exact: true });
  }
}));

// --- conventions: catalog validators, no-store --------------------------------------------------------------------------

const CATALOG_READS = [
  { operationId: 'searchProducts', path: '/v1/catalog/products', seed: false },
  { operationId: 'getProduct', path: `/v1/catalog/products/${SEED_HANDLE}`, seed: true },
  { operationId: 'listCollections', path: '/v1/catalog/collections', seed: false },
] as const;

for (const read of CATALOG_READS) {
  test(...check({
    id: `endpoints.conventions.catalog-validators.${read.operationId}`,
    title: `${read.operationId}: weak ETag, Cache-Control: private, no-cache, and 304 with no body on a matching If-None-Match`,
    clauses: ['END-CONV-6', 'END-CONV-7', 'END-CONV-8', 'PUR-SERVE-1'],
    seed: read.seed,
  }, async (shop) => {
    const token = await customerToken(shop);
    const res = await shop.http.get(read.path, { token });
    expectStatus(res, 200, { clause: 'PUR-SERVE-1' });
    const etag = expectWeakEtag(res, { clause: 'END-CONV-6' });
    expectCacheControl(res, ['private', 'no-cache'], { clause: 'END-CONV-7' });
    const cc = parseCacheControl(res.headers.get('cache-control'));
    for (const d of ['no-store', 'public']) if (cc.has(d)) fail(`Cache-Control directive ${d} on a catalog GET`, 'private, no-cache', res.headers.get('cache-control'), 'END-CONV-7');

    const again = await shop.http.get(read.path, { token, headers: { 'if-none-match': etag } });
    expectStatus(again, 304, { clause: 'END-CONV-8' });
    if (again.text !== '') fail('body of a 304', 'empty', again.text.slice(0, 200), 'END-CONV-8');
  }));
}

test(...check({
  id: 'endpoints.conventions.catalog-validators.reference',
  title: 'catalog validators: exactly "private, no-cache"; a 304 repeats the ETag; list, strong-form and * match; another tag does not',
  clauses: ['END-CONV-6', 'END-CONV-7', 'END-CONV-8'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  for (const read of CATALOG_READS) {
    const res = await shop.http.get(read.path, { token });
    expectStatus(res, 200);
    expectCacheControl(res, ['private', 'no-cache'], { clause: 'END-CONV-7', exact: true });
    const etag = expectWeakEtag(res, { clause: 'END-CONV-6' });
    for (const inm of [etag, `W/"nope-1", ${etag}`, etag.replace(/^W\//, ''), '*']) {
      const r = await shop.http.get(read.path, { token, headers: { 'if-none-match': inm } });
      expectStatus(r, 304, { clause: 'END-CONV-8' });
      if (r.text !== '') fail('body of a 304', 'empty', r.text.slice(0, 200), 'END-CONV-8');
      if (r.headers.get('etag') !== etag) fail(`ETag of the 304 (If-None-Match: ${inm})`, etag, r.headers.get('etag'), 'END-CONV-8');
    }
    const other = await shop.http.get(read.path, { token, headers: { 'if-none-match': 'W/"not-the-tag"' } });
    expectStatus(other, 200, { clause: 'END-CONV-8' });
    if (other.headers.get('etag') !== etag) fail('ETag of an unchanged resource', etag, other.headers.get('etag'), 'END-CONV-6');
  }
}));

test(...check({
  id: 'endpoints.conventions.no-store',
  title: 'responses other than catalog GETs and description documents carry Cache-Control: no-store (health, cart, /v1/me)',
  clauses: ['END-CONV-9'],
}, async (shop) => {
  const token = await customerToken(shop);
  // Whatever their status, these are not catalog GETs: the default applies.
  expectNoStore(await shop.http.get('/health'), { clause: 'END-CONV-9' });
  expectNoStore(await shop.http.get('/v1/cart', { token }), { clause: 'END-CONV-9' });
  // The diagnostic read exists in the spec ("GET /v1/me is a diagnostic read"); whatever it answers, it is not a catalog GET.
  expectNoStore(await shop.http.get('/v1/me', { token }), { clause: 'END-CONV-9' });
}));

// --- conventions: 201 / 204 ----------------------------------------------------------------------------------------------

test(...check({
  id: 'endpoints.conventions.delete-204',
  title: 'removeCartItem of an existing line answers 204 with no body and Cache-Control: no-store',
  clauses: ['END-CONV-3', 'END-CONV-9', 'PUR-SERVE-2'],
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  const add = await addLineOrSkip(shop, token, 'PUR-SERVE-2');
  expectNoStore(add, { clause: 'END-CONV-9' });
  const del = await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token });
  expectStatus(del, 204, { clause: 'END-CONV-3' });
  if (del.text !== '') fail('body of the 204', 'empty', del.text.slice(0, 200), 'END-CONV-3');
  expectNoStore(del, { clause: 'END-CONV-9' });
}));

// END-CONV-1 says creates answer 201 (its example is addAddress), with Location where a GET URL exists (END-CONV-2). Whether
// addCartItem is a "create" is a reading, not a statement of the spec: the first add of a variant creates a cart line, a
// second one grows that line, and the spec shows no response shape; a cart line has no GET URL, so Location does not apply.
// An implementation that answers 200 with the cart meets the spec as written. 201 (every add, no Location) is therefore the
// reference's reading and is checked at level reference only.
test(...check({
  id: 'endpoints.conventions.add-201.reference',
  title: 'addCartItem answers 201 without Location, for a new line and for a grown one',
  clauses: ['END-CONV-1', 'END-CONV-9'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  for (const step of ['new line', 'grown line']) {
    const res = await shop.http.post('/v1/cart/items', { token, json: addBody() });
    expectStatus(res, 201, { clause: 'END-CONV-1' });
    if (res.headers.get('location') !== null) fail(`Location on addCartItem (${step}): a line has no GET URL`, null, res.headers.get('location'), 'END-CONV-1');
    expectNoStore(res, { clause: 'END-CONV-9' });
  }
}));

// --- conventions: JSON request bodies -------------------------------------------------------------------------------------

const jsonBytes = () => new TextEncoder().encode(JSON.stringify(addBody()));
const NON_JSON_TYPES: readonly (string | undefined)[] = [undefined, 'text/plain', 'application/x-www-form-urlencoded'];

test(...check({
  id: 'endpoints.conventions.json-content-type',
  title: 'a request body without Content-Type: application/json is refused with a problem document',
  clauses: ['END-CONV-5', 'ERR-PROBLEM-1'],
}, async (shop) => {
  const token = await customerToken(shop);
  for (const type of NON_JSON_TYPES) {
    // A Uint8Array body makes fetch send no Content-Type of its own.
    const res = await shop.http.post('/v1/cart/items', { token, body: jsonBytes(), headers: { 'content-type': type } });
    expectRefusal(res, shop.docsUrl, 'END-CONV-5');
  }
}));

test(...check({
  id: 'endpoints.conventions.json-content-type.reference',
  title: 'a body without a JSON Content-Type is 415 unsupported_media_type and writes nothing; application/json; charset=utf-8 is taken',
  clauses: ['END-CONV-5'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  for (const type of NON_JSON_TYPES) {
    const res = await shop.http.post('/v1/cart/items', { token, body: jsonBytes(), headers: { 'content-type': type } });
    expectProblem(res, { status: 415, error: 'unsupported_media_type', docsUrl: shop.docsUrl, clause: 'END-CONV-5' });
  }
  const cart = await shop.http.get('/v1/cart', { token });
  if (!Array.isArray(cart.body?.lines) || cart.body.lines.length !== 0) fail('cart lines after refused writes', [], cart.body?.lines, 'END-CONV-5');
  const ok = await shop.http.post('/v1/cart/items', { token, body: jsonBytes(), headers: { 'content-type': 'application/json; charset=utf-8' } });
  expectStatus(ok, 201, { clause: 'END-CONV-5' });
}));

// --- the caller-kind guard of each served operation -----------------------------------------------------------------------

/** The operations the service serves today; the account, checkout and operator ones get their matrix with their routes. */
const SERVED = ['searchProducts', 'getProduct', 'listCollections', 'getCart', 'addCartItem', 'updateCartItem', 'removeCartItem'] as const;

/** The caller kinds the suite can present without DPoP or forwarding, and the capability each needs. */


function requestFor(op: Operation): { path: string; json?: unknown } {
  const path = op.path.replace('{handle}', SEED_HANDLE).replace('{variant_id}', VARIANT);
  if (op.method === 'POST') return { path, json: addBody() };
  if (op.method === 'PATCH') return { path, json: { quantity: 1 } };
  return { path };
}


for (const operationId of SERVED) test(...callerGuardCheck(operationId, requestFor));

// --- cart behaviour -------------------------------------------------------------------------------------------------------

interface Line {
  variant_id: string;
  quantity: number;
}
const lineOf = (res: ShopResponse, variant: string): Line | undefined =>
  Array.isArray(res.body?.lines) ? (res.body.lines as Line[]).find((l) => l.variant_id === variant) : undefined;

test(...check({
  id: 'endpoints.cart.round-trip.reference',
  title: 'a customer adds (201), updates (200), reads and removes (204) a line; updating or removing a missing line is 404 not_found',
  clauses: ['PUR-SERVE-2', 'END-CONV-3', 'END-CONV-9'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  const empty = await shop.http.get('/v1/cart', { token });
  expectStatus(empty, 200, { clause: 'PUR-SERVE-2' });
  if (!Array.isArray(empty.body?.lines) || empty.body.lines.length !== 0) fail('lines of a new cart', [], empty.body?.lines, 'PUR-SERVE-2');

  const add = await shop.http.post('/v1/cart/items', { token, json: addBody(VARIANT, 2) });
  expectStatus(add, 201, { clause: 'PUR-SERVE-2' });
  if (lineOf(add, VARIANT)?.quantity !== 2) fail('quantity after the add', 2, lineOf(add, VARIANT), 'PUR-SERVE-2');

  const up = await shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: { quantity: 3 } });
  expectStatus(up, 200, { clause: 'PUR-SERVE-2' });
  expectNoStore(up, { clause: 'END-CONV-9' });
  if (lineOf(up, VARIANT)?.quantity !== 3) fail('quantity after the update (set, not added)', 3, lineOf(up, VARIANT), 'PUR-SERVE-2');
  const read = await shop.http.get('/v1/cart', { token });
  if (lineOf(read, VARIANT)?.quantity !== 3) fail('quantity read back', 3, lineOf(read, VARIANT), 'PUR-SERVE-2');

  const del = await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token });
  expectStatus(del, 204, { clause: 'END-CONV-3' });
  if (del.text !== '') fail('body of the 204', 'empty', del.text, 'END-CONV-3');
  const after = await shop.http.get('/v1/cart', { token });
  if (lineOf(after, VARIANT) !== undefined || after.body?.lines?.length !== 0) fail('lines after the remove', [], after.body?.lines, 'PUR-SERVE-2');

  expectProblem(await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token }), { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'PUR-SERVE-2' });
  expectProblem(await shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: { quantity: 1 } }), { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'PUR-SERVE-2' });
}));

// The spec says nothing of stock (docs/seed.md and docs/reference-choices.md do): a cart line above the stock being refused
// at add time, rather than at checkout, is the reference's behaviour, so the whole check is at level reference.
test(...check({
  id: 'endpoints.cart.stock.reference',
  title: 'a line above the stock of var_0302 (3) or of var_0104 (0) is 409 insufficient_stock and leaves the cart as it was',
  clauses: ['PUR-SERVE-2'],
  level: 'reference',
  seed: true,
}, async (shop) => {
  const token = await customerToken(shop);
  const full = await shop.http.post('/v1/cart/items', { token, json: addBody('var_0302', 3) });
  expectStatus(full, 201, { clause: 'PUR-SERVE-2' });
  expectProblem(await shop.http.post('/v1/cart/items', { token, json: addBody('var_0302', 1) }), { status: 409, error: 'insufficient_stock', docsUrl: shop.docsUrl, clause: 'PUR-SERVE-2' });
  expectProblem(await shop.http.patch('/v1/cart/items/var_0302', { token, json: { quantity: 4 } }), { status: 409, error: 'insufficient_stock', docsUrl: shop.docsUrl, clause: 'PUR-SERVE-2' });
  expectProblem(await shop.http.post('/v1/cart/items', { token, json: addBody('var_0104', 1) }), { status: 409, error: 'insufficient_stock', docsUrl: shop.docsUrl, clause: 'PUR-SERVE-2' });
  const cart = await shop.http.get('/v1/cart', { token });
  if (lineOf(cart, 'var_0302')?.quantity !== 3) fail('var_0302 line after the refusals', 3, lineOf(cart, 'var_0302'), 'PUR-SERVE-2');
  if (lineOf(cart, 'var_0104') !== undefined) fail('var_0104 line', 'absent', lineOf(cart, 'var_0104'), 'PUR-SERVE-2');
}));
