// The sweep (conformance/explore/sweep.ts) and a reused credential (conformance/explore/reuse.ts) against the reference:
// every command × caller-kind cell, admitted or refused, gives no finding on it; a deployment that serves a route to a
// kind the contract refuses is found by the sweep within seconds, shrunk to that one request; a proof sent again and a
// context lifted onto a new forwarder token are refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realClock, startReference, type Harness } from '../helpers/reference.js';
import { Lockstep } from '../../conformance/explore/lockstep.js';
import { exploreOracles } from '../../conformance/explore/oracles.js';
import { explore } from '../../conformance/explore/runner.js';
import { sweepPlans } from '../../conformance/explore/sweep.js';
import { admittedKinds, COMMANDS_BY_ID } from '../../conformance/explore/commands.js';
import { kindOfCaller, type Caller, type PlanStep } from '../../conformance/explore/plan.js';
import { startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { describeContext } from '../../conformance/explore/contexts.js';

let reference: Harness;
let target: Harness;
before(async () => {
  reference = await startReference({ clock: realClock() });
  target = await startReference({ clock: realClock() });
});
after(async () => {
  await reference.close();
  await target.close();
});

const plan = (op: string, caller: Caller, extra: Partial<PlanStep> = {}): PlanStep => ({ op, caller, variant: 0, quantity: 1, ...extra });
const errorOf = (json: unknown) => (json as { error?: string } | undefined)?.error ?? '';

test('on the reference, the whole sweep gives no finding', { timeout: 180_000 }, async () => {
  const ls = new Lockstep({ baseUrl: target.url, referenceUrl: reference.url, profile: target.profile, oracles: exploreOracles() });
  try {
    assert.deepEqual(await ls.prepare(), []);
    for (const plans of sweepPlans(target.profile, 5)) {
      const seq = await ls.run(plans, 5);
      assert.deepEqual(seq.findings, [], JSON.stringify(seq.plans.at(-1)));
    }
  } finally {
    ls.close();
  }
});

test('on the reference, a proof sent again and a context lifted onto a new forwarder token are refused', { timeout: 60_000 }, async () => {
  const ls = new Lockstep({ baseUrl: target.url, referenceUrl: reference.url, profile: target.profile, oracles: exploreOracles() });
  try {
    assert.deepEqual(await ls.prepare(), []);
    const seq = await ls.run([plan('getCart', 'assistant:a', { reuse: true }), plan('listOrders', 'invited:b', { reuse: true })], 2);
    assert.deepEqual(seq.findings, []);
    const mine = seq.answers.filter((_, i) => !seq.steps[i]!.observer);
    const statuses = mine.map((a) => `${a.status} ${errorOf(a.json)}`.trim());
    assert.deepEqual(statuses.slice(0, 3), ['200', '401 invalid_dpop_proof', '200'], JSON.stringify(statuses));
    assert.match(statuses[3]!, /^401/, 'a context bound to another forwarder token');
    assert.equal(seq.steps[3]!.context, describeContext({ ath: 'lifted' }));
  } finally {
    ls.close();
  }
});

/** A deployment that answers every caller its route refuses with an empty list of saved cards. */
describe('a deployment that serves the saved cards to callers the contract refuses', () => {
  let proxy: Proxy;
  before(async () => {
    proxy = await startProxy(target.url, {
      label: 'listPaymentMethods open to every caller',
      response: (a, r) =>
        r.method === 'GET' && r.path.startsWith('/v1/me/payment-methods') && a.status === 403
          ? { status: 200, headers: [['content-type', 'application/json']], body: JSON.stringify({ items: [] }) }
          : a,
    });
  });
  after(async () => {
    await proxy.close();
  });

  test('is found by the sweep within seconds, shrunk to the one request', { timeout: 120_000 }, async () => {
    const result = await explore({
      baseUrl: proxy.url,
      referenceUrl: reference.url,
      profile: target.profile,
      oracles: exploreOracles(),
      seed: 9,
      budgetMs: 5_000,
      shrinkMs: 5_000,
      stopAtFirst: true,
    });
    assert.equal(result.failures.length, 1, JSON.stringify(result.failures.map((f) => f.findings)));
    const [failure] = result.failures;
    assert.equal(failure!.plans.length, 1, JSON.stringify(failure!.plans));
    const [p] = failure!.plans;
    assert.equal(p!.op, 'listPaymentMethods');
    const kind = kindOfCaller(p!.caller);
    assert.ok(!(admittedKinds(COMMANDS_BY_ID.get('listPaymentMethods')!) as readonly string[]).includes(kind ?? ''), p!.caller);
  });
});
