// The grid of verdicts as one self-contained page (`report grid`): clauses as rows, runs as columns, each cell the verdict
// linked to the run's clause matrix where its first failure is; filters by spec part, severity and "differing only"; the
// rows where the runs differ first. No external asset: the filters are a few lines of inline script.
import type { Grid } from './grid.js';
import { esc } from './matrix-html.js';

const COLORS = `
.v-passed{background:#e6f4ea}.v-failed{background:#fce8e6}.v-warning{background:#fef7e0}
.v-skipped,.v-not-reached,.v-not-run,.v-uncovered,.v-absent{background:#f1f3f4;color:#5f6368}.v-not-testable{color:#5f6368}`;

const FILTER = `
const q = (s) => document.querySelector(s);
function apply() {
  const part = q('#part').value, sev = q('#severity').value, diff = q('#differs').checked;
  for (const tr of document.querySelectorAll('tbody tr')) {
    const show = (!part || tr.dataset.part === part) && (!sev || tr.dataset.severity === sev) && (!diff || tr.dataset.differs === '1');
    tr.hidden = !show;
  }
}
for (const id of ['#part', '#severity', '#differs']) q(id).addEventListener('change', apply);
apply();`;

/** The page of a grid. */
export function htmlGrid(grid: Grid): string {
  const parts = [...new Set(grid.rows.map((r) => r.part))];
  const head = grid.runs
    .map((r, i) => {
      const t = grid.totals[i]!;
      return `<th>${esc(r.label)}<br><small>${esc(r.level)} · ${t.passed} passed, ${t.failed} failed, ${t.other} other</small></th>`;
    })
    .join('');
  const body = grid.rows
    .map((row) => {
      const cells = row.cells
        .map((c, i) => {
          const matrix = grid.runs[i]!.matrix;
          const verdict = matrix ? `<a href="${esc(matrix)}#${encodeURIComponent(row.id)}">${esc(c.verdict)}</a>` : esc(c.verdict);
          const first = c.firstFailure ? `<br><small title="${esc(c.firstFailure.reason)}">${esc(c.firstFailure.check)}</small>` : '';
          return `<td class="v-${esc(c.verdict)}">${verdict}${first}</td>`;
        })
        .join('');
      return (
        `<tr data-part="${esc(row.part)}" data-severity="${esc(row.severity)}" data-differs="${row.differs ? 1 : 0}">` +
        `<td><b>${esc(row.id)}</b>${row.differs ? ' <small>differs</small>' : ''}<br><small>${esc(row.section)}: ${esc(row.text)}</small></td>` +
        `<td>${esc(row.severity)}</td>${cells}</tr>`
      );
    })
    .join('\n');
  const differing = grid.rows.filter((r) => r.differs).length;
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance: verdicts across runs</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 6px;vertical-align:top;text-align:left}${COLORS}</style></head><body>
<h1>Verdicts across ${grid.runs.length} runs</h1>
<p>${differing} of ${grid.rows.length} clauses differ between the runs; they come first. A verdict links to its run's clause matrix, where the first failure is.</p>
<p><label>part <select id="part"><option value="">all</option>${parts.map((p) => `<option>${esc(p)}</option>`).join('')}</select></label>
<label>severity <select id="severity"><option value="">all</option><option>MUST</option><option>SHOULD</option></select></label>
<label><input type="checkbox" id="differs"> differing only</label></p>
<table><thead><tr><th>clause</th><th>severity</th>${head}</tr></thead><tbody>
${body}
</tbody></table><script>${FILTER}</script></body></html>
`;
}
