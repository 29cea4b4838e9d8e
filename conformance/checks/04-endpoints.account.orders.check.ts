// Spec part 4, Endpoints > Operations and Additional route facts, for orders: every row under /v1/me/* is scoped by
// ownership of the token's `sub` (reads, cancellations and returns of another account's orders are refused and change
// nothing), and the reference's order pages, record shapes, refused transitions and strict bodies.
//
// Levels. Response members, order states and their refusal codes are the reference's (docs/account.md).
// Ownership: the spec says every row is scoped by ownership; it does not say whether another account's id answers 403 or
// 404, so spec-level checks accept either, and the reference's 404 (exactly as a nonexistent id) is checked at its level.
//
// Data. Seed orders are never moved to another state here: transition checks ask only for refusals on orders whose state the
// refusal leaves as it was, so reruns and parallel workers see the seed as docs/seed.md describes it.
import { check, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { expectProblem, expectStatus, expectSuccess, fail } from '../lib/assert.js';
import { expectOwnershipRefusal } from './_shared/expect-refusals.js';
import { customerToken } from './_shared/mint-callers.js';
import { ABSENT_IDS, ADA, BEN, EVE, ORDERS, SEED_PROVIDER_REF } from './_shared/seed-data.js';
import { baselineOf, expectUnchanged } from '../lib/compare.js';

/** An order as its owner reads it, for before/after comparisons. */
async function ownOrder(shop: Shop, token: string, id: string, clause: string): Promise<ShopResponse> {
  const res = await shop.http.get(`/v1/me/orders/${id}`, { token });
  expectSuccess(res, `the owner reads ${id}`, clause);
  return res;
}

test(
  ...check(
    {
      id: 'endpoints.account.ownership.orders',
      title:
        "reading cust_ada's orders, cancelling cust_ben's paid order, returning a delivered order or deleting an address of another account is refused (403 or 404) and nothing changes",
      clauses: ['END-ME-2', 'END-ME-1', 'END-OPS-GETORDER-1', 'END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1'],
      seed: true,
    },
    async (shop) => {
      const ada = await customerToken(shop, ADA.sub);
      const ben = await customerToken(shop, BEN.sub);
      const other = await customerToken(shop);
      // Ben's paid order is cancellable by him, Ada's delivered one returnable by her: a leak would change them. (Not Ada's
      // pending order: the webhook checks settle it, so its state is not stable within a run.)
      const { benPaid: paid, adaDelivered: delivered } = ORDERS;
      const twice = async (read: () => Promise<ShopResponse>) => baselineOf(await read(), await read());
      const before = {
        paid: await twice(() => ownOrder(shop, ben, paid.id, 'END-ME-2')),
        delivered: await twice(() => ownOrder(shop, ada, delivered.id, 'END-ME-2')),
      };
      const addressesBefore = await twice(() => shop.http.get('/v1/me/addresses', { token: ada }));
      for (const id of ADA.orderIds) {
        const res = await shop.http.get(`/v1/me/orders/${id}`, { token: other });
        // Served, it is a row not scoped by the token's sub and another account's data seen.
        expectOwnershipRefusal(shop, res, `a fresh account reads ${id}`, ['END-ME-2', 'END-ME-1']);
        if (res.text.includes(ADA.name) || res.text.includes(ADA.line1))
          fail(`refusal of ${id}`, 'nothing of Ada', res.text.slice(0, 300), 'END-ME-1');
      }
      expectOwnershipRefusal(
        shop,
        await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token: other, json: {} }),
        `a fresh account cancels ${BEN.sub}'s ${paid.id}`,
        'END-ME-2',
      );
      expectOwnershipRefusal(
        shop,
        await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token: ada, json: {} }),
        `${ADA.sub} cancels ${BEN.sub}'s ${paid.id}`,
        'END-ME-2',
      );
      expectOwnershipRefusal(
        shop,
        await shop.http.post(`/v1/me/orders/${delivered.id}/returns`, { token: other, json: { reason: 'not mine' } }),
        `a fresh account returns ${delivered.id}`,
        'END-ME-2',
      );
      expectOwnershipRefusal(
        shop,
        await shop.http.delete(`/v1/me/addresses/${ADA.addressIds[1]}`, { token: other }),
        `a fresh account deletes ${ADA.addressIds[1]}`,
        'END-ME-2',
      );
      expectUnchanged(
        before.paid,
        await ownOrder(shop, ben, paid.id, 'END-ME-2'),
        `${BEN.sub}'s ${paid.id} after others' cancellations`,
        'END-ME-2',
      );
      expectUnchanged(
        before.delivered,
        await ownOrder(shop, ada, delivered.id, 'END-ME-2'),
        `${ADA.sub}'s ${delivered.id} after another account's return`,
        'END-ME-2',
      );
      expectUnchanged(
        addressesBefore,
        await shop.http.get('/v1/me/addresses', { token: ada }),
        `${ADA.sub}'s addresses after another account's delete`,
        'END-ME-2',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.ownership.reference',
      title: "another account's order or address answers 404 not_found exactly like an id that does not exist",
      clauses: ['END-ME-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const same = (what: string, mine: ShopResponse, missing: ShopResponse) => {
        const a = expectProblem(mine, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
        const b = expectProblem(missing, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
        if (a.detail !== b.detail) fail(`${what}: the refusal tells nothing of the row's existence`, b.detail, a.detail, 'END-ME-2');
      };
      const { order: none, address: noAddress } = ABSENT_IDS;
      const { adaDelivered: delivered, benPaid: paid } = ORDERS;
      same(
        'getOrder',
        await shop.http.get(`/v1/me/orders/${delivered.id}`, { token }),
        await shop.http.get(`/v1/me/orders/${none}`, { token }),
      );
      same(
        'cancelOrder',
        await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token, json: {} }),
        await shop.http.post(`/v1/me/orders/${none}/cancellation`, { token, json: {} }),
      );
      same(
        'requestReturn',
        await shop.http.post(`/v1/me/orders/${delivered.id}/returns`, { token, json: { reason: 'x' } }),
        await shop.http.post(`/v1/me/orders/${none}/returns`, { token, json: { reason: 'x' } }),
      );
      same(
        'deleteAddress',
        await shop.http.delete(`/v1/me/addresses/${ADA.addressIds[1]}`, { token }),
        await shop.http.delete(`/v1/me/addresses/${noAddress}`, { token }),
      );
    },
  ),
);

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
      if (JSON.stringify(seen) !== JSON.stringify(ADA.orderIds))
        fail(`${ADA.sub}'s orders paged with limit=1`, ADA.orderIds, seen, 'END-OPS-LISTORDERS-1');
      const refunded = await shop.http.get('/v1/me/orders?status=refunded', { token });
      if (JSON.stringify(refunded.body?.items?.map((o: { id: string }) => o.id)) !== JSON.stringify([ORDERS.adaRefunded.id]))
        fail('status=refunded', [ORDERS.adaRefunded.id], refunded.body, 'END-OPS-LISTORDERS-1');
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
          fail(`GET ${path} leaks a payment-provider reference`, 'none', res.text.slice(0, 300), 'PUR-SERVE-4');
        return res.body;
      };
      const expectKeys = (what: string, value: unknown, keys: string[], clause: string) => {
        if (JSON.stringify(keysOf(value)) !== JSON.stringify([...keys].sort()))
          fail(`members of ${what}`, [...keys].sort(), keysOf(value), clause);
      };
      const ADDRESS_KEYS = ['id', 'name', 'line1', 'line2', 'city', 'region', 'postal_code', 'country', 'phone', 'created_at'];
      const profile = await get('/v1/me/profile');
      expectKeys('Profile', profile, ['sub', 'email', 'display_name', 'created_at'], 'END-OPS-GETPROFILE-1');
      if (profile.sub !== ADA.sub || profile.email !== ADA.email || profile.display_name !== ADA.name)
        fail(`${ADA.sub}'s profile`, { sub: ADA.sub, email: ADA.email, display_name: ADA.name }, profile, 'END-OPS-GETPROFILE-1');
      const addresses = await get('/v1/me/addresses');
      expectKeys('AddressList', addresses, ['items'], 'PUR-SERVE-4');
      if (JSON.stringify(addresses.items.map((a: { id: string }) => a.id)) !== JSON.stringify(ADA.addressIds))
        fail(`${ADA.sub}'s addresses, newest first`, ADA.addressIds, addresses.items, 'PUR-SERVE-4');
      for (const a of addresses.items) expectKeys('Address', a, ADDRESS_KEYS, 'PUR-SERVE-4');
      const cards = await get('/v1/me/payment-methods');
      for (const c of cards.items)
        expectKeys('PaymentMethod', c, ['id', 'brand', 'last4', 'exp_month', 'exp_year', 'expired'], 'END-OPS-LISTPAYMENTMETHODS-1');
      const orders = await get('/v1/me/orders');
      expectKeys('OrderPage', orders, ['items', 'next_cursor'], 'PUR-SERVE-4');
      for (const o of orders.items)
        expectKeys('OrderSummary', o, ['id', 'number', 'status', 'placed_at', 'currency', 'total_cents', 'item_count'], 'PUR-SERVE-4');
      const order = await get(`/v1/me/orders/${ORDERS.adaDelivered.id}`);
      expectKeys(
        'OrderDetail',
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
        'END-OPS-GETORDER-1',
      );
      const lineSum = (order.lines as { line_total_cents: number }[]).reduce((n, l) => n + l.line_total_cents, 0);
      if (order.subtotal_cents !== lineSum || order.total_cents !== order.subtotal_cents + order.shipping_cents + order.tax_cents) {
        fail(`${ORDERS.adaDelivered.id} totals`, 'subtotal = sum of lines; total = subtotal + shipping + tax', order, 'END-OPS-GETORDER-1');
      }
      const methods = await get('/v1/me/checkout-methods');
      for (const c of methods.items)
        expectKeys('CheckoutMethod', c, ['id', 'brand', 'last4', 'exp_month', 'exp_year'], 'END-OPS-GETCHECKOUTMETHODS-1');
      const checkoutAddress = await get('/v1/me/checkout-address');
      expectKeys('CheckoutAddress', checkoutAddress, ['address'], 'END-OPS-GETCHECKOUTADDRESS-1');
      if (checkoutAddress.address?.id !== ADA.addressIds[0])
        fail(`${ADA.sub}'s checkout address (the newest)`, ADA.addressIds[0], checkoutAddress.address, 'END-OPS-GETCHECKOUTADDRESS-1');
      const eve = await shop.http.get('/v1/me/checkout-methods', { token: await customerToken(shop, EVE.sub) });
      if (JSON.stringify(eve.body) !== JSON.stringify({ items: [] }))
        fail(`checkout methods of ${EVE.sub} (no card)`, { items: [] }, eve.body, 'END-OPS-GETCHECKOUTMETHODS-1');
    },
  ),
);

// Orders whose state a refusal leaves as it is (docs/seed.md) and that no check moves: cancelling is legal only from
// pending_payment and paid, returning only from delivered and only once. The seed's one pending_payment order is left
// out: the webhook checks settle it to paid, so its state depends on which checks ran before.
const NOT_CANCELLABLE = [ORDERS.adaFulfilled, ORDERS.adaDelivered, ORDERS.adaRefunded, ORDERS.benCancelled, ORDERS.benReturnRequested];
const NOT_RETURNABLE = [ORDERS.benPaid, ORDERS.adaFulfilled, ORDERS.adaRefunded, ORDERS.benCancelled, ORDERS.benReturnRequested];

test(
  ...check(
    {
      id: 'endpoints.account.transitions.reference',
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
      for (const { owner: sub, id, status } of NOT_CANCELLABLE) {
        const before = await read(sub, id);
        if (before.status !== status) fail(`seed state of ${id}`, status, before.status, 'END-OPS-CANCELORDER-1');
        if (before.cancellable !== false) fail(`${id} "cancellable"`, false, before.cancellable, 'END-OPS-CANCELORDER-1');
        expectProblem(await shop.http.post(`/v1/me/orders/${id}/cancellation`, { token: tokens[sub], json: { reason: 'conformance' } }), {
          status: 409,
          error: 'order_not_cancellable',
          docsUrl: shop.docsUrl,
          clause: 'END-OPS-CANCELORDER-1',
        });
        const after = await read(sub, id);
        if (JSON.stringify(after) !== JSON.stringify(before))
          fail(`${id} after a refused cancellation`, before, after, 'END-OPS-CANCELORDER-1');
      }
      for (const { owner: sub, id, status } of NOT_RETURNABLE) {
        const before = await read(sub, id);
        if (before.status !== status) fail(`seed state of ${id}`, status, before.status, 'END-OPS-REQUESTRETURN-1');
        expectProblem(await shop.http.post(`/v1/me/orders/${id}/returns`, { token: tokens[sub], json: { reason: 'conformance' } }), {
          status: 409,
          error: 'order_not_returnable',
          docsUrl: shop.docsUrl,
          clause: 'END-OPS-REQUESTRETURN-1',
        });
        const after = await read(sub, id);
        if (JSON.stringify(after) !== JSON.stringify(before))
          fail(`${id} after a refused return`, before, after, 'END-OPS-REQUESTRETURN-1');
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
