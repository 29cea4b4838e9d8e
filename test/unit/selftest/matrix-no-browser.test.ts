// The kill matrix on a machine without Chromium: a defect that no check killed while a browser check was skipped for lack
// of a browser is unjudged (no browser), never a survivor, and does not fail the self-test; the printed counts equal the
// rows listed under them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFECTS, toothless } from '../../../conformance/selftest/defects/index.js';
import { buildMatrix, formatMatrix, matrixPasses, type Outcome } from '../../../conformance/selftest/matrix.js';

const outcome = (o: Partial<Outcome> & Pick<Outcome, 'project' | 'check'>): Outcome => ({
  status: 'passed',
  failedClauses: [],
  setupFailed: false,
  ...o,
});
const noBrowser = "no browser at /usr/bin/chromium (install Debian's chromium, or set SHOP_CONFORMANCE_CHROMIUM)";

describe('kill matrix without a browser', () => {
  const cors = toothless('PUR-PROTO-3');
  const killedOne = toothless('END-CONV-2');
  const survivor = toothless('END-PUBLIC-1');
  const matrix = (outcomes: Outcome[]) =>
    buildMatrix({ target: 't', level: 'spec', defects: [cors, killedOne, survivor], library: DEFECTS, outcomes });
  const outcomes: Outcome[] = [
    // The header checks passed; the browser check, the only one that could have seen it, was skipped for lack of Chromium.
    outcome({ project: cors.id, check: 'purpose.no-cors.requests' }),
    outcome({ project: cors.id, check: 'purpose.no-cors.browser', status: 'skipped', note: noBrowser }),
    outcome({ project: killedOne.id, check: 'a', status: 'failed', failedClauses: ['END-CONV-2'] }),
    outcome({ project: survivor.id, check: 'endpoints.public.health' }),
  ];

  test('the defect whose would-be killer was skipped for lack of a browser is unjudged (no browser), not a survivor', () => {
    const m = matrix(outcomes);
    const row = m.defects.find((d) => d.id === cors.id)!;
    assert.equal(row.verdict, 'unjudged');
    assert.equal(row.reason, 'no browser');
    assert.deepEqual(row.skipped, ['purpose.no-cors.browser']);
    assert.deepEqual(m.summary, { defects: 3, killed: 1, survived: 1, unjudged: 1, killRate: 1 / 3 });
    // The survivor still fails the self-test.
    assert.equal(matrixPasses(m), false);
  });

  test('a browser check skipped for another reason leaves the defect a survivor', () => {
    const m = matrix(outcomes.map((x) => (x.note === noBrowser ? { ...x, note: 'capability assistants not claimed' } : x)));
    assert.equal(m.defects.find((d) => d.id === cors.id)!.verdict, 'survived');
    assert.equal(m.summary.survived, 2);
    assert.equal(m.summary.unjudged, 0);
  });

  test('killed and no-browser defects alone pass the self-test', () => {
    const m = buildMatrix({ target: 't', level: 'spec', defects: [cors, killedOne], library: DEFECTS, outcomes });
    assert.equal(matrixPasses(m), true);
    assert.match(
      formatMatrix(m),
      /UNJUDGED selftest\.toothless\.PUR-PROTO-3\s+PUR-PROTO-3\s+no browser \(skipped: purpose\.no-cors\.browser; passed: purpose\.no-cors\.requests\)/,
    );
  });

  test('the printed counts equal the rows listed under them', () => {
    const text = formatMatrix(matrix(outcomes));
    const count = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(text)?.[1]);
    const listed = (name: string) => (new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1] ?? '').split(/, (?=selftest)/).filter(Boolean);
    assert.equal(count('survivors'), 1);
    assert.deepEqual(listed('Survivors'), ['selftest.toothless.END-PUBLIC-1 (END-PUBLIC-1)']);
    assert.equal(count('unjudged'), 1);
    assert.deepEqual(listed('Unjudged'), ['selftest.toothless.PUR-PROTO-3 (PUR-PROTO-3; no browser)']);
    assert.match(text, /unjudged: 1 \(1 for lack of a browser\)/);
    assert.equal(text.match(/^ {2}(KILLED|SURVIVED|UNJUDGED)/gm)?.length, 3);
  });
});
