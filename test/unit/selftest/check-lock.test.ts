// The self-test's copies of a check on the seeded data take turns (conformance/selftest/check-lock.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lockCheck } from '../../../conformance/selftest/check-lock.js';

test('copies of one check take turns; another check does not wait', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'locks-'));
  try {
    const events: string[] = [];
    const copy = async (name: string, check: string) => {
      const release = await lockCheck(dir, check);
      events.push(`${name} in`);
      await sleep(60);
      events.push(`${name} out`);
      release();
    };
    await Promise.all([copy('a1', 'purpose.checkout.retry'), copy('a2', 'purpose.checkout.retry'), copy('b', 'other.check')]);
    const a = events.filter((e) => e.startsWith('a'));
    assert.deepEqual(a, [`${a[0]!.slice(0, 2)} in`, `${a[0]!.slice(0, 2)} out`, `${a[2]!.slice(0, 2)} in`, `${a[2]!.slice(0, 2)} out`]);
    assert.ok(
      events.indexOf('b in') < events.indexOf(`${a[2]!.slice(0, 2)} in`),
      'the other check went in while the first copy held its lock',
    );
    assert.ok(!existsSync(join(dir, encodeURIComponent('purpose.checkout.retry'))), 'released');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a worker that is gone is taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'locks-'));
  try {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, 'some.check'), gone.stdout);
    const release = await Promise.race([lockCheck(dir, 'some.check'), sleep(2000).then(() => undefined)]);
    assert.ok(release, 'taken within 2 s');
    release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
