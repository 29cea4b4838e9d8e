// The grid of verdicts across runs (`report grid`): clauses as rows, runs as columns, each cell the clause's verdict in
// that run with its first failure; the rows whose verdicts differ first. Pure: reads reports already parsed, writes
// nothing (cli/commands/report-grid.ts writes the page and the JSON).
import type { RunReport } from './baseline.js';
import type { ClauseRow, ClauseVerdict } from './verdicts.js';

export interface GridRun {
  /** How the column is headed: the label given, else the run's target and level. */
  label: string;
  /** The report file or output directory it was read from, as given. */
  source: string;
  target: string | null;
  level: string;
  /** The run's clause matrix page, relative to the grid's output, when the run wrote one. */
  matrix?: string;
}

export interface GridCell {
  verdict: ClauseVerdict | 'absent';
  /** The first failed (or warning) check of the clause in that run, and why. */
  firstFailure?: { check: string; reason: string };
}

export interface GridRow {
  id: string;
  part: ClauseRow['part'];
  section: string;
  severity: ClauseRow['severity'];
  text: string;
  cells: GridCell[];
  /** The runs do not all agree on this clause. */
  differs: boolean;
}

export interface Grid {
  runs: GridRun[];
  rows: GridRow[];
  /** Per run: how many clauses it passed, failed, and left unjudged. */
  totals: { passed: number; failed: number; other: number }[];
}

/** A cell of one run's clause row. */
function cellOf(row: ClauseRow | undefined, report: RunReport): GridCell {
  if (!row) return { verdict: 'absent' };
  const first = row.checks.find((c) => c.status === 'failed' || c.status === 'warning');
  if (!first) return { verdict: row.verdict };
  const reason = first.reason ?? report.checks.find((c) => c.id === first.id)?.reason ?? '';
  return { verdict: row.verdict, firstFailure: { check: first.id, reason: reason.split('\n')[0]!.slice(0, 300) } };
}

/** The grid of `reports` (in the order given): every clause any of them lists, the differing rows first. */
export function buildGrid(reports: readonly { run: GridRun; report: RunReport }[]): Grid {
  const byId = reports.map(({ report }) => new Map(report.clauses.map((c) => [c.id, c])));
  const order: ClauseRow[] = [];
  const seen = new Set<string>();
  for (const { report } of reports) for (const c of report.clauses) if (!seen.has(c.id) && seen.add(c.id)) order.push(c);
  const rows = order.map((c): GridRow => {
    const cells = reports.map(({ report }, i) => cellOf(byId[i]!.get(c.id), report));
    return {
      id: c.id,
      part: c.part,
      section: c.section,
      severity: c.severity,
      text: c.text,
      cells,
      differs: new Set(cells.map((x) => x.verdict)).size > 1,
    };
  });
  // Stable: the differing rows first, each group in the catalogue's order.
  rows.sort((a, b) => Number(b.differs) - Number(a.differs));
  const totals = reports.map((_, i) => {
    const verdicts = rows.map((r) => r.cells[i]!.verdict);
    const passed = verdicts.filter((v) => v === 'passed').length;
    const failed = verdicts.filter((v) => v === 'failed').length;
    return { passed, failed, other: verdicts.length - passed - failed };
  });
  return { runs: reports.map((r) => r.run), rows, totals };
}
