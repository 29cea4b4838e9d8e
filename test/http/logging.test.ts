// The reference's logs (docs/configuration.md#logs): pino's JSON lines with the fields the reference has always written,
// LOG_LEVEL honoured; lines buffered and written asynchronously; and every queued line written when the process exits,
// on a crash, and when `serve` stops on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { createLogger } from '../../reference/src/log.js';

const BURST = new URL('../helpers/log-burst.ts', import.meta.url).pathname;
const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;

/** A destination that keeps what it is given. */
function collect(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return {
    stream,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test('a line is one JSON object: level by name, an ISO time, the event and its fields; lower levels are not written', () => {
  const out = collect();
  const log = createLogger('info', out.stream);
  log.debug('hidden', { a: 1 });
  log.info('request', { requestId: 'req-1', method: 'GET', path: '/v1/cart', status: 200, ms: 1.5 });
  log.warn('plain');
  log.error('api_error', { requestId: 'req-2', error: 'boom' });
  const lines = out.lines();
  assert.deepEqual(
    lines.map(({ time: _time, ...rest }) => rest),
    [
      { level: 'info', requestId: 'req-1', method: 'GET', path: '/v1/cart', status: 200, ms: 1.5, event: 'request' },
      { level: 'warn', event: 'plain' },
      { level: 'error', requestId: 'req-2', error: 'boom', event: 'api_error' },
    ],
  );
  for (const { time } of lines) assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual([log.enabled?.('debug'), log.enabled?.('info'), log.enabled?.('error')], [false, true, true]);
});

test('LOG_LEVEL error writes errors alone; silent writes nothing', () => {
  const errors = collect();
  const e = createLogger('error', errors.stream);
  e.info('request');
  e.warn('job_failed');
  e.error('api_error');
  assert.deepEqual(
    errors.lines().map((l) => l.event),
    ['api_error'],
  );
  const silent = createLogger('silent');
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    silent[level]('nothing');
    assert.equal(silent.enabled?.(level), false);
  }
});

test('lines to a file descriptor are buffered: none is written by the call, all of them within a moment or at flush()', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shop-log-')), 'log');
  const log = createLogger('info', openSync(file, 'w'));
  const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  log.info('request', { requestId: 'req-a' });
  log.warn('job_failed', { job: 'x' });
  // A logger that wrote synchronously would have both lines in the file by now.
  assert.deepEqual(lines(), []);
  // Light traffic: the buffer goes out on its own, shortly after its first line.
  for (let i = 0; i < 50 && lines().length < 2; i++) await sleep(20);
  assert.deepEqual(
    lines().map((l) => (JSON.parse(l) as { event: string }).event),
    ['request', 'job_failed'],
  );
  // On shutdown: what is queued is written before flush() returns.
  log.info('request', { requestId: 'req-b' });
  assert.equal(lines().length, 2);
  log.flush?.();
  assert.equal(lines().length, 3);
});

/** Runs log-burst.ts with a stderr pipe that is not read until the child says it has logged. */
async function burst(lines: number, end: 'exit' | 'crash'): Promise<{ logged: boolean; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BURST, String(lines), end], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.pause();
  const logged = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      if (String(d).includes('logged')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  child.stderr.resume();
  if (!logged) child.kill('SIGKILL');
  const code = await new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('close', (c) => resolve(c));
  });
  await new Promise((resolve) => (child.stderr.readableEnded ? resolve(undefined) : child.stderr.once('end', resolve)));
  return { logged, code, stderr };
}

const bursts = (stderr: string) => stderr.split('\n').filter((l) => l.includes('"event":"burst"'));

// 2 000 lines of ~280 bytes are eight times what a pipe holds (64 KiB): most of them are still queued in the process
// when it exits.
test('a burst of lines on a stderr nobody reads yet: every line is written, once, when the process exits', async () => {
  const r = await burst(2000, 'exit');
  assert.ok(r.logged, `the process was held up by its logs (stderr so far: ${r.stderr.length} bytes)`);
  assert.equal(r.code, 0);
  const lines = bursts(r.stderr);
  assert.equal(lines.length, 2000);
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { i: number }).i).sort((a, b) => a - b),
    Array.from({ length: 2000 }, (_, i) => i),
  );
});

test('the lines queued before a crash are written', async () => {
  const r = await burst(2000, 'crash');
  assert.ok(r.logged);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /crash after the burst/);
  assert.equal(bursts(r.stderr).length, 2000);
});

test('serve writes the request lines of its last answers when it stops on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0'], {
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const ids = Array.from({ length: 20 }, (_, i) => `logging-test-${i}-${process.pid}`);
  for (const id of ids) assert.equal((await fetch(`${url}/health`, { headers: { 'x-request-id': id } })).status, 200);
  child.kill('SIGTERM');
  assert.equal(await exit, 0);
  const requests = err
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.event === 'request');
  assert.deepEqual(
    requests.map((l) => [l.requestId, l.level, l.method, l.path, l.status]),
    ids.map((id) => [id, 'info', 'GET', '/health', 200]),
  );
});
