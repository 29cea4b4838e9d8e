// The one custom reporter: what Playwright lacks — the per-clause conformance matrix on the console and in
// conformance-report.json. Everything else (list, json, junit, html) is Playwright's own.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { reclassifyJUnit, testcaseName } from './junit.js';
import { decodeRecord, firstLine } from './check-record.js';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { CLAUSES } from '../../contract/clauses/index.js';
import { ENV } from './params.js';
import { clauseRows, formatMatrix, mergeOutcomes, summarize, unjudgedMust, type CheckOutcome, type CheckStatus } from './verdicts.js';
import { SUITE_VERSION } from './version.js';
import { domainCoverage, formatCoverage, htmlCoverage, untriedMust } from './coverage.js';

const clausesOf = (test: TestCase) => test.tags.map((t) => t.slice(1)).filter((t) => /^[A-Z]+-/.test(t));
/** The variant deployment (Playwright project) a test ran against; undefined for the run's target. */
const projectOf = (test: TestCase) => test.parent.project()?.name || undefined;
/** The check's record (check-record.ts), from the test case or its result. */
const recordOf = (test: TestCase, result: TestResult | undefined) => decodeRecord([...(result?.annotations ?? []), ...test.annotations]);
const checkIdOf = (test: TestCase) => test.annotations.find((a) => a.type === 'check')?.description ?? test.title;

export default class ConformanceReporter implements Reporter {
  private tests: TestCase[] = [];
  private results = new Map<TestCase, TestResult>();

  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.tests = suite.allTests();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.results.set(test, result);
  }

  onEnd(result: FullResult): void {
    const outcomes: CheckOutcome[] = mergeOutcomes(
      this.tests.map((t) => {
        const r = this.results.get(t);
        const record = recordOf(t, r);
        const skip = [...t.annotations, ...(r?.annotations ?? [])].find((a) => a.type === 'skip');
        let status: CheckStatus;
        if (!r || r.status === 'skipped' || r.status === 'interrupted') status = 'skipped';
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
      }),
    );
    // Domain coverage: the cells each check's exchanges fell in, per clause with a declared domain (information only).
    const coverage = domainCoverage(
      this.tests.map((t) => {
        const r = this.results.get(t);
        const cells = [...t.annotations, ...(r?.annotations ?? [])].find((a) => a.type === 'cells')?.description;
        return {
          id: checkIdOf(t),
          clauses: clausesOf(t),
          status: !r || r.status === 'skipped' || r.status === 'interrupted' ? 'skipped' : r.status,
          ...(cells ? { cells: JSON.parse(cells) as string[] } : {}),
        };
      }),
    );
    const untried = untriedMust(coverage);
    // Every testable clause has checks (test/unit/conformance/coverage.test.ts): one without an outcome here was left out by the
    // run's selection (level, --grep, --clause, --shard), so it is "not run", never "without checks".
    const known = new Map<string, string[]>(CLAUSES.filter((c) => !c.notTestable).map((c) => [c.id, ['(not selected)']]));
    const rows = clauseRows(CLAUSES, outcomes, known);
    const summary = summarize(rows, outcomes);
    // A partial selection leaves clauses out on purpose: only what it skipped or did not reach is worth listing.
    const partial = process.env[ENV.partial] ?? '0';
    const unjudged = unjudgedMust(rows).filter((u) => partial === '0' || u.verdict !== 'not-run');
    const report = {
      suite: { name: 'shop-conformance', version: SUITE_VERSION },
      target: process.env[ENV.baseUrl] ?? null,
      targetKind: process.env[ENV.target] ?? 'external',
      level: process.env[ENV.level] ?? 'spec',
      strict: process.env[ENV.strict] === '1',
      seed: Number(process.env[ENV.seed] ?? 1),
      /** The selection left checks out on purpose (--grep, --clause, --last-failed, --max-failures), a shard aside. */
      partialSelection: partial === '1',
      status: result.status,
      finishedAt: new Date().toISOString(),
      summary,
      unjudgedMust: unjudged,
      clauses: rows,
      checks: outcomes,
      domainCoverage: coverage,
    };
    const dir = process.env[ENV.output];
    if (dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'conformance-report.json'), JSON.stringify(report, null, 2) + '\n');
      writeFileSync(join(dir, 'domain-coverage.html'), htmlCoverage(coverage));
      // Playwright's JUnit reporter has written junit.xml (it comes first in the list): conformance failures become
      // <failure>s there (conformance/engine/junit.ts).
      const junit = join(dir, 'junit.xml');
      if ((process.env[ENV.reporters] ?? '').split(',').includes('junit') && existsSync(junit)) {
        // The checks whose record says they failed on a clause their failure names (a crash that names none stays an
        // error), by the name JUnit gives their test case.
        const failed = new Set(
          this.tests
            .filter((t) => {
              const record = recordOf(t, this.results.get(t));
              return record?.outcome === 'failed' && (record.failures[0]?.clauses.length ?? 0) > 0;
            })
            .map(testcaseName),
        );
        writeFileSync(junit, reclassifyJUnit(readFileSync(junit, 'utf8'), failed));
      }
    }
    const s = summary;
    const setup = outcomes.filter((o) => o.setupFailed);
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
    const setupText =
      setup.length === 0
        ? ''
        : `\n  setup refused by the target (${setup.length} checks of claimed capabilities; failures, not skips):\n` +
          setup.map((o) => `    ${o.id}: ${o.reason ?? ''}`.slice(0, 220)).join('\n') +
          '\n';
    process.stdout.write(
      `\nConformance matrix (${report.level} level${report.strict ? ', strict' : ''}, seed ${report.seed}):\n` +
        formatMatrix(rows, { onlyRun: true, width: Math.max(80, process.stdout.columns ?? 120) }) +
        `\n\n  clauses: ${s.clauses.passed} passed, ${s.clauses.failed} failed, ${s.clauses.warnings} warnings, ${s.clauses.skipped} skipped, ` +
        `${s.clauses.notReached} not reached, ${s.clauses.notRun} not run, ${s.clauses.notTestable} not testable, ${s.clauses.uncovered} without checks` +
        `\n  checks:  ${s.checks.passed} passed, ${s.checks.failed} failed, ${s.checks.warnings} warnings, ${s.checks.skipped} skipped\n` +
        setupText +
        unjudgedText +
        untriedText +
        (dir ? `  report:  ${join(dir, 'conformance-report.json')}\n` : ''),
    );
  }
}
