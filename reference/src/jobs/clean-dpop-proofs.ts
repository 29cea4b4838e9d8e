// The job `clean_dpop_proofs` (spec, Assistant authority): deletes the recorded DPoP proofs whose retention ended (the iat
// window plus skew after their iat; docs/assistants.md). Safe to run from several instances on one file at once.
import type { Db } from '../db/open.js';
import { deleteExpiredDpopProofs } from '../store/dpop.js';

export const CLEAN_DPOP_PROOFS_JOB = 'clean_dpop_proofs';
/** How often `serve` runs the job. */
export const CLEAN_DPOP_PROOFS_INTERVAL_MS = 60_000;

/** One run: deletes the entries expired at `now`; returns how many went. */
export function cleanDpopProofs(db: Db, now: Date): { job: typeof CLEAN_DPOP_PROOFS_JOB; deleted: number } {
  return { job: CLEAN_DPOP_PROOFS_JOB, deleted: deleteExpiredDpopProofs(db, now) };
}

export interface ScheduleOptions {
  intervalMs?: number;
  clock?: () => Date;
  /** Told of each run's failure (a locked or closed database); the next run tries again. */
  onError?: (err: unknown) => void;
  onRun?: (result: { deleted: number }) => void;
}

/**
 * Runs the job every `intervalMs` on an unref'd timer (it never keeps the process alive); returns the function that stops
 * it, to call before the database is closed.
 */
export function scheduleCleanDpopProofs(db: Db, o: ScheduleOptions = {}): () => void {
  const clock = o.clock ?? (() => new Date());
  const timer = setInterval(() => {
    try {
      const result = cleanDpopProofs(db, clock());
      o.onRun?.(result);
    } catch (err) {
      o.onError?.(err);
    }
  }, o.intervalMs ?? CLEAN_DPOP_PROOFS_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
