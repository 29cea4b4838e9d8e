// What the customer's and the operator's order writes share: which states may be cancelled, the audit row, and one
// in-flight guard per order, so that a cancellation and a refund of the same order, from whichever route, never both
// call the payment provider.
import type { Db } from '../db/open.js';
import type { Domain } from '../domain.js';
import type { ProblemError } from '../problem.js';

export const CANCELLABLE: ReadonlySet<string> = new Set(['pending_payment', 'paid']);

export interface AuditEntry {
  at: Date;
  /** `customer:<sub>`, `delegated:<sub>`, `operator:<Operator header>`… */
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export function audit(db: Db, e: AuditEntry): void {
  db.prepare('INSERT INTO audit_log (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)').run(
    e.at.toISOString(),
    e.actor,
    e.action,
    e.target,
    JSON.stringify(e.details),
  );
}

/** Runs `work` unless another write of this order is in flight, in which case `busy` is thrown. */
export async function exclusively<T>(domain: Domain, orderId: string, busy: ProblemError, work: () => Promise<T>): Promise<T> {
  // Per instance (Domain.ordersInFlight); the transaction after the provider call re-checks across instances.
  const set = domain.ordersInFlight;
  if (set.has(orderId)) throw busy;
  set.add(orderId);
  try {
    return await work();
  } finally {
    set.delete(orderId);
  }
}
