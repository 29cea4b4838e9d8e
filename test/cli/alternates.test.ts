// The suite is the CI gate of alternate implementations: at level `spec` it may fail a deployment only for breaking the
// spec. Each conforming alternate (test/helpers/alternates.ts) is the reference behind a proxy that changes one thing the
// spec or the RFCs it cites leave free; the whole spec level must pass it. Each broken twin changes the same thing wrongly
// and must fail, so that the alternates' passes are the suite's tolerance and not an idle proxy.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { fixtureProfile, rotatingProfilePath } from '../helpers/reference.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { behindProxy } from '../helpers/behind-proxy.js';
import { ALTERNATES, BROKEN_TWINS } from '../helpers/alternates.js';
import { shortRun } from '../helpers/short-run.js';
import { cli, describeOutcome, outputDir, tryReport } from '../helpers/cli.js';

/** Full spec runs at a time: each is one Playwright worker, mostly waiting on the network, so two cores carry three. */
const CONCURRENCY = 3;

// ------------------------------------------------------------------------------------------------------------ the wire

interface Wire {
  status: number;
  /** Header field lines as received, names as written. */
  lines: [string, string][];
  body: string;
  /** Values of the lines named `name` (case-insensitively). */
  all(name: string): string[];
}

/** One exchange read off the socket, without fetch's normalisation (which joins repeated lines and lowercases names). */
function wire(url: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Wire> {
  return new Promise((resolve, reject) => {
    request(url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const lines: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({
          status: res.statusCode ?? 0,
          lines,
          body: Buffer.concat(chunks).toString('utf8'),
          all: (name) => lines.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v),
        });
      });
    })
      .on('error', reject)
      .end();
  });
}

const json = (w: Wire) => JSON.parse(w.body) as Record<string, any>;
const guestToken = () => createMinter(fixtureProfile).guest();

/** What each alternate must show on the wire, so that its passing run is not an idle proxy's. */
const SHOWS: Record<string, (url: string) => Promise<void>> = {
  'challenges-on-separate-lines': async (url) => {
    const w = await wire(url, '/v1/cart');
    assert.deepEqual(w.all('www-authenticate'), ['DPoP error="invalid_token", algs="ES256"', 'Bearer error="invalid_token"']);
    assert.deepEqual(w.all('cache-control'), ['no-store']);
    assert.deepEqual((await wire(url, '/openapi.json')).all('cache-control'), ['public', 'max-age=300']);
  },
  'auth-params-as-tokens': async (url) => {
    assert.deepEqual((await wire(url, '/v1/cart')).all('www-authenticate'), [
      'Bearer error=invalid_token, DPoP algs=ES256, error=invalid_token',
    ]);
  },
  'lowercase-auth-schemes': async (url) => {
    assert.deepEqual((await wire(url, '/v1/cart')).all('www-authenticate'), [
      'bearer error="invalid_token", dpop error="invalid_token", algs="ES256"',
    ]);
  },
  'problem-extension-members': async (url) => {
    const doc = json(await wire(url, '/v1/cart'));
    assert.match(doc.trace, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    assert.deepEqual(doc.retry, { advised: false });
  },
  'media-type-and-header-spelling': async (url) => {
    const problem = await wire(url, '/v1/cart');
    // Framing and connection fields are the proxy's own (Node writes them).
    const own = /^(content-length|transfer-encoding|connection|keep-alive)$/i;
    assert.ok(
      problem.lines.every(([k]) => k === k.toUpperCase() || own.test(k)),
      JSON.stringify(problem.lines),
    );
    assert.deepEqual(problem.all('content-type'), ['application/problem+json']);
    assert.deepEqual((await wire(url, '/health')).all('content-type'), ['Application/JSON ;Charset="UTF-8"']);
  },
  'chunked-bodies': async (url) => {
    for (const w of [await wire(url, '/v1/cart'), await wire(url, '/health')]) {
      assert.deepEqual([w.all('transfer-encoding'), w.all('content-length')], [['chunked'], []]);
    }
  },
  'ulid-request-ids': async (url) => {
    const w = await wire(url, '/v1/cart');
    const [id] = w.all('x-request-id');
    assert.match(id!, /^req-[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(json(w).instance, id);
  },
  'other-entity-tags': async (url) => {
    const authorization = `Bearer ${await guestToken()}`;
    const [etag] = (await wire(url, '/v1/catalog/collections', { authorization })).all('etag');
    assert.match(etag!, /^W\/"v2-[0-9a-f]{32}"$/);
    assert.equal((await wire(url, '/v1/catalog/collections', { authorization, 'if-none-match': etag! })).status, 304);
    assert.equal((await wire(url, '/v1/catalog/collections', { authorization, 'if-none-match': 'W/"v2-0"' })).status, 200);
  },
  'volatile-record-members': async (url) => {
    const [a, b] = [json(await wire(url, '/health')), json(await wire(url, '/health'))];
    assert.notEqual(a.trace, b.trace);
    assert.equal(typeof a.served_at, 'string');
  },
  'unmatched-route-400': async (url) => {
    const unknown = await wire(url, '/no-such-route');
    assert.deepEqual(
      [unknown.status, json(unknown).error, json(unknown).type],
      [400, 'unknown_route', `${fixtureProfile.docsUrl.replace(/\/+$/, '')}/api/problems/unknown_route`],
    );
    const method = await wire(url, '/openapi.json', {}, 'DELETE');
    assert.deepEqual([method.status, json(method).error, method.all('allow')], [400, 'unknown_route', []]);
  },
};

describe('each alternate changes the wire as it says', () => {
  test('every alternate has its wire probe', () => assert.deepEqual(Object.keys(SHOWS).sort(), ALTERNATES.map((a) => a.name).sort()));
  for (const alternate of ALTERNATES) {
    test(alternate.name, () => behindProxy(alternate.rules, (url) => SHOWS[alternate.name]!(url)));
  }
});

// ------------------------------------------------------------------------------------------------------ the whole suite

// One pool for both, long runs first, so that the short twin runs fill the cores while the last full runs finish.
describe('alternates pass the spec level; their broken twins fail it', { concurrency: CONCURRENCY }, () => {
  for (const alternate of shortRun('alternates', ALTERNATES, process.env.ALTERNATES?.split(',').filter(Boolean))) {
    test(`conforming: ${alternate.name} (${alternate.freedom})`, { timeout: 360_000 }, async (t) => {
      await behindProxy(alternate.rules, async (url) => {
        const dir = outputDir();
        const r = await cli(
          ['run', '--base-url', url, '--profile', rotatingProfilePath(), '--level', 'spec', '--reporter', 'list', '--output', dir],
          300_000,
        );
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        const report = tryReport(dir);
        const message = `${alternate.name} (${Math.round(r.ms / 1000)} s): exit ${r.code}\n${describeOutcome(report, r.out)}`;
        assert.equal(r.code, 0, message);
        // A SHOULD-level failure is a warning, not a failed run; on a conforming deployment it is as false as a failure.
        assert.deepEqual(
          report?.checks.filter((c) => c.status === 'warning').map((c) => c.id),
          [],
          message,
        );
      });
    });
  }
  for (const twin of BROKEN_TWINS) {
    test(`broken twin of ${twin.of}: ${twin.name}`, { timeout: 120_000 }, async (t) => {
      await behindProxy(twin.rules, async (url) => {
        const dir = outputDir();
        const grep = `\\[${twin.check.replace(/\./g, '\\.')}\\]`;
        const r = await cli([
          'run',
          '--base-url',
          url,
          '--level',
          'spec',
          '--grep',
          grep,
          '--reporter',
          'list',
          '--output',
          dir,
          '--no-doctor',
        ]);
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        const report = tryReport(dir);
        assert.equal(r.code, 1, `${twin.name}: exit ${r.code}\n${describeOutcome(report, r.out)}`);
        const caught = report!.checks.find((c) => c.id === twin.check);
        assert.equal(caught?.status, 'failed', `${twin.name}: ${twin.check} ${caught?.status ?? 'not run'}`);
        // The failure names the clause, alone or among the clauses of its assertion: `[A]` or `[A, B]`.
        const named = /^[^[]*\[([^\]]+)\]/.exec(caught!.reason ?? '')?.[1]?.split(/,\s*/) ?? [];
        assert.ok(named.includes(twin.clause), `${twin.name}: ${twin.check} should fail naming ${twin.clause}: ${caught!.reason}`);
      });
    });
  }
});
