// The self-test's side of a check (conformance/selftest/): under `shop-conformance self-test` each check registers a copy
// of itself per plan project that judges it (plan.ts), routes each copy to the target, a defect's proxy or a variant
// deployment, skips a copy with nothing left to judge, and puts its first kill on the ledger (kill-ledger.ts).
import type { TestInfo } from '@playwright/test';
import { ENV } from './params.js';
import {
  copiesOf,
  defectsJudgedBy,
  PLAN_ENV,
  readPlan,
  SELFTEST_PROJECT,
  SELFTEST_SOURCE_TAG,
  targetOf,
  type CopyTarget,
  type Plan,
} from '../selftest/plan.js';
import { ALREADY_KILLED, NOTHING_LEFT, killedBy, killingClauses, recordKill } from '../selftest/kill-ledger.js';

/** The self-test's plan, when this process runs its checks: each check's copies follow it. */
const PLAN: Plan | undefined = process.env[ENV.selftest] === '1' && process.env[PLAN_ENV] ? readPlan() : undefined;

/** The copy this worker runs now (one test at a time): its plan project, where it goes, the defect it judges. */
let current: { project: string; target: CopyTarget } | undefined;

const checkIdOf = (info: TestInfo) => info.annotations.find((a) => a.type === 'check')?.description ?? '';
const clauseTagsOf = (info: TestInfo) => info.tags.map((t) => t.slice(1));

/**
 * Where the test's copy goes (undefined: not a self-test copy), skipping it when it has nothing left to judge: its
 * defect already killed by another check, or, for a baseline copy, every defect the check judges.
 */
export function routeCopy(info: TestInfo): CopyTarget | undefined {
  const copy = info.annotations.find((a) => a.type === SELFTEST_PROJECT)?.description;
  const target = copy && PLAN ? targetOf(PLAN, copy, checkIdOf(info), clauseTagsOf(info)) : undefined;
  current = copy && target ? { project: copy, target } : undefined;
  const ledger = PLAN?.kills;
  if (!ledger || !PLAN || !current) return target;
  const by = current.target.defect ? killedBy(ledger, current.target.defect.id) : undefined;
  info.skip(by !== undefined, `${ALREADY_KILLED} ${by}`);
  if (current.project === 'baseline') {
    const judged = defectsJudgedBy(PLAN, checkIdOf(info), clauseTagsOf(info));
    info.skip(judged.length > 0 && judged.every((d) => killedBy(ledger, d.id) !== undefined), NOTHING_LEFT);
  }
  return target;
}

/** Whether the copy running now judges a defect (not a baseline): the self-test reads no more than its verdict. */
export const judgesDefect = (): boolean => current?.target.defect !== undefined;

/** A judged failure of the copy running now: a kill of its defect (a failure of its clause) goes on the ledger. */
export function recordCopyFailure(info: TestInfo, blamed: readonly string[]): void {
  const ledger = PLAN?.kills;
  const checkId = checkIdOf(info);
  const judged = current?.target.defect;
  if (ledger && checkId && judged && blamed.some((c) => killingClauses(judged.clause).includes(c))) recordKill(ledger, judged.id, checkId);
}

/**
 * The plan projects a check gets a copy in, when this process runs the self-test's checks (not while the CLI lists them);
 * undefined outside the self-test, where the check's own test runs.
 */
export const copiesFor = (spec: { id: string; clauses: readonly string[] }): string[] | undefined =>
  PLAN && !PLAN.listing ? copiesOf(PLAN, spec.id, spec.clauses) : undefined;

export { SELFTEST_PROJECT, SELFTEST_SOURCE_TAG };
