import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import KeepWorkerReporter from '../../../conformance/engine/runner/keep-worker.js';
import { encodeRecord, type CheckRecord } from '../../../conformance/engine/report/check-record.js';

const record = (outcome: CheckRecord['outcome']) =>
  encodeRecord({ outcome, blamed: ['ERR-TABLE-1'], completed: true, setup: false, failures: [] });

const caseOf = (expectedStatus: TestCase['expectedStatus'], annotations: { type: string; description?: string }[], status = 'failed') => {
  const test = { expectedStatus, annotations: [{ type: 'clause', description: 'x' }] } as unknown as TestCase;
  const result = { status, annotations: [...annotations] } as unknown as TestResult;
  return { test, result };
};

test('keep-worker: a conformance failure marked expected in the worker is an unexpected failure for every later reporter', () => {
  const { test: t, result } = caseOf('failed', [record('failed')]);
  new KeepWorkerReporter().onTestEnd(t, result);
  assert.equal(t.expectedStatus, 'passed');
  assert.equal(result.annotations.length, 1, 'the record stays for the reporters that read it');
});

test('keep-worker: any other expected failure (a test.fail() of its own, a warning, no record) is left as it is', () => {
  for (const annotations of [[], [record('warning')], [{ type: 'note', description: 'x' }]]) {
    const { test: t, result } = caseOf('failed', annotations);
    new KeepWorkerReporter().onTestEnd(t, result);
    assert.equal(t.expectedStatus, 'failed');
  }
  const passing = caseOf('passed', [record('failed')], 'passed');
  new KeepWorkerReporter().onTestEnd(passing.test, passing.result);
  assert.equal(passing.test.expectedStatus, 'passed');
});
