// `doctor --wait` and `run --wait`: a deployment that comes up late is waited for (/health, then the description documents);
// one that never does is exit 3 with one line naming what never answered; a bad duration is a usage error (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../reference/src/config.js';
import { startServer } from '../../reference/src/server.js';
import { parseDuration } from '../../conformance/engine/doctor/wait.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { freePort } from '../helpers/free-port.js';
import { cli } from '../helpers/cli.js';

test('durations: 60s, 2m, 500ms, a bare number of seconds; anything else is none', () => {
  assert.equal(parseDuration('60s'), 60_000);
  assert.equal(parseDuration('2m'), 120_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('45'), 45_000);
  for (const bad of ['', 's', '1h', '-1s', '1.5s', 'soon']) assert.equal(parseDuration(bad), undefined, bad);
});

test('doctor --wait: the reference started two seconds after the doctor is waited for (exit 0)', async () => {
  const port = await freePort();
  const late = new Promise<Awaited<ReturnType<typeof startServer>>>((resolve) =>
    setTimeout(
      () =>
        resolve(
          startServer(
            loadConfig({
              env: {},
              profilePath: FIXTURE_PROFILE_PATH,
              overrides: { port, host: '127.0.0.1', databasePath: ':memory:', logLevel: 'silent' },
            }),
          ),
        ),
      2000,
    ),
  );
  const r = await cli(['doctor', '--base-url', `http://127.0.0.1:${port}`, '--wait', '30s']);
  await (await late).close();
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /ok {3}reachable/);
});

test('doctor --wait: nothing ever answers: exit 3, one line naming /health and the connection error', async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const r = await cli(['doctor', '--base-url', url, '--wait', '1s']);
  assert.equal(r.code, 3, r.out);
  assert.equal(r.out, `shop-conformance doctor: --wait 1s: ${url}/health never answered within 1s (ECONNREFUSED)\n`);
});

test('run --wait: /health answers but the description never does: exit 3, one line naming /openapi.json', async () => {
  const half: Server = createHttpServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 503, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => half.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(half.address() as AddressInfo).port}`;
    const r = await cli(['run', '--base-url', url, '--wait', '1500ms', '--output', '/tmp/shop-wait-never']);
    assert.equal(r.code, 3, r.out);
    assert.equal(
      r.out,
      `shop-conformance run: --wait 1500ms: ${url}/openapi.json never answered within 1.5s (last answer 503, expected 200)\n`,
    );
  } finally {
    half.close();
  }
});

test('--wait with a bad duration: one line naming the option, exit 2', async () => {
  for (const command of ['doctor', 'run']) {
    const r = await cli([command, '--base-url', 'http://127.0.0.1:9', '--wait', 'soon']);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, new RegExp(`^shop-conformance ${command}: --wait: .*60s.*\\n$`));
  }
});
