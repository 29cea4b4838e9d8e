// What decides a run's exit, for `run` and `report merge` alike: the checks' verdicts, the setup violations the doctor
// found, and the baseline of expected failures. The decision is written at the top of conformance-report.json
// (`status`), so that the file and the exit code never disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { applyBaseline, formatBaselineVerdict, gatedStatus, type Baseline, type RunReport } from '../conformance/engine/report/baseline.js';
import { EXIT } from './exit.js';

export type RunStatus = 'passed' | 'passed-with-expected-failures' | 'failed';

export interface Gate {
  /** Playwright's exit code: non-zero with no failed check is the run's own trouble (a crash, a timeout). */
  playwrightCode: number;
  baseline?: { file: string; shown: string; data: Baseline } | undefined;
  setupViolations?: { step: string; clauses: string[] }[] | undefined;
}

/**
 * Judges the report at `reportFile`, rewrites it with the decision (`status`, and `baseline`, `setupViolations` when
 * given) and returns the exit code. `note` prints the baseline's verdict.
 */
export function gateRun(reportFile: string, g: Gate, note: (s: string) => void): number {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport & { status: string };
  const violations = g.setupViolations ?? [];
  const listedClauses = new Set(g.baseline?.data.expectedFailures.flatMap((e) => (e.clause ? [e.clause] : [])) ?? []);
  // A listed clause covers a setup violation of it, as it covers a failed check of it.
  const setupFailed = violations.some((v) => v.clauses.some((c) => !listedClauses.has(c)));
  const failedChecks = report.checks.filter((c) => c.status === 'failed').length;
  const crashed = g.playwrightCode !== 0 && failedChecks === 0;
  let status: RunStatus;
  let baseline: object | undefined;
  if (g.baseline) {
    const verdict = applyBaseline(report, g.baseline.data, new Date().toISOString().slice(0, 10));
    note(formatBaselineVerdict(verdict, g.baseline.shown));
    status = setupFailed || crashed ? 'failed' : gatedStatus(report, verdict);
    baseline = { file: g.baseline.file, ...verdict };
  } else status = failedChecks > 0 || setupFailed || crashed ? 'failed' : 'passed';
  const { status: playwrightStatus, ...rest } = report;
  writeFileSync(
    reportFile,
    JSON.stringify(
      {
        status,
        playwrightStatus,
        ...rest,
        ...(violations.length ? { setupViolations: violations } : {}),
        ...(baseline ? { baseline } : {}),
      },
      null,
      2,
    ) + '\n',
  );
  if (status === 'passed-with-expected-failures')
    note(`status: passed with expected failures (${failedChecks} failed check(s), all listed)\n`);
  return status === 'failed' ? EXIT.failed : EXIT.ok;
}
