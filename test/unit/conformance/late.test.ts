// The settings the CLI hands over after Playwright started (conformance/engine/runner/late.ts): a check waits for the
// late target, takes it whole, and stops waiting when the CLI that would write it is gone. So does Playwright's
// configuration for the workers chosen from a deployment's round trip (the launch file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  awaitLateTarget,
  awaitLaunch,
  lateTarget,
  workerSettings,
  writeLateTarget,
  writeLaunch,
} from '../../../conformance/engine/runner/late.js';

const lateDir = () => mkdtempSync(join(tmpdir(), 'late-'));
const goneProcess = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
const target = { baseUrl: 'http://127.0.0.1:4321', profilePath: '/tmp/profile.json', variants: [] };

test('without a late file the checks go at once', async () => {
  assert.equal(await awaitLateTarget(undefined), undefined);
  assert.equal(await awaitLateTarget({ late: { from: process.pid } }), undefined);
  assert.equal(lateTarget({}), undefined);
});

test('a check waits until the file is written, then reads the target from it', async () => {
  const plan = { late: { target: join(lateDir(), 'late-target.json'), from: process.pid } };
  let resolved = false;
  const waiting = awaitLateTarget(plan).then((t) => ((resolved = true), t));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(resolved, false, 'resolved before the CLI wrote the file');
  writeLateTarget(plan.late.target, target);
  assert.deepEqual(await waiting, target);
  assert.deepEqual(lateTarget(plan), target);
});

test('the reporter reads the file at the end when it is there', () => {
  const plan = { late: { target: join(lateDir(), 'late-target.json'), from: process.pid } };
  assert.equal(lateTarget(plan), undefined);
  writeLateTarget(plan.late.target, target);
  assert.equal(lateTarget(plan)?.baseUrl, 'http://127.0.0.1:4321');
});

test('the CLI writes only a valid late target', () => {
  const file = join(lateDir(), 'late-target.json');
  assert.throws(() => writeLateTarget(file, { ...target, baseUrl: 'not a url' }));
});

test('a check stops waiting, with the reason, when the CLI that would write the file has ended', async () => {
  await assert.rejects(
    awaitLateTarget({ late: { target: join(lateDir(), 'late-target.json'), from: goneProcess() } }),
    /run that started this check has ended before it named its target/,
  );
});

test("the configuration waits for the workers chosen from the round trip, and they become the workers' settings", async () => {
  assert.equal(await awaitLaunch({}), undefined);
  const plan = { workers: {}, late: { launch: join(lateDir(), 'launch.json'), from: process.pid } };
  let launched: unknown = 'waiting';
  const waiting = awaitLaunch(plan).then((w) => (launched = w));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(launched, 'waiting', 'resolved before the CLI chose the workers');
  writeLaunch(plan.late.launch, { count: 8, maxInFlight: 4, inFlightPool: '/tmp/x.sock', roundTripMs: 103 });
  await waiting;
  assert.deepEqual(workerSettings(plan), { count: 8, maxInFlight: 4, inFlightPool: '/tmp/x.sock', roundTripMs: 103 });
  // A plan that chose its workers before Playwright started keeps its own.
  assert.deepEqual(workerSettings({ workers: { count: 2 } }), { count: 2 });
  await assert.rejects(
    awaitLaunch({ late: { launch: join(tmpdir(), 'no-such-launch.json'), from: goneProcess() } }),
    /ended before it chose its workers/,
  );
});
