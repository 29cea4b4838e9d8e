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

/** Orders with a provider call in flight, per reference instance (the transaction after it re-checks across instances). */
const inFlight = new WeakMap<Domain, Set<string>>();

/** Runs `work` unless another write of this order is in flight, in which case `busy` is thrown. */
export async function exclusively<T>(domain: Domain, orderId: string, busy: ProblemError, work: () => Promise<T>): Promise<T> {
  const set = inFlight.get(domain) ?? new Set<string>();
  inFlight.set(domain, set);
  if (set.has(orderId)) throw busy;
  set.add(orderId);
  try {
    return await work();
  } finally {
    set.delete(orderId);
  }
}
