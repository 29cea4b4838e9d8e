// `shop-conformance explore` as a user runs it: a short seeded exploration of the embedded reference finds nothing; a
// deployment with a stateful deviation (the self-test's defect that accepts a checkout of an empty cart) yields a
// finding that is shrunk, written as a replay file, and that `--replay` reproduces against it (exit 1) and not against
// a conforming deployment (exit 0); a broken replay file is a usage error naming the file and the field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';
import { rmSync } from 'node:fs';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { DEFECTS } from '../../conformance/selftest/defects/index.js';
import { createMinter } from '../../conformance/lib/mint.js';

const report = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'explore-report.json'), 'utf8')) as {
    verdict: string;
    runs: number;
    findings: { oracle: string; clauses: string[]; message: string }[];
    sequences: { original: number; plans: unknown[]; steps: unknown[]; replay: string }[];
  };

test('a short seeded exploration of the embedded reference finds nothing', { timeout: 180_000 }, async () => {
  const dir = outputDir();
  const r = await cli(['explore', '--budget', '30s', '--seed', '11', '--output', dir], 170_000);
  assert.equal(r.code, 0, r.out.slice(-3000));
  const rep = report(dir);
  assert.equal(rep.verdict, 'no finding');
  assert.ok(rep.runs > 10, `only ${rep.runs} sequences ran`);
  assert.match(readFileSync(join(dir, 'junit.xml'), 'utf8'), /failures="0"/);
  assert.match(readFileSync(join(dir, 'explore.html'), 'utf8'), /No finding/);
});

describe('a deployment that accepts a second checkout of the same cart', () => {
  type Embedded = Awaited<ReturnType<typeof startEmbedded>>;
  let reference: Embedded;
  let plain: Embedded;
  let proxy: Proxy;
  const stop = async (e: Embedded) => (await e.server.close(), rmSync(e.dir, { recursive: true, force: true }));
  before(async () => {
    // Real clocks: the doctor of `explore --base-url` mints every caller kind against them.
    reference = await startEmbedded(FIXTURE_PROFILE_PATH);
    plain = await startEmbedded(FIXTURE_PROFILE_PATH);
    const defect = DEFECTS.find((d) => d.id === 'purpose.empty-cart-checkout-accepted')!;
    proxy = await startProxy(reference.server.url, defect.rules({ profile: reference.profile, mint: createMinter(reference.profile) }));
  });
  after(async () => {
    await proxy.close();
    await stop(reference);
    await stop(plain);
  });

  test('is found, shrunk, written as a replay file that --replay reproduces', { timeout: 300_000 }, async () => {
    const dir = outputDir();
    const r = await cli(['explore', '--base-url', proxy.url, '--budget', '20s', '--seed', '5', '--output', dir], 170_000);
    assert.equal(r.code, 1, r.out.slice(-3000));
    assert.match(r.out, /FINDING/);
    const rep = report(dir);
    assert.equal(rep.verdict, 'finding');
    assert.ok(
      rep.findings.some((f) => f.clauses.includes('PUR-IDEM-4')),
      JSON.stringify(rep.findings),
    );
    // Shrunk: an empty cart checked out is one request (the carts start empty).
    const sequence = rep.sequences[0]!;
    assert.ok(sequence.steps.length <= sequence.original, JSON.stringify(sequence));
    assert.equal(sequence.plans.length, 1, JSON.stringify(sequence.plans));
    const replayFile = join(dir, 'finding-1.replay.json');
    assert.equal(sequence.replay, replayFile);
    assert.ok(existsSync(replayFile));
    // Beside it, the sequence as curl commands minting their credentials when the script runs.
    const script = readFileSync(join(dir, 'finding-1.sh'), 'utf8');
    assert.match(script, /^#!\/usr\/bin\/env bash/);
    assert.match(script, /curl .*\/v1\/checkouts\/saved-card/);
    // The account's checkout caller, minted by the CLI: its token, or an assistant's session and proof.
    assert.match(script, /token (customer|delegated|invited-agent)|assistant session .*\n.*\n.*dpop --key/);
    assert.match(readFileSync(join(dir, 'junit.xml'), 'utf8'), /<failure type="ConformanceFailure"/);

    const again = await cli(['explore', '--replay', replayFile, '--base-url', proxy.url, '--output', outputDir()], 120_000);
    assert.equal(again.code, 1, again.out.slice(-3000));
    assert.match(again.out, /PUR-IDEM-4/);

    const fixed = await cli(['explore', '--replay', replayFile, '--base-url', plain.server.url, '--output', outputDir()], 120_000);
    assert.equal(fixed.code, 0, fixed.out.slice(-3000));
    assert.match(fixed.out, /no longer diverges/);
  });
});

test('a replay file without its plan is a usage error naming the file and the field', async () => {
  const dir = outputDir();
  const file = join(dir, 'broken.replay.json');
  writeFileSync(file, JSON.stringify({ format: 'shop-conformance explore replay 1', seed: 1, plans: [{ op: 'nope' }] }));
  const r = await cli(['explore', '--replay', file, '--output', dir]);
  assert.equal(r.code, 2, r.out);
  assert.equal(r.out.trim().split('\n').length, 1, r.out);
  assert.match(r.out, /broken\.replay\.json: plans\.0\.op/);
});

test('a bad budget is a usage error (2); a base URL where nothing answers is exit 3, as for run', async () => {
  const budget = await cli(['explore', '--budget', 'soon']);
  assert.equal(budget.code, 2, budget.out);
  assert.match(budget.out, /^shop-conformance explore: --budget: /);
  const nothing = await cli(['explore', '--base-url', 'http://127.0.0.1:9', '--budget', '5s', '--output', outputDir()]);
  assert.equal(nothing.code, 3, nothing.out);
  assert.match(nothing.out, /nothing answers/);
});
