// The coverage map (coverage.ts) as a section of explore.html: a table of commands × caller kinds (requests per cell, a
// kind the contract refuses marked, a cell never reached shaded), the statuses each cell ended in, the clause domains
// (the domain coverage table of `run`'s matrix), and the cells never reached.
import { htmlCoverage } from '../engine/report/coverage.js';
import type { CoverageReport } from './coverage.js';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function coverageHtml(c: CoverageReport): string {
  const kinds = [...new Set([...c.rows.map((r) => r.kind), ...c.unreached.map((u) => u.kind)])];
  const commands = [...new Set([...c.rows.map((r) => r.command), ...c.unreached.map((u) => u.command)])];
  const cell = (command: string, kind: string) => {
    const mine = c.rows.filter((r) => r.command === command && r.kind === kind);
    if (mine.length === 0) {
      const gap = c.unreached.find((u) => u.command === command && u.kind === kind);
      return gap ? `<td class="gap">never${gap.admitted ? '' : ' (refused)'}</td>` : '<td></td>';
    }
    const statuses = new Map<string, number>();
    for (const r of mine) for (const [s, n] of Object.entries(r.statuses)) statuses.set(s, (statuses.get(s) ?? 0) + n);
    const families = mine.map((r) => `${r.family} ${r.steps}`).join(', ');
    const total = mine.reduce((n, r) => n + r.steps, 0);
    return `<td class="${mine[0]!.admitted ? 'ok' : 'refused'}" title="${esc(families)}">${total}<br><small>${esc([...statuses].map(([s, n]) => `${s}×${n}`).join(' '))}</small></td>`;
  };
  const table = `<table><tr><th>command</th>${kinds.map((k) => `<th>${esc(k)}</th>`).join('')}</tr>${commands
    .map((command) => `<tr><td>${esc(command)}</td>${kinds.map((k) => cell(command, k)).join('')}</tr>`)
    .join('')}</table>`;
  const domains = htmlCoverage(c.clauses, 'Clause domains reached')
    .replace(/^[\s\S]*<body>/, '')
    .replace(/<\/body>[\s\S]*$/, '');
  return `<section id="coverage"><h2>Coverage map</h2><p>Requests per command and caller kind (statuses below; hover for the mutation families). Refused: the contract closes the route to the kind. Never: no request reached the cell.</p><style>td.gap{background:#fdd}td.refused{background:#eef}</style>${table}${domains}</section>`;
}
