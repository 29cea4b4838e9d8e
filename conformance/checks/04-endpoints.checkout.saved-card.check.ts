// Spec part 4, Endpoints (checkout): the orders the reference places with a saved card, which are all its own choices
// (the spec shows no payloads, totals or refusal codes of these operations): the preview's totals, the paid order and its
// Location, the refusals that write nothing, a declined card, a payment settled later, and two checkouts of one cart.
//
// Data. Each check uses its own checkout account of the seed (docs/seed.md, `CHECKOUT_ACCOUNTS` of _shared/seed-data.ts),
// empties its cart first and leaves it empty. Each order placed takes one unit of a well-stocked variant; a long-lived
// deployment re-run many times slowly uses it up.
import { check, test } from '../engine/runner/check.js';
import { expectCreated, expectNoHeader, expectNoStore, expectProblem, expectStatus, fail } from '../lib/assert.js';
import { cartLine, emptyCart, type Line } from './_shared/cart-lines.js';
import { expectNamesVariant, expectEmptyCart } from '../lib/expect/cart.js';
import { delegatedToken } from '../lib/callers.js';
import { AssistantAgent } from './_shared/assistant.js';
import { requestedAt } from './_shared/location.js';
import { CHECKOUT, checkoutBody, orderIdOf, PREVIEW } from './_shared/place-order.js';
import { ABSENT_IDS, ADA, CHECKOUT_ACCOUNTS, CHECKOUT_VARIANTS } from './_shared/seed-data.js';

test(
  ...check(
    {
      id: 'endpoints.checkout.saved-card.reference',
      everyResponse: true,
      title:
        'preview 200 with the totals (595 shipping under 7500, 8 % US tax); checkout 201 with Location and the paid order; the Location reads it; the cart is empty',
      clauses: ['PUR-SERVE-3', 'END-OPS-CREATECHECKOUTPREVIEW-1', 'END-OPS-CHECKOUTSAVEDCARD-1', 'END-CONV-1', 'END-CONV-2'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[3].sub);
      await emptyCart(shop, token);
      expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.beanie, 2) }), 201, {
        clause: 'PUR-SERVE-3',
      });
      const preview = await shop.http.post(PREVIEW, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[3].card) });
      expectStatus(preview, 200, { clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
      expectNoStore(preview, { clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
      expectNoHeader(preview, 'location', { what: 'Location on a preview (not stored)', clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
      // 2 × 2400 = 4800: shipping 595, tax 384 (the account's address is in the US).
      const totals = { subtotal_cents: 4800, shipping_cents: 595, tax_cents: 384, total_cents: 5779 };
      const got = preview.body ?? {};
      const want = {
        ...totals,
        item_count: 2,
        currency: 'USD',
        address_id: CHECKOUT_ACCOUNTS[3].address,
        payment_method_id: CHECKOUT_ACCOUNTS[3].card,
      };
      for (const [k, v] of Object.entries(want))
        if (got[k] !== v) fail(`preview "${k}"`, v, got[k], { clause: 'END-OPS-CREATECHECKOUTPREVIEW-1' });
      const lines = (got.lines ?? []) as Line[];
      if (lines.length !== 1 || lines[0]?.variant_id !== CHECKOUT_VARIANTS.beanie || lines[0]?.quantity !== 2)
        fail('preview "lines"', [{ variant_id: CHECKOUT_VARIANTS.beanie, quantity: 2 }], got.lines, {
          clause: 'END-OPS-CREATECHECKOUTPREVIEW-1',
        });

      const res = await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[3].card) });
      const location = expectCreated(res, {
        location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/,
        ...requestedAt(shop, CHECKOUT),
        clause: 'END-CONV-2',
      })!;
      expectNoStore(res, { clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
      const order = res.body ?? {};
      const wantOrder = {
        ...totals,
        id: orderIdOf(location),
        status: 'paid',
        currency: 'USD',
        address_id: CHECKOUT_ACCOUNTS[3].address,
        payment_method_id: CHECKOUT_ACCOUNTS[3].card,
      };
      for (const [k, v] of Object.entries(wantOrder))
        if (order[k] !== v) fail(`order "${k}"`, v, order[k], { clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
      if (typeof order.number !== 'string' || !/^#\d+$/.test(order.number))
        fail('order "number"', '#<digits>', order.number, { clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
      const orderLines = (order.lines ?? []) as Line[];
      if (orderLines.length !== 1 || orderLines[0]?.variant_id !== CHECKOUT_VARIANTS.beanie || orderLines[0]?.quantity !== 2)
        fail('order "lines"', [{ variant_id: CHECKOUT_VARIANTS.beanie, quantity: 2 }], order.lines, {
          clause: 'END-OPS-CHECKOUTSAVEDCARD-1',
        });

      const read = await shop.http.get(location, { token });
      expectStatus(read, 200, { clause: 'END-CONV-2' });
      if (read.body?.id !== order.id || read.body?.status !== 'paid')
        fail(
          `GET ${location}`,
          { id: order.id, status: 'paid' },
          { id: read.body?.id, status: read.body?.status },
          { clause: 'END-CONV-2' },
        );
      const cart = await shop.http.get('/v1/cart', { token });
      expectEmptyCart(cart, { what: 'cart lines after the order', clause: 'PUR-SERVE-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.refusals.reference',
      everyResponse: true,
      title:
        'checkout refusals write nothing: unknown or foreign card 422 unknown_payment_method, foreign address 422 address_required, bad body 400',
      clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[5].sub);
      await emptyCart(shop, token);
      expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.beanie, 1) }), 201, {
        clause: 'PUR-SERVE-3',
      });
      const clause = 'END-OPS-CHECKOUTSAVEDCARD-1';
      const post = (json: unknown) => shop.http.post(CHECKOUT, { token, json });
      expectProblem(await post(checkoutBody(ABSENT_IDS.card)), {
        status: 422,
        error: 'unknown_payment_method',
        docsUrl: shop.docsUrl,
        clause,
      });
      expectProblem(await post(checkoutBody(CHECKOUT_ACCOUNTS[6].card)), {
        status: 422,
        error: 'unknown_payment_method',
        docsUrl: shop.docsUrl,
        clause,
      });
      expectProblem(await post(checkoutBody(CHECKOUT_ACCOUNTS[5].card, ADA.addressIds[1])), {
        status: 422,
        error: 'address_required',
        docsUrl: shop.docsUrl,
        clause,
      });
      expectProblem(await post({}), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause });
      expectProblem(await post({ payment_method_id: CHECKOUT_ACCOUNTS[5].card, coupon: 'FREE' }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: shop.docsUrl,
        clause,
      });
      expectProblem(await shop.http.post(PREVIEW, { token, json: { address_id: ADA.addressIds[1] } }), {
        status: 422,
        error: 'address_required',
        docsUrl: shop.docsUrl,
        clause: 'END-OPS-CREATECHECKOUTPREVIEW-1',
      });
      expectNamesVariant(await shop.http.get('/v1/cart', { token }), CHECKOUT_VARIANTS.beanie, {
        what: 'the cart after the refusals (unchanged)',
        clause,
      });
      await emptyCart(shop, token);
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.declined.reference',
      everyResponse: true,
      title: 'a declined saved card (provider reference containing "decline"): 402 payment_failed, no order, the cart unchanged',
      clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS.decline.sub);
      await emptyCart(shop, token);
      expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.beanie, 1) }), 201, {
        clause: 'PUR-SERVE-3',
      });
      expectProblem(await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS.decline.card) }), {
        status: 402,
        error: 'payment_failed',
        docsUrl: shop.docsUrl,
        clause: 'END-OPS-CHECKOUTSAVEDCARD-1',
      });
      expectNamesVariant(await shop.http.get('/v1/cart', { token }), CHECKOUT_VARIANTS.beanie, {
        what: 'the cart after the decline (unchanged)',
        clause: 'END-OPS-CHECKOUTSAVEDCARD-1',
      });
      // The same decline to an assistant of the account, in the DPoP scheme: every rule of every response on its 402 too.
      if (shop.profile.capabilities.assistants) {
        const agent = await AssistantAgent.create(shop, { sub: CHECKOUT_ACCOUNTS.decline.sub });
        const res = (await agent.request('POST', CHECKOUT, { json: checkoutBody(CHECKOUT_ACCOUNTS.decline.card) })).res;
        expectProblem(res, { status: 402, error: 'payment_failed', docsUrl: shop.docsUrl, clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
      }
      await emptyCart(shop, token);
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.pending.reference',
      title: 'a card the provider settles later (provider reference containing "async"): 201 with an order in pending_payment',
      clauses: ['PUR-SERVE-3', 'END-OPS-CHECKOUTSAVEDCARD-1'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS.async.sub);
      await emptyCart(shop, token);
      expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.beanie, 1) }), 201, {
        clause: 'PUR-SERVE-3',
      });
      const res = await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS.async.card) });
      expectCreated(res, {
        location: /^\/v1\/me\/orders\/ord_[a-z0-9]+$/,
        ...requestedAt(shop, CHECKOUT),
        clause: 'END-OPS-CHECKOUTSAVEDCARD-1',
      });
      if (res.body?.status !== 'pending_payment')
        fail('order "status"', 'pending_payment', res.body?.status, { clause: 'END-OPS-CHECKOUTSAVEDCARD-1' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.concurrent.reference',
      title: 'two checkouts of one cart at once place one order: one 201, the other 422 cart_empty (or 409 insufficient_stock)',
      clauses: ['PUR-IDEM-4', 'END-OPS-CHECKOUTSAVEDCARD-1'],
      level: 'reference',
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[6].sub);
      await emptyCart(shop, token);
      expectStatus(await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.tote, 1) }), 201, {
        clause: 'PUR-SERVE-3',
      });
      const both = await Promise.all([1, 2].map(() => shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[6].card) })));
      const created = both.filter((r) => r.status === 201);
      if (created.length !== 1)
        fail(
          'orders placed by two simultaneous checkouts of one cart',
          'exactly one 201',
          both.map((r) => r.status),
          { clause: 'PUR-IDEM-4' },
        );
      const other = both.find((r) => r.status !== 201)!;
      expectProblem(
        other,
        other.status === 409
          ? { status: 409, error: 'insufficient_stock', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' }
          : { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'PUR-IDEM-4' },
      );
      await emptyCart(shop, token);
    },
  ),
);
