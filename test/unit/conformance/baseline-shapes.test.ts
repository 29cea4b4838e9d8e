// Malformed baselines (run --expected-failures, fixtures/expected-failures.schema.json): each shape is refused with one
// line naming the file and the field, before any run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaselineError, readBaseline } from '../../../conformance/engine/report/baseline.js';

const entry = { clause: 'ERR-TABLE-1', reason: 'known', expires: '2099-12-31' };
const SHAPES: [string, string, RegExp][] = [
  ['not JSON', '{"expectedFailures": [', /: not JSON$/],
  ['no list', '{}', /: expectedFailures: /],
  ['a list of strings', '{"expectedFailures": ["ERR-TABLE-1"]}', /: expectedFailures\.0: /],
  ['an unknown member at the root', JSON.stringify({ expectedFailures: [], failures: [] }), /: \(root\): .*failures/],
  ['an unknown member in an entry', JSON.stringify({ expectedFailures: [{ ...entry, until: 'x' }] }), /: expectedFailures\.0: .*until/],
  [
    'both a check and a clause',
    JSON.stringify({ expectedFailures: [{ ...entry, check: 'a.b' }] }),
    /: expectedFailures\.0\.check: names either/,
  ],
  [
    'neither a check nor a clause',
    JSON.stringify({ expectedFailures: [{ reason: 'r', expires: '2099-12-31' }] }),
    /: expectedFailures\.0\.check: names either/,
  ],
  [
    'no reason',
    JSON.stringify({ expectedFailures: [{ clause: 'ERR-TABLE-1', expires: '2099-12-31' }] }),
    /: expectedFailures\.0\.reason: /,
  ],
  ['an empty reason', JSON.stringify({ expectedFailures: [{ ...entry, reason: '' }] }), /: expectedFailures\.0\.reason: /],
  [
    'a date that is not ISO',
    JSON.stringify({ expectedFailures: [{ ...entry, expires: '31/12/2099' }] }),
    /: expectedFailures\.0\.expires: an ISO date/,
  ],
  [
    'an impossible date',
    JSON.stringify({ expectedFailures: [{ ...entry, expires: '2099-02-30' }] }),
    /: expectedFailures\.0\.expires: an ISO date/,
  ],
];

for (const [shape, text, says] of SHAPES) {
  test(`a baseline with ${shape}: one line naming the file and the field`, () => {
    const file = join(mkdtempSync(join(tmpdir(), 'shop-baseline-')), 'expected-failures.json');
    writeFileSync(file, text);
    assert.throws(
      () => readBaseline(file),
      (err: unknown) => {
        assert.ok(err instanceof BaselineError);
        assert.equal(err.message.split('\n').length, 1, err.message);
        assert.ok(err.message.startsWith(`${file}: `), err.message);
        assert.match(err.message, says);
        return true;
      },
    );
  });
}

test('a well-formed baseline, with its $schema, is read', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shop-baseline-')), 'expected-failures.json');
  writeFileSync(
    file,
    JSON.stringify({
      $schema: './expected-failures.schema.json',
      expectedFailures: [entry, { ...entry, clause: undefined, check: 'a.b' }],
    }),
  );
  assert.equal(readBaseline(file).expectedFailures.length, 2);
});
