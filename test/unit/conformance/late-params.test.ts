// The parameters the CLI hands over after Playwright started (conformance/engine/late-params.ts): a check waits for them,
// takes them whole, and stops waiting when the CLI that would write them is gone. So does Playwright's configuration for
// the workers chosen from a deployment's round trip (the launch file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyLateParams, awaitLateParams, awaitLaunchParams, writeLateParams } from '../../../conformance/engine/late-params.js';
import { ENV } from '../../../conformance/engine/params.js';

const lateFile = () => join(mkdtempSync(join(tmpdir(), 'late-params-')), 'late.json');

test('without a late file the checks go at once', async () => {
  await awaitLateParams({});
  applyLateParams({});
});

test('a check waits until the file is written, then reads the target from it', async () => {
  const file = lateFile();
  const key = 'SHOP_CONFORMANCE_TEST_LATE_A';
  let resolved = false;
  const waiting = awaitLateParams({ [ENV.late]: file, [ENV.lateFrom]: String(process.pid) }).then(() => (resolved = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(resolved, false, 'resolved before the CLI wrote the file');
  assert.equal(process.env[key], undefined);
  writeLateParams(file, { [key]: 'http://127.0.0.1:4321' });
  await waiting;
  assert.equal(process.env[key], 'http://127.0.0.1:4321');
  delete process.env[key];
});

test('the reporter reads the file at the end when it is there', () => {
  const file = lateFile();
  const key = 'SHOP_CONFORMANCE_TEST_LATE_B';
  applyLateParams({ [ENV.late]: file });
  assert.equal(process.env[key], undefined);
  writeLateParams(file, { [key]: 'x' });
  applyLateParams({ [ENV.late]: file });
  assert.equal(process.env[key], 'x');
  delete process.env[key];
});

test('a check stops waiting, with the reason, when the CLI that would write the file has ended', async () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  await assert.rejects(
    awaitLateParams({ [ENV.late]: lateFile(), [ENV.lateFrom]: gone }),
    /run that started this check has ended before it named its target/,
  );
});

test("the configuration waits for the workers chosen from the round trip, and the workers' values reach the environment", async () => {
  assert.equal(await awaitLaunchParams({}), undefined);
  const file = join(mkdtempSync(join(tmpdir(), 'late-params-')), 'launch.json');
  const env: NodeJS.ProcessEnv = { [ENV.launch]: file, [ENV.lateFrom]: String(process.pid) };
  let workers: number | undefined | 'waiting' = 'waiting';
  const waiting = awaitLaunchParams(env).then((w) => (workers = w));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(workers, 'waiting', 'resolved before the CLI chose the workers');
  writeLateParams(file, { [ENV.workers]: '8', [ENV.maxInFlight]: '4', [ENV.inFlightPool]: '/tmp/x.sock', [ENV.roundTrip]: '103' });
  await waiting;
  assert.equal(workers, 8);
  assert.equal(env[ENV.maxInFlight], '4');
  assert.equal(env[ENV.inFlightPool], '/tmp/x.sock');
  assert.equal(env[ENV.roundTrip], '103');
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  await assert.rejects(
    awaitLaunchParams({ [ENV.launch]: join(tmpdir(), 'no-such-launch.json'), [ENV.lateFrom]: gone }),
    /ended before it chose its workers/,
  );
});
