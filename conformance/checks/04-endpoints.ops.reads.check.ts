// Spec part 4, Endpoints, for the operator operations under /v1/ops/*: the reference's reads (reference level: the spec
// shows none of the operator rows, "the operations under /v1/ops/*: not shown"). An operator searches the orders (its
// filters, its cursor) and reads one order. Who may call these routes is in 04-endpoints.ops; the writes are in
// 04-endpoints.ops.writes.
import { notApplicable, test } from '../engine/runner/check.js';
import { mapCases } from '../engine/runner/cases.js';
import { fail } from '../lib/assert.js';
import { expectOpsOk, expectOpsProblem } from '../lib/expect/ops.js';
import { operatorCheck } from './_shared/call-ops.js';
import { ABSENT_IDS, ADA, BEN, CHLOE, DEV, ORDERS, seedPaymentRef } from './_shared/seed-data.js';

// Seed orders (docs/seed.md) the reads find: delivered and refunded, of cust_ada.
const DELIVERED = ORDERS.adaDelivered.id;
const REFUNDED = ORDERS.adaRefunded.id;

test(
  ...operatorCheck(
    {
      id: 'endpoints.ops.search.reference',
      title: 'searchOpsOrders finds orders of every account by status, account and order number, newest first, in pages',
    },
    async (shop, who) => {
      const search = async (query: string) =>
        expectOpsOk(await shop.http.get(`/v1/ops/orders?${query}`, who), { clause: 'PUR-SERVE-5' }) as {
          items: Record<string, unknown>[];
          next_cursor: string | null;
        };

      const delivered = await search('status=delivered&limit=100');
      if (!delivered.items.every((o) => o.status === 'delivered'))
        fail(
          'statuses of status=delivered',
          'all delivered',
          delivered.items.map((o) => o.status),
          { clause: 'PUR-SERVE-5' },
        );
      const accounts = new Set(delivered.items.map((o) => o.account));
      for (const sub of [ADA.sub, BEN.sub, CHLOE.sub, DEV.sub])
        if (!accounts.has(sub)) fail('accounts of delivered orders', `includes ${sub}`, [...accounts], { clause: 'PUR-SERVE-5' });
      const placed = delivered.items.map((o) => String(o.placed_at));
      if (placed.join() !== [...placed].sort().reverse().join())
        fail('order of the results', 'newest first', placed, { clause: 'PUR-SERVE-5' });

      const { number } = ORDERS.adaDelivered;
      if (number === undefined)
        return notApplicable('the profile declares no data.orders.readerDelivered.number: declare it to judge the search by order number');
      const byNumber = await search(`q=${encodeURIComponent(number)}`);
      const found = byNumber.items.find((o) => o.id === DELIVERED);
      if (!found)
        fail(
          `q=${number}`,
          `finds ${DELIVERED}`,
          byNumber.items.map((o) => o.id),
          { clause: 'PUR-SERVE-5' },
        );
      for (const key of ['id', 'number', 'account', 'status', 'payment_status', 'currency', 'total_cents', 'placed_at']) {
        if (!(key in found!)) fail(`member "${key}" of an order summary`, 'present', Object.keys(found!), { clause: 'PUR-SERVE-5' });
      }
      if (found!.number !== number || found!.account !== ADA.sub)
        fail(`summary of ${DELIVERED}`, { number, account: ADA.sub }, found, { clause: 'PUR-SERVE-5' });

      const ada = await search(`account=${ADA.sub}&limit=100`);
      if (ada.items.length === 0 || !ada.items.every((o) => o.account === ADA.sub))
        fail(
          `account=${ADA.sub}`,
          `only ${ADA.sub}'s orders`,
          ada.items.map((o) => o.account),
          { clause: 'PUR-SERVE-5' },
        );

      const first = await search('limit=2');
      if (first.items.length !== 2 || typeof first.next_cursor !== 'string')
        fail('limit=2 on the seed', '2 items and a next_cursor', first, { clause: 'PUR-SERVE-5' });
      const second = await search(`limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
      const overlap = second.items.filter((o) => first.items.some((p) => p.id === o.id));
      if (second.items.length === 0 || overlap.length > 0)
        fail(
          'the page after next_cursor',
          'further orders, none repeated',
          second.items.map((o) => o.id),
          { clause: 'PUR-SERVE-5' },
        );

      expectOpsProblem(shop, await shop.http.get('/v1/ops/orders?status=misplaced', who), 400, 'invalid_request', {
        clause: 'PUR-SERVE-5',
      });
    },
  ),
);

test(
  ...operatorCheck(
    {
      id: 'endpoints.ops.read.reference',
      title: "getOpsOrder reads any account's order with its lines, payments and returns; an unknown id is 404 not_found",
    },
    async (shop, who) => {
      // Three reads, each its own order: at once, judged in turn.
      const [delivered, refundedRead, absent] = await mapCases([DELIVERED, REFUNDED, ABSENT_IDS.order], (id) =>
        shop.http.get(`/v1/ops/orders/${id}`, who),
      );
      const o = expectOpsOk(delivered!, { clause: 'PUR-SERVE-5' });
      if (o?.id !== DELIVERED || o.account !== ADA.sub || o.status !== 'delivered')
        fail(`order ${DELIVERED}`, { id: DELIVERED, account: ADA.sub, status: 'delivered' }, o, { clause: 'PUR-SERVE-5' });
      if (!Array.isArray(o.lines) || o.lines.length === 0) fail('lines', 'a non-empty list', o.lines, { clause: 'PUR-SERVE-5' });
      if (!Array.isArray(o.returns)) fail('returns', 'a list', o.returns, { clause: 'PUR-SERVE-5' });
      const payment = Array.isArray(o.payments)
        ? o.payments.find((p: { provider_ref?: unknown }) => p.provider_ref === seedPaymentRef(DELIVERED))
        : undefined;
      if (!payment) fail('payments', `the seed payment ${seedPaymentRef(DELIVERED)}`, o.payments, { clause: 'PUR-SERVE-5' });
      if (payment.amount_cents !== o.total_cents) fail('payment amount', o.total_cents, payment.amount_cents, { clause: 'PUR-SERVE-5' });

      const refunded = expectOpsOk(refundedRead!, { clause: 'PUR-SERVE-5' });
      if (refunded?.payments?.[0]?.status !== 'refunded' || refunded.payments[0].refundable_cents !== 0)
        fail(`payment of ${REFUNDED}`, { status: 'refunded', refundable_cents: 0 }, refunded?.payments?.[0], { clause: 'PUR-SERVE-5' });

      expectOpsProblem(shop, absent!, 404, 'not_found', { clause: 'PUR-SERVE-5' });
    },
  ),
);
