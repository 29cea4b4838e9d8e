// `shop-conformance self-test` on a small selection against the embedded reference: a wire-level and a leniency defect
// are killed, a toothless one survives (exit 1); the JSON and HTML matrices land in --output. Without a browser the CORS
// defects are still killed, by the header checks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';
import { loadConfig } from '../../reference/src/config.js';
import { startServer } from '../../reference/src/server.js';
import { DEFECTS } from '../../conformance/selftest/defects/index.js';
import { sendUpstream, startProxy } from '../../conformance/selftest/proxy.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { fixtureProfile, rotatingProfilePath } from '../helpers/reference.js';

interface Row {
  id: string;
  verdict: string;
  kills: { check: string }[];
  missed: string[];
  afterKill: string[];
  baselineFailing: string[];
}
const rowOf = (out: string, id: string): Row | undefined =>
  (JSON.parse(readFileSync(join(out, 'self-test.json'), 'utf8')) as { defects: Row[] }).defects.find((d) => d.id === id);

/** Three checks kill this defect (the catalog validators of three operations), each on its own. */
const CACHE_DEFECT = 'endpoints.catalog-cache-max-age';

describe('shop-conformance self-test', () => {
  test('kills a wire-level and a leniency defect, a toothless defect survives: exit 1', async () => {
    const out = outputDir();
    const r = await cli(
      [
        'self-test',
        '--defect',
        'endpoints.create-without-location',
        'authentication.expired-token-accepted',
        'authentication.forged-guest-session-accepted',
        '--toothless',
        'END-PUBLIC-1',
        '--workers',
        '2',
        '--output',
        out,
      ],
      240_000,
    );
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /KILLED\s+endpoints\.create-without-location\s+END-CONV-2/);
    assert.match(r.out, /KILLED\s+authentication\.expired-token-accepted\s+AUTH-TOKEN-6\s+authentication\.token\.expired/);
    assert.match(r.out, /SURVIVED\s+selftest\.toothless\.END-PUBLIC-1\s+END-PUBLIC-1\s+passed: endpoints\.public\.health/);
    assert.match(r.out, /Kill rate: 3\/4 \(75\.0%\)/);
    assert.match(r.out, /uncovered \(\d+\):/);
    const json = JSON.parse(readFileSync(join(out, 'self-test.json'), 'utf8')) as {
      summary: { killed: number; survived: number };
      defects: { id: string; verdict: string }[];
    };
    assert.deepEqual(json.summary.killed, 3);
    assert.deepEqual(json.defects.find((d) => d.id === 'selftest.toothless.END-PUBLIC-1')?.verdict, 'survived');
    assert.ok(existsSync(join(out, 'self-test.html')));
  });

  test('without a browser (SHOP_CONFORMANCE_CHROMIUM=none) the CORS defects are killed by the header checks: exit 0', async () => {
    const out = outputDir();
    const saved = process.env.SHOP_CONFORMANCE_CHROMIUM;
    process.env.SHOP_CONFORMANCE_CHROMIUM = 'none';
    try {
      const r = await cli(['self-test', '--clause', 'PUR-PROTO-3', '--level', 'spec', '--workers', '1', '--output', out], 240_000);
      assert.equal(r.code, 0, r.out);
      // The defect that answers browsers only (Sec-Fetch-Mode: cors) is seen by checks that send what Chromium sends.
      assert.match(r.out, /KILLED\s+purpose\.cors-for-browsers\s+PUR-PROTO-3\s+purpose\.no-cors\.(preflight|requests)/);
      assert.match(r.out, /KILLED\s+purpose\.cors-offered\s+PUR-PROTO-3/);
      assert.match(r.out, /survivors: 0; unjudged: 0/);
      assert.doesNotMatch(r.out, /^Survivors:/m);
      const json = JSON.parse(readFileSync(join(out, 'self-test.json'), 'utf8')) as { defects: { id: string; skipped: string[] }[] };
      // The browser check did not run: the verdict owes nothing to it.
      assert.deepEqual(json.defects.find((d) => d.id === 'purpose.cors-for-browsers')?.skipped, ['purpose.no-cors.browser']);
    } finally {
      if (saved === undefined) delete process.env.SHOP_CONFORMANCE_CHROMIUM;
      else process.env.SHOP_CONFORMANCE_CHROMIUM = saved;
    }
  });

  test('--list prints the library; unknown names are usage errors (exit 2, one line)', async () => {
    const list = await cli(['self-test', '--list']);
    assert.equal(list.code, 0);
    assert.match(list.out, /^errors\.cart-empty-as-409\tERR-TABLE-14\twire\t/m);
    assert.match(list.out, /^authentication\.expired-token-accepted\tAUTH-TOKEN-6\tleniency\t/m);
    const bad = await cli(['self-test', '--defect', 'no.such']);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /shop-conformance self-test: --defect: no defect no\.such/);
  });

  test('--shard i/n: disjoint shards that together list the selection; a bad shard is a usage error (exit 2, one line)', async () => {
    const whole = (await cli(['self-test', '--list'])).out.trim().split('\n');
    const shards = await Promise.all(['1/3', '2/3', '3/3'].map((s) => cli(['self-test', '--list', '--shard', s])));
    const lists = shards.map((r) => (assert.equal(r.code, 0, r.out), r.out.trim().split('\n')));
    for (const l of lists) assert.ok(l.length >= Math.floor(whole.length / 3) && l.length <= Math.ceil(whole.length / 3));
    assert.deepEqual(lists.flat().sort(), [...whole].sort());
    assert.equal(new Set(lists.flat()).size, whole.length);
    const bad = await cli(['self-test', '--list', '--shard', '4/3']);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /^shop-conformance self-test: --shard: i\/n with 1 <= i <= n, like 1\/3$/m);
  });

  test('--scoped all: a defect and one narrowed variant per cell; a surviving variant names its clause and cell', async () => {
    const out = outputDir();
    const r = await cli(
      ['self-test', '--defect', 'purpose.endpoints.identity-leaks-email', '--scoped', 'all', '--workers', '1', '--output', out],
      240_000,
    );
    assert.match(r.out, /KILLED\s+purpose\.endpoints\.identity-leaks-email\s+PUR-BANNER-2/);
    const json = JSON.parse(readFileSync(join(out, 'self-test.json'), 'utf8')) as {
      defects: { id: string; verdict: string; scope?: { of: string; cell: string }; message?: string; known?: string }[];
    };
    const variants = json.defects.filter((d) => d.scope?.of === 'purpose.endpoints.identity-leaks-email');
    assert.deepEqual(variants.map((v) => v.scope!.cell).sort(), ['caller=assistant', 'caller=invited-agent']);
    for (const v of variants.filter((x) => x.verdict !== 'killed'))
      assert.match(v.message ?? '', new RegExp(`^PUR-BANNER-2 broken for ${v.scope!.cell.slice('caller='.length)} only: survived`));
    // A surviving variant fails the run unless the known-survivors list names it.
    assert.equal(r.code, variants.every((v) => v.verdict === 'killed' || v.known !== undefined) ? 0 : 1, r.out);
  });

  test('--list --scoped all names the cells of each defect and says which defects get no variants', async () => {
    const list = await cli(['self-test', '--list', '--scoped', 'all', '--clause', 'PUR-BANNER-2', 'AUTH-GUEST-15', 'AUTH-TOKEN-6']);
    assert.equal(list.code, 0, list.out);
    assert.match(
      list.out,
      /^purpose\.endpoints\.identity-leaks-email\tPUR-BANNER-2\twire\t2 variant\(s\): caller=invited-agent caller=assistant$/m,
    );
    assert.match(
      list.out,
      /^authentication\.expired-token-accepted\tAUTH-TOKEN-6\tleniency\tno variants: the clause has no declared domain$/m,
    );
  });
  test('--beyond-spec judges only the defects the spec level sets aside, at the reference level', async () => {
    const out = outputDir();
    const r = await cli(
      [
        'self-test',
        '--beyond-spec',
        '--defect',
        'errors.malformed-path-as-404',
        'errors.validation-challenge',
        '--no-baseline',
        '--output',
        out,
      ],
      240_000,
    );
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /--beyond-spec: 1 defect\(s\) only the reference level judges/);
    assert.match(r.out, /KILLED\s+errors\.malformed-path-as-404\s+ERR-TABLE-11/);
    assert.doesNotMatch(r.out, /errors\.validation-challenge/);
    assert.match(r.out, /level reference/);
  });

  test('--beyond-spec with --level spec: one line, exit 2', async () => {
    const r = await cli(['self-test', '--beyond-spec', '--level', 'spec', '--output', outputDir()]);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /--beyond-spec: judges at the reference level/);
  });

  test('a defect stops at its first kill; --every-check runs every check of it', async () => {
    const out = outputDir();
    const r = await cli(['self-test', '--defect', CACHE_DEFECT, '--workers', '1', '--output', out], 240_000);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /each defect until its first kill/);
    const first = rowOf(out, CACHE_DEFECT)!;
    assert.equal(first.verdict, 'killed');
    assert.equal(first.kills.length, 1, JSON.stringify(first));
    assert.ok(first.afterKill.length >= 2, JSON.stringify(first));
    const every = outputDir();
    const all = await cli(['self-test', '--defect', CACHE_DEFECT, '--every-check', '--workers', '1', '--output', every], 240_000);
    assert.equal(all.code, 0, all.out);
    const row = rowOf(every, CACHE_DEFECT)!;
    assert.deepEqual(row.afterKill, []);
    assert.deepEqual([...row.kills.map((k) => k.check), ...row.missed].sort(), [first.kills[0]!.check, ...first.afterKill].sort());
    assert.ok(row.kills.length >= 3, JSON.stringify(row));
  });

  test('a first kill by a check that fails without the defect too: the checks it left unrun run after', async () => {
    // A deployment that has the defect itself: every check of its clause fails on the baseline as on the defect.
    const reference = await startServer(
      loadConfig({ env: {}, profilePath: rotatingProfilePath(), overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
    const defect = DEFECTS.find((d) => d.id === CACHE_DEFECT)!;
    const ctx = { profile: fixtureProfile, mint: createMinter(fixtureProfile), send: sendUpstream(reference.url), target: reference.url };
    const deployment = await startProxy(reference.url, defect.rules(ctx));
    try {
      const out = outputDir();
      const r = await cli(
        [
          'self-test',
          '--base-url',
          deployment.url,
          '--profile',
          rotatingProfilePath(),
          '--defect',
          CACHE_DEFECT,
          '--workers',
          '1',
          '--output',
          out,
        ],
        240_000,
      );
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /1 defect\(s\) whose kills failed without the defect too: their other checks run now/);
      const row = rowOf(out, CACHE_DEFECT)!;
      assert.equal(row.verdict, 'unjudged', JSON.stringify(row));
      assert.deepEqual(row.afterKill, [], 'every check ran in the end');
      assert.equal(row.baselineFailing.length, 3, JSON.stringify(row));
    } finally {
      await deployment.close();
      await reference.close();
    }
  });
});
