// The self-test's reporter: the raw outcome of every check in every project (defect or baseline), written to
// self-test-outcomes.json for the CLI to build the kill matrix (conformance/selftest/matrix.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { decodeRecord, firstLine } from '../engine/report/check-record.js';
import { runPlan } from '../engine/runner/plan.js';
import type { Outcome } from './matrix.js';
import { isBaseline, SELFTEST_PROJECT } from './plan.js';

export default class SelfTestReporter implements Reporter {
  private outcomes: Outcome[] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...result.annotations];
    // A check's copy names its plan project (plan.ts); Playwright's own project is one for all.
    const project = annotations.find((a) => a.type === SELFTEST_PROJECT)?.description ?? test.parent.project()?.name ?? '';
    // The check's verdict as data (engine/report/check-record.ts); a failure it did not judge has only Playwright's error.
    const record = decodeRecord(annotations);
    const failedClauses = record?.blamed ?? [];
    const note =
      (record ? firstLine(record) : annotations.find((a) => a.type === 'skip')?.description) ?? result.error?.message?.split('\n')[0];
    this.outcomes.push({
      project,
      tags: test.tags.map((t) => t.replace(/^@/, '')),
      check: annotations.find((a) => a.type === 'check')?.description ?? test.title,
      status: result.status,
      failedClauses,
      setupFailed: record?.setup === true,
      ...(note ? { note: note.slice(0, 300) } : {}),
      // The baseline's cells of clause domains (engine/report/cells.ts): which checks reach which cell (scoped.ts, screening).
      ...(isBaseline(project) ? { cells: JSON.parse(annotations.find((a) => a.type === 'cells')?.description ?? '[]') as string[] } : {}),
    });
  }

  onEnd(): void {
    const dir = runPlan().output.dir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'self-test-outcomes.json'), JSON.stringify(this.outcomes) + '\n');
  }
}
