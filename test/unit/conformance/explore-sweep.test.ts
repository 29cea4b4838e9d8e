// The sweep (conformance/explore/sweep.ts): every command × caller kind the coverage map counts, once, unmutated, as a
// sound label of the kind; in sequences of twelve; in an order the seed decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { sweepPlans } from '../../../conformance/explore/sweep.js';
import { shapeSweep } from '../../../conformance/explore/sweep-shapes.js';
import { TOKEN_FIELDS, TOKEN_KINDS, variationsFor } from '../../../conformance/explore/tokens.js';
import { PROOF_VARIATIONS } from '../../../conformance/explore/proofs.js';
import { sessionVariationNames } from '../../../conformance/explore/sessions.js';
import { admittedKinds, COMMANDS, COMMANDS_BY_ID, hasOwnCredential } from '../../../conformance/explore/commands.js';
import { kindsOf } from '../../../conformance/explore/coverage.js';
import { callersFor, isSound, kindOfCaller, type PlanStep } from '../../../conformance/explore/plan.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });

test('every command meets every kind once, unmutated, as a sound label of the kind', () => {
  const steps = sweepPlans(profile, 7)
    .flat()
    .filter((p) => p.mutation === undefined);
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

test('the shapes: every lone variation of each family, on an operation that admits its caller', () => {
  const steps = shapeSweep(callersFor(profile), 3);
  const names = (m: string, of: (p: PlanStep) => object | undefined) =>
    new Set(steps.filter((p) => p.mutation === m).map((p) => `${p.caller} ${JSON.stringify(of(p))}`));
  const tokens = names('token-shape', (p) => p.token);
  for (const kind of TOKEN_KINDS) {
    const label = { customer: 'customer:a', delegated: 'delegated:a', guest: 'guest:a', operator: 'operator' }[kind];
    for (const field of TOKEN_FIELDS)
      for (const v of variationsFor(kind, field))
        assert.ok(tokens.has(`${label} ${JSON.stringify({ [field]: v })}`), `${kind} ${field}:${v}`);
  }
  assert.ok(tokens.has(`delegated:a ${JSON.stringify({ act: 'outer-other' })}`));
  const proofs = names('proof-shape', (p) => p.proof);
  for (const [f, vs] of Object.entries(PROOF_VARIATIONS))
    for (const v of Object.keys(vs)) assert.ok(proofs.has(`assistant:a ${JSON.stringify({ [f]: v })}`), `${f}:${v}`);
  const sessions = names('session-shape', (p) => p.session);
  assert.ok(sessions.size > 20 && sessions.size <= sessionVariationNames().length, String(sessions.size));
  assert.ok(names('context-shape', (p) => p.context).size > 40);
  for (const p of steps) {
    const c = COMMANDS_BY_ID.get(p.op)!;
    if (p.mutation === 'body-shape') continue;
    assert.equal(c.kind, 'operation', p.op);
    assert.ok((admittedKinds(c) as string[]).includes(kindOfCaller(p.caller)!), `${p.op} as ${p.caller}`);
  }
  const tops = steps.filter((p) => p.mutation === 'body-shape' && p.op === 'createCheckoutPreview');
  assert.equal(tops.length, 6);
  assert.ok(tops.some((p) => JSON.stringify(p.bodyShape) === JSON.stringify({ steps: [{ op: 'top', value: { kind: 'null' } }] })));
  assert.deepEqual(shapeSweep(callersFor(profile), 3), steps, 'the seed decides the operations');
});
