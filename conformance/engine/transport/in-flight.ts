// The cap on requests in flight against one deployment, so that a run (many workers, checks that spend budgets or walk
// caller × operation matrices concurrently) never floods a staging server. A request holds its place from the moment it
// is sent until its answer's head arrives (or it fails): an event stream being read, or a body being read to its end,
// does not hold one, so a check that opens a stream and then sends more requests cannot wait on itself.
//
// Each process holds its own gate: the CLI's process (the doctor) the whole cap, each Playwright worker a few places of its
// own; the rest of the cap is a pool the workers borrow from when their own places are taken (in-flight-pool.ts), so
// that all the workers together never exceed the cap.
import type { PoolBorrower } from '../runner/in-flight-pool.js';

/** The documented default of `--max-in-flight`: requests in flight against one deployment, all workers together. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * Independent cases of one check (each its own caller, session, forgery or subject) run at once (engine/runner/cases.ts):
 * more than a worker's share of the cap at the usual round trips, so the share (the transport's gate) bounds them.
 */
export const CASES_AT_ONCE = 8;

/**
 * A counting semaphore: at most `limit` holders of its own places; past them, a place borrowed from the pool when one is
 * free, else a wait, in order, for one of its own.
 */
export class InFlightGate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    readonly limit: number,
    private readonly pool?: PoolBorrower,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`in-flight limit must be a positive integer, not ${limit}`);
  }

  get inFlight(): number {
    return this.held;
  }

  /** Resolves when a place is free; the returned function gives it back (only the first call counts). */
  async acquire(): Promise<() => void> {
    if (this.held >= this.limit && this.pool && (await this.pool.tryBorrow())) {
      let returned = false;
      return () => {
        if (returned) return;
        returned = true;
        this.pool!.giveBack();
      };
    }
    // Looked at again after the pool was asked: one of its own places may have come free meanwhile, and its release then
    // found no one waiting.
    if (this.held < this.limit) this.held++;
    else await new Promise<void>((r) => this.waiting.push(r)); // the place is handed over by release()
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}

/** A worker's share of the cap: all `workers` together stay within `total`. */
export function shareOf(total: number, workers: number): number {
  return Math.max(1, Math.floor(total / Math.max(1, workers)));
}

/**
 * How the cap is split: each worker's own places (half its share, at least one) and the pool they borrow from (the
 * rest). Own places × workers + pool never exceeds the cap.
 */
export function splitCap(total: number, workers: number): { own: number; pool: number } {
  const own = Math.max(1, Math.floor(shareOf(total, workers) / 2));
  return { own, pool: Math.max(0, total - own * Math.max(1, workers)) };
}

let gate: InFlightGate | undefined;

/**
 * The process's gate: every client of the process shares it, whatever origin it talks to (a worker judges one deployment,
 * reached directly or through the self-test's defect proxies). The first limit asked for stands.
 */
export function processGate(limit: number, pool?: PoolBorrower): InFlightGate {
  return (gate ??= new InFlightGate(limit, pool));
}

/**
 * Runs `task` over `items` with at most `concurrency` of them at once (the transport's gate caps what reaches the
 * deployment); results keep the items' order. For requests that do not depend on each other.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return results;
}
