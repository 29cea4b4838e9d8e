// judgeCases (conformance/engine/runner/cases.ts): the engine's one way to judge a check's cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeCases } from '../../../conformance/engine/runner/cases.js';
import { CASES_AT_ONCE } from '../../../conformance/engine/transport/in-flight.js';
import { CheckFailure, NotDeclared, softFailures } from '../../../conformance/lib/assert.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Runs `body` with a check's ledger open, as check() does; returns what it threw and the ledger. */
async function withLedger(body: () => Promise<void>): Promise<{ thrown: unknown; ledger: CheckFailure[] }> {
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    await body();
    return { thrown: undefined, ledger };
  } catch (err) {
    return { thrown: err, ledger };
  } finally {
    softFailures.ledger = undefined;
  }
}

const failing = (what: string, clause: string) => new CheckFailure(what, { expected: 'x', actual: 'y', clause });

test('every case is judged; each failed case is one failure, in the cases order: the first thrown, the others on the ledger', async () => {
  const judged: number[] = [];
  const { thrown, ledger } = await withLedger(() =>
    judgeCases([0, 1, 2, 3, 4], async (n) => {
      await tick(10 - 2 * n); // later cases end first
      judged.push(n);
      if (n % 2 === 1) throw failing(`case ${n}`, n === 1 ? 'ERR-TABLE-1' : 'ERR-TABLE-2');
    }),
  );
  assert.deepEqual([...judged].sort(), [0, 1, 2, 3, 4]);
  assert.ok(thrown instanceof CheckFailure);
  assert.equal(thrown.what, 'case 1');
  assert.deepEqual(
    ledger.map((f) => f.what),
    ['case 3'],
  );
});

test('all passing: nothing thrown, nothing recorded', async () => {
  const { thrown, ledger } = await withLedger(() => judgeCases(['a', 'b'], async () => void (await tick())));
  assert.equal(thrown, undefined);
  assert.deepEqual(ledger, []);
});

test('a case stopped by something else than a failure: thrown as it came when no earlier case failed', async () => {
  const declared = new NotDeclared('a route', 'conventions.x');
  const early = await withLedger(() =>
    judgeCases([0, 1, 2], async (n) => {
      if (n === 1) throw declared;
      if (n === 2) throw failing('case 2', 'ERR-TABLE-1');
    }),
  );
  assert.equal(early.thrown, declared, 'the verdict the cases in turn would give: case 1 stops before case 2');
  const late = await withLedger(() =>
    judgeCases([0, 1, 2], async (n) => {
      if (n === 0) throw failing('case 0', 'ERR-TABLE-1');
      if (n === 1) throw declared;
    }),
  );
  assert.ok(late.thrown instanceof CheckFailure, 'an earlier failure is not hidden by a later skip');
  assert.deepEqual(late.ledger, []);
});

test('at once, at most CASES_AT_ONCE; the cases of one lane one after another, in order', async () => {
  let running = 0;
  let most = 0;
  const perLane = new Map<string, number>();
  const order: string[] = [];
  const cases = Array.from({ length: 30 }, (_, i) => ({ lane: `l${i % 3}`, i }));
  await judgeCases(
    cases,
    async (c) => {
      running++;
      most = Math.max(most, running);
      perLane.set(c.lane, (perLane.get(c.lane) ?? 0) + 1);
      assert.equal(perLane.get(c.lane), 1, `two cases of lane ${c.lane} at once`);
      await tick(2);
      order.push(`${c.lane}:${c.i}`);
      perLane.set(c.lane, perLane.get(c.lane)! - 1);
      running--;
    },
    { lane: (c) => c.lane },
  );
  assert.equal(most, 3, 'three lanes at once');
  for (const lane of ['l0', 'l1', 'l2']) {
    const mine = order.filter((o) => o.startsWith(`${lane}:`)).map((o) => Number(o.split(':')[1]));
    assert.deepEqual(
      mine,
      [...mine].sort((a, b) => a - b),
      `lane ${lane} in its order`,
    );
  }
  running = 0;
  most = 0;
  await judgeCases(
    Array.from({ length: 40 }, (_, i) => i),
    async () => {
      running++;
      most = Math.max(most, running);
      await tick(2);
      running--;
    },
  );
  assert.equal(most, CASES_AT_ONCE);
});

test('outside a check (no ledger): the first failure alone is thrown', async () => {
  await assert.rejects(
    judgeCases([0, 1], async (n) => {
      throw failing(`case ${n}`, 'ERR-TABLE-1');
    }),
    (err: unknown) => err instanceof CheckFailure && err.what === 'case 0',
  );
});
