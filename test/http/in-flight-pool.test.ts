// The workers' common pool of places in flight (conformance/engine/runner/in-flight-pool.ts), served and borrowed over its local
// socket as the CLI and its workers do: it never lends more than it holds, takes places back, and takes back those of a
// worker whose connection closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poolBorrower, startInFlightPool, tryStartInFlightPool } from '../../conformance/engine/runner/in-flight-pool.js';
import { InFlightGate } from '../../conformance/engine/transport/in-flight.js';

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(ok());
};

test('the pool lends at most its places, over all borrowers, and takes them back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pool-'));
  const pool = await startInFlightPool(3, dir);
  t.after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const a = poolBorrower(pool.path);
  const b = poolBorrower(pool.path);
  const answers = await Promise.all([a.tryBorrow(), a.tryBorrow(), b.tryBorrow(), b.tryBorrow(), a.tryBorrow()]);
  assert.equal(answers.filter(Boolean).length, 3);
  assert.equal(pool.lent(), 3);
  a.giveBack();
  await until(() => pool.lent() === 2);
  assert.equal(await b.tryBorrow(), true);
  assert.equal(await a.tryBorrow(), false);
});

test("a borrower's places come back when its connection closes; an unreachable pool lends nothing", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pool-'));
  const pool = await startInFlightPool(2, dir);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const a = poolBorrower(pool.path);
  assert.equal(await a.tryBorrow(), true);
  assert.equal(await a.tryBorrow(), true);
  assert.equal(pool.lent(), 2);
  await pool.close();
  await until(() => pool.lent() === 0);
  // The pool is gone: asks answer "none" at once, and a gate over it still works from its own places.
  assert.equal(await a.tryBorrow(), false);
  const gate = new InFlightGate(1, poolBorrower(join(dir, 'no-such.sock')));
  const first = await gate.acquire();
  let second = false;
  const waiting = gate.acquire().then((r) => ((second = true), r));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(second, false);
  first();
  (await waiting)();
});

test('many gates over one pool never exceed their own places plus the pool', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pool-'));
  const pool = await startInFlightPool(4, dir);
  t.after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const gates = [0, 1, 2].map(() => new InFlightGate(2, poolBorrower(pool.path)));
  let inside = 0;
  let most = 0;
  await Promise.all(
    gates.flatMap((gate) =>
      Array.from({ length: 15 }, async () => {
        const release = await gate.acquire();
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 3));
        inside--;
        release();
      }),
    ),
  );
  assert.ok(most <= 3 * 2 + 4, `at most 10 at once, saw ${most}`);
  assert.ok(most > 6, `the pool was borrowed from (saw ${most})`);
  await until(() => pool.lent() === 0);
});

test("a pool that cannot be served here is none: the run goes on with the workers' own places", async () => {
  assert.equal(await tryStartInFlightPool(4, join(tmpdir(), 'no-such-dir-for-a-pool', 'deeper')), undefined);
});
