// Playwright writes an `error-context.md` beside every failed test and attaches it: a prompt for a language model ("Explain
// why, be concise, ...") followed by the error the report already shows. A check's failure is its transcript and record,
// so this reporter, early in the list, deletes the file and drops the attachment before any other reporter sees it.
import { rmSync } from 'node:fs';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class DropErrorContextReporter implements Reporter {
  onTestEnd(_test: TestCase, result: TestResult): void {
    for (let i = result.attachments.length - 1; i >= 0; i--) {
      const a = result.attachments[i]!;
      if (a.name !== 'error-context') continue;
      if (a.path) rmSync(a.path, { force: true });
      result.attachments.splice(i, 1);
    }
  }

  printsToStdio(): boolean {
    return false;
  }
}
