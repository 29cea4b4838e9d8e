// The job `reconcile_checkouts` (docs/checkout.md, Crash safety): settles the checkout attempts that a stopped process
// left unfinished. Runs at start-up and every minute, on attempts older than CHECKOUT_RECONCILE_AFTER_SECONDS (a live
// request on another instance is never that old). For each: the provider is asked for the attempt's charge, then
//   - none: abandoned (nothing was charged);  declined: declined;
//   - charged, attempt `charging`: the order is written as the request would have (or, if the cart or stock changed
//     meanwhile, the charge is refunded);
//   - charged, attempt `void_due` (its client was told nothing was charged) or `refund_due`: the charge is refunded,
//     with the idempotency key `checkout-refund-<attempt id>`, so a refund repeated after another crash is made once.
import type { Domain } from '../domain.js';
import { AttemptSettled, completeAttempt, findAttempt, moveAttempt, unsettledAttempts, type Attempt } from '../store/checkout-attempts.js';
import { crashPoint } from '../crash-point.js';

export const RECONCILE_CHECKOUTS_JOB = 'reconcile_checkouts';
export const RECONCILE_CHECKOUTS_INTERVAL_MS = 60_000;

type Settlement = 'placed' | 'refunded' | 'abandoned' | 'declined' | 'raced';

/** Refunds a refund_due attempt's charge once (provider idempotency key), then marks it refunded. */
export async function refundAttempt(domain: Domain, attempt: Attempt, providerRef: string): Promise<void> {
  const refund = await domain.payments.refund(providerRef, attempt.amountCents, { idempotencyKey: `checkout-refund-${attempt.id}` });
  crashPoint(domain.config, 'checkout:refunded');
  moveAttempt(domain.db, attempt.id, ['refund_due'], 'refunded', domain.clock(), providerRef);
  domain.log.warn('checkout_charge_refunded', {
    order_id: attempt.id,
    provider: domain.payments.name,
    payment_ref: providerRef,
    refund_ref: refund.providerRef,
    refund_status: refund.status,
  });
}

/** Settles one unfinished attempt (also used by a checkout that finds its cart claimed by an attempt older than the age). */
export async function settleAttempt(domain: Domain, attempt: Attempt): Promise<Settlement> {
  const { db, clock } = domain;
  // A refund_due attempt already knows its charge; the others ask the provider (the charge's idempotency key is the id).
  const known = attempt.state === 'refund_due' && attempt.providerRef !== null;
  const charge = known ? { status: 'succeeded' as const, providerRef: attempt.providerRef! } : await domain.payments.findCharge(attempt.id);
  if (!charge) return moveAttempt(db, attempt.id, [attempt.state], 'abandoned', clock()) ? 'abandoned' : 'raced';
  if (charge.status === 'failed')
    return moveAttempt(db, attempt.id, [attempt.state], 'declined', clock(), charge.providerRef) ? 'declined' : 'raced';
  if (attempt.state === 'charging') {
    try {
      completeAttempt(db, attempt, charge, clock());
      return 'placed';
    } catch (err) {
      if (err instanceof AttemptSettled) return 'raced';
      // No order could be written (the cart or the stock changed since, or the write failed): completeAttempt left it
      // refund_due, so the charge goes back; if it could not even do that, the next run tries again.
      if (findAttempt(db, attempt.id)?.state !== 'refund_due') throw err;
    }
  } else if (attempt.state === 'void_due' && !moveAttempt(db, attempt.id, ['void_due'], 'refund_due', clock(), charge.providerRef)) {
    return 'raced';
  }
  await refundAttempt(domain, attempt, charge.providerRef);
  return 'refunded';
}

/** One run: settles every attempt older than the configured age; one failure (a provider outage) leaves it for the next run. */
export async function reconcileCheckouts(
  domain: Domain,
  o: { afterSeconds?: number } = {},
): Promise<Record<Settlement | 'failed', number>> {
  const counts = { placed: 0, refunded: 0, abandoned: 0, declined: 0, raced: 0, failed: 0 };
  const afterSeconds = o.afterSeconds ?? domain.config.checkoutReconcileAfterSeconds;
  const before = new Date(domain.clock().getTime() - afterSeconds * 1000);
  for (const attempt of unsettledAttempts(domain.db, before)) {
    try {
      const outcome = await settleAttempt(domain, attempt);
      counts[outcome] += 1;
      if (outcome !== 'raced') domain.log.info('checkout_reconciled', { order_id: attempt.id, from: attempt.state, outcome });
    } catch (err) {
      counts.failed += 1;
      domain.log.error('checkout_reconcile_failed', { order_id: attempt.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return counts;
}

/** Runs the job every minute on an unref'd timer; returns the function that stops it (call before closing the database). */
export function scheduleReconcileCheckouts(domain: Domain, intervalMs = RECONCILE_CHECKOUTS_INTERVAL_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reconcileCheckouts(domain)
      .catch((err: unknown) => domain.log.warn('job_failed', { job: RECONCILE_CHECKOUTS_JOB, error: String(err) }))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
