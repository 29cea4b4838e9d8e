// Unchanged/changed comparisons that tolerate per-response members: a table of differences, and baselines whose noise is
// ignored while a real change is still seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  baselineOf,
  changesFrom,
  expectChanged,
  expectUnchanged,
  jsonDifferences,
  readBaseline,
} from '../../../conformance/lib/compare.js';
import { CheckFailure } from '../../../conformance/lib/assert.js';

const vectors: { description: string; a: unknown; b: unknown; expected: string[] }[] = [
  { description: 'equal objects, members in another order', a: { x: 1, y: [1, 2] }, b: { y: [1, 2], x: 1 }, expected: [] },
  { description: 'a leaf differs', a: { x: 1, y: { z: 'a' } }, b: { x: 1, y: { z: 'b' } }, expected: ['/y/z'] },
  { description: 'a member on one side only', a: { x: 1 }, b: { x: 1, t: 'now' }, expected: ['/t'] },
  { description: 'an array of another length differs as a whole', a: { lines: [1] }, b: { lines: [1, 2] }, expected: ['/lines'] },
  { description: 'items compared in order', a: [{ q: 1 }, { q: 2 }], b: [{ q: 1 }, { q: 3 }], expected: ['/1/q'] },
  {
    description: 'names with / and ~ are escaped (RFC 6901)',
    a: { 'a/b': 1, 'c~d': 1 },
    b: { 'a/b': 2, 'c~d': 2 },
    expected: ['/a~1b', '/c~0d'],
  },
  { description: 'another type', a: { x: [] }, b: { x: {} }, expected: ['/x'] },
  { description: 'texts', a: 'abc', b: 'abd', expected: [''] },
  { description: 'null and absent are different', a: { x: null }, b: {}, expected: ['/x'] },
];

for (const v of vectors) {
  test(`jsonDifferences: ${v.description}`, () => assert.deepEqual(jsonDifferences(v.a, v.b), v.expected));
}

const read = (body: unknown, status = 200) => ({ status, body, text: JSON.stringify(body) });
const cart = (quantity: number, served: string) => ({ id: 'c1', lines: [{ variant_id: 'var_0101', quantity }], served_at: served });

test('members that differ between two reads of the unchanged resource are noise; a real change is still seen', () => {
  const baseline = baselineOf(read(cart(1, 't1')), read(cart(1, 't2')));
  assert.deepEqual(baseline.noise, ['/served_at']);
  assert.deepEqual(changesFrom(baseline, read(cart(1, 't3'))), []);
  expectUnchanged(baseline, read(cart(1, 't3')), { what: 'cart' });
  assert.deepEqual(changesFrom(baseline, read(cart(2, 't3'))), ['/lines/0/quantity']);
  assert.throws(
    () => expectUnchanged(baseline, read(cart(2, 't3')), { what: 'cart', clause: 'AUTH-CUST-2' }),
    (err: unknown) => {
      assert.ok(err instanceof CheckFailure);
      assert.equal(err.clause, 'AUTH-CUST-2');
      assert.match(err.message, /differs at \/lines\/0\/quantity/);
      assert.match(err.message, /ignoring .*\/served_at/);
      return true;
    },
  );
});

test('without noise, any difference is a change; another status is a change', () => {
  const baseline = baselineOf(read(cart(1, 't1')), read(cart(1, 't1')));
  assert.deepEqual(baseline.noise, []);
  assert.deepEqual(changesFrom(baseline, read(cart(1, 't2'))), ['/served_at']);
  assert.deepEqual(changesFrom(baseline, read(cart(1, 't1'), 404)), ['status']);
});

test('a noisy member covers what is under it', () => {
  const baseline = baselineOf(read({ meta: { at: 1 }, x: 1 }), read({ meta: { at: 2, extra: true }, x: 1 }));
  assert.deepEqual(baseline.noise, ['/meta/at', '/meta/extra']);
  const whole = baselineOf(read({ meta: [1], x: 1 }), read({ meta: [1, 2], x: 1 }));
  assert.deepEqual(changesFrom(whole, read({ meta: [3, 4, 5], x: 1 })), []);
  assert.deepEqual(changesFrom(whole, read({ meta: [], x: 2 })), ['/x']);
});

test('expectChanged fails when only noise differs', () => {
  const baseline = baselineOf(read(cart(1, 't1')), read(cart(1, 't2')));
  expectChanged(baseline, read(cart(2, 't3')), { what: 'cart after a second add' });
  assert.throws(
    () => expectChanged(baseline, read(cart(1, 't3')), { what: 'cart after a second add', clause: 'PUR-IDEM-2' }),
    /\[PUR-IDEM-2\] cart after a second add .*expected "changed", got "unchanged"/,
  );
});

test('bodies that are not JSON compare as text', () => {
  const baseline = baselineOf({ status: 200, body: undefined, text: 'a' }, { status: 200, body: undefined, text: 'a' });
  assert.deepEqual(changesFrom(baseline, { status: 200, body: undefined, text: 'b' }), ['']);
});

test('readBaseline reads twice far enough apart that a served-at time of millisecond resolution is noise', async () => {
  const read = async () => ({ status: 200, body: { lines: [], served_at: new Date().toISOString() } });
  const baseline = await readBaseline(read);
  assert.deepEqual(baseline.noise, ['/served_at']);
  assert.deepEqual(changesFrom(baseline, await read()), []);
});
