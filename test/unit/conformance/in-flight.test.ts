// The cap on requests in flight (conformance/engine/in-flight.ts) and the choice of workers from the round trip
// (conformance/engine/workers.ts): pure, no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlightGate, mapConcurrent, shareOf } from '../../../conformance/engine/in-flight.js';
import { coreWorkers, MAX_NETWORK_WORKERS, networkWorkers, resolveWorkers } from '../../../conformance/engine/workers.js';

const tick = () => new Promise((r) => setImmediate(r));

test('the gate never lets more than its limit through, and hands places over in order', async () => {
  const gate = new InFlightGate(3);
  let inside = 0;
  let most = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const release = await gate.acquire();
      order.push(i);
      inside++;
      most = Math.max(most, inside);
      await tick();
      await tick();
      inside--;
      release();
      release(); // a second release gives back nothing more
    }),
  );
  assert.equal(most, 3);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.equal(gate.inFlight, 0);
});

test('a gate of one serialises; a limit below one is refused', async () => {
  const gate = new InFlightGate(1);
  const first = await gate.acquire();
  let second = false;
  const waiting = gate.acquire().then((r) => ((second = true), r));
  await tick();
  assert.equal(second, false);
  first();
  (await waiting)();
  assert.equal(second, true);
  assert.throws(() => new InFlightGate(0), /positive integer/);
});

test('mapConcurrent keeps the order of the items and at most its concurrency at once', async () => {
  let inside = 0;
  let most = 0;
  const out = await mapConcurrent([5, 4, 3, 2, 1, 0], 2, async (x) => {
    inside++;
    most = Math.max(most, inside);
    for (let i = 0; i < x; i++) await tick();
    inside--;
    return x * 10;
  });
  assert.deepEqual(out, [50, 40, 30, 20, 10, 0]);
  assert.equal(most, 2);
});

test("each worker's share keeps all of them within the cap, and at least one each", () => {
  assert.equal(shareOf(64, 10), 6);
  assert.equal(shareOf(64, 1), 64);
  assert.equal(shareOf(4, 8), 1);
  for (const workers of [1, 2, 3, 7, 16]) assert.ok(shareOf(64, workers) * workers <= 64);
});

test('workers follow the round trip: the cores nearby, more far away, within the ceiling and the cap', () => {
  assert.equal(coreWorkers(2), 2);
  assert.equal(coreWorkers(1), 2);
  assert.equal(networkWorkers(undefined, 64, 2), 2);
  assert.equal(networkWorkers(0.4, 64, 2), 2);
  assert.ok(networkWorkers(40, 64, 2) > networkWorkers(1, 64, 2));
  assert.ok(networkWorkers(100, 64, 2) > networkWorkers(40, 64, 2));
  assert.equal(networkWorkers(1000, 64, 2), MAX_NETWORK_WORKERS);
  assert.equal(networkWorkers(100, 4, 2), 4);
  assert.equal(networkWorkers(100, 1, 8), 1);
  assert.equal(resolveWorkers('3', 8), 3);
  assert.equal(resolveWorkers('50%', 8), 4);
  assert.equal(resolveWorkers('10%', 2), 1);
});
