// Shrinking a concurrency finding (docs/explore.md): the scenario that showed it is rerun smaller, fewest clients (and so
// fewest lines) or fewest requests past the budget first, each rerun released in the order fast-check's scheduler
// reported for the finding (fc.schedulerFor), restricted to the steps kept. The first rerun that still shows a finding of
// the same clauses is the one recorded; none: the finding as it came. A replay reruns the recorded scenario alike.
import type { ConcurrencyFinding, ScenarioRun } from './interleave.js';

const keyOf = (f: ConcurrencyFinding) => [...f.clauses].sort().join(',');

/** The smaller runs of a scenario to try, smallest first (the proof scenario is already two requests). */
export function smallerRuns(run: ScenarioRun): ScenarioRun[] {
  const sizes = (from: number, below: number) => Array.from({ length: Math.max(0, below - from) }, (_, i) => from + i);
  switch (run.scenario) {
    case 'adds':
    case 'checkouts':
      return sizes(2, run.clients ?? 3).map((clients) => ({ ...run, clients, schedule: run.schedule.filter((i) => i < clients) }));
    case 'budget':
      return sizes(1, run.extra ?? 6).map((extra) => ({ ...run, extra }));
    case 'proof':
      return [];
  }
}

/**
 * The smallest rerun of `f`'s scenario that still shows a finding of its clauses (`rerun` runs one scenario as `run`
 * says, with fresh callers each time), or `f` itself.
 */
export async function shrinkConcurrency(
  f: ConcurrencyFinding,
  rerun: (run: ScenarioRun) => Promise<ConcurrencyFinding[]>,
  o: { deadline?: number } = {},
): Promise<ConcurrencyFinding> {
  for (const run of smallerRuns(f.run)) {
    if (o.deadline !== undefined && Date.now() > o.deadline) break;
    const same = (await rerun(run)).find((g) => keyOf(g) === keyOf(f));
    if (same) return same;
  }
  return f;
}
