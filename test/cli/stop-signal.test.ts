// SIGTERM sent to the CLI alone (a CI job's timeout, `kill <pid>`) stops Playwright and its workers with it
// (cli/stop-signal.ts): nothing keeps running against the deployment, and the command ends with 143 (128 + SIGTERM).
// Linux only: the process tree is read from /proc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { rotatingProfilePath } from '../helpers/reference.js';
import { outputDir } from '../helpers/cli.js';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;

/** The processes below `pid`, read from /proc (each stat's fourth field is its parent). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      below.push(child);
      walk(child);
    }
  };
  walk(pid);
  return below;
}

test('run: SIGTERM to the CLI stops Playwright and its workers, exit 143', { skip: process.platform !== 'linux' }, async () => {
  const profile = rotatingProfilePath();
  const reference = await startServer(
    loadConfig({ env: {}, profilePath: profile, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        'run',
        '--base-url',
        reference.url,
        '--profile',
        profile,
        '--workers',
        '2',
        '--reporter',
        'list',
        '--output',
        outputDir(),
      ],
      { env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    // Checks are running: Playwright and its workers are there.
    for (let i = 0; i < 600 && !/✓|✘|ok \d+/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    const tree = descendants(child.pid!);
    assert.ok(tree.length >= 2, `Playwright and a worker below the CLI (found ${tree.length}); output:\n${out.slice(-2000)}`);
    child.kill('SIGTERM');
    assert.equal(await exited, 143, out.slice(-2000));
    assert.match(out, /stopped by SIGTERM/);
    for (let i = 0; i < 100 && tree.some((p) => existsSync(`/proc/${p}`)); i++) await new Promise((r) => setTimeout(r, 100));
    const left = tree.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, 'utf8').includes(') Z '));
    assert.deepEqual(left, [], 'processes left running after the CLI stopped');
  } finally {
    await reference.close();
  }
});
