// The parameters the CLI hands over after Playwright started (conformance/engine/late-params.ts): a check waits for them,
// takes them whole, and stops waiting when the CLI that would write them is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyLateParams, awaitLateParams, writeLateParams } from '../../../conformance/engine/late-params.js';
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
