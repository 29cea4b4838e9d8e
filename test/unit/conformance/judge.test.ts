// The verdict of a check from its failure ledger (conformance/engine/runner/judge.ts), and the record that carries it to the
// reporters (conformance/engine/report/check-record.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, severityOf } from '../../../conformance/engine/runner/judge.js';
import { decodeRecord, encodeRecord, firstLine, recordOf, type FailureRecord } from '../../../conformance/engine/report/check-record.js';
import { CheckFailure } from '../../../conformance/lib/assert.js';

const MUST = 'ERR-TABLE-1';
const MUST2 = 'RES-PROBLEM-4';
const SHOULD = 'AUTH-GUEST-15';
const failure = (clauses: string[], extra: Partial<FailureRecord> = {}): FailureRecord => ({
  clauses,
  what: 'status',
  expected: 401,
  actual: 400,
  message: `[${clauses.join(', ')}] status: expected 401, got 400`,
  ...extra,
});

test('judge: no failure passes, and every cited clause is judged', () => {
  const v = judge({ clauses: [MUST, MUST2], soft: [], strict: false });
  assert.equal(v.outcome, 'passed');
  assert.deepEqual(v.blamed, []);
  assert.equal(v.completed, true);
});

test('judge: soft failures blame the clauses they name; the check ran to its end, so the others passed', () => {
  const v = judge({ clauses: [MUST, MUST2], soft: [failure([MUST2]), failure([MUST2])], strict: false });
  assert.equal(v.outcome, 'failed');
  assert.deepEqual(v.blamed, [MUST2]);
  assert.deepEqual(v.others, [MUST]);
  assert.equal(v.completed, true);
  assert.equal(v.severity, 'MUST');
});

test('judge: a hard failure comes first, stops the check (others not reached) and, naming no clause, blames every one', () => {
  const named = judge({ clauses: [MUST, MUST2], hard: failure([MUST]), soft: [failure([SHOULD])], strict: false });
  assert.deepEqual(named.blamed, [SHOULD, MUST]);
  assert.equal(named.completed, false);
  assert.equal(named.failures[0]!.clauses[0], MUST, 'the hard failure first');
  const crash = judge({ clauses: [MUST, MUST2], hard: failure([]), soft: [], strict: false });
  assert.deepEqual(crash.blamed, [MUST, MUST2]);
  assert.deepEqual(crash.others, []);
});

test('judge: a failure of SHOULD clauses only is a warning unless strict; one MUST among them fails', () => {
  assert.equal(judge({ clauses: [MUST, SHOULD], soft: [failure([SHOULD])], strict: false }).outcome, 'warning');
  assert.equal(judge({ clauses: [MUST, SHOULD], soft: [failure([SHOULD])], strict: true }).outcome, 'failed');
  assert.equal(judge({ clauses: [SHOULD], soft: [failure([SHOULD]), failure([MUST])], strict: false }).outcome, 'failed');
  assert.equal(severityOf([SHOULD]), 'SHOULD');
  assert.equal(severityOf([SHOULD, MUST]), 'MUST');
});

test('judge: a refused setup is told apart', () => {
  assert.equal(judge({ clauses: [MUST], hard: failure([MUST], { setup: true }), soft: [], strict: false }).setup, true);
  assert.equal(judge({ clauses: [MUST], hard: failure([MUST]), soft: [], strict: false }).setup, false);
});

test('records: a CheckFailure keeps clause, expected, actual and its exchange; a crash names no clause; credentials are redacted', () => {
  const redact = (_n: string | null, v: string) => v.replace(/secret-\w+/g, '<redacted>');
  const err = new CheckFailure('Authorization echoed', { expected: 'absent', actual: { token: 'secret-abc' }, clause: [MUST, MUST2] });
  err.exchange = 3;
  const r = recordOf(err, redact, 5);
  assert.deepEqual(r, {
    clauses: [MUST, MUST2],
    what: 'Authorization echoed',
    expected: 'absent',
    actual: { token: '<redacted>' },
    message: `[${MUST}, ${MUST2}] Authorization echoed: expected "absent", got {"token":"<redacted>"}`,
    exchange: 3,
  });
  const crash = recordOf(new TypeError('x is undefined (secret-abc)'), redact, 0);
  assert.deepEqual(crash, {
    clauses: [],
    what: 'x is undefined (<redacted>)',
    expected: undefined,
    actual: undefined,
    message: 'x is undefined (<redacted>)',
  });
  const setup = recordOf(new CheckFailure('GET /x', { expected: 200, actual: 500, clause: MUST, setup: true }), redact, 1);
  assert.equal(setup.setup, true);
  assert.equal(setup.exchange, 1);
});

test('records: encoded in one annotation and decoded back; a malformed one is refused, an absent one is undefined', () => {
  const record = {
    outcome: 'failed' as const,
    blamed: [MUST],
    completed: false,
    setup: false,
    failures: [failure([MUST], { message: 'one\ntwo' })],
  };
  const annotation = encodeRecord(record);
  assert.deepEqual(decodeRecord([{ type: 'check', description: 'x' }, annotation]), record);
  assert.equal(firstLine(record), 'one');
  assert.equal(decodeRecord([{ type: 'check', description: 'x' }]), undefined);
  assert.throws(() => decodeRecord([{ type: annotation.type, description: '{"outcome":"maybe","blamed":[],"failures":[]}' }]), /malformed/);
});
