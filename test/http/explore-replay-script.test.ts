// A replay script run for real: bash, curl and the CLI against the reference. Credentials minted on replay work (a guest
// keeps its cart, a delegated agent checks out once, an assistant's session and proofs are accepted), and the defects
// the labels name are refused as the spec says.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXTURE_PROFILE_PATH, realClock, startReference, type Harness } from '../helpers/reference.js';
import { renderCurlScript } from '../../conformance/explore/curl-script.js';
import type { Step } from '../../conformance/explore/exchange.js';
import { curlScriptOf } from '../../conformance/explore/oracles.js';
import { fixtureOf } from '../../conformance/explore/world.js';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).pathname;

let h: Harness;
before(async () => {
  // The script's CLI mints with the wall clock, seconds after the harness started: the reference reads the same clock.
  h = await startReference({ clock: realClock() });
});
after(() => h.close());

test('the script replays a sequence against the reference with fresh credentials', async () => {
  const step = (caller: string, method: string, path: string, body?: unknown): Step => ({
    operationId: 'x',
    method,
    path,
    caller,
    headers: {},
    ...(body !== undefined ? { body: { json: body } } : {}),
  });
  const steps: Step[] = [
    step('guest', 'POST', '/v1/cart/items', { variant_id: 'var_0101', quantity: 1 }),
    step('guest', 'GET', '/v1/cart'),
    step('guest#2', 'GET', '/v1/cart'),
    step('delegated@cust_checkout_7', 'POST', '/v1/cart/items', { variant_id: 'var_0201', quantity: 1 }),
    step('delegated@cust_checkout_7', 'POST', '/v1/checkouts/saved-card', { payment_method_id: 'pm_chk7' }),
    step('delegated@cust_checkout_7', 'POST', '/v1/checkouts/saved-card', { payment_method_id: 'pm_chk7' }),
    step('assistant', 'GET', '/v1/me/profile'),
    step('assistant', 'GET', '/v1/me/profile'),
    step('assistant:replay', 'GET', '/v1/me/profile'),
    step('customer:bad-signature', 'GET', '/v1/me/profile'),
    step('none', 'GET', '/v1/cart'),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'replay-script-'));
  try {
    const file = join(dir, 'replay.sh');
    writeFileSync(file, renderCurlScript(steps, { baseUrl: h.url, profilePath: FIXTURE_PROFILE_PATH, cli: `node --import ${TSX} ${CLI}` }));
    const { stdout } = await promisify(execFile)('bash', [file], { cwd: dir, timeout: 240_000, maxBuffer: 1 << 24 });
    const answers = stdout.split(/^### step \d+: .*$/m).slice(1);
    assert.equal(answers.length, steps.length, stdout.slice(0, 2000));
    const status = (i: number) => Number(/^HTTP\/[\d.]+ (\d{3})/m.exec(answers[i]!)?.[1]);
    const error = (i: number) => /"error":"([a-z_]+)"/.exec(answers[i]!)?.[1];
    assert.ok(status(0) >= 200 && status(0) < 300, answers[0]);
    assert.match(answers[1]!, /var_0101/, 'the guest keeps its cart across steps');
    assert.doesNotMatch(answers[2]!, /var_0101/, 'another guest has another cart');
    assert.equal(status(4), 201, answers[4]);
    assert.deepEqual([status(5), error(5)], [422, 'cart_empty']);
    assert.equal(status(6), 200, answers[6]);
    assert.equal(status(7), 200, answers[7]);
    assert.deepEqual([status(8), error(8)], [401, 'invalid_dpop_proof']);
    assert.deepEqual([status(9), error(9)], [401, 'invalid_token']);
    assert.deepEqual([status(10), error(10)], [401, 'invalid_token']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the agent callers of explore's plans replay with fresh credentials, their defects made by the CLI", async () => {
  const { accounts, variants } = fixtureOf(h.profile);
  const cart = (caller: string, method = 'GET', body?: unknown): Step => ({
    operationId: 'x',
    method,
    path: method === 'DELETE' ? `/v1/cart/items/${variants[0]}` : method === 'POST' ? '/v1/cart/items' : '/v1/cart',
    caller,
    headers: {},
    ...(body !== undefined ? { body: { json: body } } : {}),
  });
  const steps: Step[] = [
    cart('invited:a', 'POST', { variant_id: variants[0], quantity: 1 }),
    cart('assistant:a'),
    cart('assistant:proof-replay'),
    cart('assistant:proof-wrong-htu'),
    cart('assistant:proof-wrong-key'),
    cart('assistant:bearer'),
    cart('invited:forged-context'),
    cart('forwarder:no-artifact'),
    cart('invited:expired-context'),
    cart('assistant:proof-stale-iat'),
    cart('assistant:a', 'DELETE'),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'replay-script-'));
  try {
    const file = join(dir, 'replay.sh');
    const script = curlScriptOf(steps, { baseUrl: h.url, profile: h.profile, profilePath: FIXTURE_PROFILE_PATH });
    writeFileSync(file, script);
    const { stdout } = await promisify(execFile)('bash', [file], {
      cwd: dir,
      timeout: 240_000,
      maxBuffer: 1 << 24,
      env: { ...process.env, SHOP_CLI: `node --import ${TSX} ${CLI}` },
    });
    const answers = stdout.split(/^### step \d+: .*$/m).slice(1);
    assert.equal(answers.length, steps.length, stdout.slice(0, 2000));
    const status = (i: number) => Number(/^HTTP\/[\d.]+ (\d{3})/m.exec(answers[i]!)?.[1]);
    const error = (i: number) => /"error":"([a-z_]+)"/.exec(answers[i]!)?.[1];
    assert.equal(status(0), 201, answers[0]);
    assert.equal(status(1), 200, answers[1]);
    assert.match(answers[1]!, new RegExp(variants[0]), `the invited agent and the assistant share ${accounts.a.sub}'s cart`);
    for (const i of [2, 3, 4]) assert.deepEqual([status(i), error(i)], [401, 'invalid_dpop_proof'], answers[i]);
    for (const i of [5, 6, 7, 8]) assert.deepEqual([status(i), error(i)], [401, 'invalid_token'], answers[i]);
    assert.match(script, /# caller 'assistant:proof-stale-iat': not mintable from the CLI/);
    assert.ok(status(10) >= 200 && status(10) < 300, answers[10]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
