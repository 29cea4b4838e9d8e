// `shop-conformance report grid RUN...`: one page and one JSON file of clause verdicts across several runs (deployments,
// releases, levels): clauses as rows, runs as columns, the differing rows first (conformance/engine/report/grid.ts). Reads
// conformance-report.json files or the output directories holding them; never a server.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { BaselineError, readRunReport, type RunReport } from '../../conformance/engine/report/baseline.js';
import { buildGrid, type GridRun } from '../../conformance/engine/report/grid.js';
import { htmlGrid } from '../../conformance/engine/report/grid-html.js';
import { EXIT } from '../exit.js';

const usage = (message: string): never => {
  process.stderr.write(`shop-conformance report grid: ${message}\n`);
  process.exit(EXIT.usage);
};

/** The column of one run: its label, and the run's clause matrix relative to where the grid goes. */
function runOf(source: string, report: RunReport, label: string | undefined, output: string): GridRun {
  const dir = statSync(source, { throwIfNoEntry: false })?.isDirectory() ? source : dirname(source);
  const matrix = join(dir, 'clause-matrix.html');
  return {
    label: label ?? `${report.target ?? 'embedded reference'} (${report.level})`,
    source,
    target: report.target,
    level: report.level,
    ...(existsSync(matrix) ? { matrix: relative(resolve(output), resolve(matrix)) } : {}),
  };
}

/** Writes grid.html and grid.json of the runs into `output`; returns the two paths. */
export function writeGrid(sources: readonly string[], o: { output: string; label?: string[] }): string[] {
  if (sources.length < 2) usage('give at least two runs (their conformance-report.json or --output directories)');
  if (o.label && o.label.length !== sources.length) usage(`--label names ${o.label.length} run(s); ${sources.length} were given`);
  const reports = sources.map((source, i) => {
    try {
      const report = readRunReport(source);
      return { run: runOf(source, report, o.label?.[i], o.output), report };
    } catch (err) {
      if (err instanceof BaselineError) return usage(err.message);
      throw err;
    }
  });
  // Two columns with one heading are told apart by where they came from.
  const headings = reports.map((r) => r.run.label);
  for (const r of reports) if (headings.filter((h) => h === r.run.label).length > 1) r.run.label += ` [${basename(resolve(r.run.source))}]`;
  const grid = buildGrid(reports);
  mkdirSync(o.output, { recursive: true });
  const html = join(o.output, 'grid.html');
  const json = join(o.output, 'grid.json');
  writeFileSync(html, htmlGrid(grid));
  writeFileSync(json, JSON.stringify(grid, null, 2) + '\n');
  return [html, json];
}

export function addGridCommand(report: Command): void {
  report
    .command('grid')
    .description('One table of clause verdicts across runs (HTML and JSON): clauses as rows, runs as columns, differing rows first.')
    .argument('<runs...>', "each run's conformance-report.json, or the --output directory holding it (two or more)")
    .option('--label <names...>', "column headings, one per run, in order (default: each run's target and level)")
    .option('--output <dir>', 'where grid.html and grid.json go', 'conformance-grid')
    .addHelpText(
      'after',
      `
Exit codes: 0 the grid was written (whatever the verdicts), 2 usage error (fewer than two runs, a file that is not a report).

Examples:
  $ shop-conformance report grid staging-reports production-reports --label staging production
  $ shop-conformance report grid v1.4/conformance-report.json v1.5/conformance-report.json --output grid`,
    )
    .action((runs: string[], o: { output: string; label?: string[] }) => {
      for (const path of writeGrid(runs, o)) process.stdout.write(`${path}\n`);
      process.exit(EXIT.ok);
    });
}
