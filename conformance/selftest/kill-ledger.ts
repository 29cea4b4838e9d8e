// The self-test's first kill: once a check has killed a defect, the defect's other checks need not run (as mutation
// testing tools do by default). Workers share what they found through a directory of small files, one per kill (the
// killing check's id). The CLI clears the directory before the run; `self-test --every-check` runs without it (every
// check of every defect: the whole matrix). A kill by a check that also fails on the baseline counts for nothing: the CLI
// then runs the checks the kill left unrun (plan.ts, `makeupPlan`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUSES_BY_ID } from '../../contract/clauses/index.js';

/** The start of the skip reason of a check not run because its defect was already killed (the matrix reads it). */
export const ALREADY_KILLED = 'already killed by';

/** The skip reason of a baseline copy whose check has no defect left alive to judge. */
export const NOTHING_LEFT = 'every defect this check judges is already killed';

/** The clauses whose failure kills a defect of `clause`: its own, and those it repeats (one requirement, two IDs). */
export const killingClauses = (clause: string): string[] => [clause, ...(CLAUSES_BY_ID.get(clause)?.repeats ?? [])];

const file = (dir: string, defect: string) => join(dir, encodeURIComponent(defect));

/** The check that killed `defect`, if one did. */
export function killedBy(dir: string, defect: string): string | undefined {
  const path = file(dir, defect);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Records that `check` killed `defect`. */
export function recordKill(dir: string, defect: string, check: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(file(dir, defect), check);
}
