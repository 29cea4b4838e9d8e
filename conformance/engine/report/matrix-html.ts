// clause-matrix.html: the conformance matrix as a page beside Playwright's HTML report — per clause its verdict, severity,
// checks (each linking to its test in the HTML report), first failure and domain coverage. Pure.
import type { ClauseCoverage } from './coverage.js';
import type { ClauseRow } from './verdicts.js';

export interface MatrixPageInput {
  rows: readonly ClauseRow[];
  coverage: readonly ClauseCoverage[];
  /** Check id -> Playwright's test id, for links into the HTML report. */
  testIds: ReadonlyMap<string, string>;
  /** Check id -> the first line of its failure. */
  reasons: ReadonlyMap<string, string>;
  /** The HTML report's index, relative to the page (undefined: no HTML report this run, no links). */
  htmlReport: string | undefined;
  title: string;
}

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function coverageCell(c: ClauseCoverage | undefined): string {
  if (!c) return '<td class="none">no declared domain</td>';
  const axes = c.axes.map((a) => {
    const total = a.judged.length + a.untried.length;
    return `${esc(a.dimension)} ${a.judged.length}/${total}${a.untried.length ? ` <small>never tried: ${a.untried.map(esc).join(' ')}</small>` : ''}`;
  });
  return `<td>${axes.join('<br>')}</td>`;
}

export function htmlMatrix(m: MatrixPageInput): string {
  const coverage = new Map(m.coverage.map((c) => [c.clause, c]));
  const link = (id: string) => {
    const testId = m.testIds.get(id);
    return m.htmlReport && testId ? `<a href="${esc(m.htmlReport)}#?testId=${encodeURIComponent(testId)}">${esc(id)}</a>` : esc(id);
  };
  const body = m.rows
    .map((r) => {
      const checks = r.checks.map((c) => `<span class="s-${c.status}">${link(c.id)}</span> <small>${esc(c.status)}</small>`).join('<br>');
      const first = r.checks.find((c) => c.status === 'failed' || c.status === 'warning');
      const failure = first ? `${link(first.id)}: ${esc(m.reasons.get(first.id) ?? first.reason ?? '')}` : '';
      return (
        `<tr id="${esc(r.id)}" class="v-${r.verdict}"><td><b>${esc(r.id)}</b><br><small>${esc(r.part)} ${esc(r.section)}: ${esc(r.text)}</small></td>` +
        `<td class="verdict">${esc(r.verdict)}${r.notTestable ? `<br><small>${esc(r.notTestable)}</small>` : ''}</td><td>${esc(r.severity)}</td>` +
        `<td>${checks || '<small>none in this run</small>'}</td><td>${failure}</td>${coverageCell(coverage.get(r.id))}</tr>`
      );
    })
    .join('\n');
  const counts = new Map<string, number>();
  for (const r of m.rows) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  const summary = [...counts].map(([v, n]) => `${n} ${esc(v)}`).join(', ');
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance: ${esc(m.title)}</title><style>
body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}
th{position:sticky;top:0;background:#eee}.v-failed .verdict{background:#f99}.v-warning .verdict{background:#fd9}.v-passed .verdict{background:#bfb}
.v-not-run .verdict,.v-skipped .verdict,.v-not-reached .verdict{background:#ddd}.s-failed a,.s-failed{color:#b00}small{color:#555}
</style></head><body>
<h1>${esc(m.title)}</h1><p>${summary}.${m.htmlReport ? ` Check names link to their test in <a href="${esc(m.htmlReport)}">the HTML report</a>.` : ''}</p>
<table><tr><th>clause</th><th>verdict</th><th>severity</th><th>checks</th><th>first failure</th><th>domain coverage (cells judged)</th></tr>
${body}</table></body></html>
`;
}
