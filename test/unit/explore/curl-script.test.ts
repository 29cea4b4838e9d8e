// The replay script: bash reads back exactly the headers, bodies and URLs of the steps (quotes, control bytes, repeated
// and empty headers), and credentials are minted by the CLI on replay, one identity per caller label. Run with a recording
// `curl` and `shop-conformance` in place of the real ones: nothing leaves the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planCaller, renderCurlScript, shellWord } from '../../../conformance/explore/curl-script.js';
import type { Step } from '../../../conformance/explore/exchange.js';

const FAKE_CURL = `#!/usr/bin/env bash
args=("$@"); n=$(ls "$LOG" | grep -c '^call' || true); out="$LOG/call$(date +%s%N)-$$"; : > "$out"
for ((i=0; i<\${#args[@]}; i++)); do
  a="\${args[$i]}"
  case "$a" in
    -D) printf 'HTTP/1.1 200 OK\\r\\nDPoP-Nonce: nonce-%s\\r\\n\\r\\n' "$n" > "\${args[$((i+1))]}" ;;
    -o) printf '{}' > "\${args[$((i+1))]}" ;;
  esac
  prev="\${args[$((i-1))]:-}"
  if [[ "$a" == @* && ( "$prev" == -H || "$prev" == --data-binary ) ]]; then printf 'FILE:%s' "$(base64 -w0 < "\${a#@}")" >> "$out"; else printf '%s' "$a" >> "$out"; fi
  printf '\\0' >> "$out"
done
`;

const FAKE_SHOP = `#!/usr/bin/env bash
printf '%s ' "$@" >> "$LOG/shop"; echo >> "$LOG/shop"
if [ "$1 $2" = "assistant session" ]; then echo "export SHOP=elsewhere"; echo "export ASSISTANT_TOKEN=tok-$RANDOM"; echo "export DPOP_NONCE=n0"; exit 0; fi
if [ "$1" = dpop ]; then echo "proof-$RANDOM"; exit 0; fi
kind="$2"; uuid=none; prev=""
for a in "$@"; do [ "$prev" = --uuid ] && uuid="$a"; prev="$a"; done
echo "Authorization: Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.SIGNATURE0123456789$RANDOM"
[ "$kind" = guest ] && echo "Guest-Session: gs1.$uuid.realsignature"
exit 0
`;

/** Runs the script with the fakes; returns each curl call's argv (files it was given inline) and the CLI's calls. */
function replay(script: string): { calls: string[][]; shop: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'curl-script-'));
  try {
    const bin = join(dir, 'bin');
    const log = join(dir, 'log');
    execFileSync('mkdir', ['-p', bin, log]);
    writeFileSync(join(bin, 'curl'), FAKE_CURL);
    writeFileSync(join(bin, 'fake-shop'), FAKE_SHOP);
    chmodSync(join(bin, 'curl'), 0o755);
    chmodSync(join(bin, 'fake-shop'), 0o755);
    writeFileSync(join(dir, 'replay.sh'), script);
    execFileSync('bash', [join(dir, 'replay.sh')], {
      env: { PATH: `${bin}:${process.env.PATH}`, LOG: log, SHOP_CLI: 'fake-shop' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const files = readdirSync(log).filter((f) => f.startsWith('call'));
    const time = (f: string) => BigInt(f.slice(4).split('-')[0]!);
    files.sort((a, b) => (time(a) < time(b) ? -1 : 1));
    const calls = files.map((f) => readFileSync(join(log, f), 'utf8').split('\0').slice(0, -1));
    const shop = readdirSync(log).includes('shop') ? readFileSync(join(log, 'shop'), 'utf8').trim().split('\n') : [];
    return { calls, shop };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fileOf = (arg: string) => Buffer.from(arg.replace(/^FILE:/, ''), 'base64').toString('utf8');
const after = (argv: string[], flag: string) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : []));

test('headers, bodies and URLs reach curl exactly as the steps hold them', () => {
  const nasty = `it's "quoted" $HOME \`id\` \\ ; & | * ? ü`;
  const steps: Step[] = [
    {
      operationId: 'addCartItem',
      method: 'POST',
      path: "/v1/cart/items?q=[1]{2}&x='y'",
      caller: 'none',
      headers: { 'idempotency-key': [nasty, 'second'], 'x-empty': '' },
      body: { json: { variant_id: nasty, quantity: 1 } },
    },
    { operationId: 'raw', method: 'PATCH', path: '/v1/cart/items/a%2Fb', caller: '', headers: {}, body: { text: 'a\u0000b\r\n\u0007' } },
    {
      operationId: 'raw',
      method: 'POST',
      path: '/v1/cart/items',
      caller: '',
      headers: {},
      body: { text: '@/etc/passwd', contentType: 'text/plain' },
    },
  ];
  const { calls } = replay(renderCurlScript(steps, { baseUrl: 'http://127.0.0.1:9/' }));
  assert.equal(calls.length, 3);
  const [first, second, third] = calls as [string[], string[], string[]];
  assert.equal(first.at(-1), "http://127.0.0.1:9/v1/cart/items?q=[1]{2}&x='y'");
  assert.deepEqual(after(first, '-H'), [
    `idempotency-key: ${nasty}`,
    'idempotency-key: second',
    'x-empty;',
    'Content-Type: application/json',
  ]);
  assert.deepEqual(after(first, '--data-raw'), [JSON.stringify({ variant_id: nasty, quantity: 1 })]);
  assert.deepEqual(after(first, '-X'), ['POST']);
  assert.equal(fileOf(after(second, '--data-binary')[0]!), 'a\u0000b\r\n\u0007');
  assert.deepEqual(after(second, '-H'), ['Content-Type:']);
  assert.equal(second.at(-1), 'http://127.0.0.1:9/v1/cart/items/a%2Fb');
  // --data-raw never reads a file named after @.
  assert.deepEqual(after(third, '--data-raw'), ['@/etc/passwd']);
  assert.deepEqual(after(third, '-H'), ['Content-Type: text/plain']);
});

test('credentials are minted on replay: one cart per guest, fresh proofs with the last nonce, a broken signature, a replayed proof', () => {
  const get = (caller: string, path = '/v1/cart'): Step => ({ operationId: 'getCart', method: 'GET', path, caller, headers: {} });
  const steps = [
    get('guest'),
    get('guest#2'),
    get('guest'),
    get('assistant'),
    get('assistant'),
    get('assistant:replay'),
    get('customer@cust_ben:bad-signature'),
  ];
  const { calls, shop } = replay(renderCurlScript(steps, { baseUrl: 'http://h', profilePath: 'my profile.json' }));
  const creds = calls.map((c) => fileOf(after(c, '-H')[0]!));
  const session = (i: number) => /Guest-Session: (.*)/.exec(creds[i]!)![1];
  assert.equal(session(0), session(2));
  assert.notEqual(session(0), session(1));
  assert.match(session(0)!, /^gs1\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\.realsignature$/);
  const tokenCalls = shop.filter((l) => l.startsWith('token'));
  assert.ok(tokenCalls.every((l) => l.includes('--profile my profile.json')));
  // One session per assistant; each request a fresh proof with the nonce last given (the session's, then fake curl's call 3).
  assert.equal(shop.filter((l) => l.startsWith('assistant session')).length, 1);
  assert.match(
    shop.find((l) => l.startsWith('assistant session'))!,
    /--base-url http:\/\/h --profile my profile.json --key /,
  );
  const proofs = shop.filter((l) => l.startsWith('dpop'));
  assert.equal(proofs.length, 2);
  assert.match(proofs[0]!, /--method GET --url http:\/\/h\/v1\/cart --token tok-\d+ --nonce n0 /);
  assert.match(proofs[1]!, /--nonce nonce-3 /);
  assert.match(creds[3]!, /^Authorization: DPoP tok-\d+\nDPoP: proof-\d+\n$/);
  assert.notEqual(creds[4], creds[3]);
  // The replay sends the previous proof again, byte for byte; nothing is minted for it.
  assert.equal(creds[5], creds[4]);
  assert.equal(tokenCalls.length, 4);
  assert.match(tokenCalls[3]!, /^token customer --profile my profile.json --sub cust_ben --headers/);
  assert.match(creds[6]!, /Authorization: Bearer eyJhbGciOiJFUzI1NiJ9\.eyJzdWIiOiJ4In0\.AAAAAAAA/);
});

test('caller labels: kinds, subjects, defects the CLI mints, tampers, and unknown labels', () => {
  assert.deepEqual(planCaller('none'), { kind: null, args: [], identity: 'none' });
  assert.deepEqual(planCaller('customer@cust_ben:expired'), {
    kind: 'customer',
    args: ['--sub', 'cust_ben', '--expires-in', '-60'],
    identity: 'customer@cust_ben',
  });
  assert.deepEqual(planCaller('guest#2:forged-session'), { kind: 'guest', args: [], identity: 'guest#2', tamper: 'guest-session' });
  assert.equal(planCaller('martian').unknown, 'martian');
  assert.equal(planCaller('customer:teleported').unknown, 'customer:teleported');
  const script = renderCurlScript([{ operationId: 'getCart', method: 'GET', path: '/v1/cart', caller: 'martian', headers: {} }], {
    baseUrl: 'http://h',
  });
  assert.match(script, /# caller 'martian': not mintable from the CLI/);
});

test('shellWord: bash reads every string back unchanged', () => {
  for (const s of ["a'b", '$(id)', 'tab\there', 'cr\rlf\n', '\u0001\u001f', 'ünïcödé', '\\x41', '']) {
    const out = execFileSync('bash', ['-c', `printf '%s' ${shellWord(s)}`]).toString('utf8');
    assert.equal(out, s);
  }
});

test('steps sent at once: credentials minted first, the requests in the background, then every answer in step order', () => {
  const add = (caller: string): Step => ({
    operationId: 'checkoutSavedCard',
    method: 'POST',
    path: '/v1/checkouts/saved-card',
    caller,
    headers: {},
  });
  const steps = [add('delegated@cust_x'), add('delegated@cust_x'), add('delegated@cust_x'), add('delegated@cust_x')];
  const script = renderCurlScript(steps, { baseUrl: 'http://h', parallel: [[1, 2, 3]] });
  const lines = script.split('\n');
  const background = lines.flatMap((l, i) => (/^curl .* &$/.test(l) ? [i] : []));
  assert.equal(background.length, 3);
  const minted = lines.flatMap((l, i) => (/token delegated/.test(l) ? [i] : []));
  assert.equal(minted.length, 4);
  assert.ok(minted.slice(1).every((i) => i < background[0]!));
  assert.equal(lines[background[2]! + 1], 'wait');
  const headings = lines.filter((l) => l.startsWith("echo '### step"));
  assert.deepEqual(
    headings.map((h) => /step (\d)/.exec(h)![1]),
    ['1', '2', '3', '4'],
  );
  const { calls } = replay(script);
  assert.equal(calls.length, 4);
});
