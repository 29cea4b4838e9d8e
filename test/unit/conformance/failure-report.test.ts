// The failure report (conformance/engine/report/failure-report.ts): failed checks grouped by the clause they broke, one example
// each with the exchange it was judged on, the others counted, a rerun command; bounded however many checks failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatFailureReport, groupByClause, type FailedCheck } from '../../../conformance/engine/report/failure-report.js';
import { exchangeOf } from '../../../conformance/engine/transport/transcript.js';

const dir = mkdtempSync(join(tmpdir(), 'failure-report-'));
const transcript = join(dir, 'transcript.txt');
writeFileSync(
  transcript,
  [
    '### exchange 1 of 2',
    "$ curl -i -X GET 'http://shop/v1/cart'",
    '< 401 (2 ms)',
    '',
    '### exchange 2 of 2',
    "$ curl -i -X GET 'http://shop/v1/me'",
    '< 200 (1 ms)',
    '< content-type: application/json',
    '',
    '{"id":"cust_ada"}',
  ].join('\n'),
);

const failedOn = (id: string, clauses: string[], exchange?: number): FailedCheck => ({
  id,
  reason: `[${clauses.join(', ')}] X-Request-Id header: expected "present", got null`,
  transcript,
  record: {
    outcome: 'failed',
    blamed: clauses,
    completed: false,
    setup: false,
    failures: [
      {
        clauses,
        what: 'X-Request-Id header',
        expected: 'present',
        actual: null,
        message: `[${clauses.join(', ')}] X-Request-Id header: expected "present", got null`,
        ...(exchange ? { exchange } : {}),
      },
    ],
  },
});

test('an exchange is found in a transcript by its heading, blank lines of its body included', () => {
  assert.equal(exchangeOf('### exchange 1 of 1\n$ curl x\n< 200 (1 ms)\n\n{}\n', 1), '$ curl x\n< 200 (1 ms)\n\n{}');
  assert.equal(exchangeOf('### exchange 1 of 1\n$ curl x', 2), undefined);
});

test('failures are grouped by clause, the most-failed first; a check breaking two clauses is in both', () => {
  const groups = groupByClause([
    failedOn('b.check', ['ERR-PROBLEM-7']),
    failedOn('a.check', ['ERR-PROBLEM-7', 'AUTH-ORDER-2']),
    failedOn('c.check', ['RES-PROBLEM-4']),
  ]);
  assert.deepEqual(
    groups.map((g) => [g.clause, g.checks.map((c) => c.id)]),
    [
      ['ERR-PROBLEM-7', ['a.check', 'b.check']],
      ['AUTH-ORDER-2', ['a.check']],
      ['RES-PROBLEM-4', ['c.check']],
    ],
  );
});

test('each group: the clause, one example with the exchange it was judged on, the others counted, the rerun command', () => {
  const text = formatFailureReport(
    [failedOn('a.check', ['ERR-PROBLEM-7'], 2), failedOn('b.check', ['ERR-PROBLEM-7'], 1), failedOn('c.check', ['ERR-PROBLEM-7'])],
    { repro: (id) => `npx shop-conformance run --repro ${id} --base-url http://shop`, width: 200 },
  );
  assert.match(text, /^Failures by clause \(3 failed checks on 1 clause\):$/m);
  assert.match(text, /^FAIL ERR-PROBLEM-7 MUST: Every response, success or failure, carries an X-Request-Id header\.$/m);
  assert.match(text, /^ {2}e\.g\. \[a\.check\] \[ERR-PROBLEM-7\] X-Request-Id header/m);
  assert.match(
    text,
    new RegExp(`^ {4}judged on exchange 2 of ${transcript}:\\n {6}\\$ curl -i -X GET 'http://shop/v1/me'\\n {6}< 200`, 'm'),
  );
  assert.doesNotMatch(text, /v1\/cart/, 'only the judged exchange');
  assert.match(text, /^ {2}and 2 other checks: b\.check, c\.check$/m);
  assert.match(text, /^ {2}rerun it: npx shop-conformance run --repro a\.check --base-url http:\/\/shop$/m);
});

test('bounded: past the detailed groups a clause gets one line; each group shows a different example where it can', () => {
  const clauses = ['ERR-PROBLEM-7', 'AUTH-ORDER-2', 'RES-PROBLEM-8', 'RES-PROBLEM-4', 'ERR-TABLE-1'];
  const failed = Array.from({ length: 200 }, (_, i) =>
    failedOn(`check.${String(i).padStart(3, '0')}`, [clauses[i % clauses.length]!, 'ERR-PROBLEM-7'], 2),
  );
  const text = formatFailureReport(failed, { repro: (id) => `rerun ${id}`, width: 120, detailed: 2 });
  assert.ok(text.split('\n').length < 40, text);
  assert.match(text, /^3 more clause\(s\), one line each:$/m);
  const examples = [...text.matchAll(/^ {2}e\.g\. \[([\w.]+)\]/gm)].map((m) => m[1]);
  assert.equal(new Set(examples).size, examples.length, 'no example twice');
  for (const line of text.split('\n')) if (!line.includes(transcript)) assert.ok(line.length <= 120, line);
});
