// Spec part 4, Endpoints (checkout), with the rules of part 1 it carries and the `cart_empty` row of part 7: the two
// checkout operations (createCheckoutPreview, checkoutSavedCard), their callers and scope, the empty-cart refusal, and
// "there is no request idempotency" (Idempotency-Key accepted and ignored; a retry with a filled cart places another order;
// a submission after a paid order finds the cart empty).
//
// Data. Placing an order needs a saved card, which a fresh subject does not have, so these checks use the seed's checkout
// accounts (docs/seed.md): `cust_checkout_1` … `cust_checkout_8`, each with one US address `addr_chkN` and one card
// `pm_chkN`, plus `cust_checkout_decline` and `cust_checkout_async`. ONE account per check, so that parallel checks never
// share a cart; every check empties its account's cart first and leaves it empty, so a re-run gives the same verdict.
// Each order placed takes one unit of a well-stocked variant; a long-lived deployment re-run many times slowly uses it up.
//
// Levels. The spec shows no payload shapes: the bodies `{ "variant_id", "quantity" }` and `{ "payment_method_id" }` are
// the reference's. A spec-level check whose request body the service refuses with 400 is skipped as not applicable; it
// fails only on what the spec says. The preview's callers and scopes are not shown either, so its caller matrix is
// reference-level. Delegated tokens use the API audience (channel openapi); customers may not call these operations.
import { randomUUID, randomBytes } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import { credentialsOf, KINDS, type Kind } from '../engine/callers.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { RequestOptions, ShopResponse } from '../engine/http.js';
import { CheckFailure, expectCreated, expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { describeUnmatched, looksUnmatched, probeUnmatched } from '../lib/routes.js';

// --- helpers (check files import nothing from each other) -------------------------------------------------------------

const PREVIEW = '/v1/checkout-previews';
const CHECKOUT = '/v1/checkouts/saved-card';
/** Seed variants with plenty of stock (docs/seed.md): the beanie (60, 2400 cents) and the tote (58, 3200 cents). */
const BEANIE = 'var_0701';
const TOTE = 'var_2501';
const SEED_VARIANT = /var_[a-z0-9]{4,32}/g;


const is2xx = (res: { status: number }) => res.status >= 200 && res.status < 300;
const brief = (res: ShopResponse) => `${res.status} ${res.text.slice(0, 300)}`;

const agent = (shop: Shop, sub: string, scope?: string) => shop.mint.delegated({ sub, channel: 'openapi', ...(scope !== undefined ? { scope } : {}) });


/**
 * Removes every line of the account cart. Cart records are not shown by the spec, so the variant ids are taken from the
 * text of the cart (seed ids look like `var_0701`); a line that is already gone is no failure.
 */
async function emptyCart(shop: Shop, token: string): Promise<void> {
  const cart = await shop.http.get('/v1/cart', { token });
  for (const id of new Set(cart.text.match(SEED_VARIANT) ?? [])) await shop.http.delete(`/v1/cart/items/${id}`, { token });
}

/** Adds a line with the reference's body; a 4xx means the service takes another body, and the check does not apply. */
async function addLine(shop: Shop, token: string, variant: string, quantity: number, clause: string): Promise<void> {
  const res = await shop.http.post('/v1/cart/items', { token, json: { variant_id: variant, quantity } });
  if (res.status >= 400 && res.status < 500) throw notApplicable(`the service refused the reference's addCartItem body {"variant_id","quantity"} with ${res.status} (payload shapes are not shown by the spec)`);
  if (!is2xx(res)) fail(`addCartItem ${variant}`, '2xx', brief(res), clause);
}

/** The cart does (or does not) name the variant: the spec shows no cart shape, any member may carry the id. */
async function expectCartNames(shop: Shop, token: string, variant: string, present: boolean, what: string, clause: string): Promise<void> {
  const cart = await shop.http.get('/v1/cart', { token });
  if (!is2xx(cart)) fail(`getCart (${what})`, '2xx', brief(cart), clause);
  if (cart.text.includes(variant) !== present) fail(`the cart ${what}`, present ? `a cart naming ${variant}` : `a cart without ${variant}`, cart.text.slice(0, 300), clause);
}

/** A checkout request with the reference's body; a 400 is the service refusing that body: the check does not apply. */
async function checkoutOrSkip(shop: Shop, token: string, body: unknown, headers: RequestOptions['headers'] = {}): Promise<ShopResponse> {
  const res = await shop.http.post(CHECKOUT, { token, json: body, headers });
  if (res.status === 400) throw notApplicable(`the service refused the reference's checkoutSavedCard body {"payment_method_id"} with 400 (payload shapes are not shown by the spec): ${res.text.slice(0, 200)}`);
  return res;
}

/** An order-placing answer: 2xx (201 at the reference level). */
function expectPlaced(res: ShopResponse, what: string, clause: string): void {
  if (!is2xx(res)) fail(`${what}: an order is placed`, '2xx', brief(res), clause);
}

interface Line { variant_id: string; quantity: number }
const orderIdOf = (location: string) => new URL(location, 'http://base.invalid').pathname.split('/').pop() ?? '';

// --- callers and scope ------------------------------------------------------------------------------------------------

const AGENT_CHECKOUT: readonly Kind[] = ['delegated'];


/** Each kind the profile claims: the agent-checkout list passes the guard, every other kind gets 403 caller_not_allowed. */
async function callerMatrix(shop: Shop, path: string, json: unknown, opClause: string): Promise<void> {
  for (const { kind, capability } of KINDS) {
    if (capability && !shop.profile.capabilities[capability]) {
      shop.info.annotations.push({ type: 'note', description: `${kind} not tried: the profile does not claim "${capability}"` });
      continue;
    }
    const res = await shop.http.post(path, { ...(await credentialsOf(shop, kind)), json });
    if (AGENT_CHECKOUT.includes(kind)) {
      // Past the guard: anything but an authentication or authorization refusal (422 cart_empty for its empty cart).
      if (res.status === 401 || res.status === 403) fail(`${kind} on ${path} (in the agent-checkout list) must pass the guard`, 'not 401/403', `${res.status} ${String(res.body?.error ?? '')}`, opClause);
    } else {
      const clause = kind === 'operator' ? 'END-LIST-5' : 'END-LIST-4';
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause });
      if (res.headers.get('www-authenticate') !== null) fail(`WWW-Authenticate on caller_not_allowed (${kind})`, 'absent', res.headers.get('www-authenticate'), 'ERR-TABLE-8');
    }
  }
}

test(...check({
  id: 'endpoints.checkout.callers.checkoutSavedCard',
  title: 'checkoutSavedCard (POST /v1/checkouts/saved-card) admits the agent-checkout list; customer, guest and operator get 403 caller_not_allowed',
  clauses: ['END-OPS-CHECKOUTSAVEDCARD-1', 'END-LIST-4', 'END-LIST-5', 'PUR-RULE-2', 'ERR-TABLE-8'],
  // The guard answers before any lookup; the delegated caller is a fresh subject with an empty cart.
}, async (shop) => {
  await callerMatrix(shop, CHECKOUT, { payment_method_id: 'pm_chk1' }, 'END-OPS-CHECKOUTSAVEDCARD-1');
}));

test(...check({
  id: 'endpoints.checkout.callers.createCheckoutPreview.reference',
  title: 'createCheckoutPreview admits the agent-checkout list (the reference\'s choice); customer, guest and operator get 403 caller_not_allowed',
  clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'END-LIST-4', 'END-LIST-5', 'ERR-TABLE-8'],
  level: 'reference',
}, async (shop) => {
  await callerMatrix(shop, PREVIEW, {}, 'END-OPS-CREATECHECKOUTPREVIEW-1');
}));

test(...check({
  id: 'endpoints.checkout.preview-route',
  title: 'createCheckoutPreview is served at POST /v1/checkout-previews: an agent\'s request is not answered 404 or 405',
  clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'PUR-SERVE-3'],
  requires: ['delegated'],
}, async (shop) => {
  for (const token of [await agent(shop, shop.subject('cust')), await shop.mint.customer({ sub: shop.subject('cust') })]) {
    const res = await shop.http.post(PREVIEW, { token, json: {} });
    const unmatched = await probeUnmatched((path) => shop.http.post(path, { token, json: {} }), PREVIEW, shop.subject());
    if (looksUnmatched(res, unmatched)) fail('POST /v1/checkout-previews is a route of the service', `not an unmatched-route answer (${describeUnmatched(unmatched)})`, brief(res), 'END-OPS-CREATECHECKOUTPREVIEW-1');
    if (res.status >= 500) fail('POST /v1/checkout-previews', 'not a server error', brief(res), 'PUR-SERVE-3');
  }
}));

test(...check({
  id: 'endpoints.checkout.scope',
  title: 'checkoutSavedCard needs the API scope checkout: a delegated token without it gets 403 insufficient_scope naming checkout',
  clauses: ['END-OPS-CHECKOUTSAVEDCARD-1', 'AUTH-SCOPE-2', 'ERR-TABLE-9'],
  requires: ['delegated'],
}, async (shop) => {
  const token = await agent(shop, shop.subject('cust'), 'catalog:read cart:read cart:write account:read payment_methods:read orders:read');
  expectProblem(await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk1' } }), { status: 403, error: 'insufficient_scope', scope: 'checkout', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });
}));

test(...check({
  id: 'endpoints.checkout.scope.preview.reference',
  title: 'createCheckoutPreview needs the API scope checkout (the reference\'s choice): without it, 403 insufficient_scope naming checkout',
  clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'AUTH-SCOPE-2', 'ERR-TABLE-9'],
  level: 'reference',
  requires: ['delegated'],
}, async (shop) => {
  const token = await agent(shop, shop.subject('cust'), 'catalog:read cart:read cart:write');
  expectProblem(await shop.http.post(PREVIEW, { token, json: {} }), { status: 403, error: 'insufficient_scope', scope: 'checkout', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });
}));

// --- cart_empty -------------------------------------------------------------------------------------------------------

test(...check({
  id: 'errors.checkout.cart-empty',
  title: 'a saved-card checkout of a cart with no lines is 422 cart_empty (an account with a saved card and an address)',
  clauses: ['ERR-TABLE-14', 'PUR-SERVE-3'],
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  // cust_checkout_8 is this check's: nothing ever fills its cart, but a deployment may keep state, so empty it first.
  const token = await agent(shop, 'cust_checkout_8');
  await emptyCart(shop, token);
  const res = await checkoutOrSkip(shop, token, { payment_method_id: 'pm_chk8' });
  expectProblem(res, { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-14' });
  expectNoStore(res, { clause: 'ERR-TABLE-14' });
}));

test(...check({
  id: 'errors.checkout.cart-empty.reference',
  title: 'a fresh agent subject (empty cart, no card, no address) gets 422 cart_empty from both the preview and the checkout: the cart is checked first',
  clauses: ['ERR-TABLE-14', 'END-OPS-CREATECHECKOUTPREVIEW-1'],
  level: 'reference',
  requires: ['delegated'],
}, async (shop) => {
  const token = await agent(shop, shop.subject('cust'));
  expectProblem(await shop.http.post(PREVIEW, { token, json: {} }), { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-14' });
  expectProblem(await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_unknown0' } }), { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-14' });
}));

// --- no request idempotency (spec, What the service does 6) ------------------------------------------------------------

test(...check({
  id: 'purpose.checkout.double-submission',
  title: 'a second submission after a paid order, with the same Idempotency-Key, finds the cart empty: 422 cart_empty',
  clauses: ['PUR-IDEM-1', 'PUR-IDEM-4', 'ERR-TABLE-14'],
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_1');
  await emptyCart(shop, token);
  await addLine(shop, token, BEANIE, 1, 'PUR-IDEM-4');
  const headers = { 'idempotency-key': randomUUID() };
  const first = await checkoutOrSkip(shop, token, { payment_method_id: 'pm_chk1' }, headers);
  expectPlaced(first, 'the first submission (with an Idempotency-Key)', 'PUR-IDEM-1');
  const second = await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk1' }, headers });
  // A replay of the first answer would be a 2xx: the key must not be honoured, the cart is what decides.
  expectProblem(second, { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' });
  await expectCartNames(shop, token, BEANIE, false, 'after the paid order', 'PUR-IDEM-4');
}));

test(...check({
  id: 'purpose.checkout.retry-places-another-order',
  title: 'a retried checkout with a refilled cart and the same Idempotency-Key places another order (no stored response is replayed)',
  clauses: ['PUR-IDEM-1', 'PUR-IDEM-2', 'PUR-IDEM-3'],
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_2');
  await emptyCart(shop, token);
  const headers = { 'idempotency-key': `retry-${randomUUID()}` };
  await addLine(shop, token, BEANIE, 1, 'PUR-IDEM-3');
  const first = await checkoutOrSkip(shop, token, { payment_method_id: 'pm_chk2' }, headers);
  expectPlaced(first, 'the first checkout', 'PUR-IDEM-1');
  await expectCartNames(shop, token, BEANIE, false, 'after the first order', 'PUR-IDEM-3');
  await addLine(shop, token, BEANIE, 1, 'PUR-IDEM-3');
  const second = await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk2' }, headers });
  expectPlaced(second, 'the retry with the same Idempotency-Key and a refilled cart', 'PUR-IDEM-3');
  // Processed, not replayed: the refilled cart was ordered, and the answer is not the first one again.
  await expectCartNames(shop, token, BEANIE, false, 'after the retry (its line was ordered)', 'PUR-IDEM-3');
  if (second.text === first.text) fail('the retry\'s answer', 'a new order, not the first answer replayed', second.text.slice(0, 300), 'PUR-IDEM-2');
  const [a, b] = [first.headers.get('location'), second.headers.get('location')];
  if (a !== null && a === b) fail('Location of the retry', 'another order\'s URL', b, 'PUR-IDEM-3');
}));

test(...check({
  id: 'purpose.checkout.idempotency.reference',
  title: 'two orders for two submissions with one Idempotency-Key: 201 twice with distinct Locations, then 422 cart_empty',
  clauses: ['PUR-IDEM-1', 'PUR-IDEM-2', 'PUR-IDEM-3', 'PUR-IDEM-4', 'END-CONV-1', 'END-CONV-2'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_4');
  await emptyCart(shop, token);
  const headers = { 'idempotency-key': 'same-key-every-time' };
  const ids: string[] = [];
  for (const round of [1, 2]) {
    expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: TOTE, quantity: 1 } }), 201, { clause: 'PUR-IDEM-3' });
    const res = await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk4' }, headers });
    const location = expectCreated(res, { location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/, clause: round === 1 ? 'END-CONV-2' : 'PUR-IDEM-3' })!;
    if (res.body?.id !== orderIdOf(location)) fail(`order id of submission ${round}`, orderIdOf(location), res.body?.id, 'END-CONV-2');
    ids.push(orderIdOf(location));
  }
  if (ids[0] === ids[1]) fail('order ids of two submissions with one Idempotency-Key', 'two orders', ids, 'PUR-IDEM-3');
  expectProblem(await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk4' }, headers }), { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' });
}));

// --- the reference's shapes and behaviours --------------------------------------------------------------------------------

test(...check({
  id: 'endpoints.checkout.saved-card.reference',
  title: 'preview 200 with the totals (595 shipping under 7500, 8 % US tax); checkout 201 with Location and the paid order; the Location reads it; the cart is empty',
  clauses: ['PUR-SERVE-3', 'END-OPS-CREATECHECKOUTPREVIEW-1', 'END-OPS-CHECKOUTSAVEDCARD-1', 'END-CONV-1', 'END-CONV-2'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_3');
  await emptyCart(shop, token);
  expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: BEANIE, quantity: 2 } }), 201, { clause: 'PUR-SERVE-3' });
  const preview = await shop.http.post(PREVIEW, { token, json: { payment_method_id: 'pm_chk3' } });
  expectStatus(preview, 200, { clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
  expectNoStore(preview, { clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
  if (preview.headers.get('location') !== null) fail('Location on a preview (not stored)', null, preview.headers.get('location'), 'END-OPS-CREATECHECKOUTPREVIEW-1');
  // 2 × 2400 = 4800: shipping 595, tax 384 (addr_chk3 is in the US).
  const totals = { subtotal_cents: 4800, shipping_cents: 595, tax_cents: 384, total_cents: 5779 };
  const got = preview.body ?? {};
  const want = { ...totals, item_count: 2, currency: 'USD', address_id: 'addr_chk3', payment_method_id: 'pm_chk3' };
  for (const [k, v] of Object.entries(want)) if (got[k] !== v) fail(`preview "${k}"`, v, got[k], 'END-OPS-CREATECHECKOUTPREVIEW-1');
  const lines = (got.lines ?? []) as Line[];
  if (lines.length !== 1 || lines[0]?.variant_id !== BEANIE || lines[0]?.quantity !== 2) fail('preview "lines"', [{ variant_id: BEANIE, quantity: 2 }], got.lines, 'END-OPS-CREATECHECKOUTPREVIEW-1');

  const res = await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk3' } });
  const location = expectCreated(res, { location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/, clause: 'END-CONV-2' })!;
  expectNoStore(res, { clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
  const order = res.body ?? {};
  const wantOrder = { ...totals, id: orderIdOf(location), status: 'paid', currency: 'USD', address_id: 'addr_chk3', payment_method_id: 'pm_chk3' };
  for (const [k, v] of Object.entries(wantOrder)) if (order[k] !== v) fail(`order "${k}"`, v, order[k], 'END-OPS-CHECKOUTSAVEDCARD-1');
  if (typeof order.number !== 'string' || !/^#\d+$/.test(order.number)) fail('order "number"', '#<digits>', order.number, 'END-OPS-CHECKOUTSAVEDCARD-1');
  const orderLines = (order.lines ?? []) as Line[];
  if (orderLines.length !== 1 || orderLines[0]?.variant_id !== BEANIE || orderLines[0]?.quantity !== 2) fail('order "lines"', [{ variant_id: BEANIE, quantity: 2 }], order.lines, 'END-OPS-CHECKOUTSAVEDCARD-1');

  const read = await shop.http.get(location, { token });
  expectStatus(read, 200, { clause: 'END-CONV-2' });
  if (read.body?.id !== order.id || read.body?.status !== 'paid') fail(`GET ${location}`, { id: order.id, status: 'paid' }, { id: read.body?.id, status: read.body?.status }, 'END-CONV-2');
  const cart = await shop.http.get('/v1/cart', { token });
  if (!Array.isArray(cart.body?.lines) || cart.body.lines.length !== 0) fail('cart lines after the order', [], cart.body?.lines, 'PUR-SERVE-3');
}));

test(...check({
  id: 'endpoints.checkout.refusals.reference',
  title: 'checkout refusals write nothing: unknown or foreign card 422 unknown_payment_method, foreign address 422 address_required, bad body 400',
  clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_5');
  await emptyCart(shop, token);
  expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: BEANIE, quantity: 1 } }), 201, { clause: 'PUR-SERVE-3' });
  const clause = 'END-OPS-CHECKOUTSAVEDCARD-1';
  const post = (json: unknown) => shop.http.post(CHECKOUT, { token, json });
  expectProblem(await post({ payment_method_id: 'pm_unknown0' }), { status: 422, error: 'unknown_payment_method', docsUrl: shop.docsUrl, clause });
  expectProblem(await post({ payment_method_id: 'pm_chk6' }), { status: 422, error: 'unknown_payment_method', docsUrl: shop.docsUrl, clause });
  expectProblem(await post({ payment_method_id: 'pm_chk5', address_id: 'addr_ada01' }), { status: 422, error: 'address_required', docsUrl: shop.docsUrl, clause });
  expectProblem(await post({}), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause });
  expectProblem(await post({ payment_method_id: 'pm_chk5', coupon: 'FREE' }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause });
  expectProblem(await shop.http.post(PREVIEW, { token, json: { address_id: 'addr_ada01' } }), { status: 422, error: 'address_required', docsUrl: shop.docsUrl, clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
  await expectCartNames(shop, token, BEANIE, true, 'after the refusals (unchanged)', clause);
  await emptyCart(shop, token);
}));

test(...check({
  id: 'endpoints.checkout.declined.reference',
  title: 'a declined saved card (provider reference containing "decline"): 402 payment_failed, no order, the cart unchanged',
  clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_decline');
  await emptyCart(shop, token);
  expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: BEANIE, quantity: 1 } }), 201, { clause: 'PUR-SERVE-3' });
  expectProblem(await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chkdecline' } }), { status: 402, error: 'payment_failed', docsUrl: shop.docsUrl, clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
  await expectCartNames(shop, token, BEANIE, true, 'after the decline (unchanged)', 'END-OPS-CHECKOUTSAVEDCARD-1');
  await emptyCart(shop, token);
}));

test(...check({
  id: 'endpoints.checkout.pending.reference',
  title: 'a card the provider settles later (provider reference containing "async"): 201 with an order in pending_payment',
  clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_async');
  await emptyCart(shop, token);
  expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: BEANIE, quantity: 1 } }), 201, { clause: 'PUR-SERVE-3' });
  const res = await shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chkasync' } });
  expectCreated(res, { location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/, clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
  if (res.body?.status !== 'pending_payment') fail('order "status"', 'pending_payment', res.body?.status, 'END-OPS-CHECKOUTSAVEDCARD-1');
}));

test(...check({
  id: 'endpoints.checkout.concurrent.reference',
  title: 'two checkouts of one cart at once place one order: one 201, the other 422 cart_empty (or 409 insufficient_stock)',
  clauses: ['PUR-IDEM-4', 'END-OPS-CHECKOUTSAVEDCARD-1'],
  level: 'reference',
  requires: ['delegated'],
  seed: true,
}, async (shop) => {
  const token = await agent(shop, 'cust_checkout_6');
  await emptyCart(shop, token);
  expectStatus(await shop.http.post('/v1/cart/items', { token, json: { variant_id: TOTE, quantity: 1 } }), 201, { clause: 'PUR-SERVE-3' });
  const both = await Promise.all([1, 2].map(() => shop.http.post(CHECKOUT, { token, json: { payment_method_id: 'pm_chk6' } })));
  const created = both.filter((r) => r.status === 201);
  if (created.length !== 1) fail('orders placed by two simultaneous checkouts of one cart', 'exactly one 201', both.map((r) => r.status), 'PUR-IDEM-4');
  const other = both.find((r) => r.status !== 201)!;
  expectProblem(other, other.status === 409 ? { status: 409, error: 'insufficient_stock', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' } : { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' });
  await emptyCart(shop, token);
}));
