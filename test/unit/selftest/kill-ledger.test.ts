// The self-test's first kill: what workers tell each other through the ledger directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killedBy, killingClauses, recordKill } from '../../../conformance/selftest/kill-ledger.js';
import { CLAUSES } from '../../../contract/clauses/index.js';

test('a kill is read back by any worker, with the check that made it; other defects stay unkilled', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'ledger-')), 'kills');
  try {
    assert.equal(killedBy(dir, 'auth.no-token@caller=guest'), undefined, 'no directory yet: nothing killed');
    recordKill(dir, 'auth.no-token@caller=guest', 'auth.guest.five');
    assert.equal(killedBy(dir, 'auth.no-token@caller=guest'), 'auth.guest.five');
    assert.equal(killedBy(dir, 'auth.no-token@caller=customer'), undefined);
    assert.equal(killedBy(dir, 'auth.no-token'), undefined);
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

test('a failure of the clause a defect breaks, or of the clause that clause repeats, kills it', () => {
  const repetition = CLAUSES.find((c) => c.repeats?.length);
  assert.ok(repetition, 'the catalogue holds a repetition');
  assert.deepEqual(killingClauses(repetition.id), [repetition.id, ...repetition.repeats!]);
  assert.deepEqual(killingClauses('PUR-SERVE-1'), ['PUR-SERVE-1']);
});

function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}
