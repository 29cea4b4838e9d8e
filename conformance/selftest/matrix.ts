// The kill matrix of `shop-conformance self-test`: for each defect, the checks citing its clause and which of them caught
// it. Pure: it reads Playwright's JSON report of the self-test run (one project per defect, plus the baseline).
import type { Clause } from '../clauses/catalogue.js';
import type { Defect } from './defect.js';

export const BASELINE = 'baseline';

/** One check's run in one project, as the self-test reads it. */
export interface CheckRun {
  project: string;
  check: string;
  status: 'passed' | 'failed' | 'skipped';
  /** The clauses its failing assertions named (check.ts annotations). */
  failedClauses: string[];
  /** The first failure message, when it failed. */
  message?: string;
}

export type DefectVerdict = 'killed' | 'survived' | 'inconclusive' | 'no-checks';

export interface DefectOutcome {
  id: string;
  clause: string;
  breaks: string;
  verdict: DefectVerdict;
  /** The checks citing the clause (the project's selection). */
  checks: string[];
  /** The checks that failed on the defect's clause. */
  killedBy: string[];
  /** Why it is inconclusive: checks skipped, or failing without the defect. */
  note?: string;
}

/** The clauses a failure on `clause` counts for: itself and its repetitions either way. */
function sameRequirement(clause: string, catalogue: ReadonlyMap<string, Clause>): Set<string> {
  const ids = new Set([clause, ...(catalogue.get(clause)?.repeats ?? [])]);
  for (const c of catalogue.values()) if (c.repeats?.includes(clause)) ids.add(c.id);
  return ids;
}

export function killMatrix(
  defects: readonly Defect[],
  checksOf: ReadonlyMap<string, string[]>,
  runs: readonly CheckRun[],
  catalogue: ReadonlyMap<string, Clause>,
): DefectOutcome[] {
  const baseline = new Map(runs.filter((r) => r.project === BASELINE).map((r) => [r.check, r]));
  return defects.map((d) => {
    const checks = checksOf.get(d.id) ?? [];
    const base = { id: d.id, clause: d.clause, breaks: d.breaks, checks };
    if (checks.length === 0) return { ...base, verdict: 'no-checks', killedBy: [], note: `no check cites ${d.clause} at this level` };
    const clauses = sameRequirement(d.clause, catalogue);
    const mine = runs.filter((r) => r.project === d.id);
    // A check counts only where it passes without the defect: a failure it shows anyway proves nothing about the defect.
    const sound = (r: CheckRun) => baseline.get(r.check)?.status === 'passed';
    const killedBy = mine.filter((r) => r.status === 'failed' && sound(r) && r.failedClauses.some((c) => clauses.has(c))).map((r) => r.check);
    if (killedBy.length > 0) return { ...base, verdict: 'killed', killedBy };
    const judged = mine.filter((r) => r.status !== 'skipped' && sound(r));
    if (judged.length === 0) {
      const broken = checks.filter((c) => baseline.get(c)?.status === 'failed');
      const note = broken.length > 0 ? `failing without the defect: ${broken.join(', ')}` : 'every check citing the clause was skipped';
      return { ...base, verdict: 'inconclusive', killedBy: [], note };
    }
    return { ...base, verdict: 'survived', killedBy: [] };
  });
}

export interface SelfTestSummary {
  defects: number;
  killed: number;
  survived: number;
  inconclusive: number;
  noChecks: number;
  /** killed / (defects judged: killed + survived). */
  killRate: number;
  /** Testable clauses (aliases excepted) that no defect breaks. */
  uncoveredClauses: string[];
}

export function summarizeKills(outcomes: readonly DefectOutcome[], catalogue: readonly Clause[]): SelfTestSummary {
  const count = (v: DefectVerdict) => outcomes.filter((o) => o.verdict === v).length;
  const killed = count('killed');
  const survived = count('survived');
  const broken = new Set(outcomes.map((o) => o.clause));
  return {
    defects: outcomes.length,
    killed,
    survived,
    inconclusive: count('inconclusive'),
    noChecks: count('no-checks'),
    killRate: killed + survived === 0 ? 0 : killed / (killed + survived),
    uncoveredClauses: catalogue.filter((c) => !c.notTestable && !c.repeats && !broken.has(c.id)).map((c) => c.id),
  };
}

const MARK: Record<DefectVerdict, string> = { killed: 'KILLED', survived: 'SURVIVED', inconclusive: 'INCONCL', 'no-checks': 'NO CHECK' };

export function formatKillMatrix(outcomes: readonly DefectOutcome[], width = 120): string {
  return outcomes
    .map((o) => {
      const line = `  ${MARK[o.verdict].padEnd(9)} ${o.id.padEnd(40)} ${o.clause.padEnd(20)} ${o.killedBy.join(', ') || o.note || o.breaks}`;
      return line.length > width ? line.slice(0, width - 1) + '…' : line;
    })
    .join('\n');
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A self-contained page: the summary and one row per defect. */
export function killMatrixHtml(outcomes: readonly DefectOutcome[], summary: SelfTestSummary): string {
  const rows = outcomes
    .map(
      (o) =>
        `<tr class="${o.verdict}"><td>${MARK[o.verdict]}</td><td><code>${escapeHtml(o.id)}</code></td><td>${escapeHtml(o.clause)}</td>` +
        `<td>${escapeHtml(o.breaks)}</td><td>${escapeHtml(o.killedBy.join(', ') || o.note || '')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>shop-conformance self-test</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.killed td:first-child{color:#070}.survived td:first-child{color:#b00;font-weight:bold}.inconclusive td:first-child,.no-checks td:first-child{color:#a60}</style></head>
<body><h1>Self-test: kill matrix</h1>
<p>${summary.killed} of ${summary.defects} defects killed (kill rate ${(summary.killRate * 100).toFixed(1)}%), ${summary.survived} survived,
${summary.inconclusive} inconclusive, ${summary.noChecks} without checks. ${summary.uncoveredClauses.length} testable clauses have no defect yet.</p>
<table><thead><tr><th>verdict</th><th>defect</th><th>clause</th><th>what the server does wrong</th><th>caught by</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Clauses without a defect</h2><p>${summary.uncoveredClauses.map(escapeHtml).join(', ') || 'none'}</p>
</body></html>
`;
}
