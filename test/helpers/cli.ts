// The CLI as a user runs it: a child process of `cli/main.ts` under tsx, its stdout and stderr together, its exit code and
// how long it took.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;

export function cli(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

/** A fresh output directory for one run. */
export const outputDir = () => mkdtempSync(join(tmpdir(), 'shop-run-'));

export interface ReportedCheck {
  id: string;
  clauses: string[];
  status: 'passed' | 'failed' | 'warning' | 'skipped';
  reason?: string;
}

export interface Report {
  clauses: { id: string; verdict: string }[];
  checks: ReportedCheck[];
}

export const readReport = (dir: string): Report => JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8')) as Report;

/** The failed and warned checks of a run, or the tail of its output when it left no report: a test's failure message. */
export function describeOutcome(report: Report | undefined, out: string): string {
  if (!report) return `no conformance report; output:\n${out.slice(-4000)}`;
  const bad = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  return (
    bad.map((c) => `  ${c.status.toUpperCase()} [${c.id}] ${c.reason ?? ''}`).join('\n') ||
    `(no failed check; output:\n${out.slice(-2000)})`
  );
}

/** The run's report, or undefined when it left none. */
export function tryReport(dir: string): Report | undefined {
  try {
    return readReport(dir);
  } catch {
    return undefined;
  }
}
