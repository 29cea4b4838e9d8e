// Cases as data: a check that judges many cases (callers, operations, forgeries, subjects) declares them and one
// judge(case); the engine decides how many run at once and records one failure per failed case, in the cases' order.
// Check bodies never schedule their own cases (no concurrency constant, no Promise.all over cases): the lint rule on
// conformance/checks/ forbids the engine's scheduling helpers there.
import { CheckFailure, softFailures } from '../../lib/expect/failure.js';
import { CASES_AT_ONCE, mapConcurrent } from '../transport/in-flight.js';

export interface CaseOptions<T> {
  /**
   * Cases that share state (one session's budget, one cart, one account's operation) name the same lane: a lane's cases
   * run one after another in their order, the lanes at once. Absent: every case is a lane of its own.
   */
  lane?: (item: T, index: number) => string;
}

/** Runs `run(i)` for every case index: the lanes at once (CASES_AT_ONCE of them), each lane's cases in their order. */
async function inLanes<T>(cases: readonly T[], options: CaseOptions<T>, run: (i: number) => Promise<void>): Promise<void> {
  const lanes = new Map<string, number[]>();
  cases.forEach((item, i) => {
    const key = options.lane ? `lane:${options.lane(item, i)}` : `case:${i}`;
    lanes.set(key, [...(lanes.get(key) ?? []), i]);
  });
  await mapConcurrent([...lanes.values()], CASES_AT_ONCE, async (indexes) => {
    for (const i of indexes) await run(i);
  });
}

/** What one case ended with: nothing (it passed), its failure, or what stopped it otherwise (a crash, a skip). */
type Outcome = { failure: CheckFailure } | { error: unknown } | undefined;

/**
 * Judges every case, at once as far as the worker's share of the in-flight cap lets their requests go (the transport's
 * gate bounds what reaches the deployment), each lane in its order. Then, in the cases' order: the failed cases are each
 * one failure of the check (the first stops the body, the others are on its ledger), up to the first case stopped by
 * anything else (a crash, a declaration the deployment lacks), which is thrown as it came. The verdict is the one the
 * cases judged one after another would give, and a server that breaks several cases is blamed for each.
 */
export async function judgeCases<T>(
  cases: readonly T[],
  judge: (item: T, index: number) => Promise<unknown>,
  options: CaseOptions<T> = {},
): Promise<void> {
  const outcomes = new Array<Outcome>(cases.length);
  const run = async (i: number) => {
    try {
      await judge(cases[i]!, i);
    } catch (err) {
      outcomes[i] = err instanceof CheckFailure ? { failure: err } : { error: err };
    }
  };
  await inLanes(cases, options, run);
  const failures: CheckFailure[] = [];
  for (const outcome of outcomes) {
    if (outcome === undefined) continue;
    if ('error' in outcome) {
      if (failures.length === 0) throw outcome.error;
      break;
    }
    failures.push(outcome.failure);
  }
  if (failures.length === 0) return;
  const [first, ...rest] = failures;
  // Outside a check (a unit test, explore's model) there is no ledger: the first failure alone is thrown.
  if (softFailures.ledger) softFailures.ledger.push(...rest);
  throw first!;
}

/**
 * The answers of many cases gathered at once for a judgement that needs them all (a comparison across cases, a count):
 * the same scheduling as judgeCases, the results in the cases' order; the first case, in order, that threw is thrown.
 */
export async function mapCases<T, R>(
  cases: readonly T[],
  task: (item: T, index: number) => Promise<R>,
  options: CaseOptions<T> = {},
): Promise<R[]> {
  const results = new Array<R>(cases.length);
  const errors = new Array<{ err: unknown } | undefined>(cases.length);
  await inLanes(cases, options, async (i) => {
    try {
      results[i] = await task(cases[i]!, i);
    } catch (err) {
      errors[i] = { err };
    }
  });
  const first = errors.find((e) => e !== undefined);
  if (first) throw first.err;
  return results;
}
