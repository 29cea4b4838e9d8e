// Sequences sent as every caller kind the suite can mint, and the proof and token defects it forges: on the reference
// each agent caller acts for its account (an invited agent's and an assistant's cart lines are the account's), a replayed
// proof is refused, and the oracles find nothing; a deployment that accepts a replayed DPoP proof (it answers the proof
// again with the answer it gave it the first time) is found by the sequences, shrunk to the two requests that show it,
// and the replay reproduces it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realClock, startReference, type Harness } from '../helpers/reference.js';
import { Lockstep } from '../../conformance/explore/lockstep.js';
import { exploreOracles } from '../../conformance/explore/oracles.js';
import { explore, replay } from '../../conformance/explore/runner.js';
import { callersFor, type Caller, type PlanStep } from '../../conformance/explore/plan.js';
import { headerOf, startProxy, type Proxy, type ProxyAnswer } from '../../conformance/selftest/proxy.js';

let reference: Harness;
let target: Harness;
// Real clocks: the suite mints tokens, contexts and proofs with the time of day, and a deployment judges their iat by its own.
before(async () => {
  reference = await startReference({ clock: realClock() });
  target = await startReference({ clock: realClock() });
});
after(async () => {
  await reference.close();
  await target.close();
});

const plan = (op: PlanStep['op'], caller: Caller, extra: Partial<PlanStep> = {}): PlanStep => ({
  op,
  caller,
  variant: 0,
  quantity: 1,
  ...extra,
});

test('the profile claims every agent kind: sequences are sent as each of them and their proof defects', () => {
  const callers = callersFor(target.profile);
  for (const c of ['invited:a', 'assistant:a', 'assistant:b', 'browser:a', 'forwarder:no-artifact', 'assistant:proof-replay'] as const)
    assert.ok(callers.includes(c), c);
  const none = { ...target.profile, capabilities: { ...target.profile.capabilities, assistants: false, invitedAgents: false } };
  assert.deepEqual(
    callersFor(none).filter((c) => /^(assistant|invited|browser|forwarder):/.test(c)),
    [],
    'an unclaimed capability removes its callers',
  );
});

test('on the reference, agents act for their accounts and every defect is refused, with no finding', { timeout: 120_000 }, async () => {
  const ls = new Lockstep({ baseUrl: target.url, referenceUrl: reference.url, profile: target.profile, oracles: exploreOracles() });
  try {
    assert.deepEqual(await ls.prepare(), []);
    const seq = await ls.run(
      [
        plan('addCartItem', 'invited:a'),
        plan('addCartItem', 'assistant:a', { variant: 1 }),
        plan('getCart', 'customer:a'),
        plan('getCart', 'browser:a'),
        plan('getCart', 'assistant:proof-replay'),
        plan('openConversation', 'assistant:a'),
        plan('listConversations', 'assistant:b'),
        plan('getCart', 'assistant:proof-stale-iat'),
        plan('getCart', 'assistant:proof-wrong-key'),
        plan('getCart', 'invited:expired-context'),
        plan('checkoutSavedCard', 'assistant:a'),
        plan('listOrders', 'invited:a'),
      ],
      1,
    );
    assert.deepEqual(seq.findings, []);
    // The plan's own steps (a write's observer, a read by another caller of the account, is judged but not counted here).
    const answers = seq.answers.filter((_, i) => !seq.steps[i]!.observer);
    assert.ok(
      seq.steps.some((s) => s.observer),
      'the cart writes are observed by another caller of the account',
    );
    const statuses = answers.map((a) => `${a.status} ${(a.json as { error?: string } | undefined)?.error ?? ''}`.trim());
    assert.deepEqual(statuses.slice(0, 4), ['201', '201', '200', '200']);
    // The account's cart, read by the customer and by the assistant's browser session: both agents' lines are in it.
    for (const i of [2, 3]) for (const v of ['var_0701', 'var_2501']) assert.ok(answers[i]!.text.includes(v), `${i} ${v}`);
    assert.equal(statuses[4], '401 invalid_dpop_proof', 'a proof sent again is refused');
    assert.equal(statuses[7], '401 invalid_dpop_proof');
    assert.equal(statuses[8], '401 invalid_dpop_proof');
    assert.match(statuses[9]!, /^401/);
    assert.match(statuses[10]!, /^20[01]$/, 'the assistant checks its account cart out');
  } finally {
    ls.close();
  }
});

/** A deployment behind a cache keyed on the DPoP proof: a proof sent again gets the answer it got the first time. */
function replayedProofAccepted(): Parameters<typeof startProxy>[1] {
  const seen = new Map<string, ProxyAnswer>();
  return {
    label: 'replayed DPoP proof accepted',
    buffer: () => true,
    response(answer, req) {
      const proof = headerOf(req.headers, 'dpop');
      if (proof === undefined) return answer;
      const earlier = seen.get(proof);
      if (earlier && answer.status === 401) return earlier;
      if (answer.status < 300) seen.set(proof, answer);
      return answer;
    },
  };
}

describe('a deployment that accepts a replayed DPoP proof', () => {
  let proxy: Proxy;
  before(async () => {
    proxy = await startProxy(target.url, replayedProofAccepted());
  });
  after(async () => {
    await proxy.close();
  });

  test('is found by the sequences, shrunk to the proof and its replay, and the replay reproduces it', { timeout: 240_000 }, async () => {
    const o = { baseUrl: proxy.url, referenceUrl: reference.url, profile: target.profile, oracles: exploreOracles() };
    const result = await explore({ ...o, seed: 3, budgetMs: 45_000, shrinkMs: 45_000 });
    // The one finding that shows the replayed proof (the run goes on after it, for findings of other kinds).
    const failure = result.failures.find((f) => f.plans.some((p) => p.caller === 'assistant:proof-replay'));
    assert.ok(
      failure,
      `no finding of the replayed proof in ${result.runs} sequences: ${JSON.stringify(result.failures.map((f) => f.findings))}`,
    );
    const shown = JSON.stringify({ plans: failure.plans, findings: failure.findings });
    // What shows it: the replay answered as the first time (the differential), or the model led astray by it afterwards.
    const at = failure.plans.findIndex((p) => p.caller === 'assistant:proof-replay');
    assert.ok(at > 0, shown);
    // The proof replayed is one the session sent before: a step of the plan, or a read a write of the plan derived
    // (observers.ts: another caller of the account reads the list the write changed).
    const sentAt = failure.steps.findIndex((s) => s.caller === 'assistant:proof-replay');
    assert.ok(
      failure.steps.slice(0, sentAt).some((s) => s.caller === 'assistant:a'),
      `the proof replayed is an earlier one of the session: ${shown}`,
    );
    assert.ok(failure.plans.length <= 4, `not shrunk: ${shown}`);
    const again = await replay(o, { seed: failure.seed, plans: failure.plans });
    const key = (f: { oracle: string; clauses: string[] }) => `${f.oracle} ${[...f.clauses].sort().join(',')}`;
    assert.ok(again.findings.map(key).includes(key(failure.findings[0]!)), JSON.stringify(again.findings));
    // The same sequence against a conforming deployment is no finding.
    const plain = await replay({ ...o, baseUrl: target.url }, { seed: failure.seed, plans: failure.plans });
    assert.deepEqual(plain.findings, []);
  });
});
