// Spec part 4, Endpoints > Operations, for the catalog and the cart: the caller-kind guard of each of their operations
// (Caller lists by name: the storefront list), and the cart's behaviour, which is the reference's.
//
// Levels. The spec shows no payload shapes ("Payload shapes of every operation ... not shown"): the body
// `{ "variant_id", "quantity" }` and every response member are the reference's. A spec-level check that needs a cart line
// therefore sends the reference's body and, when the service refuses that body with a 4xx, is skipped as not applicable
// (the service may well name its members otherwise); it fails only on what the spec itself says.
import { check, test } from '../engine/runner/check.js';
import { callerGuardCheck } from './_shared/caller-guard.js';
import { expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import type { Operation } from '../../contract/operations.js';
import { CATALOG_AND_CART } from './_shared/describe-operations.js';
import { cartLine, cartQuantity, lineOf } from './_shared/cart-lines.js';
import { expectEmptyCart } from '../lib/expect/cart.js';
import { customerToken } from '../lib/callers.js';
import { LOW_STOCK_VARIANT, OUT_OF_STOCK_VARIANT, PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';

// --- the caller-kind guard of each catalog and cart operation -------------------------------------------------------------

/** A request each operation accepts once past the guard: the seed's product and variant, the reference's bodies. */
function requestFor(op: Operation): { path: string; json?: unknown } {
  const path = op.path.replace('{handle}', PRODUCT_HANDLE).replace('{variant_id}', VARIANT);
  if (op.method === 'POST') return { path, json: cartLine() };
  if (op.method === 'PATCH') return { path, json: cartQuantity(1) };
  return { path };
}

for (const operationId of CATALOG_AND_CART) test(...callerGuardCheck(operationId, requestFor));

// --- cart behaviour -------------------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.cart.round-trip.reference',
      title: 'a customer adds (201), updates (200), reads and removes (204) a line; updating or removing a missing line is 404 not_found',
      clauses: ['PUR-SERVE-2', 'END-CONV-3', 'END-CONV-9'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const empty = await shop.http.get('/v1/cart', { token });
      expectStatus(empty, 200, { clause: 'PUR-SERVE-2' });
      expectEmptyCart(empty, { what: 'lines of a new cart', clause: 'PUR-SERVE-2' });

      const add = await shop.http.post('/v1/cart/items', { token, json: cartLine(VARIANT, 2) });
      expectStatus(add, 201, { clause: 'PUR-SERVE-2' });
      if (lineOf(add, VARIANT)?.quantity !== 2) fail('quantity after the add', 2, lineOf(add, VARIANT), { clause: 'PUR-SERVE-2' });

      const up = await shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: cartQuantity(3) });
      expectStatus(up, 200, { clause: 'PUR-SERVE-2' });
      expectNoStore(up, { clause: 'END-CONV-9' });
      if (lineOf(up, VARIANT)?.quantity !== 3)
        fail('quantity after the update (set, not added)', 3, lineOf(up, VARIANT), { clause: 'PUR-SERVE-2' });
      const read = await shop.http.get('/v1/cart', { token });
      if (lineOf(read, VARIANT)?.quantity !== 3) fail('quantity read back', 3, lineOf(read, VARIANT), { clause: 'PUR-SERVE-2' });

      const del = await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token });
      expectStatus(del, 204, { clause: 'END-CONV-3' });
      if (del.text !== '') fail('body of the 204', 'empty', del.text, { clause: 'END-CONV-3' });
      const after = await shop.http.get('/v1/cart', { token });
      if (lineOf(after, VARIANT) !== undefined || after.body?.lines?.length !== 0)
        fail('lines after the remove', [], after.body?.lines, { clause: 'PUR-SERVE-2' });

      expectProblem(await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token }), {
        status: 404,
        error: 'not_found',
        docsUrl: shop.docsUrl,
        clause: 'PUR-SERVE-2',
      });
      expectProblem(await shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: cartQuantity(1) }), {
        status: 404,
        error: 'not_found',
        docsUrl: shop.docsUrl,
        clause: 'PUR-SERVE-2',
      });
    },
  ),
);

// The spec says nothing of stock (docs/seed.md and docs/reference-choices.md do): a cart line above the stock being refused
// at add time, rather than at checkout, is the reference's behaviour, so the whole check is at level reference.
test(
  ...check(
    {
      id: 'endpoints.cart.stock.reference',
      title: 'a line above the stock of var_0302 (3) or of var_0104 (0) is 409 insufficient_stock and leaves the cart as it was',
      clauses: ['PUR-SERVE-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const { id: low, stock } = LOW_STOCK_VARIANT;
      const full = await shop.http.post('/v1/cart/items', { token, json: cartLine(low, stock) });
      expectStatus(full, 201, { clause: 'PUR-SERVE-2' });
      expectProblem(await shop.http.post('/v1/cart/items', { token, json: cartLine(low, 1) }), {
        status: 409,
        error: 'insufficient_stock',
        docsUrl: shop.docsUrl,
        clause: 'PUR-SERVE-2',
      });
      expectProblem(await shop.http.patch(`/v1/cart/items/${low}`, { token, json: cartQuantity(stock + 1) }), {
        status: 409,
        error: 'insufficient_stock',
        docsUrl: shop.docsUrl,
        clause: 'PUR-SERVE-2',
      });
      expectProblem(await shop.http.post('/v1/cart/items', { token, json: cartLine(OUT_OF_STOCK_VARIANT, 1) }), {
        status: 409,
        error: 'insufficient_stock',
        docsUrl: shop.docsUrl,
        clause: 'PUR-SERVE-2',
      });
      const cart = await shop.http.get('/v1/cart', { token });
      if (lineOf(cart, low)?.quantity !== stock)
        fail(`${low} line after the refusals`, stock, lineOf(cart, low), { clause: 'PUR-SERVE-2' });
      if (lineOf(cart, OUT_OF_STOCK_VARIANT) !== undefined)
        fail(`${OUT_OF_STOCK_VARIANT} line`, 'absent', lineOf(cart, OUT_OF_STOCK_VARIANT), { clause: 'PUR-SERVE-2' });
    },
  ),
);
