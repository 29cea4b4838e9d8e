// The sweep (conformance/explore/sweep.ts): every command × caller kind the coverage map counts, once, unmutated, as a
// sound label of the kind; in sequences of twelve; in an order the seed decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { sweepPlans } from '../../../conformance/explore/sweep.js';
import { COMMANDS, hasOwnCredential } from '../../../conformance/explore/commands.js';
import { kindsOf } from '../../../conformance/explore/coverage.js';
import { isSound, kindOfCaller } from '../../../conformance/explore/plan.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });

test('every command meets every kind once, unmutated, as a sound label of the kind', () => {
  const steps = sweepPlans(profile, 7).flat();
  const cells = steps.map((p) => `${p.op}|${kindOfCaller(p.caller)}`);
  assert.equal(new Set(cells).size, cells.length, 'no cell twice');
  const kinds = kindsOf(profile);
  const expected = COMMANDS.flatMap((c) => kinds.filter((k) => k !== 'secret' || hasOwnCredential(c.id)).map((k) => `${c.id}|${k}`));
  assert.deepEqual([...cells].sort(), [...expected].sort());
  for (const p of steps) {
    assert.equal(p.mutation, undefined);
    assert.ok(isSound(p.caller) || p.caller === 'anonymous' || p.caller === 'secret:own', p.caller);
    assert.ok(!p.caller.endsWith(':b'), p.caller);
  }
  assert.ok(kinds.includes('guest') && kinds.includes('operator') && kinds.includes('assistant'), 'the fixture claims them');
});

test("sequences of twelve at most; the order is the seed's", () => {
  const a = sweepPlans(profile, 7);
  assert.ok(a.every((s) => s.length > 0 && s.length <= 12));
  assert.ok(a.slice(0, -1).every((s) => s.length === 12));
  assert.deepEqual(sweepPlans(profile, 7), a, 'the same seed, the same sweep');
  assert.notDeepEqual(sweepPlans(profile, 8), a, 'another seed, another order');
  assert.ok(sweepPlans(profile, 7, 5).every((s) => s.length <= 5));
});

test('a profile without assistants or guests sweeps none of them', () => {
  const narrow = {
    ...profile,
    capabilities: { ...profile.capabilities, guests: false },
    secrets: { ...profile.secrets, proxyIdpSecret: null },
  };
  const kinds = new Set(
    sweepPlans(narrow, 1)
      .flat()
      .map((p) => kindOfCaller(p.caller)),
  );
  assert.equal(kinds.has('guest'), false);
  assert.equal(kinds.has('assistant'), false);
  assert.ok(kinds.has('customer'));
});
