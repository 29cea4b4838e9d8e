// The one custom reporter: what Playwright lacks — the per-clause conformance matrix on the console and in
// conformance-report.json. Everything else (list, json, junit, html) is Playwright's own.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { reclassifyJUnit, testcaseName } from './junit.js';
import { decodeRecord, firstLine } from './check-record.js';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { CLAUSES } from '../../../contract/clauses/index.js';
import { lateTarget } from '../runner/late.js';
import { DEPLOYMENT } from '../runner/params.js';
import { currentPlan, type RunPlan } from '../runner/plan.js';
import { clauseRows, formatMatrix, mergeOutcomes, summarize, unjudgedMust, type CheckOutcome, type CheckStatus } from './verdicts.js';
import { SUITE_VERSION } from './version.js';
import { domainCoverage, formatCoverage, htmlCoverage, untriedMust, type ClauseCoverage } from './coverage.js';
import { notRun, STOPPED } from './console.js';
import { formatFailureReport } from './failure-report.js';
import { htmlMatrix } from './matrix-html.js';

const clausesOf = (test: TestCase) => test.tags.map((t) => t.slice(1)).filter((t) => /^[A-Z]+-/.test(t));
/**
 * The variant deployment a test ran against: the embedded run's variant copy names it (engine/runner/check.ts), the self-test's
 * projects by their name; undefined for the run's target.
 */
const projectOf = (test: TestCase) =>
  test.annotations.find((a) => a.type === DEPLOYMENT)?.description ?? (test.parent.project()?.name || undefined);
/** The check's record (check-record.ts), from the test case or its result. */
const recordOf = (test: TestCase, result: TestResult | undefined) => decodeRecord([...(result?.annotations ?? []), ...test.annotations]);
const checkIdOf = (test: TestCase) => test.annotations.find((a) => a.type === 'check')?.description ?? test.title;
const transcriptOf = (result: TestResult | undefined) => result?.attachments.find((a) => a.name === 'transcript.txt')?.path;

/** The command that reruns one check: `run --repro` with the run's own target options (the plan's), else its target. */
function reproCommand(plan: Readonly<RunPlan> | undefined, id: string): string {
  const args = plan?.selection.reproArgs ?? '';
  return `npx shop-conformance run --repro ${id}${args ? ` ${args}` : ''}`;
}

/** What the reporter collected: the tests and their results. */
interface Run {
  tests: readonly TestCase[];
  results: ReadonlyMap<TestCase, TestResult>;
}

/** One check's outcome: its status (not run, skipped, passed, warning, failed), with the reason and the blamed clauses. */
function outcomeOf(t: TestCase, r: TestResult | undefined, stopped: boolean, notRunReason: string): CheckOutcome {
  const record = recordOf(t, r);
  const skip = [...t.annotations, ...(r?.annotations ?? [])].find((a) => a.type === 'skip');
  let status: CheckStatus;
  // The run stopped before the check or while it ran (--max-failures, an interruption): not run, not skipped.
  if (notRun(t, r, stopped)) status = 'not-run';
  else if (!r || r.status === 'skipped') status = 'skipped';
  else if (r.status === 'passed') status = record?.outcome === 'warning' ? 'warning' : 'passed';
  else status = 'failed';
  // A failure the check did not judge (a timeout, a crash of the runner) has only Playwright's error to show.
  const reason =
    status === 'failed'
      ? record
        ? firstLine(record)
        : r?.error?.message?.split('\n')[0]
      : status === 'warning'
        ? record?.failures[0]?.message
        : status === 'skipped'
          ? skip?.description
          : status === 'not-run'
            ? notRunReason
            : undefined;
  const failedClauses = record?.blamed ?? [];
  const setupFailed = record?.setup === true;
  return {
    id: checkIdOf(t),
    title: t.title,
    clauses: clausesOf(t),
    status,
    ...((status === 'failed' || status === 'warning') && failedClauses.length ? { failedClauses } : {}),
    ...(status === 'failed' && setupFailed ? { setupFailed } : {}),
    ...((status === 'failed' || status === 'warning') && record?.completed ? { completed: true } : {}),
    ...(reason ? { reason } : {}),
    ...(projectOf(t) ? { deployment: projectOf(t) } : {}),
  };
}

/** Domain coverage: the cells each check's exchanges fell in, per clause with a declared domain (information only). */
function coverageOf(run: Run): ClauseCoverage[] {
  return domainCoverage(
    run.tests.map((t) => {
      const r = run.results.get(t);
      const cells = [...t.annotations, ...(r?.annotations ?? [])].find((a) => a.type === 'cells')?.description;
      return {
        id: checkIdOf(t),
        clauses: clausesOf(t),
        status: !r || r.status === 'skipped' || r.status === 'interrupted' ? 'skipped' : r.status,
        ...(cells ? { cells: JSON.parse(cells) as string[] } : {}),
      };
    }),
  );
}

/** conformance-report.json: the run's facts (from its plan), the verdict per clause and per check, the coverage. */
function reportOf(plan: Readonly<RunPlan> | undefined, status: FullResult['status'], outcomes: CheckOutcome[], coverage: ClauseCoverage[]) {
  // Every testable clause has checks (test/unit/conformance/coverage.test.ts): one without an outcome here was left out by the
  // run's selection (level, --grep, --clause, --shard), so it is "not run", never "without checks".
  const known = new Map<string, string[]>(CLAUSES.filter((c) => !c.notTestable).map((c) => [c.id, ['(not selected)']]));
  const rows = clauseRows(CLAUSES, outcomes, known);
  // A partial selection leaves clauses out on purpose: only what it skipped or did not reach is worth listing.
  const partial = plan?.selection.partial ?? 'whole';
  // A --clause selection lists its own clauses only: a selected check's other clauses were not asked for.
  const selected = plan?.selection.clauses ?? [];
  const unjudged = unjudgedMust(rows).filter(
    (u) => (partial === 'whole' || u.verdict !== 'not-run') && (selected.length === 0 || selected.includes(u.id)),
  );
  return {
    suite: { name: 'shop-conformance', version: SUITE_VERSION },
    // The target's URL may have come after Playwright started (runner/late.ts).
    target: lateTarget(plan)?.baseUrl ?? plan?.target.baseUrl ?? null,
    targetKind: plan?.target.kind ?? 'external',
    level: plan?.level ?? 'spec',
    strict: plan?.strict ?? false,
    seed: plan?.seed ?? 1,
    /** The selection left checks out on purpose (--grep, --clause, --last-failed, --max-failures), a shard aside. */
    partialSelection: partial === 'part',
    ...(selected.length ? { selectedClauses: selected } : {}),
    status,
    finishedAt: new Date().toISOString(),
    summary: summarize(rows, outcomes),
    unjudgedMust: unjudged,
    clauses: rows,
    checks: outcomes,
    domainCoverage: coverage,
  };
}

type Report = ReturnType<typeof reportOf>;

/** The report, the coverage page and the matrix page in `dir`; JUnit's conformance failures reclassified. */
function writeReports(dir: string, reporters: readonly string[], report: Report, run: Run): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'conformance-report.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(dir, 'domain-coverage.html'), htmlCoverage(report.domainCoverage));
  // Beside Playwright's HTML report (<output>/html), linking each check to its test there.
  writeFileSync(
    join(dir, 'clause-matrix.html'),
    htmlMatrix({
      rows: report.clauses,
      coverage: report.domainCoverage,
      testIds: new Map(run.tests.map((t) => [checkIdOf(t), t.id])),
      reasons: new Map(report.checks.flatMap((o) => (o.reason ? [[o.id, o.reason] as const] : []))),
      htmlReport: reporters.includes('html') ? 'html/index.html' : undefined,
      title: `Conformance matrix: ${report.target ?? 'target'} (${report.level} level)`,
    }),
  );
  // Playwright's JUnit reporter has written junit.xml (it comes first in the list): conformance failures become
  // <failure>s there (conformance/engine/report/junit.ts).
  const junit = join(dir, 'junit.xml');
  if (reporters.includes('junit') && existsSync(junit)) rewriteJUnit(junit, report.checks, run);
}

function rewriteJUnit(junit: string, outcomes: readonly CheckOutcome[], run: Run): void {
  // The checks whose record says they failed on a clause their failure names (a crash that names none stays an
  // error), by the name JUnit gives their test case.
  const failed = new Set(
    run.tests
      .filter((t) => {
        const record = recordOf(t, run.results.get(t));
        return record?.outcome === 'failed' && (record.failures[0]?.clauses.length ?? 0) > 0;
      })
      .map(testcaseName),
  );
  // Skipped test cases say why; the checks the run stopped before say they were not run.
  const skipped = new Map(
    run.tests.flatMap((t) => {
      const o = outcomes.find((x) => x.id === checkIdOf(t));
      return (o?.status === 'not-run' || o?.status === 'skipped') && o.reason ? [[testcaseName(t), o.reason] as const] : [];
    }),
  );
  writeFileSync(junit, reclassifyJUnit(readFileSync(junit, 'utf8'), failed, skipped));
}

/** The lists below the matrix: refused setups, MUST clauses left unjudged, MUST clauses judged on part of their domain. */
function listsText(report: Report): string {
  const setup = report.checks.filter((o) => o.setupFailed);
  const unjudged = report.unjudgedMust;
  const untried = untriedMust(report.domainCoverage);
  const setupText =
    setup.length === 0
      ? ''
      : `\n  setup refused by the target (${setup.length} checks of claimed capabilities; failures, not skips):\n` +
        setup.map((o) => `    ${o.id}: ${o.reason ?? ''}`.slice(0, 220)).join('\n') +
        '\n';
  const unjudgedText =
    unjudged.length === 0
      ? ''
      : `\n  MUST clauses left unjudged (${unjudged.length}):\n` +
        unjudged.map((u) => `    ${u.id.padEnd(22)} ${u.verdict.padEnd(11)} ${u.why}`.slice(0, 220)).join('\n') +
        '\n';
  const untriedText =
    untried.length === 0
      ? ''
      : `\n  MUST clauses judged on part of their domain (${untried.length}; cells no check tried):\n` +
        formatCoverage(untried, { onlyUntried: true })
          .split('\n')
          .map((l) => `  ${l}`.slice(0, 240))
          .join('\n') +
        '\n';
  return setupText + unjudgedText + untriedText;
}

/** The console's end of the run: the matrix, the counts, the lists, where the report is, and the failure report. */
function summaryText(
  report: Report,
  run: Run,
  o: { notRunReason: string; dir: string | undefined; plan: Readonly<RunPlan> | undefined },
): string {
  const s = report.summary;
  return (
    `\nConformance matrix (${report.level} level${report.strict ? ', strict' : ''}, seed ${report.seed}):\n` +
    formatMatrix(report.clauses, { onlyRun: true, width: Math.max(80, process.stdout.columns ?? 120) }) +
    `\n\n  clauses: ${s.clauses.passed} passed, ${s.clauses.failed} failed, ${s.clauses.warnings} warnings, ${s.clauses.skipped} skipped, ` +
    `${s.clauses.notReached} not reached, ${s.clauses.notRun} not run, ${s.clauses.notTestable} not testable, ${s.clauses.uncovered} without checks` +
    `\n  checks:  ${s.checks.passed} passed, ${s.checks.failed} failed, ${s.checks.warnings} warnings, ${s.checks.skipped} skipped` +
    (s.checks.notRun ? `, ${s.checks.notRun} not run (${o.notRunReason.replace(/^not run: /, '')})` : '') +
    '\n' +
    listsText(report) +
    (o.dir ? `  report:  ${join(o.dir, 'conformance-report.json')}\n` : '') +
    formatFailureReport(
      run.tests.flatMap((t) => {
        const r = run.results.get(t);
        const x = report.checks.find((c) => c.id === checkIdOf(t));
        if (x?.status !== 'failed' || r?.status !== 'failed' || x.deployment !== projectOf(t)) return [];
        return [{ id: x.id, record: recordOf(t, r), reason: x.reason, transcript: transcriptOf(r) }];
      }),
      { repro: (id) => reproCommand(o.plan, id), width: Math.max(100, process.stdout.columns ?? 160) },
    )
  );
}

export default class ConformanceReporter implements Reporter {
  private tests: TestCase[] = [];
  private results = new Map<TestCase, TestResult>();
  /** --max-failures N, once Playwright says it stopped the run. */
  private stoppedAfter: number | undefined;

  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.tests = suite.allTests();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.results.set(test, result);
  }

  onError(error: TestError): void {
    const stopped = STOPPED.exec(error.message ?? '');
    if (stopped) this.stoppedAfter = Number(stopped[1]);
  }

  onEnd(result: FullResult): void {
    const plan = currentPlan();
    const run: Run = { tests: this.tests, results: this.results };
    const stopped = this.stoppedAfter !== undefined;
    const notRunReason = stopped
      ? `not run: the run stopped after --max-failures ${this.stoppedAfter}`
      : `not run: the run ended (${result.status}) before it`;
    const outcomes = mergeOutcomes(this.tests.map((t) => outcomeOf(t, this.results.get(t), stopped, notRunReason)));
    const report = reportOf(plan, result.status, outcomes, coverageOf(run));
    const dir = plan?.output.dir;
    if (dir) writeReports(dir, plan.output.reporters, report, run);
    process.stdout.write(summaryText(report, run, { notRunReason, dir, plan }));
  }
}
