// The defect library as data: every defect names a real, testable clause of the catalogue, ids are unique, and the kill
// matrix applies its rules (skips, other clauses and baseline failures kill nothing).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { DEFECTS, toothless } from '../../../conformance/selftest/defects/index.js';
import { buildMatrix, formatMatrix, type Outcome } from '../../../conformance/selftest/matrix.js';
import { selectDefects } from '../../../cli/commands/self-test.js';
import { fixtureSeedFile } from '../../../conformance/selftest/defects/blind/shared.js';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

describe('defect library', () => {
  test('every defect names a real, testable clause', () => {
    for (const d of DEFECTS) {
      const clause = CLAUSES_BY_ID.get(d.clause);
      assert.ok(clause, `${d.id} names unknown clause ${d.clause}`);
      assert.equal(clause.notTestable, undefined, `${d.id} names ${d.clause}, which is not testable`);
      assert.ok(d.description.length > 0 && !d.description.includes('\n'), `${d.id}: one-line description`);
    }
  });

  test('defect ids are unique and name their part', () => {
    const ids = DEFECTS.map((d) => d.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^[a-z]+\.[\w.-]+$/);
  });

  test('selection by defect id and by clause; unknown names are usage errors', () => {
    assert.deepEqual(
      selectDefects({ defect: ['errors.cart-empty-as-409'] }).map((d) => d.id),
      ['errors.cart-empty-as-409'],
    );
    assert.ok(selectDefects({ clause: ['AUTH-ORDER-3'] }).length >= 2);
    assert.throws(() => selectDefects({ defect: ['no.such'] }), /--defect: no defect no.such/);
    assert.throws(() => selectDefects({ clause: ['NOPE-1'] }), /--clause: no clause NOPE-1/);
    assert.deepEqual(
      selectDefects({ toothless: 'END-PUBLIC-1' }).map((d) => d.id),
      ['selftest.toothless.END-PUBLIC-1'],
    );
  });

  test('a narrowed variant by its id: that cell alone, beside the broad defects named', () => {
    const picked = selectDefects({ defect: ['errors.cart-empty-as-409', 'errors.domain-error-challenge@error=cart_empty'] });
    assert.deepEqual(
      picked.map((d) => d.id),
      ['errors.cart-empty-as-409', 'errors.domain-error-challenge@error=cart_empty'],
    );
    assert.deepEqual(picked[1]!.scope, { of: 'errors.domain-error-challenge', cell: 'error=cart_empty' });
    assert.throws(
      () => selectDefects({ defect: ['errors.domain-error-challenge@error=no_such_code'] }),
      /--defect: no narrowed variant errors.domain-error-challenge@error=no_such_code/,
    );
  });
});

describe('kill matrix rules', () => {
  const d = toothless('END-CONV-2');
  const outcome = (o: Partial<Outcome> & Pick<Outcome, 'project' | 'check'>): Outcome => ({
    status: 'passed',
    failedClauses: [],
    setupFailed: false,
    ...o,
  });
  const matrix = (outcomes: Outcome[]) => buildMatrix({ target: 't', level: 'reference', defects: [d], library: DEFECTS, outcomes });

  test("a check failing on the defect's clause kills it", () => {
    const m = matrix([outcome({ project: d.id, check: 'a', failedClauses: ['END-CONV-2'] }), outcome({ project: d.id, check: 'b' })]);
    assert.equal(m.defects[0]!.verdict, 'killed');
    assert.deepEqual(
      m.defects[0]!.kills.map((k) => k.check),
      ['a'],
    );
    assert.equal(m.summary.killRate, 1);
  });

  test('a skip, a failure on another clause or a timeout that names no clause kill nothing', () => {
    const m = matrix([
      outcome({ project: d.id, check: 'a', status: 'skipped' }),
      outcome({ project: d.id, check: 'b', failedClauses: ['END-CONV-1'] }),
      outcome({ project: d.id, check: 'c', status: 'timedOut' }),
    ]);
    assert.equal(m.defects[0]!.verdict, 'survived');
    assert.deepEqual(m.defects[0]!.skipped, ['a']);
    assert.deepEqual(m.defects[0]!.otherClauses, [
      { check: 'b', failed: ['END-CONV-1'] },
      { check: 'c', failed: ['timedOut'] },
    ]);
    assert.match(formatMatrix(m), /b failed on END-CONV-1; c failed on timedOut/);
  });

  test('a check that fails without the defect (baseline) kills nothing; only skips: unjudged', () => {
    const m = matrix([
      outcome({ project: 'baseline', check: 'a', failedClauses: ['END-CONV-2'] }),
      outcome({ project: d.id, check: 'a', failedClauses: ['END-CONV-2'] }),
    ]);
    assert.equal(m.defects[0]!.verdict, 'unjudged');
    assert.deepEqual(m.defects[0]!.baselineFailing, ['a']);
    assert.match(formatMatrix(m), /UNJUDGED/);
  });

  test('checks left unrun after the first kill are listed apart, not as skips', () => {
    const m = matrix([
      outcome({ project: d.id, check: 'a', failedClauses: ['END-CONV-2'] }),
      outcome({ project: d.id, check: 'b', status: 'skipped', note: 'already killed by a' }),
      outcome({ project: d.id, check: 'c', status: 'skipped', note: 'the profile does not claim the capability "x"' }),
    ]);
    assert.equal(m.defects[0]!.verdict, 'killed');
    assert.deepEqual(m.defects[0]!.afterKill, ['b']);
    assert.deepEqual(m.defects[0]!.skipped, ['c']);
  });

  test('a kill that fails on the baseline too, with checks left unrun: not killed, and those checks named for the makeup', () => {
    const m = matrix([
      outcome({ project: 'baseline', check: 'a', failedClauses: ['END-CONV-2'] }),
      outcome({ project: d.id, check: 'a', failedClauses: ['END-CONV-2'] }),
      outcome({ project: d.id, check: 'b', status: 'skipped', note: 'already killed by a' }),
    ]);
    assert.notEqual(m.defects[0]!.verdict, 'killed');
    assert.deepEqual(m.defects[0]!.afterKill, ['b']);
  });

  test('a defect out of level is neither kill nor survivor, and is named', () => {
    const other = toothless('PUR-SERVE-5');
    const m = buildMatrix({
      target: 't',
      level: 'spec',
      defects: [d],
      outOfLevel: [other],
      library: DEFECTS,
      outcomes: [outcome({ project: d.id, check: 'a', failedClauses: ['END-CONV-2'] })],
    });
    assert.deepEqual(m.summary, { defects: 1, killed: 1, survived: 0, unjudged: 0, killRate: 1 });
    assert.deepEqual(m.outOfLevel, [{ id: other.id, clause: 'PUR-SERVE-5', why: 'no check judges its clause at this level' }]);
    assert.match(
      formatMatrix(m),
      /Out of level spec \(1; set aside, neither killed nor survived\):\n {2}selftest\.toothless\.PUR-SERVE-5 \(PUR-SERVE-5\): no check/,
    );
  });

  test('clauses without a defect are listed as uncovered', () => {
    const m = matrix([]);
    const covered = new Set(DEFECTS.map((x) => x.clause));
    assert.equal(m.uncovered.length, m.coverage.testable - m.coverage.covered);
    for (const c of m.uncovered) assert.ok(!covered.has(c));
  });

  test('every testable clause has a defect (a clause repeating another needs none)', () => {
    assert.deepEqual(matrix([]).uncovered, []);
  });
});

test("the blind defects find the fixture seed from the package's root, as from dist/ (not by a path relative to the source)", () => {
  const file = fixtureSeedFile();
  assert.equal(file, fileURLToPath(new URL('../../../fixtures/seed.json', import.meta.url)));
  assert.ok(existsSync(file));
  const sources = ['purpose.ts', 'endpoints.ts'].map((f) =>
    readFileSync(fileURLToPath(new URL(`../../../conformance/selftest/defects/blind/${f}`, import.meta.url)), 'utf8'),
  );
  for (const source of sources) assert.doesNotMatch(source, /fixtures\/seed\.json/);
});
