// Spec part 4, Endpoints > Operations and Additional route facts, for orders, as the reference serves them: its order
// pages, the shapes of the account records (orders and the rest), refused order transitions and strict order bodies.
//
// Levels. Response members, order states and their refusal codes are the reference's (docs/account.md).
//
// Data. Seed orders are never moved to another state here: transition checks ask only for refusals on orders whose state the
// refusal leaves as it was, so reruns and parallel workers see the seed as docs/seed.md describes it.
import { check, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectProblem, expectStatus, fail, expectSameJson } from '../lib/assert.js';
import { customerToken } from '../lib/callers.js';
import { ADA, BEN, EVE, ORDERS, SEED_PROVIDER_REF } from './_shared/seed-data.js';

// --- orders: reference shapes, paging, refused transitions ----------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.account.orders.paging.reference',
      title: "listOrders pages cust_ada's four orders newest first with limit=1 and next_cursor; status filters; bad limits are 400",
      clauses: ['END-OPS-LISTORDERS-1', 'PUR-SERVE-4'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop, ADA.sub);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const res: ShopResponse = await shop.http.get(`/v1/me/orders?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          token,
        });
        expectStatus(res, 200, { clause: 'END-OPS-LISTORDERS-1' });
        seen.push(...(res.body.items as { id: string }[]).map((o) => o.id));
        cursor = res.body.next_cursor;
        if (cursor === null) break;
      }
      expectSameJson(seen, ADA.orderIds, { what: `${ADA.sub}'s orders paged with limit=1`, clause: 'END-OPS-LISTORDERS-1' });
      const refunded = await shop.http.get('/v1/me/orders?status=refunded', { token });
      if (JSON.stringify(refunded.body?.items?.map((o: { id: string }) => o.id)) !== JSON.stringify([ORDERS.adaRefunded.id]))
        fail('status=refunded', [ORDERS.adaRefunded.id], refunded.body, { clause: 'END-OPS-LISTORDERS-1' });
      for (const q of ['limit=0', 'limit=101', 'status=lost']) {
        expectProblem(await shop.http.get(`/v1/me/orders?${q}`, { token }), {
          status: 400,
          error: 'invalid_request',
          docsUrl: shop.docsUrl,
          clause: 'END-OPS-LISTORDERS-1',
        });
      }
    },
  ),
);

const keysOf = (v: unknown) => (typeof v === 'object' && v !== null ? Object.keys(v).sort() : v);

test(
  ...check(
    {
      id: 'endpoints.account.shapes.reference',
      title: "the account records have the reference's members (docs/account.md); no provider reference leaves the service",
      clauses: [
        'PUR-SERVE-4',
        'END-OPS-GETPROFILE-1',
        'END-OPS-LISTPAYMENTMETHODS-1',
        'END-OPS-GETORDER-1',
        'END-OPS-GETCHECKOUTMETHODS-1',
        'END-OPS-GETCHECKOUTADDRESS-1',
      ],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop, ADA.sub);
      const get = async (path: string) => {
        const res = await shop.http.get(path, { token });
        expectStatus(res, 200, { clause: 'PUR-SERVE-4' });
        if (SEED_PROVIDER_REF.test(res.text))
          fail(`GET ${path} leaks a payment-provider reference`, 'none', res.text.slice(0, 300), { clause: 'PUR-SERVE-4' });
        return res.body;
      };
      const expectKeys = (value: unknown, keys: string[], { what, clause }: { what: string; clause: string }) => {
        expectSameJson(keysOf(value), [...keys].sort(), { what: `members of ${what}`, clause });
      };
      const ADDRESS_KEYS = ['id', 'name', 'line1', 'line2', 'city', 'region', 'postal_code', 'country', 'phone', 'created_at'];
      const profile = await get('/v1/me/profile');
      expectKeys(profile, ['sub', 'email', 'display_name', 'created_at'], { what: 'Profile', clause: 'END-OPS-GETPROFILE-1' });
      if (profile.sub !== ADA.sub || profile.email !== ADA.email || profile.display_name !== ADA.name)
        fail(`${ADA.sub}'s profile`, { sub: ADA.sub, email: ADA.email, display_name: ADA.name }, profile, {
          clause: 'END-OPS-GETPROFILE-1',
        });
      const addresses = await get('/v1/me/addresses');
      expectKeys(addresses, ['items'], { what: 'AddressList', clause: 'PUR-SERVE-4' });
      if (JSON.stringify(addresses.items.map((a: { id: string }) => a.id)) !== JSON.stringify(ADA.addressIds))
        fail(`${ADA.sub}'s addresses, newest first`, ADA.addressIds, addresses.items, { clause: 'PUR-SERVE-4' });
      for (const a of addresses.items) expectKeys(a, ADDRESS_KEYS, { what: 'Address', clause: 'PUR-SERVE-4' });
      const cards = await get('/v1/me/payment-methods');
      for (const c of cards.items)
        expectKeys(c, ['id', 'brand', 'last4', 'exp_month', 'exp_year', 'expired'], {
          what: 'PaymentMethod',
          clause: 'END-OPS-LISTPAYMENTMETHODS-1',
        });
      const orders = await get('/v1/me/orders');
      expectKeys(orders, ['items', 'next_cursor'], { what: 'OrderPage', clause: 'PUR-SERVE-4' });
      for (const o of orders.items)
        expectKeys(o, ['id', 'number', 'status', 'placed_at', 'currency', 'total_cents', 'item_count'], {
          what: 'OrderSummary',
          clause: 'PUR-SERVE-4',
        });
      const order = await get(`/v1/me/orders/${ORDERS.adaDelivered.id}`);
      expectKeys(
        order,
        [
          'id',
          'number',
          'status',
          'placed_at',
          'updated_at',
          'currency',
          'lines',
          'item_count',
          'subtotal_cents',
          'shipping_cents',
          'tax_cents',
          'total_cents',
          'address_id',
          'payment_method_id',
          'payment_status',
          'returns',
          'cancellable',
          'returnable',
        ],
        { what: 'OrderDetail', clause: 'END-OPS-GETORDER-1' },
      );
      const lineSum = (order.lines as { line_total_cents: number }[]).reduce((n, l) => n + l.line_total_cents, 0);
      if (order.subtotal_cents !== lineSum || order.total_cents !== order.subtotal_cents + order.shipping_cents + order.tax_cents) {
        fail(`${ORDERS.adaDelivered.id} totals`, 'subtotal = sum of lines; total = subtotal + shipping + tax', order, {
          clause: 'END-OPS-GETORDER-1',
        });
      }
      const methods = await get('/v1/me/checkout-methods');
      for (const c of methods.items)
        expectKeys(c, ['id', 'brand', 'last4', 'exp_month', 'exp_year'], {
          what: 'CheckoutMethod',
          clause: 'END-OPS-GETCHECKOUTMETHODS-1',
        });
      const checkoutAddress = await get('/v1/me/checkout-address');
      expectKeys(checkoutAddress, ['address'], { what: 'CheckoutAddress', clause: 'END-OPS-GETCHECKOUTADDRESS-1' });
      if (checkoutAddress.address?.id !== ADA.addressIds[0])
        fail(`${ADA.sub}'s checkout address (the newest)`, ADA.addressIds[0], checkoutAddress.address, {
          clause: 'END-OPS-GETCHECKOUTADDRESS-1',
        });
      const eve = await shop.http.get('/v1/me/checkout-methods', { token: await customerToken(shop, EVE.sub) });
      expectSameJson(eve.body, { items: [] }, { what: `checkout methods of ${EVE.sub} (no card)`, clause: 'END-OPS-GETCHECKOUTMETHODS-1' });
    },
  ),
);

// Orders whose state a refusal leaves as it is (docs/seed.md) and that no check moves: cancelling is legal only from
// pending_payment and paid, returning only from delivered and only once. The seed's one pending_payment order is left
// out: the webhook checks settle it to paid, so its state depends on which checks ran before.
const NOT_CANCELLABLE = [ORDERS.adaFulfilled, ORDERS.adaDelivered, ORDERS.adaRefunded, ORDERS.benCancelled, ORDERS.benReturnRequested];
const NOT_RETURNABLE = [ORDERS.benPaid, ORDERS.adaFulfilled, ORDERS.adaRefunded, ORDERS.benCancelled, ORDERS.benReturnRequested];

/** Each refused transition: the orders it leaves as they are, its route's last segment, its refusal and its clause. */
const REFUSED_TRANSITIONS: readonly {
  orders: readonly { owner: string; id: string; status: string }[];
  step: string;
  error: string;
  refused: string;
  clause: string;
  flag?: string;
}[] = [
  {
    orders: NOT_CANCELLABLE,
    step: 'cancellation',
    error: 'order_not_cancellable',
    refused: 'a refused cancellation',
    clause: 'END-OPS-CANCELORDER-1',
    // The order says so itself (the reference's order shape).
    flag: 'cancellable',
  },
  {
    orders: NOT_RETURNABLE,
    step: 'returns',
    error: 'order_not_returnable',
    refused: 'a refused return',
    clause: 'END-OPS-REQUESTRETURN-1',
  },
];

test(
  ...check(
    {
      id: 'endpoints.account.transitions.reference',
      everyResponse: true,
      title:
        'cancelOrder outside pending_payment/paid is 409 order_not_cancellable, requestReturn outside delivered (or twice) 409 order_not_returnable; the orders are unchanged',
      clauses: ['END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1', 'PUR-SERVE-4'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const tokens: Record<string, string> = {
        [ADA.sub]: await customerToken(shop, ADA.sub),
        [BEN.sub]: await customerToken(shop, BEN.sub),
      };
      const read = async (sub: string, id: string) => {
        const res = await shop.http.get(`/v1/me/orders/${id}`, { token: tokens[sub] });
        expectStatus(res, 200, { clause: 'PUR-SERVE-4' });
        return res.body;
      };
      for (const { orders, step, error, refused, clause, flag } of REFUSED_TRANSITIONS) {
        for (const { owner: sub, id, status } of orders) {
          const before = await read(sub, id);
          if (before.status !== status) fail(`seed state of ${id}`, status, before.status, { clause });
          if (flag && before[flag] !== false) fail(`${id} "${flag}"`, false, before[flag], { clause });
          expectProblem(await shop.http.post(`/v1/me/orders/${id}/${step}`, { token: tokens[sub], json: { reason: 'conformance' } }), {
            status: 409,
            error,
            docsUrl: shop.docsUrl,
            clause,
          });
          expectSameJson(await read(sub, id), before, { what: `${id} after ${refused}`, clause });
        }
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.order-bodies.reference',
      title: 'cancelOrder and requestReturn bodies are strict: unknown members, a missing reason and empty lines are 400 invalid_request',
      clauses: ['ERR-TABLE-11', 'END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const { benCancelled: cancelled, benReturnRequested: returned } = ORDERS;
      const token = await customerToken(shop, BEN.sub);
      // A cancelled order and one whose return is requested: even a body that got through would change nothing.
      const cases: [string, unknown][] = [
        [`/v1/me/orders/${cancelled.id}/cancellation`, { reason: 'x', refund: false }],
        [`/v1/me/orders/${returned.id}/returns`, { lines: [] }],
        [`/v1/me/orders/${returned.id}/returns`, { reason: 'x', extra: 1 }],
      ];
      for (const [path, body] of cases) {
        expectProblem(await shop.http.post(path, { token, json: body }), {
          status: 400,
          error: 'invalid_request',
          docsUrl: shop.docsUrl,
          clause: 'ERR-TABLE-11',
        });
      }
    },
  ),
);
