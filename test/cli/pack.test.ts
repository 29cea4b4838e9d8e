// The package as a user gets it (README, docs/ci.md "Adding the suite to a project"): `npm pack`, the tarball installed as
// a dev dependency of an empty project, then `--help`, `serve` and `run` from there through `npx`. Installing compiles
// better-sqlite3 (minutes on a small machine), so this runs only with SHOP_CONFORMANCE_PACK_TEST=1: `npm run test:pack`.
// npm installs from its cache where it can (--prefer-offline) and asks the registry for the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const enabled = process.env.SHOP_CONFORMANCE_PACK_TEST === '1';
// Without the npm settings of a surrounding `npm run` (its project's prefix among them): the project here is its own.
const { npm_config_local_prefix: _prefix, ...outer } = process.env;
const env = { ...outer, FORCE_COLOR: '0', npm_config_update_notifier: 'false' };

function npx(project: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['shop-conformance', ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

test(
  'the packed tarball installs into an empty project, and --help, serve and run work from there',
  { skip: enabled ? false : 'set SHOP_CONFORMANCE_PACK_TEST=1 (npm run test:pack): installing compiles better-sqlite3', timeout: 900_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shop-pack-'));
    execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: ROOT, env, stdio: 'ignore' });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.private, undefined, 'publishable: not private');

    const project = join(dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-service', version: '1.0.0', private: true }));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', join(dir, tarball)], {
      cwd: project,
      env,
      stdio: 'ignore',
    });
    const deps = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies;
    assert.ok(deps['shop-conformance'], 'a dev dependency of the project');

    const help = await npx(project, ['--help']);
    assert.equal(help.code, 0, help.out);
    assert.match(help.out, /Examples:\n {2}\$ shop-conformance run/);

    // serve: answers /health on the URL it prints, and stops on SIGTERM.
    const server = spawn('npx', ['shop-conformance', 'serve', '--port', '0'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d) => {
          out += d;
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      assert.equal((await fetch(`${url}/health`)).status, 200);
      // run against it, with the fixture profile it serves: no warning of the reference against itself, even strict.
      const against = await npx(project, [
        'run',
        '--base-url',
        url,
        '--clause',
        'AUTH-GUEST-15',
        'RES-PROBLEM-1',
        '--strict',
        '--reporter',
        'dot',
        '--output',
        'against-serve',
      ]);
      assert.equal(against.code, 0, against.out);
      assert.doesNotMatch(against.out, /WARN/);
    } finally {
      server.kill('SIGTERM');
    }

    const run = await npx(project, ['run', '--clause', 'RES-PROBLEM-1', '--reporter', 'dot', '--output', 'embedded']);
    assert.equal(run.code, 0, run.out);
    const report = JSON.parse(readFileSync(join(project, 'embedded', 'conformance-report.json'), 'utf8')) as {
      checks: { status: string }[];
    };
    assert.ok(report.checks.length > 0 && report.checks.every((c) => c.status === 'passed'));
  },
);
