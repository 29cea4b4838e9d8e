// Per-clause verdicts from check results: the conformance matrix. Pure, shared by the reporter and `clauses`.
//
// Blame is per assertion: a failed check fails only the clauses its failing assertion named (`failedClauses`); the other
// clauses it cites were not reached by it (the check stopped before judging them), so that one broken header fails only
// its own clause and not every clause of every check that happened to see it first.
import type { Clause } from '../../../contract/clauses/index.js';

/** `not-run`: the run stopped before the check (--max-failures): neither judged nor skipped by its own reason. */
export type CheckStatus = 'passed' | 'failed' | 'warning' | 'skipped' | 'not-run';
/** The status of one check as seen from one clause it cites: `not-reached` when the check failed on another clause. */
export type ClauseCheckStatus = CheckStatus | 'not-reached';
export type ClauseVerdict = 'passed' | 'failed' | 'warning' | 'skipped' | 'not-reached' | 'not-run' | 'not-testable' | 'uncovered';

export interface CheckOutcome {
  id: string;
  title: string;
  clauses: string[];
  status: CheckStatus;
  /** For a failed or warning check: the clauses its failing assertion named (absent: every clause it cites). */
  failedClauses?: string[];
  /** The failed check ran to its end: the clauses it cites but did not blame were judged and passed. */
  completed?: boolean;
  /** A claimed capability's setup was refused by the target (a failure, never a skip). */
  setupFailed?: boolean;
  reason?: string;
  /** Set when the check was judged against one of the embedded run's variant deployments, not the target. */
  deployment?: string;
}

export interface ClauseRow {
  id: string;
  part: Clause['part'];
  section: string;
  text: string;
  severity: Clause['severity'];
  verdict: ClauseVerdict;
  checks: { id: string; status: ClauseCheckStatus; reason?: string }[];
  notTestable?: string;
  /** The clauses this one repeats (an alias kept for its stable ID). */
  repeats?: readonly string[];
}

const RANK: Record<CheckStatus, number> = { failed: 3, warning: 2, passed: 1, skipped: 0, 'not-run': -1 };

/**
 * One outcome per check id. The embedded run judges a few checks twice (against its target, where the configuration makes
 * them skip, and against a variant deployment configured for them): the judged outcome wins over a skip, and of two
 * judged ones the worse.
 */
export function mergeOutcomes(outcomes: readonly CheckOutcome[]): CheckOutcome[] {
  const byId = new Map<string, CheckOutcome>();
  for (const o of outcomes) {
    const seen = byId.get(o.id);
    if (seen === undefined || RANK[o.status] > RANK[seen.status]) byId.set(o.id, o);
  }
  return [...byId.values()];
}

/** How one check bears on one clause. */
export function statusFor(o: CheckOutcome, clause: string): ClauseCheckStatus {
  if (o.status !== 'failed' && o.status !== 'warning') return o.status;
  const blamed = o.failedClauses ?? o.clauses;
  return blamed.includes(clause) ? o.status : o.completed ? 'passed' : 'not-reached';
}

/**
 * A clause fails when an assertion naming it failed, warns when one warned, passes when a check judged it and passed;
 * it is `not-reached` when its only checks stopped on other clauses first, `skipped` when every check was skipped.
 */
export function clauseRows(
  clauses: readonly Clause[],
  outcomes: readonly CheckOutcome[],
  known: ReadonlyMap<string, string[]>,
): ClauseRow[] {
  return clauses.map((c) => {
    // A repetition (`repeats`) is judged by its own checks and by those of the clauses it repeats.
    const judged = (id: string) =>
      outcomes
        .filter((o) => o.clauses.includes(id) || (o.failedClauses ?? []).includes(id))
        .map((o) => ({ id: o.id, status: statusFor(o, id), ...(o.reason ? { reason: o.reason } : {}) }));
    const seen = new Set<string>();
    const checks = [c.id, ...(c.repeats ?? [])]
      .flatMap(judged)
      .filter((x) => !seen.has(`${x.id} ${x.status}`) && seen.add(`${x.id} ${x.status}`));
    const has = (s: ClauseCheckStatus) => checks.some((x) => x.status === s);
    let verdict: ClauseVerdict;
    if (c.notTestable) verdict = 'not-testable';
    else if (has('failed')) verdict = 'failed';
    else if (has('warning')) verdict = 'warning';
    else if (has('passed')) verdict = 'passed';
    else if (has('not-reached')) verdict = 'not-reached';
    else if (has('skipped')) verdict = 'skipped';
    else if (checks.length > 0) verdict = 'not-run';
    else verdict = [c.id, ...(c.repeats ?? [])].some((id) => (known.get(id)?.length ?? 0) > 0) ? 'not-run' : 'uncovered';
    return {
      id: c.id,
      part: c.part,
      section: c.section,
      text: c.text,
      severity: c.severity,
      verdict,
      checks,
      ...(c.notTestable ? { notTestable: c.notTestable } : {}),
      ...(c.repeats ? { repeats: c.repeats } : {}),
    };
  });
}

const MARK: Record<ClauseVerdict, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  warning: 'WARN',
  skipped: 'SKIP',
  'not-reached': 'N/R ',
  'not-run': '----',
  'not-testable': 'n/t ',
  uncovered: 'NONE',
};

export function formatMatrix(rows: readonly ClauseRow[], o: { width?: number; onlyRun?: boolean } = {}): string {
  const width = o.width ?? 100;
  const out: string[] = [];
  let part = '';
  for (const r of rows) {
    if (o.onlyRun && (r.verdict === 'not-run' || r.verdict === 'not-testable' || r.verdict === 'uncovered')) continue;
    if (r.part !== part) {
      part = r.part;
      out.push('', `  ${part.toUpperCase()}`);
    }
    const head = `  ${MARK[r.verdict]}  ${r.id.padEnd(22)} ${r.severity.padEnd(6)} `;
    const full = r.repeats ? `(= ${r.repeats.join(', ')}) ${r.text}` : r.text;
    const text = full.length > width - head.length ? full.slice(0, width - head.length - 1) + '…' : full;
    out.push(head + text);
  }
  return out.join('\n');
}

/**
 * The MUST clauses the run left unjudged (skipped, not reached, or not run by its selection), each with why: a green run
 * says what it did not look at.
 */
export function unjudgedMust(rows: readonly ClauseRow[]): { id: string; verdict: ClauseVerdict; why: string }[] {
  return rows
    .filter((r) => r.severity === 'MUST' && (r.verdict === 'skipped' || r.verdict === 'not-reached' || r.verdict === 'not-run'))
    .map((r) => {
      const reasons = [
        ...new Set(
          r.checks
            .filter((c) => c.status === 'skipped' || c.status === 'not-reached' || c.status === 'not-run')
            .map((c) => (c.status === 'not-reached' ? `${c.id} stopped earlier` : (c.reason ?? c.id))),
        ),
      ];
      const why =
        r.verdict === 'not-run' && reasons.length === 0
          ? 'not selected by this run (level, --grep, --clause, --shard or --max-failures)'
          : reasons.join('; ');
      return { id: r.id, verdict: r.verdict, why };
    });
}

export function summarize(rows: readonly ClauseRow[], outcomes: readonly CheckOutcome[]) {
  const count = <T extends string>(xs: readonly T[], v: T) => xs.filter((x) => x === v).length;
  const verdicts = rows.map((r) => r.verdict);
  const statuses = outcomes.map((o) => o.status);
  return {
    checks: {
      total: outcomes.length,
      passed: count(statuses, 'passed'),
      failed: count(statuses, 'failed'),
      warnings: count(statuses, 'warning'),
      skipped: count(statuses, 'skipped'),
      notRun: count(statuses, 'not-run'),
      setupFailed: outcomes.filter((o) => o.setupFailed).length,
    },
    clauses: {
      total: rows.length,
      passed: count(verdicts, 'passed'),
      failed: count(verdicts, 'failed'),
      warnings: count(verdicts, 'warning'),
      skipped: count(verdicts, 'skipped'),
      notReached: count(verdicts, 'not-reached'),
      notRun: count(verdicts, 'not-run'),
      notTestable: count(verdicts, 'not-testable'),
      uncovered: count(verdicts, 'uncovered'),
    },
  };
}
