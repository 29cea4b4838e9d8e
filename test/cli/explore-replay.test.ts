// `explore --replay` of a deployment with keys of its own (a profile from `profile init`): the finding file records the
// profile it was found with, and the replay uses it without --profile (with the fixture profile the deployment would
// refuse every token: exit 3). A replay never writes into the directory of the finding it replays: by default its
// reports go beside it (`<dir>-replay-finding-1`), and an --output naming that directory is a one-line usage error, as
// is a recorded profile that is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';
import { startEmbedded } from '../../cli/commands/run.js';
import { replayOutput } from '../../cli/commands/explore.js';
import { startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { DEFECTS } from '../../conformance/selftest/defects/index.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { REPLAY_FORMAT } from '../../conformance/explore/report.js';

describe('a deployment with its own keys that accepts a checkout of an empty cart', () => {
  type Embedded = Awaited<ReturnType<typeof startEmbedded>>;
  let upstream: Embedded;
  let plain: Embedded;
  let proxy: Proxy;
  let profile: string;
  let findingDir: string;
  let finding: string;
  const stop = async (e: Embedded) => (await e.server.close(), rmSync(e.dir, { recursive: true, force: true }));
  before(async () => {
    const keys = outputDir();
    profile = join(keys, 'profile.json');
    const init = await cli(['profile', 'init', '--out', profile, '--env-out', join(keys, '.env'), '--test-only']);
    assert.equal(init.code, 0, init.out);
    upstream = await startEmbedded(profile);
    plain = await startEmbedded(profile);
    const defect = DEFECTS.find((d) => d.id === 'purpose.empty-cart-checkout-accepted')!;
    proxy = await startProxy(upstream.server.url, defect.rules({ profile: upstream.profile, mint: createMinter(upstream.profile) }));
    // A finding as explore writes it: one checkout of an empty cart, found with that profile.
    findingDir = join(outputDir(), 'explore-output');
    mkdirSync(findingDir);
    finding = join(findingDir, 'finding-1.replay.json');
    const plans = [{ op: 'checkoutSavedCard', caller: 'delegated:a', variant: 0, quantity: 1 }];
    writeFileSync(finding, JSON.stringify({ format: REPLAY_FORMAT, seed: 5, profile, plans }, null, 2) + '\n');
  });
  after(async () => {
    await proxy.close();
    await stop(upstream);
    await stop(plain);
  });

  test('replays with the profile the finding recorded, into a directory beside the finding', { timeout: 180_000 }, async () => {
    const before = Object.fromEntries(readdirSync(findingDir).map((f) => [f, readFileSync(join(findingDir, f), 'utf8')]));
    const r = await cli(['explore', '--replay', finding, '--base-url', proxy.url], 150_000);
    assert.equal(r.code, 1, r.out.slice(-3000));
    assert.match(r.out, new RegExp(`profile ${profile} \\(the finding's\\)`));
    assert.match(r.out, /PUR-IDEM-4/);
    // The finding's directory is as it was; the replay's reports are beside it, and its finding records the profile.
    const after = Object.fromEntries(readdirSync(findingDir).map((f) => [f, readFileSync(join(findingDir, f), 'utf8')]));
    assert.deepEqual(after, before);
    const out = replayOutput(finding);
    assert.equal(out, `${findingDir}-replay-finding-1`);
    assert.ok(existsSync(join(out, 'explore-report.json')), r.out.slice(-2000));
    assert.equal(JSON.parse(readFileSync(join(out, 'finding-1.replay.json'), 'utf8')).profile, profile);
    assert.match(r.out, new RegExp(`reports: ${out}/explore-report\\.json`));

    // Against the same deployment without the defect: it no longer diverges.
    const fixed = await cli(['explore', '--replay', finding, '--base-url', plain.server.url, '--output', outputDir()], 150_000);
    assert.equal(fixed.code, 0, fixed.out.slice(-3000));
    assert.match(fixed.out, /no longer diverges/);
  });

  test("an --output naming the finding's own directory: one line, exit 2, nothing written", async () => {
    const r = await cli(['explore', '--replay', finding, '--base-url', proxy.url, '--output', findingDir]);
    assert.equal(r.code, 2, r.out);
    assert.equal(
      r.out,
      `shop-conformance explore: --output: ${findingDir} holds the finding being replayed (${finding}); name another directory\n`,
    );
    assert.deepEqual(readdirSync(findingDir), ['finding-1.replay.json']);
  });

  test('a recorded profile that is gone: one line naming the replay file and its profile field, exit 2', async () => {
    const moved = join(outputDir(), 'finding-2.replay.json');
    const recorded = JSON.parse(readFileSync(finding, 'utf8')) as Record<string, unknown>;
    writeFileSync(moved, JSON.stringify({ ...recorded, profile: join(outputDir(), 'gone.json') }));
    const r = await cli(['explore', '--replay', moved, '--base-url', proxy.url]);
    assert.equal(r.code, 2, r.out);
    assert.equal(r.out.split('\n').length, 2, r.out);
    assert.match(r.out, new RegExp(`^shop-conformance explore: --replay: ${moved}: profile: .*gone\\.json.*\\(pass --profile\\)\\n$`));
  });
});
