// Operator operations under /v1/ops/* ([PUR-SERVE-5], [PUR-RULE-3]: operator-only; rows "not shown", the reference's
// choice): order search and read across accounts, cancellation, refunds, stock adjustments. Every write is audited with
// the Operator attribution; reads are not. Provider calls come first, then all writes in one transaction.
import type { Db } from '../db/open.js';
import {
  adjustStockBody,
  cancelOpsOrderBody,
  opsOrderPageSchema,
  opsOrderParams,
  opsOrderSchema,
  opsVariantParams,
  refundOpsOrderBody,
  searchOpsOrdersQuery,
  stockLevelSchema,
} from '../schemas/ops.js';
import {
  addStock,
  findOrder,
  findPayment,
  findStock,
  orderLines,
  orderPayments,
  orderReturns,
  recordRefundTotal,
  refundablePayment,
  searchOrders,
  setOrderStatus,
  setPaymentStatus,
  type OrderRow,
} from '../store/ops.js';
import { ProblemError } from '../problem.js';
import type { Actor } from '../pipeline/context.js';
import type { PaymentProvider } from '../payments/port.js';
import type { Logger } from '../log.js';
import { audit, CANCELLABLE, exclusively } from '../store/orders.js';
import { defineRoute } from './define.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/** `operator:<Operator header>`: who the audit log names. */
const auditActor = (actor: Actor) => `operator:${actor.operatorId ?? 'unknown'}`;

function orderOr404(db: Db, id: string): OrderRow {
  const order = findOrder(db, id);
  if (!order) throw new ProblemError('not_found', { detail: 'No order has this id.' });
  return order;
}

/** The operator's view of one order: lines, payments (with what is still refundable) and returns. */
export function readOpsOrder(db: Db, id: string) {
  const o = orderOr404(db, id);
  return {
    id: o.id,
    number: o.number,
    account: o.account_sub,
    status: o.status,
    currency: o.currency,
    subtotal_cents: o.subtotal_cents,
    shipping_cents: o.shipping_cents,
    tax_cents: o.tax_cents,
    total_cents: o.total_cents,
    address_id: o.address_id,
    payment_method_id: o.payment_method_id,
    placed_at: o.placed_at,
    updated_at: o.updated_at,
    lines: orderLines(db, o.id).map((l) => ({ ...l, line_total_cents: l.unit_price_cents * l.quantity })),
    payments: orderPayments(db, o.id).map((p) => ({
      id: p.id,
      provider: p.provider,
      provider_ref: p.provider_ref,
      status: p.status,
      amount_cents: p.amount_cents,
      refunded_cents: p.refunded_cents,
      refundable_cents: p.status === 'succeeded' ? Math.max(0, p.amount_cents - p.refunded_cents) : 0,
      currency: p.currency,
      created_at: p.created_at,
      updated_at: p.updated_at,
    })),
    returns: orderReturns(db, o.id),
  };
}

/** A refund through the provider port; a refusal changes nothing and is answered 409 order_not_refundable. */
async function providerRefund(payments: PaymentProvider, log: Logger, ref: string, amountCents: number): Promise<string> {
  const result = await payments.refund(ref, amountCents);
  if (result.status === 'failed') {
    log.warn('ops_refund_refused', { provider: payments.name });
    throw new ProblemError('order_not_refundable', { detail: 'The payment provider refused the refund; nothing changed.' });
  }
  // `pending` counts as refunded: the provider has accepted it, and its charge.refunded delivery reports the same total.
  return result.providerRef;
}

export const opsRoutes = [
  defineRoute({
    // [PUR-RULE-3] [END-LIST-5] every /v1/ops/* route has the operator list alone (contract/operations.ts).
    operationId: 'searchOpsOrders',
    summary: 'Search orders of every account',
    query: searchOpsOrdersQuery,
    success: { status: 200, schema: opsOrderPageSchema, description: 'A page of orders, newest first.' },
    handle: ({ domain, input }) => {
      const offset = decodeCursor(input.query.cursor);
      const page = searchOrders(domain.db, {
        status: input.query.status,
        account: input.query.account,
        number: input.query.q,
        offset,
        limit: input.query.limit,
      });
      return {
        status: 200,
        body: {
          items: page.items.map((o) => ({
            id: o.id,
            number: o.number,
            account: o.account_sub,
            status: o.status,
            payment_status: o.payment_status,
            item_count: o.item_count,
            currency: o.currency,
            total_cents: o.total_cents,
            placed_at: o.placed_at,
            updated_at: o.updated_at,
          })),
          next_cursor: page.more ? encodeCursor(offset + input.query.limit) : null,
        },
      };
    },
  }),
  defineRoute({
    operationId: 'getOpsOrder',
    summary: "Read any account's order",
    params: opsOrderParams,
    success: { status: 200, schema: opsOrderSchema, description: 'The order with its lines, payments and returns.' },
    errors: ['not_found'],
    handle: ({ domain, input }) => ({ status: 200, body: readOpsOrder(domain.db, input.params.id) }),
  }),
  defineRoute({
    operationId: 'cancelOpsOrder',
    summary: 'Cancel an order (refunding a captured payment)',
    params: opsOrderParams,
    body: cancelOpsOrderBody,
    success: { status: 200, schema: opsOrderSchema, description: "The cancelled order. A paid order's payment is refunded in full." },
    errors: ['not_found', 'order_not_cancellable', 'order_not_refundable'],
    handle: async ({ domain, actor, input }) => {
      const { db, clock, payments, log } = domain;
      const id = input.params.id;
      const before = orderOr404(db, id);
      if (!CANCELLABLE.has(before.status)) {
        throw new ProblemError('order_not_cancellable', { detail: `A ${before.status} order cannot be cancelled.` });
      }
      const busy = new ProblemError('order_not_cancellable', { detail: 'A cancellation or refund of this order is already in progress.' });
      await exclusively(domain, id, busy, async () => {
        // The provider first: a paid order's captured money goes back before anything is written.
        const capture = before.status === 'paid' ? refundablePayment(db, id) : undefined;
        const refundRef = capture ? await providerRefund(payments, log, capture.payment.provider_ref, capture.refundableCents) : null;
        db.transaction(() => {
          const now = clock();
          const order = orderOr404(db, id);
          // A concurrent write may have moved the order while the provider answered.
          if (!CANCELLABLE.has(order.status))
            throw new ProblemError('order_not_cancellable', { detail: `A ${order.status} order cannot be cancelled.` });
          if (capture) recordRefundTotal(db, capture.payment.id, capture.payment.refunded_cents + capture.refundableCents, now);
          // A payment still waiting will not be taken any more.
          for (const p of orderPayments(db, id)) if (p.status === 'pending') setPaymentStatus(db, p.id, 'failed', now);
          setOrderStatus(db, id, 'cancelled', now);
          audit(db, {
            at: now,
            actor: auditActor(actor),
            action: 'order.cancel',
            target: id,
            details: {
              reason: input.body.reason,
              previous_status: order.status,
              refunded_cents: capture?.refundableCents ?? 0,
              refund_ref: refundRef,
            },
          });
        }).immediate();
      });
      return { status: 200, body: readOpsOrder(db, id) };
    },
  }),
  defineRoute({
    operationId: 'refundOpsOrder',
    summary: "Refund all or part of an order's captured payment",
    params: opsOrderParams,
    body: refundOpsOrderBody,
    success: {
      status: 200,
      schema: opsOrderSchema,
      description: 'The order after the refund; `refunded` once its payment is refunded in full.',
    },
    errors: ['not_found', 'order_not_refundable'],
    handle: async ({ domain, actor, input }) => {
      const { db, clock, payments, log } = domain;
      const id = input.params.id;
      orderOr404(db, id);
      const busy = new ProblemError('order_not_refundable', { detail: 'A cancellation or refund of this order is already in progress.' });
      await exclusively(domain, id, busy, async () => {
        const capture = refundablePayment(db, id);
        if (!capture) throw new ProblemError('order_not_refundable', { detail: 'The order has no captured payment left to refund.' });
        const amount = input.body.amount_cents ?? capture.refundableCents;
        if (amount > capture.refundableCents) {
          throw new ProblemError('order_not_refundable', { detail: `At most ${capture.refundableCents} can still be refunded.` });
        }
        const refundRef = await providerRefund(payments, log, capture.payment.provider_ref, amount);
        db.transaction(() => {
          const now = clock();
          const p = findPayment(db, capture.payment.id)!;
          // Counted on the current total: a provider report recorded meanwhile is not counted twice.
          if (p.status !== 'succeeded' || p.amount_cents - p.refunded_cents < amount) {
            log.warn('ops_refund_conflict', { payment: p.id });
            throw new ProblemError('order_not_refundable', { detail: 'The payment changed while the refund was made.' });
          }
          recordRefundTotal(db, p.id, p.refunded_cents + amount, now);
          audit(db, {
            at: now,
            actor: auditActor(actor),
            action: 'order.refund',
            target: id,
            details: { reason: input.body.reason, amount_cents: amount, payment_id: p.id, refund_ref: refundRef },
          });
        }).immediate();
      });
      return { status: 200, body: readOpsOrder(db, id) };
    },
  }),
  defineRoute({
    operationId: 'adjustStock',
    summary: "Adjust a variant's stock",
    params: opsVariantParams,
    body: adjustStockBody,
    success: { status: 200, schema: stockLevelSchema, description: "The variant's stock after the adjustment." },
    errors: ['not_found', 'insufficient_stock'],
    handle: ({ domain, actor, input }) => {
      const { db, clock } = domain;
      const id = input.params.id;
      const { delta, reason } = input.body;
      const result = db
        .transaction(() => {
          const before = findStock(db, id);
          if (!before) throw new ProblemError('not_found', { detail: 'No variant has this id.' });
          const stock = addStock(db, id, delta);
          if (stock === undefined)
            throw new ProblemError('insufficient_stock', { detail: `Stock is ${before.stock}: removing ${-delta} would go below 0.` });
          audit(db, {
            at: clock(),
            actor: auditActor(actor),
            action: 'variant.stock_adjust',
            target: id,
            details: { reason, delta, before: before.stock, after: stock },
          });
          return { variant_id: id, sku: before.sku, stock, delta };
        })
        .immediate();
      return { status: 200, body: result };
    },
  }),
];
