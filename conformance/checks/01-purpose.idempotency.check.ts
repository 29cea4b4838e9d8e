// Spec part 1, What the service does, rule 6: there is no request idempotency. A request that carries Idempotency-Key is
// accepted and the header is ignored; retrying an order-placing call places another order; a submission after a paid
// order finds the cart empty.
//
// Data. The cart checks use fresh subjects. Placing an order needs a saved card, so the checkout checks use the seed's
// checkout accounts (docs/seed.md, `CHECKOUT_ACCOUNTS` of _shared/seed-data.ts), one per check; each empties its cart first.
//
// Levels. The spec shows no payload shapes: the cart and checkout bodies are the target's own, learned from its
// description documents; a refusal of such a body fails the operation's clause.
import { randomUUID } from 'node:crypto';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, expectCreated, expectProblem, expectStatus, expectSuccess, fail, failSetup, is2xx, is4xx } from '../lib/assert.js';
import { addLine, cartLine, emptyCart, lineOf } from './_shared/cart-lines.js';
import { expectNotNamesVariant } from '../lib/expect/cart.js';
import { customerToken, delegatedToken } from '../lib/callers.js';
import { locationOf, requestedAt } from './_shared/location.js';
import { addressBody } from './_shared/add-address.js';
import { expectCreateConventions } from '../lib/expect/created.js';
import { callers } from './_shared/send-as.js';
import { CHECKOUT, checkout, checkoutBody, orderIdOf } from './_shared/place-order.js';
import { expectPlaced } from '../lib/expect/orders.js';
import { CHECKOUT_ACCOUNTS, CHECKOUT_VARIANTS, VARIANT } from './_shared/seed-data.js';
import { expectChanged, readBaseline } from '../lib/compare.js';

// ------------------------------------------------------------------------------------------- Idempotency-Key on the cart

test(
  ...check(
    {
      id: 'purpose.idempotency-key',
      title: 'Idempotency-Key is accepted and ignored: two adds with the same key are both applied',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-2'],
      seed: true,
    },
    async (shop) => {
      // Control without the header: payload shapes are not shown, so a service that refuses the reference's body shows nothing.
      // It is another account's cart, so it goes at once with the first read of this one (judged first, as before).
      const token = await customerToken(shop);
      const headers = { 'idempotency-key': randomUUID() };
      const [control, read] = await Promise.all([
        (async () => shop.http.post('/v1/cart/items', { token: await customerToken(shop), json: cartLine() }))(),
        shop.http.get('/v1/cart', { token, headers }),
      ]);
      if (is4xx(control))
        failSetup('addCartItem with the body the description document describes', '2xx', control.status, {
          clause: 'END-OPS-ADDCARTITEM-1',
        });
      expectSuccess(read, { what: 'getCart with an Idempotency-Key', clause: 'PUR-IDEM-1' });
      const first = await shop.http.post('/v1/cart/items', { token, headers, json: cartLine() });
      if (!is2xx(first))
        fail('first addCartItem with an Idempotency-Key', `2xx (like the same add without it: ${control.status})`, first.status, {
          clause: 'PUR-IDEM-1',
        });
      const afterFirst = await readBaseline(() => shop.http.get('/v1/cart', { token }));
      const second = await shop.http.post('/v1/cart/items', { token, headers, json: cartLine() });
      expectSuccess(second, { what: 'second addCartItem with the same Idempotency-Key', clause: 'PUR-IDEM-1' });
      const afterSecond = await shop.http.get('/v1/cart', { token });
      // The second add was processed: the cart changed (a replayed response would leave it as the first add left it).
      expectChanged(afterFirst, afterSecond, {
        what: 'cart after a second add with the same Idempotency-Key (the add applied again)',
        clause: 'PUR-IDEM-2',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.idempotency-key.reference',
      title: 'two adds of one unit with the same Idempotency-Key are both 201 and leave a line of 2',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const headers = { 'idempotency-key': randomUUID() };
      expectStatus(await shop.http.post('/v1/cart/items', { token, headers, json: cartLine() }), 201, { clause: 'PUR-IDEM-1' });
      const again = await shop.http.post('/v1/cart/items', { token, headers, json: cartLine() });
      expectStatus(again, 201, { clause: 'PUR-IDEM-1' });
      const line = lineOf(again, VARIANT);
      if (line?.quantity !== 2) fail('quantity after two adds with the same key', 2, line, { clause: 'PUR-IDEM-2' });
    },
  ),
);

// ------------------------------------------------------------------------------------------- Idempotency-Key at checkout

/**
 * A checkout with an Idempotency-Key. Refused, the same checkout is sent without the key: served then, the key caused the
 * refusal (PUR-IDEM-1); refused too, the body is to blame (checkout's own setup failure on 400).
 */
async function keyedCheckout(shop: Shop, token: string, body: unknown, headers: Record<string, string>): Promise<ShopResponse> {
  const res = await shop.http.post(CHECKOUT, { token, json: body, headers });
  if (!is4xx(res)) return res;
  const control = await checkout(shop, token, body);
  if (is2xx(control))
    fail('checkoutSavedCard with an Idempotency-Key', `2xx (as without it: ${control.status})`, brief(res), { clause: 'PUR-IDEM-1' });
  return res;
}

test(
  ...check(
    {
      id: 'purpose.checkout.double-submission',
      title: 'a second submission after a paid order, with the same Idempotency-Key, finds the cart empty: 422 cart_empty',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-4', 'ERR-TABLE-14', 'END-CONV-1', 'END-CONV-9'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[1].sub);
      await emptyCart(shop, token);
      await addLine(shop, token, { clause: 'PUR-IDEM-4', variant: CHECKOUT_VARIANTS.beanie, quantity: 1 });
      const headers = { 'idempotency-key': randomUUID() };
      const first = await keyedCheckout(shop, token, checkoutBody(CHECKOUT_ACCOUNTS[1].card), headers);
      expectPlaced(first, { what: 'the first submission (with an Idempotency-Key)', clause: 'PUR-IDEM-1' });
      expectCreateConventions(first, {
        what: 'checkoutSavedCard (a placed order)',
        declared: learned().declaresCreate('checkoutSavedCard'),
      });
      const second = await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[1].card), headers });
      // A replay of the first answer would be a 2xx: the key must not be honoured, the cart is what decides.
      expectProblem(second, { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' });
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token }), CHECKOUT_VARIANTS.beanie, {
        what: 'the cart after the paid order',
        clause: 'PUR-IDEM-4',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.checkout.retry-places-another-order',
      title: 'a retried checkout with a refilled cart and the same Idempotency-Key places another order (no stored response is replayed)',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-2', 'PUR-IDEM-3', 'END-CONV-1', 'END-CONV-9'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[2].sub);
      await emptyCart(shop, token);
      const headers = { 'idempotency-key': `retry-${randomUUID()}` };
      await addLine(shop, token, { clause: 'PUR-IDEM-3', variant: CHECKOUT_VARIANTS.beanie, quantity: 1 });
      const first = await keyedCheckout(shop, token, checkoutBody(CHECKOUT_ACCOUNTS[2].card), headers);
      expectPlaced(first, { what: 'the first checkout', clause: 'PUR-IDEM-1' });
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token }), CHECKOUT_VARIANTS.beanie, {
        what: 'the cart after the first order',
        clause: 'PUR-IDEM-3',
      });
      await addLine(shop, token, { clause: 'PUR-IDEM-3', variant: CHECKOUT_VARIANTS.beanie, quantity: 1 });
      const second = await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[2].card), headers });
      expectPlaced(second, { what: 'the retry with the same Idempotency-Key and a refilled cart', clause: 'PUR-IDEM-3' });
      for (const [n, res] of [
        [1, first],
        [2, second],
      ] as const)
        expectCreateConventions(res, { what: `checkoutSavedCard (order ${n})`, declared: learned().declaresCreate('checkoutSavedCard') });
      // Processed, not replayed: the refilled cart was ordered, and the answer is not the first one again.
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token }), CHECKOUT_VARIANTS.beanie, {
        what: 'the cart after the retry (its line was ordered)',
        clause: 'PUR-IDEM-3',
      });
      // A retry answered with the first order's URL is told of no other order; with the first body too, it is the first
      // answer replayed (a new order has its own URL, and its own id wherever the body names one).
      const replayed = second.text === first.text;
      const [a, b] = [locationOf(shop, first, CHECKOUT)?.url.href, locationOf(shop, second, CHECKOUT)?.url.href];
      if (a !== undefined && a === b)
        fail('Location of the retry', "another order's URL", second.headers.get('location'), {
          clause: replayed ? ['PUR-IDEM-3', 'PUR-IDEM-2'] : 'PUR-IDEM-3',
        });
      if (replayed)
        fail("the retry's answer", 'a new order, not the first answer replayed', second.text.slice(0, 300), { clause: 'PUR-IDEM-2' });
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.checkout.idempotency.reference',
      title: 'two orders for two submissions with one Idempotency-Key: 201 twice with distinct Locations, then 422 cart_empty',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-2', 'PUR-IDEM-3', 'PUR-IDEM-4', 'END-CONV-1', 'END-CONV-2'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[4].sub);
      await emptyCart(shop, token);
      const headers = { 'idempotency-key': 'same-key-every-time' };
      const ids: string[] = [];
      for (const round of [1, 2]) {
        expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.tote, 1) }), 201, {
          clause: 'PUR-IDEM-3',
        });
        const res = await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[4].card), headers });
        const location = expectCreated(res, {
          location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/,
          ...requestedAt(shop, CHECKOUT),
          clause: round === 1 ? 'END-CONV-2' : 'PUR-IDEM-3',
        })!;
        if (res.body?.id !== orderIdOf(location))
          fail(`order id of submission ${round}`, orderIdOf(location), res.body?.id, { clause: 'END-CONV-2' });
        ids.push(orderIdOf(location));
      }
      if (ids[0] === ids[1]) fail('order ids of two submissions with one Idempotency-Key', 'two orders', ids, { clause: 'PUR-IDEM-3' });
      expectProblem(await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[4].card), headers }), {
        status: 422,
        error: 'cart_empty',
        docsUrl: shop.docsUrl,
        clause: 'PUR-IDEM-4',
      });
    },
  ),
);

// ------------------------------------------------------------------------------- Idempotency-Key from every caller kind

test(
  ...check(
    {
      id: 'purpose.idempotency-key.every-caller',
      title:
        'Idempotency-Key never causes a refusal, whoever calls: a cart read, a cart write and (account callers) two address writes with one key are served, each processed',
      clauses: ['PUR-IDEM-1', 'PUR-IDEM-2'],
      seed: true,
    },
    async (shop) => {
      const headers = { 'idempotency-key': randomUUID() };
      // Each caller kind is an account of its own: a case of its own. A caller's own requests stay in turn (the second
      // address write repeats the first one's key).
      await judgeCases(await callers(shop, 'storefront'), async ([who, send]) => {
        const requests: [string, string, string, unknown][] = [
          ['getCart', 'GET', '/v1/cart', undefined],
          ['addCartItem', 'POST', '/v1/cart/items', cartLine()],
        ];
        if (who !== 'guest')
          requests.push(
            ['addAddress', 'POST', '/v1/me/addresses', addressBody()],
            ['addAddress again', 'POST', '/v1/me/addresses', addressBody()],
          );
        const created: string[] = [];
        for (const [op, method, path, json] of requests) {
          const res = await send(method, path, json, headers);
          // The new address's identity: its id, else its Location (an answer naming neither cannot be told apart).
          const ident = typeof res.body?.id === 'string' ? res.body.id : res.headers.get('location');
          if (is2xx(res) && op.startsWith('addAddress') && ident) created.push(ident);
          if (is2xx(res)) continue;
          // Refused: the header is to blame only if the same request without it is served.
          const control = await send(method, path, json);
          if (is2xx(control))
            fail(`${op} as ${who} with an Idempotency-Key`, `2xx (as without it: ${control.status})`, brief(res), {
              clause: 'PUR-IDEM-1',
            });
        }
        // Two adds with the same key are each processed: two addresses, not the first answer twice.
        if (created.length === 2 && created[0] === created[1])
          fail(
            `the second addAddress as ${who} with the same Idempotency-Key`,
            'a new address, not the first answer replayed',
            created[1]!.slice(0, 200),
            { clause: 'PUR-IDEM-2' },
          );
      });
    },
  ),
);
