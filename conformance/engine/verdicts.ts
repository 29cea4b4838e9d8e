// Per-clause verdicts from check results: the conformance matrix. Pure, shared by the reporter and `clauses`.
import type { Clause } from '../clauses/index.js';

export type CheckStatus = 'passed' | 'failed' | 'warning' | 'skipped';
export type ClauseVerdict = 'passed' | 'failed' | 'warning' | 'skipped' | 'not-run' | 'not-testable' | 'uncovered';

export interface CheckOutcome {
  id: string;
  title: string;
  clauses: string[];
  status: CheckStatus;
  reason?: string;
}

export interface ClauseRow {
  id: string;
  part: Clause['part'];
  section: string;
  text: string;
  severity: Clause['severity'];
  verdict: ClauseVerdict;
  checks: { id: string; status: CheckStatus; reason?: string }[];
  notTestable?: string;
}

/** A clause fails when any of its checks failed, warns when one warned, passes when every check that ran passed. */
export function clauseRows(clauses: readonly Clause[], outcomes: readonly CheckOutcome[], known: ReadonlyMap<string, string[]>): ClauseRow[] {
  return clauses.map((c) => {
    const checks = outcomes.filter((o) => o.clauses.includes(c.id)).map((o) => ({ id: o.id, status: o.status, ...(o.reason ? { reason: o.reason } : {}) }));
    let verdict: ClauseVerdict;
    if (c.notTestable) verdict = 'not-testable';
    else if (checks.some((x) => x.status === 'failed')) verdict = 'failed';
    else if (checks.some((x) => x.status === 'warning')) verdict = 'warning';
    else if (checks.some((x) => x.status === 'passed')) verdict = 'passed';
    else if (checks.length > 0) verdict = 'skipped';
    else verdict = (known.get(c.id)?.length ?? 0) > 0 ? 'not-run' : 'uncovered';
    return { id: c.id, part: c.part, section: c.section, text: c.text, severity: c.severity, verdict, checks, ...(c.notTestable ? { notTestable: c.notTestable } : {}) };
  });
}

const MARK: Record<ClauseVerdict, string> = {
  passed: 'PASS', failed: 'FAIL', warning: 'WARN', skipped: 'SKIP', 'not-run': '----', 'not-testable': 'n/t ', uncovered: 'NONE',
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
    const text = r.text.length > width - head.length ? r.text.slice(0, width - head.length - 1) + '…' : r.text;
    out.push(head + text);
  }
  return out.join('\n');
}

export function summarize(rows: readonly ClauseRow[], outcomes: readonly CheckOutcome[]) {
  const count = <T extends string>(xs: readonly T[], v: T) => xs.filter((x) => x === v).length;
  const verdicts = rows.map((r) => r.verdict);
  const statuses = outcomes.map((o) => o.status);
  return {
    checks: { total: outcomes.length, passed: count(statuses, 'passed'), failed: count(statuses, 'failed'), warnings: count(statuses, 'warning'), skipped: count(statuses, 'skipped') },
    clauses: {
      total: rows.length, passed: count(verdicts, 'passed'), failed: count(verdicts, 'failed'), warnings: count(verdicts, 'warning'),
      skipped: count(verdicts, 'skipped'), notRun: count(verdicts, 'not-run'), notTestable: count(verdicts, 'not-testable'), uncovered: count(verdicts, 'uncovered'),
    },
  };
}
