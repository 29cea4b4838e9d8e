// Checkout attempts (docs/checkout.md, Crash safety): the row written before a saved-card checkout charges the card, and
// how it ends. Writing the plan first means a crash between the charge and the order leaves a record of what was bought
// and for how much; the charge's idempotency key is the attempt id, so asking the provider later finds it.
//
//   charging ──(order written)──────────────▶ placed
//      │  ├──(declined)──────────────────────▶ declined
//      │  ├──(cart or stock changed)─▶ refund_due ──(refunded)──▶ refunded
//      │  └──(provider never charged)─────────▶ abandoned
//   void_due: the client was told nothing was charged (provider outage); a charge found later is refunded, never ordered.
import type { Db } from '../db/open.js';
import type { Totals } from '../pricing.js';
import type { ChargeResult } from '../payments/port.js';
import { readCart, type Cart } from './carts.js';
import { placeOrder } from './checkout.js';

export type AttemptState = 'charging' | 'void_due' | 'placed' | 'declined' | 'refund_due' | 'refunded' | 'abandoned';

/** The order an attempt writes once charged: the cart as read and priced, and who placed it. */
export interface OrderPlan {
  accountSub: string;
  cartOwner: string;
  charged: Cart;
  totals: Totals;
  addressId: string;
  paymentMethodId: string;
  idempotencyKey: string | null;
  audit: { actor: string; channel: string | null };
}

export interface Attempt {
  id: string;
  state: AttemptState;
  provider: string;
  providerRef: string | null;
  amountCents: number;
  currency: string;
  plan: OrderPlan;
  createdAt: string;
}

interface Row {
  id: string;
  state: AttemptState;
  provider: string;
  provider_ref: string | null;
  amount_cents: number;
  currency: string;
  plan: string;
  created_at: string;
}

const COLUMNS = 'id, state, provider, provider_ref, amount_cents, currency, plan, created_at';

const fromRow = (r: Row): Attempt => ({
  id: r.id,
  state: r.state,
  provider: r.provider,
  providerRef: r.provider_ref,
  amountCents: r.amount_cents,
  currency: r.currency,
  plan: JSON.parse(r.plan) as OrderPlan,
  createdAt: r.created_at,
});

/** What claiming a cart for a charge found: the claim written, another attempt still charging it, or a changed cart. */
export type Claim = { kind: 'claimed' } | { kind: 'busy'; attempt: Attempt } | { kind: 'changed' };

/**
 * One charge per cart state, across every process sharing the database: in ONE immediate transaction (the write lock from
 * the first statement), refuses when another attempt of the same cart is still `charging`, or when the cart no longer
 * holds exactly the lines the plan was priced from (another checkout placed its order meanwhile, or the cart was edited);
 * otherwise writes the attempt, which is the claim. The caller charges only after `claimed`.
 */
export function claimAttempt(db: Db, id: string, plan: OrderPlan, provider: string, now: Date): Claim {
  return db
    .transaction((): Claim => {
      const busy = db
        .prepare(`SELECT ${COLUMNS} FROM checkout_attempts WHERE cart_owner = ? AND state = 'charging' ORDER BY created_at LIMIT 1`)
        .get(plan.cartOwner) as Row | undefined;
      if (busy) return { kind: 'busy', attempt: fromRow(busy) };
      if (JSON.stringify(readCart(db, plan.cartOwner).lines) !== JSON.stringify(plan.charged.lines)) return { kind: 'changed' };
      beginAttempt(db, id, plan, provider, now);
      return { kind: 'claimed' };
    })
    .immediate();
}

/** Committed before the provider is called: from here on, a crash leaves a row the reconciler settles. */
export function beginAttempt(db: Db, id: string, plan: OrderPlan, provider: string, now: Date): void {
  const at = now.toISOString();
  db.prepare(
    `INSERT INTO checkout_attempts (id, account_sub, cart_owner, state, provider, amount_cents, currency, plan, created_at, updated_at)
    VALUES (?, ?, ?, 'charging', ?, ?, ?, ?, ?, ?)`,
  ).run(id, plan.accountSub, plan.cartOwner, provider, plan.totals.totalCents, plan.charged.currency, JSON.stringify(plan), at, at);
}

export function findAttempt(db: Db, id: string): Attempt | undefined {
  const row = db.prepare(`SELECT ${COLUMNS} FROM checkout_attempts WHERE id = ?`).get(id) as Row | undefined;
  return row && fromRow(row);
}

/** The attempt whose charge has this provider reference, if one was recorded. */
export function findAttemptByRef(db: Db, providerRef: string): Attempt | undefined {
  const row = db.prepare(`SELECT ${COLUMNS} FROM checkout_attempts WHERE provider_ref = ?`).get(providerRef) as Row | undefined;
  return row && fromRow(row);
}

/** Attempts still to settle (charging, void_due, refund_due) created at or before `before`, oldest first. */
export function unsettledAttempts(db: Db, before: Date): Attempt[] {
  return (
    db
      .prepare(
        `SELECT ${COLUMNS} FROM checkout_attempts WHERE state IN ('charging','void_due','refund_due') AND created_at <= ? ORDER BY created_at`,
      )
      .all(before.toISOString()) as Row[]
  ).map(fromRow);
}

/**
 * Moves an attempt from one of `from` to `to`; false when it was in no state of `from` (another path settled it first:
 * the request, the reconciler and the webhook may race, and only one of them wins each step).
 */
export function moveAttempt(db: Db, id: string, from: readonly AttemptState[], to: AttemptState, now: Date, providerRef?: string): boolean {
  return (
    db
      .prepare(
        `UPDATE checkout_attempts SET state = ?, provider_ref = COALESCE(?, provider_ref), updated_at = ?
        WHERE id = ? AND state IN (${from.map(() => '?').join(',')})`,
      )
      .run(to, providerRef ?? null, now.toISOString(), id, ...from).changes === 1
  );
}

/** The attempt was settled by someone else between the read and the write. */
export class AttemptSettled extends Error {
  override name = 'AttemptSettled';
}

/**
 * Writes the order of a charged attempt and marks it placed, in one transaction: both or neither. When the order cannot
 * be written (the cart or the stock no longer allows it: placeOrder's ProblemError; or any other failure), the attempt
 * becomes refund_due (committed) and the error is rethrown; the caller refunds. Throws AttemptSettled when the attempt is
 * no longer `charging`.
 */
export function completeAttempt(db: Db, attempt: Attempt, charge: ChargeResult, now: Date): void {
  const status = charge.status === 'succeeded' ? 'succeeded' : 'pending';
  try {
    db.transaction(() => {
      if (!moveAttempt(db, attempt.id, ['charging'], 'placed', now, charge.providerRef)) throw new AttemptSettled(attempt.id);
      placeOrder(db, {
        ...attempt.plan,
        orderId: attempt.id,
        payment: { provider: attempt.provider, providerRef: charge.providerRef, status },
        now,
      });
    }).immediate();
  } catch (err) {
    // The transaction rolled back, so no order was written: the charge is due back. (Settled elsewhere: not ours to move.)
    // If even this write fails, the attempt stays charging and the reconciler settles it later.
    if (!(err instanceof AttemptSettled)) {
      try {
        moveAttempt(db, attempt.id, ['charging'], 'refund_due', now, charge.providerRef);
      } catch {
        // the original error is the one to report
      }
    }
    throw err;
  }
}
