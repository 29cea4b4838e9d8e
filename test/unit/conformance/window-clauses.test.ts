// The window clauses (test/helpers/window-clauses.ts) that the bench proves at 300 ms and npm test at 40 ms: each a
// testable clause of the catalogue, named once, with a reason; the short run's part among them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { SHORT_WINDOW_CLAUSE_IDS, WINDOW_CLAUSE_IDS, WINDOW_CLAUSES } from '../../helpers/window-clauses.js';

test('every window clause is a testable clause of the catalogue, named once, with why', () => {
  for (const c of WINDOW_CLAUSES) {
    const clause = CLAUSES_BY_ID.get(c.id);
    assert.ok(clause, `${c.id} is not in the catalogue`);
    assert.equal(clause.notTestable, undefined, `${c.id} is not testable: no check can prove it at any latency`);
    assert.ok(c.why.length > 10, `${c.id} says why it is a window clause`);
  }
  assert.equal(new Set(WINDOW_CLAUSE_IDS).size, WINDOW_CLAUSE_IDS.length);
});

test('the spec rows that state a window or an interval are among them', () => {
  for (const id of ['LIM-RATE-1', 'LIM-RATE-2', 'LIM-RATE-3', 'AUTH-ASST-11', 'EVT-WEBHOOK-5', 'EVT-STREAM-1', 'LIM-DOCS-1'])
    assert.ok(WINDOW_CLAUSE_IDS.includes(id), id);
});

test("npm test's short latency run takes the budget and replay clauses, a part of the list", () => {
  assert.ok(SHORT_WINDOW_CLAUSE_IDS.length > 0);
  assert.ok(SHORT_WINDOW_CLAUSE_IDS.every((id) => WINDOW_CLAUSE_IDS.includes(id)));
  assert.ok(SHORT_WINDOW_CLAUSE_IDS.length < WINDOW_CLAUSE_IDS.length);
});
