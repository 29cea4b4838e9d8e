// Completeness is itself a test: every clause of the catalogue has a check, a notTestable reason, or a pending entry naming
// what its checks wait for; a pending entry that already has a check is stale and fails, like an outdated baseline.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES, CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { PENDING } from '../../../contract/clauses/pending.js';
import { listChecks, type CheckListing } from '../../../conformance/engine/runner/list.js';

let checks: CheckListing[];
before(async () => {
  checks = await listChecks();
});

const covered = () => new Set(checks.flatMap((c) => c.clauses));

test('every clause has a check, a notTestable reason or a pending entry', () => {
  const have = covered();
  const missing = CLAUSES.filter((c) => !have.has(c.id) && !c.notTestable && !PENDING[c.id]).map((c) => `${c.id}: ${c.text}`);
  assert.deepEqual(missing, [], `clauses without a check:\n${missing.join('\n')}`);
});

test('no pending entry is stale, unknown or not testable', () => {
  const have = covered();
  for (const id of Object.keys(PENDING)) {
    assert.ok(CLAUSES_BY_ID.has(id), `pending names unknown clause ${id}`);
    assert.ok(!have.has(id), `${id} has a check now: remove it from contract/clauses/pending.ts`);
    assert.ok(!CLAUSES_BY_ID.get(id)!.notTestable, `${id} is notTestable and pending at once`);
  }
});

test('every check cites clauses, has a unique id and a level', () => {
  assert.ok(checks.length > 100, `only ${checks.length} checks listed`);
  const ids = new Set<string>();
  for (const c of checks) {
    assert.ok(c.clauses.length > 0, `${c.id} cites no clause`);
    assert.ok(!ids.has(c.id), `duplicate check id ${c.id}`);
    ids.add(c.id);
    assert.ok(c.level === 'spec' || c.level === 'reference');
    if (c.level === 'reference') assert.match(c.id, /\.reference$|\.ref$/, `${c.id}: reference-level check ids end in .reference`);
  }
});

test('every MUST clause with checks has at least one spec-level check, unless only the reference shape is testable', () => {
  const specCovered = new Set(checks.filter((c) => c.level === 'spec').flatMap((c) => c.clauses));
  const onlyReference = CLAUSES.filter((c) => checks.some((k) => k.clauses.includes(c.id)) && !specCovered.has(c.id)).map((c) => c.id);
  // A clause covered only at the reference level is judged for no alternate implementation: keep this list short and known.
  assert.ok(onlyReference.length <= 10, `clauses covered only at the reference level: ${onlyReference.join(', ')}`);
});
