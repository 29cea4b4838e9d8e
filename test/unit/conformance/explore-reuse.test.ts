// A credential reused (conformance/explore/reuse.ts): which steps are sent again with their first send's credential, what
// the second send is (the proof shape `jti: replay`, the context shape `ath: lifted`), and how a lifted context is built
// (the very context sent before, a new forwarder token) and judged (AUTH-CRED-6, refused like any context bound to
// another token).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { accessTokenHash, createMinter } from '../../../conformance/lib/mint.js';
import { buildContext, expectedOfContext, isMeaningfulContext, type ContextShape } from '../../../conformance/explore/contexts.js';
import { reusable, reusedOf } from '../../../conformance/explore/reuse.js';
import { callersFor, planStepArbitrary, type PlanStep } from '../../../conformance/explore/plan.js';
import { REPLAY_FORMAT, replaySchema } from '../../../conformance/explore/report.js';
import { COMMANDS_BY_ID } from '../../../conformance/explore/commands.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
const mint = createMinter(profile);
const HEADER = 'Invited-Agent-Context';
const bearerOf = (headers: Record<string, string | string[]>) => String(headers.authorization).replace(/^Bearer /, '');
const build = (shape: ContextShape, lastContext?: string) =>
  buildContext(shape, {
    profile,
    mint,
    sub: 'cust_checkout_8',
    otherSub: 'cust_checkout_7',
    agentId: 'xpl_agent_a',
    contextHeader: HEADER,
    ...(lastContext !== undefined ? { lastContext } : {}),
  });
const step = (p: Partial<PlanStep>): PlanStep => ({ op: 'getCart', caller: 'assistant:a', variant: 0, quantity: 1, ...p });

test('reusedOf: a sound assistant resends its proof, a sound invited agent its context; nothing else is reused', () => {
  assert.deepEqual(reusedOf(step({ reuse: true, repeat: true, idempotencyKey: 'k1' })), {
    ...step({ idempotencyKey: 'k1' }),
    mutation: 'proof-shape',
    proof: { jti: 'replay' },
  });
  assert.deepEqual(reusedOf(step({ caller: 'invited:b', reuse: true, rekey: true })), {
    ...step({ caller: 'invited:b' }),
    mutation: 'context-shape',
    context: { ath: 'lifted' },
  });
  assert.equal(reusedOf(step({})), undefined, 'not asked for');
  for (const caller of ['customer:a', 'guest:a', 'assistant:proof-replay', 'invited:expired-context', 'browser:a'] as const)
    assert.equal(reusedOf(step({ caller, reuse: true })), undefined, caller);
  assert.equal(reusedOf(step({ reuse: true, mutation: 'unknown-id' })), undefined, 'a mutated step');
  assert.equal(reusable({ caller: 'invited:a', mutation: undefined }), true);
});

test('the arbitrary asks for a reuse on sound assistant and invited steps only, and a replay file keeps it', () => {
  const samples = fc.sample(planStepArbitrary(callersFor(profile)), { seed: 11, numRuns: 6000 });
  const reused = samples.filter((p) => p.reuse);
  assert.ok(
    reused.some((p) => p.caller.startsWith('assistant:')),
    'an assistant step reused',
  );
  assert.ok(
    reused.some((p) => p.caller.startsWith('invited:')),
    'an invited step reused',
  );
  for (const p of reused) {
    assert.ok(reusable(p), JSON.stringify(p));
    assert.equal(COMMANDS_BY_ID.get(p.op)?.kind, 'operation', `${p.op} is an operation`);
  }
  const file = { format: REPLAY_FORMAT, seed: 1, plans: [reused[0]!] };
  assert.equal(replaySchema.parse(file).plans[0]!.reuse, true);
});

test('a lifted context is the last context sent verbatim, with a new forwarder token it is not bound to', async () => {
  const first = await build({});
  const last = String(first.headers['invited-agent-context']);
  const lifted = await build({ ath: 'lifted' }, last);
  assert.equal(lifted.headers['invited-agent-context'], last, 'the very context');
  assert.notEqual(bearerOf(lifted.headers), bearerOf(first.headers), 'a new forwarder token');
  assert.equal(lifted.actsAs, 'own');
  // Without an earlier context: one made afresh, bound to another forwarder token.
  const fresh = await build({ ath: 'lifted' });
  const ath = JSON.parse(Buffer.from(String(fresh.headers['invited-agent-context']).split('.')[1]!, 'base64url').toString()).ath;
  assert.notEqual(ath, accessTokenHash(bearerOf(fresh.headers)));
  assert.match(String(ath), /^[\w-]{43}$/);
});

test('a lifted context carries nothing else of its own, and is refused as bound to another token', () => {
  assert.equal(isMeaningfulContext({ ath: 'lifted', sub: 'other-account' }), false);
  assert.equal(isMeaningfulContext({ ath: 'lifted', forwarder: 'expired' }), true);
  const e = expectedOfContext({ ath: 'lifted' }, { operation: OPERATIONS_BY_ID.get('getCart')!, profile });
  assert.equal(e.accept, false);
  assert.ok(e.clauses.includes('AUTH-CRED-6'));
});
