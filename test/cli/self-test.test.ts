// `shop-conformance self-test` on a small selection against the embedded reference: a wire-level and a leniency defect
// are killed, a toothless one survives (exit 1); the JSON and HTML matrices land in --output.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';

describe('shop-conformance self-test', () => {
  test('kills a wire-level and a leniency defect, a toothless defect survives: exit 1', async () => {
    const out = outputDir();
    const r = await cli(
      [
        'self-test',
        '--defect',
        'endpoints.create-without-location',
        'auth.expired-token-accepted',
        'auth.forged-guest-session-accepted',
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
    assert.match(r.out, /KILLED\s+auth\.expired-token-accepted\s+AUTH-TOKEN-6\s+auth\.token\.expired/);
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

  test('--list prints the library; unknown names are usage errors (exit 2, one line)', async () => {
    const list = await cli(['self-test', '--list']);
    assert.equal(list.code, 0);
    assert.match(list.out, /^errors\.cart-empty-as-409\tERR-TABLE-14\twire\t/m);
    assert.match(list.out, /^auth\.expired-token-accepted\tAUTH-TOKEN-6\tleniency\t/m);
    const bad = await cli(['self-test', '--defect', 'no.such']);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /shop-conformance self-test: --defect: no defect no\.such/);
  });

  test('--scoped all: a defect and one narrowed variant per cell; a surviving variant names its clause and cell', async () => {
    const out = outputDir();
    const r = await cli(
      ['self-test', '--defect', 'endpoints.identity-leaks-email', '--scoped', 'all', '--workers', '1', '--output', out],
      240_000,
    );
    assert.match(r.out, /KILLED\s+endpoints\.identity-leaks-email\s+PUR-BANNER-2/);
    const json = JSON.parse(readFileSync(join(out, 'self-test.json'), 'utf8')) as {
      defects: { id: string; verdict: string; scope?: { of: string; cell: string }; message?: string }[];
    };
    const variants = json.defects.filter((d) => d.scope?.of === 'endpoints.identity-leaks-email');
    assert.deepEqual(variants.map((v) => v.scope!.cell).sort(), ['caller=assistant', 'caller=invited-agent']);
    for (const v of variants.filter((x) => x.verdict !== 'killed'))
      assert.match(v.message ?? '', new RegExp(`^PUR-BANNER-2 broken for ${v.scope!.cell.slice('caller='.length)} only: survived`));
    assert.equal(r.code, variants.every((v) => v.verdict === 'killed') ? 0 : 1, r.out);
  });

  test('--list --scoped all names the cells of each defect and says which defects get no variants', async () => {
    const list = await cli(['self-test', '--list', '--scoped', 'all', '--clause', 'PUR-BANNER-2', 'AUTH-GUEST-15', 'AUTH-TOKEN-6']);
    assert.equal(list.code, 0, list.out);
    assert.match(list.out, /^endpoints\.identity-leaks-email\tPUR-BANNER-2\twire\t2 variant\(s\): caller=invited-agent caller=assistant$/m);
    assert.match(list.out, /^auth\.expired-token-accepted\tAUTH-TOKEN-6\tleniency\tno variants: the clause has no declared domain$/m);
  });
});
