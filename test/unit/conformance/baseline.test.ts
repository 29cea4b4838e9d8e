// Expected failures and run comparison (conformance/engine/report/baseline.ts): pure, on hand-made reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyBaseline, compareRuns, readBaseline, type Baseline, type RunReport } from '../../../conformance/engine/report/baseline.js';
import type { CheckOutcome, ClauseRow } from '../../../conformance/engine/report/verdicts.js';

const check = (id: string, status: CheckOutcome['status'], clauses: string[], failedClauses?: string[]): CheckOutcome =>
  ({ id, title: id, clauses, status, ...(failedClauses ? { failedClauses } : {}) }) as CheckOutcome;
const row = (id: string, verdict: ClauseRow['verdict']) => ({ id, verdict }) as ClauseRow;
const report = (checks: CheckOutcome[], clauses: ClauseRow[]): RunReport => ({ target: 'http://x', level: 'spec', checks, clauses });
const TODAY = '2026-11-24';
const entry = (what: { check: string } | { clause: string }, expires = '2027-01-31') => ({ ...what, reason: 'known', expires });

test('listed failures, by check or by every failed clause, do not fail the run', () => {
  const r = report(
    [
      check('a', 'failed', ['ERR-PROBLEM-1']),
      check('b', 'failed', ['AUTH-GUEST-4', 'LIM-RATE-1'], ['AUTH-GUEST-4']),
      check('c', 'passed', ['X-1']),
    ],
    [row('ERR-PROBLEM-1', 'failed'), row('AUTH-GUEST-4', 'failed'), row('LIM-RATE-1', 'passed')],
  );
  const v = applyBaseline(r, { expectedFailures: [entry({ check: 'a' }), entry({ clause: 'AUTH-GUEST-4' })] }, TODAY);
  assert.equal(v.ok, true);
  assert.deepEqual(
    v.expected.map((e) => e.check),
    ['a', 'b'],
  );
});

test('a failure not listed, or failing on one clause more than listed, fails the run', () => {
  const r = report([check('b', 'failed', ['AUTH-GUEST-4', 'LIM-RATE-1'], ['AUTH-GUEST-4', 'LIM-RATE-1'])], []);
  const v = applyBaseline(r, { expectedFailures: [entry({ clause: 'AUTH-GUEST-4' })] }, TODAY);
  assert.equal(v.ok, false);
  assert.deepEqual(v.unexpected, ['b']);
});

test('a listed check or clause that passes is stale, an expired entry fails, an unjudged one is only reported', () => {
  const r = report(
    [check('a', 'passed', ['ERR-PROBLEM-1']), check('z', 'failed', ['Z-1'])],
    [row('LIM-RATE-1', 'passed'), row('Z-1', 'failed')],
  );
  const b: Baseline = {
    expectedFailures: [
      entry({ check: 'a' }),
      entry({ clause: 'LIM-RATE-1' }),
      entry({ check: 'z' }, '2026-11-01'),
      entry({ check: 'gone' }),
    ],
  };
  const v = applyBaseline(r, b, TODAY);
  assert.equal(v.ok, false);
  assert.equal(v.stale.length, 2);
  assert.match(v.expired[0]!, /check z expired on 2026-11-01/);
  assert.match(v.unjudged[0]!, /check gone/);
  assert.equal(applyBaseline(r, { expectedFailures: [entry({ check: 'z' })] }, TODAY).ok, true, 'the same entry before its date');
});

test('readBaseline: one line naming the file and the field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baseline-'));
  const file = join(dir, 'expected.json');
  writeFileSync(file, JSON.stringify({ expectedFailures: [{ check: 'a', reason: 'x', expires: 'soon' }] }));
  assert.throws(
    () => readBaseline(file),
    (e: Error) => e.message.startsWith(`${file}: expectedFailures.0`) && !e.message.includes('\n'),
  );
  writeFileSync(file, '{');
  assert.throws(() => readBaseline(file), new RegExp(`${file}: not JSON`));
  assert.throws(() => readBaseline(join(dir, 'none.json')), /no such file/);
});

test('compareRuns: new failures, fixed checks, changed clause verdicts', () => {
  const before = report([check('a', 'failed', ['A-1']), check('b', 'passed', ['B-1'])], [row('A-1', 'failed'), row('B-1', 'passed')]);
  const after = report(
    [check('a', 'passed', ['A-1']), check('b', 'failed', ['B-1']), check('c', 'failed', ['C-1'])],
    [row('A-1', 'passed'), row('B-1', 'failed')],
  );
  assert.deepEqual(compareRuns(before, after), {
    newFailures: ['b', 'c'],
    fixed: ['a'],
    changed: ['A-1: failed -> passed', 'B-1: passed -> failed'],
  });
});
