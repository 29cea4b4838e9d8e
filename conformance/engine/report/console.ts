// The console while checks run (`--reporter list`, `line` or `dot`): one line (or one character) per check and a count
// at the end. Failures are not printed one by one here: the matrix reporter ends the console with them grouped by clause
// (failure-report.ts) and every transcript is in its file, so a run of a hundred failures stays a page of reading.
// Checks a run stopped before (--max-failures) are "not run", never "skipped"; Playwright's notice of the stop is said
// once, in those words, and not counted as an error outside the checks.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { decodeRecord } from './check-record.js';

type Style = 'list' | 'line' | 'dot';

/** Playwright's notice that --max-failures stopped the run. */
export const STOPPED = /Testing stopped early after (\d+) maximum allowed failures/;

/**
 * A check the run stopped before or while it ran (--max-failures, an interruption): no result, an interrupted one, or a
 * skip after the stop that no test.skip() of the check gave a reason for.
 */
export function notRun(test: TestCase, result: TestResult | undefined, stopped: boolean): boolean {
  if (!result || result.status === 'interrupted') return true;
  const reasoned = [...test.annotations, ...result.annotations].some((a) => a.type === 'skip');
  return stopped && result.status === 'skipped' && !reasoned;
}

const ms = (n: number) => (n < 1000 ? `${n}ms` : `${(n / 1000).toFixed(1)}s`);

export default class ConsoleReporter implements Reporter {
  private readonly style: Style;
  private total = 0;
  private done = 0;
  private dots = 0;
  private stoppedAfter: number | undefined;
  private errors = 0;
  private suite: Suite | undefined;
  private header: string | undefined;
  private readonly counts = { passed: 0, failed: 0, warnings: 0, skipped: 0, notRun: 0 };
  private readonly write = (s: string) => process.stdout.write(s);

  constructor(options: { style?: Style } = {}) {
    this.style = options.style ?? 'list';
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.suite = suite;
    this.total = suite.allTests().length;
    const workers = (config.metadata as { actualWorkers?: number }).actualWorkers ?? config.workers;
    const shard = config.shard ? `, shard ${config.shard.current} of ${config.shard.total}` : '';
    // Said when the first check begins: the CLI starts Playwright before its doctor has spoken, and its lines come first.
    this.header = `\nRunning ${this.total} test${this.total === 1 ? '' : 's'} using ${workers} worker${workers === 1 ? '' : 's'}${shard}\n\n`;
  }

  /** The run's first line, once. */
  private begin(): void {
    if (this.header === undefined) return;
    this.write(this.header);
    this.header = undefined;
  }

  onTestBegin(): void {
    this.begin();
  }

  onStdOut(chunk: string | Buffer): void {
    this.begin();
    this.breakDots();
    this.write(chunk.toString());
  }

  onStdErr(chunk: string | Buffer): void {
    this.begin();
    this.breakDots();
    process.stderr.write(chunk.toString());
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.done += 1;
    const record = decodeRecord([...result.annotations, ...test.annotations]);
    const kind = notRun(test, result, this.stoppedAfter !== undefined)
      ? 'notRun'
      : result.status === 'skipped'
        ? 'skipped'
        : result.status === 'passed'
          ? record?.outcome === 'warning'
            ? 'warnings'
            : 'passed'
          : 'failed';
    this.counts[kind] += 1;
    if (this.style === 'dot') {
      this.write({ passed: '·', failed: 'F', warnings: 'W', skipped: '°', notRun: ' ' }[kind]);
      if (++this.dots % 80 === 0) this.write('\n');
      return;
    }
    // `line` shows failures only; `list` every check.
    if (this.style === 'line' && kind !== 'failed') return;
    const mark = { passed: '✓', failed: '✘', warnings: '!', skipped: '-', notRun: '·' }[kind];
    const index = String(this.done).padStart(String(this.total).length);
    const width = Math.max(100, process.stdout.columns ?? 160);
    const line = `  ${mark}  ${index} ${test.title}`;
    const tail = kind === 'skipped' ? '' : kind === 'notRun' ? ' (not run)' : ` (${ms(result.duration)})`;
    this.write((line.length + tail.length > width ? line.slice(0, width - tail.length - 1) + '…' : line) + tail + '\n');
  }

  onError(error: TestError): void {
    const stopped = STOPPED.exec(error.message ?? '');
    if (stopped) {
      this.stoppedAfter = Number(stopped[1]);
      return;
    }
    this.errors += 1;
    this.begin();
    this.breakDots();
    this.write(`\nerror outside the checks: ${error.message ?? error.value ?? ''}\n${error.stack ?? ''}\n`);
  }

  onEnd(result: FullResult): void {
    this.begin();
    this.breakDots();
    const c = this.counts;
    const notRunCount = c.notRun + (this.suite?.allTests() ?? []).filter((t) => t.results.length === 0).length;
    const lines = [
      c.failed ? `  ${c.failed} failed (grouped by clause below)` : '',
      c.warnings ? `  ${c.warnings} passed with a warning` : '',
      c.skipped ? `  ${c.skipped} skipped` : '',
      notRunCount
        ? `  ${notRunCount} not run (${this.stoppedAfter !== undefined ? `the run stopped after --max-failures ${this.stoppedAfter}` : `the run ended ${result.status}`})`
        : '',
      `  ${c.passed} passed (${ms(result.duration)})`,
      this.errors ? `  ${this.errors} error${this.errors === 1 ? '' : 's'} outside the checks (above)` : '',
    ];
    this.write('\n' + lines.filter(Boolean).join('\n') + '\n');
  }

  private breakDots(): void {
    if (this.style === 'dot' && this.dots % 80 !== 0) {
      this.write('\n');
      this.dots = 0;
    }
  }
}
