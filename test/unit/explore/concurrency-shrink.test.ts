// A concurrency finding shrinks to the smallest rerun of its scenario that still shows it (fewest clients and lines,
// fewest requests past a budget), each rerun released in the order the scheduler reported, restricted to the steps
// kept; a recorded order replays as it was. In memory: fake sends over a fake cart and an unlimited budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInterleavings, type InterleavingOptions, type ScenarioRun } from '../../../conformance/explore/concurrency.js';
import { fakeTarget } from '../../helpers/explore-fakes.js';
import { shrinkConcurrency, smallerRuns } from '../../../conformance/explore/concurrency-shrink.js';
import { scheduleFor } from '../../../conformance/explore/interleave.js';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';
import { curlScriptOf } from '../../../conformance/explore/oracles.js';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';

const target = fakeTarget;
const variants = ['v1', 'v2', 'v3', 'v4', 'v5'];

/** A cart that keeps only its first line (every later add is lost), and the variants in the order their adds arrived. */
function lossyCart() {
  const arrived: string[] = [];
  const send = async (step: Step): Promise<Answer> => {
    if (step.operationId === 'addCartItem') {
      arrived.push((step.body as { json: { variant_id: string } }).json.variant_id);
      return { status: 201, headers: {}, text: '{}', json: {} };
    }
    const lines = arrived.slice(0, 1);
    return { status: 200, headers: {}, text: JSON.stringify({ lines }), json: { lines } };
  };
  return { arrived, send };
}

const rerunWith = (base: Omit<InterleavingOptions, 'send'>, send: () => InterleavingOptions['send']) => (run: ScenarioRun) =>
  runInterleavings({
    ...base,
    send: send(),
    scenarios: [run.scenario],
    runs: 1,
    schedule: run.schedule,
    clients: run.clients,
    extra: run.extra,
  });

test('a recorded release order replays as it was; a shorter one is completed in order', async () => {
  const cart = lossyCart();
  const o = { send: cart.send, seed: 1, runs: 1, clients: 5, target, owner: 'o', variants, scenarios: ['adds' as const] };
  await runInterleavings({ ...o, schedule: [4, 2, 0, 3, 1] });
  assert.deepEqual(cart.arrived, ['v5', 'v3', 'v1', 'v4', 'v2']);
  assert.deepEqual(scheduleFor([3, 1, 9], 5), [3, 1, 0, 2, 4]);
});

test('lost lines shrink to two clients, released in the order of the finding', async () => {
  const base = { seed: 9, runs: 1, clients: 5, target, owner: 'o', variants };
  const [found] = await runInterleavings({ ...base, send: lossyCart().send });
  assert.ok(found, 'the lossy cart is found');
  assert.equal(found.run.clients, 5);
  assert.deepEqual([...found.run.schedule].sort(), [0, 1, 2, 3, 4]);
  let reruns = 0;
  const shrunk = await shrinkConcurrency(
    found,
    rerunWith(base, () => (reruns++, lossyCart().send)),
  );
  assert.equal(reruns, 1, 'the smallest rerun (two clients) is tried first');
  assert.equal(shrunk.run.clients, 2);
  assert.deepEqual(shrunk.clauses, found.clauses);
  // Two adds at once, then the read: three requests instead of six.
  assert.equal(shrunk.steps.length, 3);
  assert.ok(shrunk.steps.length < found.steps.length);
  assert.deepEqual(shrunk.parallel, [[0, 1]]);
  assert.deepEqual(
    shrunk.run.schedule,
    found.run.schedule.filter((i) => i < 2),
  );
});

test('a budget let through shrinks to one request past it; a budget held is not a finding', async () => {
  const limit = 5;
  const unlimited = async (): Promise<Answer> => ({ status: 200, headers: {}, text: '{}', json: {} });
  const base = {
    seed: 3,
    runs: 1,
    target,
    owner: 'o',
    variants,
    scenarios: ['budget' as const],
    budget: { limit, caller: (a: number) => `g${a}` },
  };
  const [found] = await runInterleavings({ ...base, send: unlimited });
  assert.ok(found);
  assert.equal(found.steps.length, limit + 6);
  const shrunk = await shrinkConcurrency(
    found,
    rerunWith(base, () => unlimited),
  );
  assert.equal(shrunk.run.extra, 1);
  assert.equal(shrunk.steps.length, limit + 1);
  assert.match(shrunk.message, /6 of 6 requests/);
  // The proof scenario is two requests already; nothing smaller to try.
  assert.deepEqual(smallerRuns({ scenario: 'proof', schedule: [1, 0] }), []);
  // Nothing smaller shows it: the finding stays as it came.
  let calls = 0;
  const held = async (): Promise<Answer> => (++calls > limit ? { status: 429, headers: {}, text: '{}', json: {} } : unlimited());
  const kept = await shrinkConcurrency(
    found,
    rerunWith(base, () => ((calls = 0), held)),
  );
  assert.equal(kept, found);
});

test("a budget's requests replay as one guest, sent at once", () => {
  const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
  const steps: Step[] = Array.from({ length: 3 }, () => ({
    operationId: 'listCollections',
    method: 'GET',
    path: '/v1/catalog/collections',
    caller: 'guest#budget-ab12-1',
    headers: {},
  }));
  const script = curlScriptOf(steps, { baseUrl: 'http://shop.test', profile, parallel: [[0, 1, 2]] });
  assert.doesNotMatch(script, /not mintable/);
  assert.equal((script.match(/token guest .*--uuid "\$UUID_GUEST_BUDGET_AB12_1"/g) ?? []).length, 3);
  assert.equal((script.match(/^UUID_GUEST_BUDGET_AB12_1=/gm) ?? []).length, 1, 'one guest session for every request');
  assert.equal((script.match(/^curl .* &$/gm) ?? []).length, 3);
  assert.match(script, /^wait$/m);
});
