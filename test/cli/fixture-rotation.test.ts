// The reference's fixture profile and `serve` agree: a run against `serve` with the fixture profile gives no warning of
// AUTH-GUEST-15 (the fixture's previous guest key is a rotation begun at start, cli/rotation.ts), even with --strict. A
// deadline truly beyond the window is still judged, and its message quotes the date (a date is not a secret). A failed
// check leaves no `error-context.md` (Playwright's prompt for a language model) among the reports.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, outputDir, readReport } from '../helpers/cli.js';
import { fixtureProfile } from '../helpers/reference.js';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;

let server: ChildProcess;
let url: string;
before(async () => {
  // `serve` as a user starts it: no --profile, no rotation in the environment.
  const { GUEST_SESSION_KEY_PREVIOUS: _k, GUEST_SESSION_KEY_PREVIOUS_UNTIL: _u, PROFILE_PATH: _p, ...env } = process.env;
  server = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: { ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
});
after(() => {
  server.kill('SIGTERM');
});

/** Every file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
}

test('run --base-url against serve, fixture profile, --strict: the rotation checks pass, no WARN (exit 0)', async () => {
  const output = outputDir();
  const r = await cli([
    'run',
    '--base-url',
    url,
    '--strict',
    '--clause',
    'AUTH-GUEST-15',
    'AUTH-GUEST-13',
    '--reporter',
    'line',
    '--output',
    output,
  ]);
  assert.equal(r.code, 0, r.out);
  assert.doesNotMatch(r.out, /WARN/);
  const checks = readReport(output).checks.filter((c) =>
    ['authentication.guest.rotation-window', 'authentication.guest.previous-key-before-deadline'].includes(c.id),
  );
  assert.deepEqual(
    checks.map((c) => c.status),
    ['passed', 'passed'],
  );
});

test('a deadline 90 days ahead is still a failure under --strict; its message shows the date; no error-context.md', async () => {
  const until = new Date(Date.now() + 90 * 86_400_000).toISOString();
  const profile = join(mkdtempSync(join(tmpdir(), 'shop-rotation-')), 'profile.json');
  writeFileSync(
    profile,
    JSON.stringify({ ...fixtureProfile, secrets: { ...fixtureProfile.secrets, guestSessionKeyPreviousUntil: until } }),
  );
  const output = outputDir();
  const r = await cli([
    'run',
    '--base-url',
    url,
    '--profile',
    profile,
    '--strict',
    '--clause',
    'AUTH-GUEST-15',
    '--reporter',
    'line',
    '--output',
    output,
  ]);
  assert.equal(r.code, 1, r.out);
  const failed = readReport(output).checks.find((c) => c.id === 'authentication.guest.rotation-window');
  assert.equal(failed?.status, 'failed');
  assert.ok(r.out.includes(`secrets.guestSessionKeyPreviousUntil (${until})`), r.out);
  assert.doesNotMatch(r.out, /error-context/i);
  const written = files(output);
  assert.deepEqual(
    written.filter((f) => f.endsWith('error-context.md')),
    [],
  );
  for (const f of written.filter((x) => /\.(md|json|xml|txt)$/.test(x)))
    assert.doesNotMatch(readFileSync(f, 'utf8'), /Explain why, be concise/, f);
});
