// Domain coverage: for each clause with a declared domain (contract/clauses/domains.ts), the cells its checks exercised in this
// run (from the cells each check recorded of its exchanges: engine/report/cells.ts) and the cells no check tried. Information
// only: verdicts and exit codes do not change with it.
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { DOMAINS, type ClauseDomain, type Dimension, type Where } from '../../../contract/clauses/domains.js';
import { decodeFacts, valueOf, within } from './cells.js';

/** What the coverage needs of a check's outcome: the clauses it cites, whether it ran, and its recorded cells. */
export interface CellsOutcome {
  id: string;
  clauses: readonly string[];
  status: string;
  cells?: readonly string[];
}

export interface AxisCoverage {
  dimension: Dimension;
  where?: Where;
  judged: string[];
  untried: string[];
}

export interface ClauseCoverage {
  clause: string;
  severity: 'MUST' | 'SHOULD';
  about: string;
  /** Checks citing the clause that ran (not skipped). */
  checks: string[];
  axes: AxisCoverage[];
}

export function domainCoverage(outcomes: readonly CellsOutcome[], domains: readonly ClauseDomain[] = DOMAINS): ClauseCoverage[] {
  return domains.map((d) => {
    const repeated = CLAUSES_BY_ID.get(d.clause)?.repeats ?? [];
    const ran = outcomes.filter((o) => o.status !== 'skipped' && [d.clause, ...repeated].some((c) => o.clauses.includes(c)));
    const facts = ran.flatMap((o) => (o.cells ?? []).map(decodeFacts));
    return {
      clause: d.clause,
      severity: CLAUSES_BY_ID.get(d.clause)?.severity ?? 'MUST',
      about: d.about,
      checks: [...new Set(ran.map((o) => o.id))],
      axes: d.axes.map((a) => {
        const seen = new Set(facts.filter((f) => within(f, a.where)).map((f) => valueOf(f, a.dimension)));
        return {
          dimension: a.dimension,
          ...(a.where ? { where: a.where } : {}),
          judged: a.cells.filter((c) => seen.has(c)),
          untried: a.cells.filter((c) => !seen.has(c)),
        };
      }),
    };
  });
}

/** MUST clauses whose checks ran but left cells of the domain untried (a clause none of whose checks ran is unjudged). */
export const untriedMust = (rows: readonly ClauseCoverage[]): ClauseCoverage[] =>
  rows.filter((r) => r.severity === 'MUST' && r.checks.length > 0 && r.axes.some((a) => a.untried.length > 0));

const whereText = (w: Where | undefined) =>
  !w
    ? ''
    : ` (${[w.operation ? `operation ${w.operation.join('|')}` : '', w.dpop !== undefined ? (w.dpop ? 'DPoP requests' : 'no DPoP') : '', w.statusClass ? `status ${w.statusClass.join('|')}` : ''].filter(Boolean).join(', ')})`;

export function formatCoverage(rows: readonly ClauseCoverage[], o: { onlyUntried?: boolean } = {}): string {
  const lines: string[] = [];
  for (const r of rows) {
    if (o.onlyUntried && !r.axes.some((a) => a.untried.length > 0)) continue;
    lines.push(`  ${r.clause.padEnd(22)} ${r.severity.padEnd(6)} ${r.about}${r.checks.length ? '' : ' — no check ran'}`);
    for (const a of r.axes)
      lines.push(
        `    ${a.dimension}${whereText(a.where)}: judged ${a.judged.length}/${a.judged.length + a.untried.length}` +
          (a.judged.length ? ` [${a.judged.join(' ')}]` : '') +
          (a.untried.length ? `; never tried: ${a.untried.join(' ')}` : ''),
      );
  }
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function htmlCoverage(rows: readonly ClauseCoverage[], title = 'Domain coverage'): string {
  const body = rows
    .flatMap((r) =>
      r.axes.map(
        (a, i) =>
          `<tr class="${a.untried.length ? 'gap' : 'full'}">${i === 0 ? `<td rowspan="${r.axes.length}"><b>${esc(r.clause)}</b> ${esc(r.severity)}<br><small>${esc(r.about)}</small><br><small>checks: ${esc(r.checks.join(', ') || 'none ran')}</small></td>` : ''}` +
          `<td>${esc(a.dimension + whereText(a.where))}</td><td>${a.judged.map(esc).join(' ')}</td><td>${a.untried.map(esc).join(' ')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance: ${esc(title)}</title><style>
body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}
.gap td:last-child{background:#fdd}.full td:nth-last-child(2){background:#dfd}</style></head><body>
<h1>${esc(title)}</h1><p>Per clause with a declared domain: the cells its checks' exchanges fell in (judged) and those no check tried.</p>
<table><tr><th>clause</th><th>dimension</th><th>judged</th><th>never tried</th></tr>
${body}</table></body></html>
`;
}
