// What a payment-provider delivery does to the database (docs/webhook.md): payments settle, refunds are counted, admitted
// card setups become saved cards, and every delivery processed is recorded by event id. The caller runs processDelivery
// inside ONE transaction, so a delivery's effects and its record commit together or not at all.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../db/open.js';
import {
  cardDetailsSchema,
  chargeObjectSchema,
  paymentIntentObjectSchema,
  setupIntentObjectSchema,
  type CardDetails,
  type StripeEvent,
} from '../schemas/webhook.js';
import { findOrder, findPaymentByRef, recordRefundTotal, setOrderStatus, setPaymentStatus } from './ops.js';
import { AttemptSettled, completeAttempt, findAttempt, findAttemptByRef } from './checkout-attempts.js';
import { ProblemError } from '../problem.js';

type PaymentIntentObject = z.output<typeof paymentIntentObjectSchema>;

/** `processed`: the delivery changed (or confirmed) state; `ignored`: acknowledged without effect. */
export type Outcome = 'processed' | 'ignored';

/** A verified delivery that cannot be processed now: nothing is recorded, the provider retries (500 processing_failed). */
export class DeliveryNotProcessable extends Error {
  override name = 'DeliveryNotProcessable';
}

export interface DeliveryRecord {
  event_id: string;
  type: string;
  outcome: string;
  received_at: string;
}

export function findDelivery(db: Db, eventId: string): DeliveryRecord | undefined {
  return db.prepare('SELECT event_id, type, outcome, received_at FROM webhook_events WHERE event_id = ?').get(eventId) as
    DeliveryRecord | undefined;
}

function recordDelivery(db: Db, event: StripeEvent, outcome: Outcome, now: Date): void {
  db.prepare('INSERT INTO webhook_events (event_id, type, outcome, received_at) VALUES (?, ?, ?, ?)').run(
    event.id,
    event.type,
    outcome,
    now.toISOString(),
  );
}

function objectOf<S extends z.ZodType>(event: StripeEvent, schema: S): z.output<S> {
  const parsed = schema.safeParse(event.data.object);
  // Never the object itself in the message: it is logged as the cause.
  if (!parsed.success)
    throw new DeliveryNotProcessable(`${event.type}: data.object lacks ${parsed.error.issues[0]?.path.join('.') || 'its members'}`);
  return parsed.data;
}

/** The payment of a PaymentIntent. Unknown: the checkout that created it may not have committed yet, so retry later. */
function paymentOf(db: Db, event: StripeEvent, ref: string) {
  const payment = findPaymentByRef(db, ref);
  // [EVT-WEBHOOK-6] a verified delivery that cannot be processed: 500 processing_failed, nothing recorded.
  if (!payment) throw new DeliveryNotProcessable(`${event.type}: no payment has the provider reference yet`);
  return payment;
}

/**
 * A captured PaymentIntent with no payment row: a checkout that crashed between the charge and the order (docs/checkout.md,
 * Crash safety). Its attempt, named by metadata.order_id, is completed here once it is older than the reconciler's age (a
 * younger one may still be in flight: retry later); an attempt that ended otherwise makes the delivery `ignored`.
 */
function settleAttempt(db: Db, event: StripeEvent, intent: PaymentIntentObject, now: Date, afterSeconds: number): Outcome {
  const orderId = intent.metadata?.order_id;
  const attempt = (orderId !== undefined ? findAttempt(db, orderId) : undefined) ?? findAttemptByRef(db, intent.id);
  if (!attempt) throw new DeliveryNotProcessable(`${event.type}: no payment has the provider reference yet`);
  if (attempt.state !== 'charging') return 'ignored';
  if (Date.parse(attempt.createdAt) > now.getTime() - afterSeconds * 1000)
    throw new DeliveryNotProcessable(`${event.type}: the checkout of this payment is still in progress`);
  try {
    completeAttempt(db, attempt, { status: 'succeeded', providerRef: intent.id }, now);
  } catch (err) {
    // The cart or the stock changed: the attempt is refund_due and the reconciler refunds it. Settled by another path: done.
    if (!(err instanceof ProblemError) && !(err instanceof AttemptSettled)) throw err;
  }
  return 'processed';
}

function paymentSucceeded(db: Db, event: StripeEvent, now: Date, afterSeconds: number): Outcome {
  const intent = objectOf(event, paymentIntentObjectSchema);
  if (!findPaymentByRef(db, intent.id)) return settleAttempt(db, event, intent, now, afterSeconds);
  const payment = paymentOf(db, event, intent.id);
  // A refunded payment stays refunded; a pending or failed one (a retried card) is captured now.
  if (payment.status === 'pending' || payment.status === 'failed') setPaymentStatus(db, payment.id, 'succeeded', now);
  const order = findOrder(db, payment.order_id);
  // Only a waiting order moves; a cancelled one stays cancelled (the capture is then for an operator to refund).
  // [EVT-WEBHOOK-7] the payment settles its order before the answer.
  if (order?.status === 'pending_payment') setOrderStatus(db, order.id, 'paid', now);
  return 'processed';
}

function paymentFailed(db: Db, event: StripeEvent, now: Date): Outcome {
  const intent = objectOf(event, paymentIntentObjectSchema);
  const payment = paymentOf(db, event, intent.id);
  // Deliveries may arrive out of order: a failure never undoes a capture. The order stays pending_payment (the customer
  // may retry the payment); only the payment records the failure.
  if (payment.status === 'pending') setPaymentStatus(db, payment.id, 'failed', now);
  return 'processed';
}

function chargeRefunded(db: Db, event: StripeEvent, now: Date): Outcome {
  const charge = objectOf(event, chargeObjectSchema);
  // A refund exists long after its payment was committed: a charge naming no payment of the shop is someone else's.
  const payment = charge.payment_intent ? findPaymentByRef(db, charge.payment_intent) : undefined;
  if (!payment) return 'ignored';
  recordRefundTotal(db, payment.id, charge.amount_refunded, now);
  return 'processed';
}

const newPaymentMethodId = () => `pm_${randomBytes(10).toString('hex')}`;

function setupSucceeded(db: Db, event: StripeEvent, now: Date): Outcome {
  const intent = objectOf(event, setupIntentObjectSchema);
  const setup = db.prepare(`SELECT id, account_sub FROM card_setups WHERE id = ? AND status = 'admitted'`).get(intent.id) as
    { id: string; account_sub: string } | undefined;
  // [EVT-WEBHOOK-8] only a setup the storefront admitted completes, once: an unknown or already completed setup changes nothing.
  if (!setup) return 'ignored';
  const pm = intent.payment_method;
  const ref = typeof pm === 'string' ? pm : pm?.id;
  const parsed = cardDetailsSchema.safeParse(
    (typeof pm === 'object' && pm !== null ? pm.card : undefined) ?? intent.payment_method_details?.card,
  );
  if (!ref || !parsed.success)
    throw new DeliveryNotProcessable(`${event.type}: the payment method or its card details are missing or not supported`);
  const card: CardDetails = parsed.data;
  const id = newPaymentMethodId();
  db.prepare(
    `INSERT INTO payment_methods (id, account_sub, brand, last4, exp_month, exp_year, provider_ref, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, setup.account_sub, card.brand, card.last4, card.exp_month, card.exp_year, ref, now.toISOString());
  db.prepare(`UPDATE card_setups SET status = 'completed', payment_method_id = ?, updated_at = ? WHERE id = ?`).run(
    id,
    now.toISOString(),
    setup.id,
  );
  return 'processed';
}

const HANDLERS: Readonly<Record<string, (db: Db, event: StripeEvent, now: Date, afterSeconds: number) => Outcome>> = {
  'payment_intent.succeeded': paymentSucceeded,
  'payment_intent.payment_failed': paymentFailed,
  'charge.refunded': chargeRefunded,
  'setup_intent.succeeded': setupSucceeded,
};

/**
 * Processes one verified delivery: a delivery already recorded is `duplicate` and changes nothing; otherwise its effects and
 * its record are written. Throws DeliveryNotProcessable (the caller's transaction then rolls back: nothing is recorded).
 * Call inside a transaction.
 */
export function processDelivery(db: Db, event: StripeEvent, now: Date, reconcileAfterSeconds = 120): Outcome | 'duplicate' {
  // [EVT-WEBHOOK-7] [EVT-WEBHOOK-8] a delivery's effects are written before the route answers.
  if (findDelivery(db, event.id)) return 'duplicate';
  const handler = Object.hasOwn(HANDLERS, event.type) ? HANDLERS[event.type] : undefined;
  const outcome = handler ? handler(db, event, now, reconcileAfterSeconds) : 'ignored';
  recordDelivery(db, event, outcome, now);
  return outcome;
}
