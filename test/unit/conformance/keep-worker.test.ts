import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import KeepWorkerReporter, { CONFORMANCE_FAILURE } from '../../../conformance/engine/keep-worker.js';

const caseOf = (expectedStatus: TestCase['expectedStatus'], types: string[]) => {
  const annotations = types.map((type) => ({ type, description: '' }));
  const test = { expectedStatus, annotations: [...annotations] } as unknown as TestCase;
  const result = { status: 'failed', annotations: [...annotations] } as unknown as TestResult;
  return { test, result };
};

test('keep-worker: a conformance failure marked expected in the worker is an unexpected failure for every later reporter', () => {
  const { test: t, result } = caseOf('failed', ['clause', CONFORMANCE_FAILURE]);
  new KeepWorkerReporter().onTestEnd(t, result);
  assert.equal(t.expectedStatus, 'passed');
  assert.deepEqual(
    t.annotations.map((a) => a.type),
    ['clause'],
  );
  assert.deepEqual(
    result.annotations.map((a) => a.type),
    ['clause'],
  );
});

test('keep-worker: any other expected failure (a test.fail() of its own, no annotation) is left as it is', () => {
  const { test: t, result } = caseOf('failed', ['clause']);
  new KeepWorkerReporter().onTestEnd(t, result);
  assert.equal(t.expectedStatus, 'failed');
  const passing = caseOf('passed', [CONFORMANCE_FAILURE]);
  new KeepWorkerReporter().onTestEnd(passing.test, passing.result);
  assert.equal(passing.test.expectedStatus, 'passed');
});
