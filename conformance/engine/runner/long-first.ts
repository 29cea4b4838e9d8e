// The order a run hands out its checks: a check flagged `long` (engine/runner/check.ts, CheckSpec.long) holds a worker
// longest at any round trip (a wait on the clock, or requests that must go in turn), so it starts at the beginning of a
// run instead of leaving one worker busy after the others. Playwright hands out the checks in the order of its suite
// (files in name order, then each file's tests), and a reporter's `preprocess` sees that suite before the run is cut
// into the workers' jobs: the files that hold a long check go first (in name order among themselves), and inside each
// file its long checks before its others. Nothing else changes: the same checks, ids and files.
import type { Reporter, Suite, TestCase } from '@playwright/test/reporter';

/** The tag check() gives a check flagged `long`. */
export const LONG_TAG = '@long';

const isLong = (t: TestCase): boolean => t.tags.includes(LONG_TAG);
const holdsLong = (e: Suite | TestCase): boolean => ('allTests' in e ? e.allTests().some(isLong) : isLong(e));

/** Moves, inside `suite` and each suite below it, the entries that hold a long check ahead of the others (stable). */
function sortTree(suite: Suite): void {
  // Playwright's own suites keep their entries in the array entries() returns; the order of that array is the run's.
  const entries = suite.entries();
  const sorted = [...entries].sort((a, b) => Number(holdsLong(b)) - Number(holdsLong(a)));
  entries.splice(0, entries.length, ...sorted);
  for (const child of suite.suites) sortTree(child);
}

/** The long checks first in each project of the run's root suite (the projects keep their configured order). */
export function longFirst(root: Suite): void {
  for (const project of root.suites) sortTree(project);
}

export default class LongFirst implements Reporter {
  async preprocess({ suite }: { suite: Suite }): Promise<void> {
    longFirst(suite);
  }

  printsToStdio(): boolean {
    return false;
  }
}
