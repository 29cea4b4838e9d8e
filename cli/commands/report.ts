// `shop-conformance report`: what runs' reports say about each other (`compare`, `merge`, `grid`) and one run's `summary`. Reads conformance-report.json files
// (or the output directories holding them); never a server.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  BaselineError,
  checkBaselineIds,
  compareRuns,
  formatComparison,
  readBaseline,
  readRunReport,
  type Baseline,
} from '../../conformance/engine/report/baseline.js';
import { listChecks } from '../../conformance/engine/runner/list.js';
import { planEnv, writePlan } from '../../conformance/engine/runner/plan.js';
import { mergePlanOf } from '../merge-plan.js';
import { EXIT } from '../exit.js';
import { gateRun } from '../gate.js';
import { PLAYWRIGHT_CLI, SUITE_CONFIG } from '../playwright.js';
import { playwrightEnv } from '../../conformance/engine/runner/native-load.js';
import { addGridCommand } from './report-grid.js';
import { addSummaryCommand } from './report-summary.js';

const usage = (message: string): never => {
  process.stderr.write(`shop-conformance report merge: ${message}\n`);
  process.exit(EXIT.usage);
};

/** The blob reports of shard runs: each DIR is a run's --output (blobs in DIR/blob) or a directory of blobs. */
function blobsOf(dirs: readonly string[]): string[] {
  const blobs: string[] = [];
  for (const dir of dirs) {
    const where = existsSync(join(dir, 'blob')) ? join(dir, 'blob') : dir;
    if (!existsSync(where)) usage(`${dir}: no such directory`);
    const found = readdirSync(where).filter((f) => f.endsWith('.zip'));
    if (found.length === 0) usage(`${dir}: no blob report (run with --shard i/n writes one to <output>/blob)`);
    blobs.push(...found.map((f) => join(where, f)));
  }
  return blobs;
}

const REPORTERS = ['list', 'line', 'dot', 'json', 'junit', 'html', 'github'];

/** The baseline, its ids checked against the suite's check list; a mistake is a usage error before anything is merged. */
async function baselineOf(file: string): Promise<Baseline> {
  try {
    const baseline = readBaseline(resolve(file));
    checkBaselineIds(baseline, resolve(file), new Set((await listChecks()).map((c) => c.id)));
    return baseline;
  } catch (err) {
    return usage(`--expected-failures: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function merge(dirs: string[], o: { output: string; reporter: string; expectedFailures?: string }): Promise<number> {
  const unknown = o.reporter.split(',').find((r) => !REPORTERS.includes(r.trim()));
  if (unknown !== undefined) usage(`--reporter: ${unknown} is not one of ${REPORTERS.join(', ')}`);
  const blobs = blobsOf(dirs.map((d) => resolve(d)));
  const names = new Set(blobs.map((b) => basename(b)));
  if (names.size !== blobs.length) usage('two blob reports have the same name (the same shard given twice?)');
  const baseline = o.expectedFailures === undefined ? undefined : await baselineOf(o.expectedFailures);
  const output = resolve(o.output);
  const staging = mkdtempSync(join(tmpdir(), 'shop-merge-'));
  const planDir = mkdtempSync(join(tmpdir(), 'shop-merge-plan-'));
  try {
    for (const b of blobs) copyFileSync(b, join(staging, basename(b)));
    rmSync(join(output, 'conformance-report.json'), { force: true });
    // The run's facts, as the shards' reports state them, in the run plan the reporters read.
    const reporters = o.reporter.split(',').map((r) => r.trim());
    const env = planEnv(
      writePlan(
        planDir,
        mergePlanOf(
          dirs.map((d) => resolve(d)),
          { output, reporters },
        ),
      ),
    );
    // Playwright's merge-reports replays every shard's results through the suite's reporters (SUITE_CONFIG): the matrix,
    // JUnit, HTML, JSON, as one run would have written them.
    const code = await new Promise<number>((done) => {
      const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'merge-reports', '--config', SUITE_CONFIG, staging], {
        env: playwrightEnv(SUITE_CONFIG, env),
        stdio: 'inherit',
      });
      child.once('exit', (c) => done(c ?? 1));
    });
    const reportFile = join(output, 'conformance-report.json');
    if (!existsSync(reportFile)) {
      process.stderr.write(`shop-conformance report merge: Playwright exited ${code} without a conformance report\n`);
      return EXIT.usage;
    }
    // The same gate as `run`: the merged checks' verdicts, and the baseline when one is given.
    return gateRun(
      reportFile,
      {
        playwrightCode: code,
        baseline: baseline && { file: resolve(o.expectedFailures!), shown: o.expectedFailures!, data: baseline },
      },
      (s) => process.stdout.write(s),
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(planDir, { recursive: true, force: true });
  }
}

export function addReportCommand(program: Command): void {
  const report = program.command('report').description('Read and compare the reports of runs (conformance-report.json).');
  report
    .command('compare')
    .description('New failures, fixed checks and changed clause verdicts from the OLD run to the NEW one; exits 1 on a new failure.')
    .argument('<old>', 'conformance-report.json of the earlier run, or the --output directory holding it')
    .argument('<new>', 'conformance-report.json of the later run, or its --output directory')
    .option('--json', 'print the comparison as JSON', false)
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance report compare ./main-reports ./branch-reports
  $ shop-conformance report compare staging/conformance-report.json production/conformance-report.json --json`,
    )
    .action((oldPath: string, newPath: string, o: { json: boolean }) => {
      let before, after;
      try {
        before = readRunReport(oldPath);
        after = readRunReport(newPath);
      } catch (err) {
        if (!(err instanceof BaselineError)) throw err;
        process.stderr.write(`shop-conformance report compare: ${err.message}\n`);
        process.exit(EXIT.usage);
      }
      const c = compareRuns(before, after);
      process.stdout.write(o.json ? JSON.stringify(c, null, 2) + '\n' : formatComparison(c, oldPath, newPath));
      process.exit(c.newFailures.length > 0 ? EXIT.failed : EXIT.ok);
    });

  report
    .command('merge')
    .description('Merge the blob reports of sharded runs (--shard i/n) into one run: matrix, conformance-report.json, JUnit, HTML, JSON.')
    .argument('<dirs...>', "each shard's --output directory (or a directory of blob reports)")
    .option('--output <dir>', 'where the merged reports go', 'conformance-output')
    .option(
      '--reporter <names>',
      'comma-separated: list, line, dot, json, junit, html (the matrix is always printed)',
      'dot,junit,html,json',
    )
    .option(
      '--expected-failures <file>',
      'baseline of known failures, as for run: a listed failure does not fail the merged run; a new failure, a stale or expired entry does',
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 every merged check passed (or every failure is listed in --expected-failures), 1 a check failed, 2 usage
error (a directory without blob reports, a baseline naming an unknown check or clause).

Examples:
  $ shop-conformance run --base-url https://shop.example --shard 1/2 --output shard-1
  $ shop-conformance run --base-url https://shop.example --shard 2/2 --output shard-2
  $ shop-conformance report merge shard-1 shard-2 --output conformance-output
  $ shop-conformance report merge shard-1 shard-2 --expected-failures expected-failures.json`,
    )
    .action(async (dirs: string[], o: { output: string; reporter: string; expectedFailures?: string }) => {
      process.exit(await merge(dirs, o));
    });
  addGridCommand(report);
  addSummaryCommand(report);
}
