// The blind-written conforming alternates (test/helpers/blind-alternates.ts) at the suite's `spec` level: each must pass
// (exit 0, no warning). Each is the reference behind a proxy that changes only what the spec or the RFCs it cites leave
// free, written by authors who did not read the checks, so that a failure here is a finding about the suite.
// `BLIND_ALTERNATES=name,name` runs only those.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { BLIND_ALTERNATES, type BlindAlternate } from '../helpers/blind-alternates.js';
import { startProxy } from '../helpers/mutating-proxy.js';
import { fixtureProfile, rotatingProfilePath } from '../helpers/reference.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { cli, describeOutcome, outputDir, tryReport } from '../helpers/cli.js';
import { shortRun } from '../helpers/short-run.js';

/** Full spec runs at a time (each one Playwright worker). */
const CONCURRENCY = 2;

const selected = shortRun('blind alternates', BLIND_ALTERNATES, process.env.BLIND_ALTERNATES?.split(',').filter(Boolean));

/** The reference (fresh database, rotating fixture profile) behind the alternate's proxy; the base URL to run against. */
async function deploy<T>(alternate: BlindAlternate, body: (baseUrl: string) => Promise<T>): Promise<T> {
  const port = alternate.basePath ? await freePort() : 0;
  const publicBaseUrl = alternate.basePath ? `http://127.0.0.1:${port}${alternate.basePath}` : null;
  const reference = await startServer(
    loadConfig({
      env: {},
      profilePath: rotatingProfilePath(),
      overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent', ...(publicBaseUrl ? { publicBaseUrl } : {}) },
    }),
  );
  // `url` is the public one when PUBLIC_BASE_URL is set: the proxy goes to the address the reference listens on.
  const listening = `http://127.0.0.1:${(reference.server.address() as { port: number }).port}`;
  const proxy = await startProxy(listening, alternate.rules, port);
  try {
    return await body(`${proxy.url}${alternate.basePath ?? ''}`);
  } finally {
    await proxy.close();
    await reference.close();
  }
}

/** The run's profile: the rotating fixture profile, as the alternate declares itself in it. */
function profileFor(alternate: BlindAlternate): string {
  const base = rotatingProfilePath();
  if (!alternate.profile) return base;
  const file = join(mkdtempSync(join(tmpdir(), 'shop-blind-alternate-')), 'profile.json');
  writeFileSync(file, JSON.stringify(alternate.profile(JSON.parse(readFileSync(base, 'utf8')))));
  return file;
}

// ------------------------------------------------------------------------------------------------------------ the wire

const mint = createMinter(fixtureProfile);
const get = (url: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(url, { ...init, headers, redirect: 'manual' });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const docOf = async (base: string) => (await (await get(`${base}/openapi.json`)).json()) as Record<string, any>;

/** What each alternate must show on the wire, so that its passing run is not an idle proxy's. */
const SHOWS: Record<string, (base: string) => Promise<void>> = {
  'description-documents-expires': async (base) => {
    for (const path of ['/openapi.json', '/assistant/openapi.json']) {
      const res = await get(base + path);
      assert.equal(res.headers.get('cache-control'), 'public');
      assert.equal(Date.parse(res.headers.get('expires')!) - Date.parse(res.headers.get('date')!), 300_000);
    }
  },
  'insufficient-scope-challenge': async (base) => {
    const res = await get(`${base}/v1/me/profile`, bearer(await mint.customer({ sub: 'cust_ada', scope: 'catalog:read' })));
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="account:read"');
  },
  'browser-artifact-cookie': async (base) => {
    const scheme = (await docOf(base)).components.securitySchemes.assistantBrowserSession;
    assert.deepEqual([scheme.type, scheme.in, scheme.name], ['apiKey', 'cookie', 'shop_agent_session']);
  },
  'path-prefix': async (base) => {
    assert.equal((await get(`${base}/health`)).status, 200);
    assert.equal((await get(`${base.replace(/\/shop$/, '')}/health`)).status, 404);
    assert.deepEqual((await docOf(base)).servers, [{ url: '/shop', description: 'this deployment' }]);
  },
  'delegated-api-audience-only': async (base) => {
    const api = await mint.delegated({ sub: 'cust_ada', channel: 'openapi' });
    const agent = await mint.delegated({ sub: 'cust_ada', channel: 'mcp' });
    assert.equal((await get(`${base}/v1/cart`, bearer(api))).status, 200);
    const refused = await get(`${base}/v1/cart`, bearer(agent));
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  },
  'checkout-camel-case-body': async (base) => {
    const doc = await docOf(base);
    const op = Object.values(doc.paths['/v1/checkouts/saved-card'] as Record<string, any>)[0];
    assert.deepEqual(op.requestBody.content['application/json'].example, { payment: { paymentMethodId: 'pm_0001' } });
    const token = await mint.delegated({ sub: 'cust_ada', channel: 'openapi', scope: 'checkout' });
    const headers = { ...bearer(token), 'content-type': 'application/json' };
    const res = await get(`${base}/v1/checkouts/saved-card`, headers, { method: 'POST', body: '{"payment_method_id":"pm_0001"}' });
    assert.equal(res.status, 400);
  },
  'challenge-realm': async (base) => {
    assert.equal(
      (await get(`${base}/v1/cart`)).headers.get('www-authenticate'),
      'Bearer realm="shop", error="invalid_token", DPoP realm="shop", error="invalid_token", algs="ES256"',
    );
  },
  'retry-after-http-date': async (base) => {
    // The guest budget of one operation spent, the next request is refused with an HTTP-date.
    const headers = { ...bearer(await mint.guest()), 'guest-session': newGuestSession(fixtureProfile.secrets.guestSessionKey) };
    const budget = fixtureProfile.rateLimits?.guestBudget ?? 0;
    for (let i = 0; i < budget; i++) await (await get(`${base}/v1/catalog/collections`, headers)).arrayBuffer();
    const res = await get(`${base}/v1/catalog/collections`, headers);
    assert.equal(res.status, 429);
    assert.ok(Date.parse(res.headers.get('retry-after')!) > Date.parse(res.headers.get('date')!), res.headers.get('retry-after')!);
  },
  'problems-without-detail': async (base) => {
    assert.equal('detail' in ((await (await get(`${base}/v1/cart`)).json()) as object), false);
  },
  'cache-directive-order': async (base) => {
    assert.equal(
      (await get(`${base}/v1/catalog/collections`, bearer(await mint.guest()))).headers.get('cache-control'),
      'no-cache, private',
    );
  },
  'security-headers-everywhere': async (base) => {
    const res = await get(`${base}/v1/cart`);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('vary'), 'Authorization');
  },
  'ratelimit-headers-for-guests': async (base) => {
    const limits = fixtureProfile.rateLimits!;
    const headers = { ...bearer(await mint.guest()), 'guest-session': newGuestSession(fixtureProfile.secrets.guestSessionKey) };
    const first = await get(`${base}/v1/catalog/products`, headers);
    assert.equal(first.headers.get('ratelimit-policy'), `"guest";q=${limits.guestBudget};w=${limits.guestWindowSeconds}`);
    for (let i = 1; i < limits.guestBudget; i++) await (await get(`${base}/v1/catalog/products`, headers)).arrayBuffer();
    const res = await get(`${base}/v1/catalog/products`, headers);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('ratelimit'), `"guest";r=0;t=${res.headers.get('retry-after')}`);
  },
  'no-store-spelled-long': async (base) => {
    const res = await get(`${base}/health`);
    assert.equal(res.headers.get('cache-control'), 'private, no-store, no-cache, must-revalidate, max-age=0');
    assert.equal(res.headers.get('pragma'), 'no-cache');
  },
  'allow-reordered-compact': async (base) => {
    const res = await get(`${base}/v1/cart`, {}, { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'HEAD,GET');
  },
  'rare-status-problem-extras': async (base) => {
    const headers = { ...bearer(await mint.guest()), 'guest-session': newGuestSession(fixtureProfile.secrets.guestSessionKey) };
    const budget = fixtureProfile.rateLimits?.guestBudget ?? 0;
    for (let i = 0; i < budget; i++) await (await get(`${base}/v1/catalog/collections`, headers)).arrayBuffer();
    const res = await get(`${base}/v1/catalog/collections`, headers);
    assert.equal(res.status, 429);
    const doc = (await res.json()) as { retry_after: number; help: string; detail: string };
    assert.equal(doc.retry_after, Number(res.headers.get('retry-after')));
    assert.match(doc.help, /\/api\/problems\/rate_limited$/);
    assert.match(doc.detail, /rate_limited/);
  },
  'absolute-location': async (base) => {
    // A delivered order of the seed, returned once: 201 with the order's GET URL, written whole.
    const headers = { ...bearer(await mint.customer({ sub: 'cust_ada' })), 'content-type': 'application/json' };
    const res = await get(`${base}/v1/me/orders/ord_1001/returns`, headers, { method: 'POST', body: '{"reason":"too small"}' });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('location'), `${base}/v1/me/orders/ord_1001`);
  },
  'retry-after-on-conflicts': async (base) => {
    // A delivered order cannot be cancelled: 409, with the advice.
    const headers = { ...bearer(await mint.customer({ sub: 'cust_ada' })), 'content-type': 'application/json' };
    const res = await get(`${base}/v1/me/orders/ord_1001/cancellation`, headers, { method: 'POST', body: '{}' });
    assert.equal(res.status, 409);
    assert.equal(res.headers.get('retry-after'), '1');
  },
  'unmatched-route-not-found': async (base) => {
    const res = await get(`${base}/openapi.json`, {}, { method: 'DELETE' });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: string }).error, 'route_not_found');
    assert.equal(res.headers.get('allow'), null);
  },
};

describe('each blind alternate changes the wire as it says', () => {
  test('every alternate has its wire probe', () => assert.deepEqual(Object.keys(SHOWS).sort(), BLIND_ALTERNATES.map((a) => a.name).sort()));
  for (const alternate of selected) test(alternate.name, () => deploy(alternate, (base) => SHOWS[alternate.name]!(base)));
});

// ------------------------------------------------------------------------------------------------------ the whole suite

describe('blind-written alternates pass the spec level', { concurrency: CONCURRENCY }, () => {
  for (const alternate of selected) {
    test(`conforming: ${alternate.name} (${alternate.freedom})`, { timeout: 420_000 }, async (t) => {
      await deploy(alternate, async (baseUrl) => {
        const dir = outputDir();
        const r = await cli(
          ['run', '--base-url', baseUrl, '--profile', profileFor(alternate), '--level', 'spec', '--reporter', 'list', '--output', dir],
          360_000,
        );
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        const report = tryReport(dir);
        const message = `${alternate.name} (${Math.round(r.ms / 1000)} s): exit ${r.code}\n${describeOutcome(report, r.out)}`;
        assert.equal(r.code, 0, message);
        assert.deepEqual(
          report?.checks.filter((c) => c.status === 'warning').map((c) => c.id),
          [],
          message,
        );
      });
    });
  }
});
