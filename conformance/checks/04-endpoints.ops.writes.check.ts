// Spec part 4, Endpoints, for the operator writes under /v1/ops/* (cancellation, refund, stock adjustment), all of them
// the reference's (the operator rows are not shown by the spec), at the reference level.
//
// Writes. Checks run against long-lived deployments, in parallel, again and again: every write here is one the domain
// refuses (a refund of a refunded order, a cancellation of a delivered one, stock below zero), or a +1/-1 stock pair that
// leaves the stock as it was. The happy paths of cancellation and refunds change seed data for good and are left to
// test/http/http-ops.test.ts. The audit log of operator writes is not observable from outside (no read route).
import { test } from '../engine/runner/check.js';
import { expectStatus, fail } from '../lib/assert.js';
import { expectOpsOk, expectOpsProblem } from '../lib/expect/ops.js';
import { operatorCheck, route, send } from './_shared/call-ops.js';
import { customerToken } from '../lib/callers.js';
import { ABSENT_IDS, ADJUSTABLE_VARIANT, ORDERS, OUT_OF_STOCK_VARIANT } from './_shared/seed-data.js';

// Seed data (docs/seed.md) whose verdicts never change: the domain refuses each of these writes, so nothing is written.
const DELIVERED = ORDERS.adaDelivered.id;
const REFUNDED = ORDERS.adaRefunded.id;
const CANCELLED = ORDERS.devCancelled.id;
/** A variant with plenty of stock that no other check names: the +1/-1 pair below adjusts it. */

test(
  ...operatorCheck(
    {
      id: 'endpoints.ops.cancel-refused.reference',
      title:
        'cancelOpsOrder of a delivered or cancelled order is 409 order_not_cancellable and changes nothing; an unknown order is 404; the body is strict',
    },
    async (shop, who) => {
      for (const [id, status] of [
        [DELIVERED, 'delivered'],
        [CANCELLED, 'cancelled'],
      ] as const) {
        expectOpsProblem(
          shop,
          await send(shop, { ...route('cancelOpsOrder', id), json: { reason: 'conformance check' } }, who),
          409,
          'order_not_cancellable',
          { clause: 'PUR-SERVE-5' },
        );
        const after = expectOpsOk(await shop.http.get(`/v1/ops/orders/${id}`, who), { clause: 'PUR-SERVE-5' });
        if (after?.status !== status)
          fail(`status of ${id} after a refused cancellation`, status, after?.status, { clause: 'PUR-SERVE-5' });
      }
      expectOpsProblem(
        shop,
        await send(shop, { ...route('cancelOpsOrder', ABSENT_IDS.order), json: { reason: 'conformance check' } }, who),
        404,
        'not_found',
        { clause: 'PUR-SERVE-5' },
      );
      for (const json of [{}, { reason: 'conformance check', refund: false }]) {
        expectOpsProblem(shop, await send(shop, { ...route('cancelOpsOrder', DELIVERED), json }, who), 400, 'invalid_request', {
          clause: 'PUR-SERVE-5',
        });
      }
    },
  ),
);

test(
  ...operatorCheck(
    {
      id: 'endpoints.ops.refund-refused.reference',
      title:
        'refundOpsOrder with nothing left to refund is 409 order_not_refundable (refunded order, failed payment, more than captured); unknown 404',
    },
    async (shop, who) => {
      const refund = (id: string, json: unknown) => send(shop, { ...route('refundOpsOrder', id), json }, who);
      expectOpsProblem(shop, await refund(REFUNDED, { reason: 'conformance check' }), 409, 'order_not_refundable', {
        clause: 'PUR-SERVE-5',
      });
      expectOpsProblem(shop, await refund(CANCELLED, { reason: 'conformance check' }), 409, 'order_not_refundable', {
        clause: 'PUR-SERVE-5',
      });
      const delivered = expectOpsOk(await shop.http.get(`/v1/ops/orders/${DELIVERED}`, who), { clause: 'PUR-SERVE-5' });
      // More than the order's total is more than any refundable amount, however much earlier runs refunded.
      expectOpsProblem(
        shop,
        await refund(DELIVERED, { amount_cents: Number(delivered.total_cents) + 1, reason: 'conformance check' }),
        409,
        'order_not_refundable',
        { clause: 'PUR-SERVE-5' },
      );
      expectOpsProblem(shop, await refund(ABSENT_IDS.order, { reason: 'conformance check' }), 404, 'not_found', { clause: 'PUR-SERVE-5' });
      for (const json of [
        { reason: 'conformance check', amount_cents: 0 },
        { amount_cents: 1 },
        { reason: 'conformance check', amount_cents: 1, currency: 'USD' },
      ]) {
        expectOpsProblem(shop, await refund(DELIVERED, json), 400, 'invalid_request', { clause: 'PUR-SERVE-5' });
      }
    },
  ),
);

test(
  ...operatorCheck(
    {
      id: 'endpoints.ops.stock.reference',
      title:
        'adjustStock: below zero is 409 insufficient_stock; +1 then -1 answers the new stock each time and leaves it unchanged; delta 0 or unknown variant refused',
    },
    async (shop, who) => {
      const adjust = (variant: string, json: unknown) => send(shop, { ...route('adjustStock', variant), json }, who);
      expectOpsProblem(shop, await adjust(OUT_OF_STOCK_VARIANT, { delta: -1, reason: 'conformance check' }), 409, 'insufficient_stock', {
        clause: 'PUR-SERVE-5',
      });

      const customer = await customerToken(shop);
      const catalogStock = async () => {
        const res = await shop.http.get(`/v1/catalog/products/${ADJUSTABLE_VARIANT.handle}`, { token: customer });
        expectStatus(res, 200, { clause: 'PUR-SERVE-5' });
        const v = Array.isArray(res.body?.variants)
          ? res.body.variants.find((x: { id?: unknown }) => x.id === ADJUSTABLE_VARIANT.id)
          : undefined;
        return v?.available_quantity as unknown;
      };
      const before = await catalogStock();
      if (typeof before !== 'number')
        fail(`stock of ${ADJUSTABLE_VARIANT.id} in the catalog`, 'a number', before, { clause: 'PUR-SERVE-5' });
      const up = expectOpsOk(await adjust(ADJUSTABLE_VARIANT.id, { delta: 1, reason: 'conformance check +1' }), { clause: 'PUR-SERVE-5' });
      if (up?.variant_id !== ADJUSTABLE_VARIANT.id || up.stock !== (before as number) + 1)
        fail('answer of +1', { variant_id: ADJUSTABLE_VARIANT.id, stock: (before as number) + 1 }, up, { clause: 'PUR-SERVE-5' });
      const down = expectOpsOk(await adjust(ADJUSTABLE_VARIANT.id, { delta: -1, reason: 'conformance check -1' }), {
        clause: 'PUR-SERVE-5',
      });
      if (down?.stock !== before) fail('answer of -1', { stock: before }, down, { clause: 'PUR-SERVE-5' });
      const after = await catalogStock();
      if (after !== before)
        fail(`stock of ${ADJUSTABLE_VARIANT.id} in the catalog after +1 and -1`, before, after, { clause: 'PUR-SERVE-5' });

      expectOpsProblem(shop, await adjust(ADJUSTABLE_VARIANT.id, { delta: 0, reason: 'conformance check' }), 400, 'invalid_request', {
        clause: 'PUR-SERVE-5',
      });
      expectOpsProblem(shop, await adjust(ADJUSTABLE_VARIANT.id, { delta: 10_001, reason: 'conformance check' }), 400, 'invalid_request', {
        clause: 'PUR-SERVE-5',
      });
      expectOpsProblem(shop, await adjust(ABSENT_IDS.variant, { delta: 1, reason: 'conformance check' }), 404, 'not_found', {
        clause: 'PUR-SERVE-5',
      });
    },
  ),
);
