// The kill matrix: for each defect, the checks citing its clause that failed on that clause (the kills). Rules:
// - a kill is a check outcome whose failed clauses name the defect's clause, or a clause it repeats (a setup failure counts
//   only if it names it);
// - a check that was skipped, failed only on other clauses, or failed without naming a clause (a timeout) kills nothing;
// - a check that also fails on the baseline (the target without defect) kills nothing: it would fail anyway;
// - a defect with no kill is a survivor; one whose checks were all skipped (or none ran) is unjudged, and a survivor too;
// - a defect with no kill where a check was skipped for lack of a browser is unjudged (no browser), never a survivor: the
//   check that could have caught it did not run, and the machine, not the suite, is why.
// - a defect whose clause no check judges at the run's level (spec: its checks judge the reference's choices) is set aside
//   before the run and listed as out of level: neither kill nor survivor, as the clause is not judged at that level.
import { CLAUSES, CLAUSES_BY_ID } from '../../contract/clauses/index.js';
import type { Defect } from './defects/index.js';
import { scopeRows, type ScopedRow } from './scoped-matrix.js';
import { ALREADY_KILLED, killingClauses } from './kill-ledger.js';

export interface Outcome {
  /** `baseline`, or the defect the check judged (the CLI resolves a packed project to the defect by the check's tags). */
  project: string;
  tags?: string[];
  check: string;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  failedClauses: string[];
  setupFailed: boolean;
  note?: string;
  /** Baseline outcomes: the cells of clause domains the check's exchanges fell in (engine/report/cells.ts). */
  cells?: string[];
}

export interface DefectRow {
  id: string;
  clause: string;
  kind: Defect['kind'];
  description: string;
  verdict: 'killed' | 'survived' | 'unjudged';
  /** Why an unjudged defect is: `no browser` when a check that could have caught it was skipped for lack of Chromium. */
  reason?: 'no browser';
  kills: { check: string; note?: string }[];
  /** Checks that ran against the defect and passed. */
  missed: string[];
  /** Checks that failed against the defect, but on other clauses only (or named none: a timeout). */
  otherClauses: { check: string; failed: string[] }[];
  skipped: string[];
  /** Checks that failed on the baseline too: their failure proves nothing. */
  baselineFailing: string[];
  /** Checks not run because another had killed the defect already (first kill: kill-ledger.ts; --every-check runs them). */
  afterKill: string[];
}

/** A row of the matrix, with what a narrowed variant adds (scoped-matrix.ts). */
export type MatrixRow = DefectRow & ScopedRow;

export interface Matrix {
  target: string;
  level: string;
  defects: MatrixRow[];
  summary: { defects: number; killed: number; survived: number; unjudged: number; killRate: number; knownSurvivors?: number };
  /** Defects set aside: no check judges their clause at this level, or their break is a conforming choice at it. */
  outOfLevel: { id: string; clause: string; why: string }[];
  /** Testable clauses of the catalogue without any defect in the library. */
  uncovered: string[];
  coverage: { testable: number; covered: number };
  /** Narrowed variants whose cell the checks reached but where the defect's rule changed nothing (set aside). */
  notApplicable?: { id: string; clause: string; cell: string }[];
  /** Known survivors (known-survivors.ts) killed in this run: their entries can go. */
  staleKnown?: string[];
}

export function buildMatrix(o: {
  target: string;
  level: string;
  defects: readonly Defect[];
  outOfLevel?: readonly Defect[];
  library: readonly Defect[];
  outcomes: readonly Outcome[];
  /** Narrowed variants: how often each reached its cell and changed an exchange there (scoped.ts). */
  reach?: (id: string) => { reached: number; applied: number } | undefined;
  /** Variant ids known to survive, with why (known-survivors.ts): reported, not failing. */
  known?: Readonly<Record<string, string>>;
}): Matrix {
  const baselineFailed = new Set(
    o.outcomes
      .filter((x) => x.project === 'baseline' && x.failedClauses.length + (x.status === 'failed' || x.status === 'timedOut' ? 1 : 0) > 0)
      .map((x) => x.check),
  );
  const rows: DefectRow[] = o.defects.map((d) => {
    // A defect of a repetition (`repeats`) is killed by a failure of the clause it repeats: one requirement, two IDs.
    const same = killingClauses(d.clause);
    const mine = o.outcomes.filter((x) => x.project === d.id);
    const row: DefectRow = {
      id: d.id,
      clause: d.clause,
      kind: d.kind,
      description: d.description,
      verdict: 'survived',
      kills: [],
      missed: [],
      otherClauses: [],
      skipped: [],
      baselineFailing: [],
      afterKill: [],
    };
    for (const x of mine) {
      if (x.status === 'skipped' && x.note?.startsWith(ALREADY_KILLED)) row.afterKill.push(x.check);
      else if (x.status === 'skipped' || x.status === 'interrupted') row.skipped.push(x.check);
      else if (baselineFailed.has(x.check)) row.baselineFailing.push(x.check);
      else if (x.failedClauses.some((c) => same.includes(c))) row.kills.push({ check: x.check, ...(x.note ? { note: x.note } : {}) });
      else if (x.failedClauses.length > 0 || x.status === 'failed' || x.status === 'timedOut')
        row.otherClauses.push({ check: x.check, failed: x.failedClauses.length ? x.failedClauses : [x.status] });
      else row.missed.push(x.check);
    }
    row.verdict = row.kills.length > 0 ? 'killed' : row.missed.length + row.otherClauses.length === 0 ? 'unjudged' : 'survived';
    if (row.verdict !== 'killed' && mine.some(skippedForNoBrowser)) Object.assign(row, { verdict: 'unjudged', reason: 'no browser' });
    return row;
  });
  const scoped = scopeRows(rows, o.defects, o.reach, o.known);
  const covered = new Set(o.library.map((d) => d.clause));
  // A repetition (`repeats`) is broken by the defects of the clause it repeats: it needs none of its own.
  const testable = CLAUSES.filter((c) => !c.notTestable && !c.repeats);
  const kept = scoped.rows;
  const killed = kept.filter((r) => r.verdict === 'killed').length;
  return {
    target: o.target,
    level: o.level,
    defects: kept,
    summary: {
      defects: kept.length,
      killed,
      // Known survivors are counted apart (knownSurvivors), so that each count is its printed list's length.
      survived: kept.filter((r) => r.verdict === 'survived' && r.known === undefined).length,
      unjudged: kept.filter((r) => r.verdict === 'unjudged' && r.known === undefined).length,
      killRate: kept.length ? killed / kept.length : 0,
      ...(scoped.known ? { knownSurvivors: scoped.known } : {}),
    },
    outOfLevel: (o.outOfLevel ?? []).map((d) => ({
      id: d.id,
      clause: d.clause,
      why: o.level === 'spec' && d.referenceOnly ? d.referenceOnly : 'no check judges its clause at this level',
    })),
    uncovered: testable.filter((c) => !covered.has(c.id)).map((c) => c.id),
    coverage: { testable: testable.length, covered: testable.filter((c) => covered.has(c.id)).length },
    ...(scoped.notApplicable.length ? { notApplicable: scoped.notApplicable } : {}),
    ...(scoped.staleKnown.length ? { staleKnown: scoped.staleKnown } : {}),
  };
}

/** A browser check skipped on a machine without Chromium (its reason begins with engine/transport/browser.ts's NO_BROWSER). */
const skippedForNoBrowser = (x: Outcome) => x.status === 'skipped' && /^no browser\b/.test(x.note ?? '');

/**
 * Every defect killed, but for the unjudged for lack of a browser and the survivors the known-survivors list names (both
 * reported as such): the self-test passes.
 */
export const matrixPasses = (m: Matrix): boolean =>
  m.defects.every((d) => d.verdict === 'killed' || d.reason === 'no browser' || d.known !== undefined);

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function formatMatrix(m: Matrix): string {
  const lines = [`Kill matrix (${m.target}, level ${m.level}): defect → clause → checks that caught it`, ''];
  const w = Math.max(10, ...m.defects.map((d) => d.id.length));
  for (const d of m.defects) {
    const mark = d.verdict === 'killed' ? 'KILLED  ' : d.verdict === 'survived' ? 'SURVIVED' : 'UNJUDGED';
    const by =
      d.verdict === 'killed'
        ? d.kills.map((k) => k.check).join(', ')
        : d.verdict === 'survived'
          ? [
              d.missed.length ? `passed: ${d.missed.join(', ')}` : '',
              ...d.otherClauses.map((o) => `${o.check} failed on ${o.failed.join(' ')}`),
            ]
              .filter(Boolean)
              .join('; ')
          : d.reason === 'no browser'
            ? `no browser (skipped: ${d.skipped.join(', ')}${d.missed.length ? `; passed: ${d.missed.join(', ')}` : ''})`
            : `no check ran${d.skipped.length ? ` (skipped: ${d.skipped.join(', ')})` : ''}${d.baselineFailing.length ? ` (failing without the defect: ${d.baselineFailing.join(', ')})` : ''}`;
    lines.push(`  ${mark} ${d.id.padEnd(w)} ${d.clause.padEnd(22)} ${d.message ? `${d.message}; ` : ''}${by}`.slice(0, 300));
  }
  const s = m.summary;
  // Each count is the length of the list printed under it.
  const survivors = m.defects.filter((d) => d.verdict === 'survived' && d.known === undefined);
  const unjudged = m.defects.filter((d) => d.verdict === 'unjudged' && d.known === undefined);
  const known = m.defects.filter((d) => d.verdict !== 'killed' && d.known !== undefined);
  const lacking = unjudged.filter((d) => d.reason === 'no browser').length;
  const noBrowser = lacking ? ` (${lacking} for lack of a browser)` : '';
  lines.push(
    '',
    `Kill rate: ${s.killed}/${s.defects} (${pct(s.killRate)}); survivors: ${s.survived}; unjudged: ${s.unjudged}${noBrowser}${known.length ? `; known survivors: ${known.length}` : ''}`,
  );
  if (survivors.length) lines.push(`Survivors: ${survivors.map((d) => d.message ?? `${d.id} (${d.clause})`).join(', ')}`);
  if (unjudged.length) lines.push(`Unjudged: ${unjudged.map((d) => `${d.id} (${d.clause}${d.reason ? `; ${d.reason}` : ''})`).join(', ')}`);
  if (known.length) {
    lines.push(`Known survivors (${known.length}; listed in conformance/selftest/known-survivors.ts, not failing the run):`);
    for (const d of known) lines.push(`  ${d.message ?? d.id}: ${d.known}`);
  }
  if (m.staleKnown?.length) lines.push(`Known survivors killed in this run (remove from known-survivors.ts): ${m.staleKnown.join(' ')}`);
  if (m.notApplicable?.length)
    lines.push(
      `Not applicable (${m.notApplicable.length}; cell reached, the defect's rule changes nothing there): ${m.notApplicable.map((d) => d.id).join(' ')}`,
    );
  if (m.outOfLevel.length) {
    lines.push(`Out of level ${m.level} (${m.outOfLevel.length}; set aside, neither killed nor survived):`);
    for (const d of m.outOfLevel) lines.push(`  ${d.id} (${d.clause}): ${d.why}`);
  }
  lines.push(
    `Defect library covers ${m.coverage.covered}/${m.coverage.testable} testable clauses; uncovered (${m.uncovered.length}): ${m.uncovered.join(' ')}`,
  );
  return lines.join('\n') + '\n';
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function htmlMatrix(m: Matrix): string {
  const rows = m.defects
    .map((d) => {
      const checks =
        d.verdict === 'killed'
          ? d.kills.map((k) => `<b>${esc(k.check)}</b>${k.note ? `<br><small>${esc(k.note)}</small>` : ''}`).join('<br>')
          : [
              ...d.missed.map((c) => `passed: ${esc(c)}`),
              ...d.otherClauses.map((o) => `${esc(o.check)} failed on ${esc(o.failed.join(' '))}`),
              ...d.skipped.map((c) => `skipped: ${esc(c)}`),
              ...d.baselineFailing.map((c) => `fails without the defect: ${esc(c)}`),
            ].join('<br>');
      return (
        `<tr class="${d.verdict}"><td>${d.verdict}${d.reason ? ` (${esc(d.reason)})` : ''}${d.known !== undefined ? ' (known)' : ''}${d.message ? `<br><small>${esc(d.message)}</small>` : ''}</td><td><code>${esc(d.id)}</code><br><small>${esc(d.kind)}: ${esc(d.description)}</small></td>` +
        `<td title="${esc(CLAUSES_BY_ID.get(d.clause)?.text ?? '')}">${esc(d.clause)}</td><td>${checks}</td></tr>`
      );
    })
    .join('\n');
  const s = m.summary;
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance self-test</title><style>
body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}
.killed td:first-child{background:#cfc}.survived td:first-child{background:#fcc}.unjudged td:first-child{background:#ffc}</style></head><body>
<h1>Kill matrix</h1><p>Target ${esc(m.target)}, level ${esc(m.level)}. Kill rate ${s.killed}/${s.defects} (${pct(s.killRate)}); survivors ${s.survived}; unjudged ${s.unjudged}.</p>
${m.outOfLevel.length ? `<h2>Out of level ${esc(m.level)} (${m.outOfLevel.length})</h2><ul>${m.outOfLevel.map((d) => `<li><code>${esc(d.id)}</code> (${esc(d.clause)}): ${esc(d.why)}</li>`).join('')}</ul>` : ''}
<table><tr><th>verdict</th><th>defect</th><th>clause</th><th>checks</th></tr>
${rows}</table>
${m.notApplicable?.length ? `<h2>Not applicable (${m.notApplicable.length})</h2><p>Narrowed variants whose cell was reached but where the defect's rule changed nothing: ${m.notApplicable.map((d) => `<code>${esc(d.id)}</code>`).join(' ')}</p>` : ''}
<h2>Uncovered clauses (${m.uncovered.length} of ${m.coverage.testable} testable)</h2><p>${m.uncovered.map((c) => `<span title="${esc(CLAUSES_BY_ID.get(c)?.text ?? '')}">${esc(c)}</span>`).join(' ')}</p>
</body></html>
`;
}
