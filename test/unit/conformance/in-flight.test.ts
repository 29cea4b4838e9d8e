// The cap on requests in flight (conformance/engine/transport/in-flight.ts) and the choice of workers from the round trip
// (conformance/engine/runner/workers.ts): pure, no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlightGate, mapConcurrent, shareOf, splitCap } from '../../../conformance/engine/transport/in-flight.js';
import type { PoolBorrower } from '../../../conformance/engine/runner/in-flight-pool.js';
import { coreWorkers, MAX_NETWORK_WORKERS, networkWorkers, resolveWorkers } from '../../../conformance/engine/runner/workers.js';

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

test("the cap's split: each worker's own places and the pool together never exceed it", () => {
  assert.deepEqual(splitCap(64, 8), { own: 4, pool: 32 });
  assert.deepEqual(splitCap(64, 2), { own: 16, pool: 32 });
  assert.deepEqual(splitCap(64, 64), { own: 1, pool: 0 });
  for (const workers of [1, 2, 3, 7, 8, 10, 16, 64])
    for (const cap of [1, 4, 16, 64, 200]) {
      const { own, pool } = splitCap(cap, workers);
      assert.ok(own >= 1);
      if (workers <= cap) assert.ok(own * workers + pool <= cap, `${cap} over ${workers} workers`);
    }
});

/** A pool of `places` as a worker sees it, in this process. */
function fakePool(places: number): PoolBorrower & { lent: number; asked: number } {
  const pool = {
    lent: 0,
    asked: 0,
    tryBorrow: async () => {
      pool.asked++;
      await tick();
      if (pool.lent >= places) return false;
      pool.lent++;
      return true;
    },
    giveBack: () => void pool.lent--,
  };
  return pool;
}

test('past its own places the gate borrows from the pool, never past both; the pool is asked only then', async () => {
  const pool = fakePool(3);
  const gate = new InFlightGate(2, pool);
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 30 }, async () => {
      const release = await gate.acquire();
      inside++;
      most = Math.max(most, inside);
      assert.ok(pool.lent <= 3);
      await tick();
      await tick();
      inside--;
      release();
      release();
    }),
  );
  assert.equal(most, 5);
  assert.equal(pool.lent, 0);
  assert.equal(gate.inFlight, 0);

  // One request at a time never asks the pool.
  const quiet = fakePool(3);
  const alone = new InFlightGate(2, quiet);
  for (let i = 0; i < 5; i++) (await alone.acquire())();
  assert.equal(quiet.asked, 0);
});

test('with the pool empty, the gate waits for one of its own places', async () => {
  const gate = new InFlightGate(1, fakePool(0));
  const first = await gate.acquire();
  let second = false;
  const waiting = gate.acquire().then((r) => ((second = true), r));
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(second, false);
  first();
  (await waiting)();
  assert.equal(second, true);
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

test('a place of its own that comes free while the pool is asked is taken, not waited for forever', async () => {
  let answer: (lent: boolean) => void = () => undefined;
  const pool: PoolBorrower = { tryBorrow: () => new Promise<boolean>((r) => (answer = r)), giveBack: () => undefined };
  const gate = new InFlightGate(1, pool);
  const first = await gate.acquire();
  const second = gate.acquire(); // asks the pool: none free yet
  first(); // its own place comes free before the pool answers; no one waits for it yet
  answer(false);
  const release = await Promise.race([second, new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 200))]);
  assert.notEqual(release, 'stuck');
  assert.equal(gate.inFlight, 1);
});
