// The verdict of one check from its failure ledger. Pure: no Playwright, no I/O; check.ts feeds it what the body left
// behind and reports what it returns.
//
// Blame is per assertion: the clauses the failing assertions name; a hard failure that names none (a crash, a timeout of
// our own, an assertion without a clause) blames every clause of the check. A check that ran to its end judged its other
// clauses (they passed); one stopped by a hard failure did not reach them. A failure whose blamed clauses are all SHOULD
// is a warning unless the run is strict.
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import type { FailureRecord } from '../report/check-record.js';

export type Severity = 'MUST' | 'SHOULD';

export function severityOf(clauses: readonly string[]): Severity {
  return clauses.some((id) => CLAUSES_BY_ID.get(id)?.severity === 'MUST') ? 'MUST' : 'SHOULD';
}

export interface JudgeInput {
  /** The clauses the check cites. */
  clauses: readonly string[];
  /** The failure that stopped the body, if one did. */
  hard?: FailureRecord | undefined;
  /** The soft failures recorded while the body went on. */
  soft: readonly FailureRecord[];
  strict: boolean;
}

export interface Verdict {
  outcome: 'passed' | 'failed' | 'warning';
  /** The clauses the failures blame (empty when passed). */
  blamed: string[];
  severity: Severity;
  /** The body ran to its end: the cited clauses not blamed were judged and passed. */
  completed: boolean;
  /** The target refused the setup of a claimed capability (a failure, never a skip). */
  setup: boolean;
  /** Every failure, the hard one first. */
  failures: FailureRecord[];
  /** The cited clauses not blamed: judged and passed when `completed`, else not reached. */
  others: string[];
}

export function judge(input: JudgeInput): Verdict {
  const { clauses, hard, soft } = input;
  const failures = [...(hard ? [hard] : []), ...soft];
  const completed = hard === undefined;
  if (failures.length === 0)
    return { outcome: 'passed', blamed: [], severity: severityOf(clauses), completed, setup: false, failures, others: [...clauses] };
  const blamed = [
    ...new Set([...soft.flatMap((f) => f.clauses), ...(hard === undefined ? [] : hard.clauses.length > 0 ? hard.clauses : clauses)]),
  ];
  const severity = severityOf(blamed);
  return {
    outcome: severity === 'SHOULD' && !input.strict ? 'warning' : 'failed',
    blamed,
    severity,
    completed,
    setup: hard?.setup === true,
    failures,
    others: clauses.filter((c) => !blamed.includes(c)),
  };
}
