// Section `latency` of npm run bench: latency (median, p95) and throughput of the reference on this machine, for a catalog read (with its
// ETag), a cart write, and a full assistant request (DPoP proof, nonce, replay record). Figures vary with the machine and
// its load: compare runs made together, never against a constant.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../reference/src/config.js';
import { startServer } from '../reference/src/server.js';
import { createMinter } from '../conformance/lib/mint.js';
import { createDpopKey, dpopProof } from '../conformance/lib/dpop.js';
import { readProfileFile } from '../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../reference/src/paths.js';
import { randomUUID } from 'node:crypto';

const N = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function measure(name: string, one: (i: number) => Promise<Response>): Promise<void> {
  for (let i = 0; i < 20; i++) await (await one(-1 - i)).arrayBuffer(); // warm-up
  const times: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const t = performance.now();
        const res = await one(i);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status >= 400) failures++;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
  process.stdout.write(
    `${name.padEnd(34)} median ${q(0.5).padStart(6)} ms   p95 ${q(0.95).padStart(6)} ms   ${(N / wall).toFixed(0).padStart(5)} req/s   failures ${failures}\n`,
  );
}

const profile = readProfileFile(FIXTURE_PROFILE);
const server = await startServer(
  loadConfig({
    env: {},
    profilePath: FIXTURE_PROFILE,
    overrides: {
      port: 0,
      databasePath: ':memory:',
      logLevel: 'error',
      guestRateLimitBudget: 1_000_000,
      assistantSessionRateLimitBudget: 1_000_000,
      assistantClientRateLimitBudget: 1_000_000,
    },
  }),
);
try {
  const mint = createMinter(profile);
  process.stdout.write(`reference at ${server.url}: ${N} requests per scenario, ${CONCURRENCY} at a time\n`);

  const guest = await mint.guest();
  await measure('GET /v1/catalog/products (guest)', () =>
    fetch(`${server.url}/v1/catalog/products?limit=20`, { headers: { authorization: `Bearer ${guest}` } }),
  );

  const customer = await mint.customer({ sub: `bench_${randomUUID()}` });
  await measure('POST /v1/cart/items (customer)', () =>
    fetch(`${server.url}/v1/cart/items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ variant_id: 'var_0101', quantity: 1 }),
    }).then(async (r) => {
      // Keep the line below its cap: remove it again after each add.
      await fetch(`${server.url}/v1/cart/items/var_0101`, { method: 'DELETE', headers: { authorization: `Bearer ${customer}` } });
      return r;
    }),
  );

  // An assistant: a signed-in session reported by the proxy, a DPoP-bound token, a fresh proof per request.
  const key = await createDpopKey();
  const sid = `bench_${randomUUID()}`;
  const sub = `bench_${randomUUID()}`;
  const proxy = { 'x-proxy-idp-secret': profile.secrets.proxyIdpSecret!, 'content-type': 'application/json' };
  const connected = await fetch(`${server.url}/internal/assistant/agents/connected`, {
    method: 'POST',
    headers: proxy,
    body: JSON.stringify({ subject: sub, agent_id: 'bench', client_id: 'bench_client', permissions: ['assistant:read'], session_id: sid }),
  });
  if (connected.status >= 300) throw new Error(`could not register the assistant session: ${connected.status} ${await connected.text()}`);
  const token = await mint.assistant({
    sub,
    sid,
    jkt: key.thumbprint,
    scope: 'catalog:read cart:read cart:write account:read payment_methods:read orders:read',
  });
  let nonce: string | undefined;
  const url = `${server.url}/v1/cart`;
  const assistantGet = async () => {
    for (;;) {
      const proof = await dpopProof({ key, htm: 'GET', htu: url, accessToken: token, nonce });
      const res = await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
      nonce = res.headers.get('dpop-nonce') ?? nonce;
      if (res.status === 401 && (res.headers.get('www-authenticate') ?? '').includes('use_dpop_nonce')) {
        await res.arrayBuffer();
        continue;
      }
      return res;
    }
  };
  await measure('GET /v1/cart (assistant, DPoP)', assistantGet);
} finally {
  await server.close();
}
