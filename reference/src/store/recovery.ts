// Recovery operations (spec, Endpoints > Recovery endpoint results; States and transitions > partial failure rule). An operation
// is an email change or an account deletion that the storefront's account-security flow approved; POST
// /internal/account/recover resumes it. Resumption checks ownership, purpose and the persisted phase, never begins an
// operation from unconsumed proof, never takes new input (no email, no command) and never grants fresh authority: a finished
// operation stays finished, a cancelled one stays cancelled.
//
// Phases: proof_pending → approved → (provider_pending ⇄) → complete; any of them → cancelled (by the storefront). The
// reference adds `resuming`: a lock taken in an IMMEDIATE transaction while one resumption runs, released at its end, so a
// second resumption of the same operation meanwhile (another request, another process on the same file) gets 409
// recovery_pending. A lock older than RECOVERY_LOCK_STALE_MS is taken over (its holder died).
import type { Db } from '../db/open.js';
import { endAgentAuthority } from './internal.js';

export type RecoveryPurpose = 'email' | 'delete';
export type RecoveryPhase = 'proof_pending' | 'approved' | 'provider_pending' | 'complete' | 'cancelled' | 'resuming';
export type RecoveryStatus = 'complete' | 'pending' | 'cancelled';

export interface RecoveryRequest {
  subject: string;
  operationId: string;
  purpose: RecoveryPurpose;
}

export interface RecoveryRow {
  operation_id: string;
  subject: string;
  purpose: RecoveryPurpose;
  phase: RecoveryPhase;
  pending_email: string | null;
  attempts: number;
  locked_from: 'approved' | 'provider_pending' | null;
  locked_at: string | null;
  provider_cleared_at: string | null;
  updated_at: string;
}

export type RecoveryOutcome =
  | { kind: 'status'; status: RecoveryStatus }
  /** No matching resumable authorization: unknown id, another subject, another purpose, unconsumed proof. */
  | { kind: 'not_found' }
  /** Another resumption of the same operation holds the lock. */
  | { kind: 'in_progress' };

/** A `resuming` lock older than this is considered abandoned and is taken over. */
export const RECOVERY_LOCK_STALE_MS = 60_000;

/** How long the simulated provider's round trip takes. */
export const SIMULATED_PROVIDER_LATENCY_MS = 50;

/** What the provider says when asked to finish the operation: done, or the provider condition remains. */
export type ProviderVerdict = 'clear' | 'remains';

/**
 * The provider step of a resumption, run while the lock is held. It sees the operation and the phase the lock was taken
 * from; it cannot be given commands (the request carries none).
 */
export type ProviderStep = (op: RecoveryRow, from: 'approved' | 'provider_pending') => ProviderVerdict | Promise<ProviderVerdict>;

/**
 * The reference's simulated provider: an approved operation goes through; an operation left in provider_pending keeps its
 * provider condition until `clearProviderCondition` records that it cleared (the reference has no real provider, and no
 * background job ever retries: spec, partial failure rule).
 */
export const simulatedProvider: ProviderStep = async (op, from) => {
  // A provider call takes time: so does the simulated one, which is what lets two resumptions of one operation overlap
  // (the second gets 409 recovery_pending), on one instance as across instances sharing the database file.
  await new Promise((resolve) => setTimeout(resolve, SIMULATED_PROVIDER_LATENCY_MS));
  return from === 'approved' || op.provider_cleared_at !== null ? 'clear' : 'remains';
};

const COLUMNS = 'operation_id, subject, purpose, phase, pending_email, attempts, locked_from, locked_at, provider_cleared_at, updated_at';

export function findRecoveryOperation(db: Db, operationId: string): RecoveryRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM recovery_operations WHERE operation_id = ?`).get(operationId) as RecoveryRow | undefined;
}

/** Records that the provider condition of an operation in provider_pending cleared; the next resumption finishes it. */
export function clearProviderCondition(db: Db, operationId: string, now: Date): boolean {
  const r = db
    .prepare(
      `UPDATE recovery_operations SET provider_cleared_at = ?, updated_at = ?
    WHERE operation_id = ? AND (phase = 'provider_pending' OR (phase = 'resuming' AND locked_from = 'provider_pending'))`,
    )
    .run(now.toISOString(), now.toISOString(), operationId);
  return r.changes === 1;
}

type Claim =
  | { kind: 'outcome'; outcome: RecoveryOutcome }
  | { kind: 'claimed'; op: RecoveryRow; from: 'approved' | 'provider_pending'; lockedAt: string };

/** Step 1, one IMMEDIATE transaction: match the operation, read its persisted phase, and take the lock if it is resumable. */
function claim(db: Db, req: RecoveryRequest, now: Date): Claim {
  return db
    .transaction((): Claim => {
      const op = findRecoveryOperation(db, req.operationId);
      // [END-RECOVERY-1] [END-RECOVERY-2] ownership and purpose first: a mismatch reveals nothing about the operation, not
      // even that it is locked.
      if (!op || op.subject !== req.subject || op.purpose !== req.purpose) return { kind: 'outcome', outcome: { kind: 'not_found' } };
      let phase: RecoveryPhase = op.phase;
      if (phase === 'resuming') {
        const lockedAt = op.locked_at === null ? Number.NaN : Date.parse(op.locked_at);
        // [END-RECOVERY-13] a resumption still running: 409 recovery_pending.
        if (now.getTime() - lockedAt < RECOVERY_LOCK_STALE_MS) return { kind: 'outcome', outcome: { kind: 'in_progress' } };
        if (op.locked_from === null) return { kind: 'outcome', outcome: { kind: 'in_progress' } };
        phase = op.locked_from; // an abandoned lock: resume from the phase it was taken from
      }
      switch (phase) {
        // [END-RECOVERY-8] [STA-RECOVERY-1] a finished operation stays finished: complete.
        case 'complete':
          return { kind: 'outcome', outcome: { kind: 'status', status: 'complete' } };
        // [STA-RECOVERY-3] [STA-RECOVERY-4] [END-RECOVERY-10] a retired authorization is never reopened: cancelled.
        case 'cancelled':
          return { kind: 'outcome', outcome: { kind: 'status', status: 'cancelled' } };
        // [END-RECOVERY-3] [END-RECOVERY-7] only a resumable phase is resumed, the same operation, never widened.
        case 'approved':
        case 'provider_pending': {
          // An email change without its approved address has nothing to apply: no resumable authorization.
          if (op.purpose === 'email' && op.pending_email === null) return { kind: 'outcome', outcome: { kind: 'not_found' } };
          const lockedAt = now.toISOString();
          db.prepare(
            `UPDATE recovery_operations SET phase = 'resuming', locked_from = ?, locked_at = ?, attempts = attempts + 1, updated_at = ?
          WHERE operation_id = ?`,
          ).run(phase, lockedAt, lockedAt, op.operation_id);
          return { kind: 'claimed', op: { ...op, attempts: op.attempts + 1 }, from: phase, lockedAt };
        }
        default:
          // [END-RECOVERY-4] [END-RECOVERY-12] proof_pending: the proof was never consumed, so there is no authority to begin
          // the operation with.
          return { kind: 'outcome', outcome: { kind: 'not_found' } };
      }
    })
    .immediate();
}

/** Applies the approved change to the account. Runs inside the finishing transaction. */
function applyOperation(db: Db, op: RecoveryRow, now: Date): void {
  if (op.purpose === 'delete') {
    db.prepare(`UPDATE accounts SET state = 'deleted' WHERE sub = ?`).run(op.subject);
    endAgentAuthority(db, op.subject, now);
  } else {
    // The approved address becomes the account's; the account leaves its contact transition (other states are kept).
    db.prepare(
      `UPDATE accounts SET email = ?, state = CASE WHEN state = 'contact_transition' THEN 'active' ELSE state END WHERE sub = ?`,
    ).run(op.pending_email, op.subject);
  }
}

const audit = (db: Db, now: Date, op: RecoveryRow, details: Record<string, unknown>) =>
  db
    .prepare(`INSERT INTO audit_log (at, actor, action, target, details) VALUES (?, 'recovery', 'account.recover', ?, ?)`)
    .run(now.toISOString(), op.operation_id, JSON.stringify({ subject: op.subject, purpose: op.purpose, ...details }));

/**
 * Resumes one operation. Returns the outcome the endpoint answers; throws only on unexpected failures, after releasing the
 * lock so that the operation and its checkpoints are preserved in the phase it was resumed from (partial failure rule).
 */
export async function resumeRecovery(
  db: Db,
  req: RecoveryRequest,
  clock: () => Date,
  provider: ProviderStep = simulatedProvider,
): Promise<RecoveryOutcome> {
  const claimed = claim(db, req, clock());
  if (claimed.kind === 'outcome') return claimed.outcome;
  const { op, from, lockedAt } = claimed;
  try {
    const verdict = await provider(op, from);
    return db
      .transaction((): RecoveryOutcome => {
        const now = clock();
        const at = now.toISOString();
        const still = db
          .prepare(`SELECT 1 FROM recovery_operations WHERE operation_id = ? AND phase = 'resuming' AND locked_at = ?`)
          .get(op.operation_id, lockedAt);
        // Our lock was taken over as abandoned: the other resumption owns the operation now.
        if (!still) return { kind: 'in_progress' };
        if (verdict === 'clear') {
          applyOperation(db, op, now);
          db.prepare(
            `UPDATE recovery_operations SET phase = 'complete', locked_from = NULL, locked_at = NULL, updated_at = ? WHERE operation_id = ?`,
          ).run(at, op.operation_id);
          audit(db, now, op, { from, outcome: 'complete', attempts: op.attempts });
          return { kind: 'status', status: 'complete' };
        }
        // [END-RECOVERY-9] [STA-RECOVERY-2] [STA-PARTIAL-2] the provider condition remains: the operation waits in
        // provider_pending, the account stays restricted.
        db.prepare(
          `UPDATE recovery_operations SET phase = 'provider_pending', locked_from = NULL, locked_at = NULL, updated_at = ? WHERE operation_id = ?`,
        ).run(at, op.operation_id);
        audit(db, now, op, { from, outcome: 'pending', attempts: op.attempts });
        return { kind: 'status', status: 'pending' };
      })
      .immediate();
  } catch (err) {
    // [STA-PARTIAL-1] a failure keeps the operation and its checkpoints in the phase it was resumed from.
    releaseLock(db, op.operation_id, lockedAt, clock());
    throw err;
  }
}

/** Puts a locked operation back in the phase it was resumed from, if the lock is still ours. */
function releaseLock(db: Db, operationId: string, lockedAt: string, now: Date): void {
  db.prepare(
    `UPDATE recovery_operations SET phase = locked_from, locked_from = NULL, locked_at = NULL, updated_at = ?
    WHERE operation_id = ? AND phase = 'resuming' AND locked_at = ?`,
  ).run(now.toISOString(), operationId, lockedAt);
}
