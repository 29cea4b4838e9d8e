// `shop-conformance serve`: prints its URL, answers, and stops cleanly on SIGINT and SIGTERM; bad configuration exits 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const BIN = new URL('../../cli/bin.cjs', import.meta.url).pathname;

function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, exit, stderr: () => err, stdout: () => out };
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`serve answers on its printed URL and exits 0 on ${signal}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shop-serve-'));
    const s = serve(['--port', '0', '--db', join(dir, 'shop.db')]);
    const url = await s.url;
    const health = await fetch(url + '/health');
    assert.equal(health.status, 200);
    const products = await fetch(url + '/v1/catalog/products');
    assert.equal(products.status, 401);
    s.child.kill(signal);
    assert.equal(await s.exit, 0);
  });
}

test("the published bin gives serve's thread pool one thread fewer than the cores (1 to 4) unless UV_THREADPOOL_SIZE is set", () => {
  // cli/bin.cjs itself, beside a stand-in for the CLI that starts libuv's pool (every thread at once) and counts threads.
  const dir = mkdtempSync(join(tmpdir(), 'shop-bin-'));
  copyFileSync(BIN, join(dir, 'bin.cjs'));
  writeFileSync(
    join(dir, 'main.js'),
    "import { readdirSync } from 'node:fs'; import { pbkdf2 } from 'node:crypto';\n" +
      "pbkdf2('a', 'b', 1, 8, 'sha256', () => process.stdout.write(String(readdirSync('/proc/self/task').length)));\n",
  );
  const { UV_THREADPOOL_SIZE: _ignored, ...unset } = process.env;
  const threads = (command: string, env: NodeJS.ProcessEnv) =>
    Number(execFileSync(process.execPath, [join(dir, 'bin.cjs'), command, '--port', '0'], { env, encoding: 'utf8' }));
  const libuvDefault = threads('serve', { ...unset, UV_THREADPOOL_SIZE: '4' });
  assert.equal(threads('serve', unset) - libuvDefault, Math.min(4, Math.max(1, availableParallelism() - 1)) - 4);
  assert.equal(threads('run', unset), libuvDefault, "other commands keep libuv's default");
  assert.equal(threads('serve', { ...unset, UV_THREADPOOL_SIZE: '2' }), libuvDefault - 2, 'a set size is kept');
});

test('an invalid configuration value exits 2 naming the variable', async () => {
  const s = serve(['--port', '0'], { GUEST_SESSION_KEY: 'short' });
  assert.equal(await s.exit, 2);
  assert.match(s.stderr(), /GUEST_SESSION_KEY/);
  await s.url.catch(() => undefined);
});

test('a port in use: one line naming --port and the address, exit 2, no stack', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  try {
    const port = String((busy.address() as AddressInfo).port);
    const s = serve(['--port', port]);
    assert.equal(await s.exit, 2);
    assert.equal(s.stderr().trim(), `shop-conformance serve: --port: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
    await s.url.catch(() => undefined);
  } finally {
    busy.close();
  }
});

test('without PUBLIC_BASE_URL serve warns that htu trusts Host, louder beyond loopback; with it, no warning', async () => {
  for (const [args, env, want] of [
    [['--port', '0'], { PUBLIC_BASE_URL: '' }, /WARNING: PUBLIC_BASE_URL is not set[\s\S]*before listening beyond loopback/],
    [['--port', '0', '--host', '0.0.0.0'], { PUBLIC_BASE_URL: '' }, /listens on 0\.0\.0\.0, beyond loopback/],
    [['--port', '0'], { PUBLIC_BASE_URL: 'https://shop.example' }, null],
  ] as const) {
    const s = serve([...args], env.PUBLIC_BASE_URL === '' ? {} : env);
    await s.url;
    await new Promise((r) => setTimeout(r, 100));
    if (want) assert.match(s.stderr(), want);
    else assert.doesNotMatch(s.stderr(), /WARNING/);
    s.child.kill('SIGTERM');
    assert.equal(await s.exit, 0);
  }
});

test('with PUBLIC_BASE_URL serve prints where it listens (the bound address) and, apart from it, the public URL', async () => {
  const s = serve(['--port', '0'], { PUBLIC_BASE_URL: 'https://shop.example' });
  const url = await s.url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(url + '/health')).status, 200);
  s.child.kill('SIGTERM');
  assert.equal(await s.exit, 0);
  assert.match(s.stdout(), /^public URL \(PUBLIC_BASE_URL\): https:\/\/shop\.example$/m);
});
