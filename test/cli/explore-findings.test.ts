// Several findings in one run: a deployment with two independent defects behind one proxy (a checkout of an empty cart
// accepted, a stateful deviation; the guest budget not enforced, shown only by requests at once) yields both, each
// shrunk, each with its own replay file and curl script, each in the JSON, JUnit and HTML reports. The concurrency
// finding is shrunk to fewer requests than its scenario first sent, its script sends them at once, and its replay
// reruns that smallest scenario: exit 1 against the defect, 0 against a conforming deployment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startProxy, type Proxy, type ProxyRules } from '../../conformance/selftest/proxy.js';
import { DEFECTS } from '../../conformance/selftest/defects/index.js';
import { createMinter } from '../../conformance/lib/mint.js';

interface Reported {
  verdict: string;
  findings: { finding: number; oracle: string; clauses: string[]; replay: string; script?: string }[];
  sequences: {
    finding: number;
    original: number;
    steps: unknown[];
    replay: string;
    script?: string;
    plans?: unknown[];
    concurrency?: { scenario: string; extra?: number; schedule: number[] };
  }[];
}

/** Two defects' wire rules, one after the other (both rewrite answers only). */
function both(a: ProxyRules, b: ProxyRules): ProxyRules {
  return {
    buffer: (answer, req) => (a.buffer?.(answer, req) ?? true) || (b.buffer?.(answer, req) ?? true),
    response: (answer, req) => {
      const first = a.response ? a.response(answer, req) : answer;
      return b.response ? b.response(first, req) : first;
    },
  };
}

describe('a deployment with a stateful defect and a concurrency defect', () => {
  type Embedded = Awaited<ReturnType<typeof startEmbedded>>;
  let upstream: Embedded;
  let plain: Embedded;
  let proxy: Proxy;
  const stop = async (e: Embedded) => (await e.server.close(), rmSync(e.dir, { recursive: true, force: true }));
  before(async () => {
    upstream = await startEmbedded(FIXTURE_PROFILE_PATH);
    plain = await startEmbedded(FIXTURE_PROFILE_PATH);
    const ctx = { profile: upstream.profile, mint: createMinter(upstream.profile) };
    const rules = ['purpose.empty-cart-checkout-accepted', 'limits.guest-budget-unenforced'].map((id) => {
      const d = DEFECTS.find((x) => x.id === id)!;
      assert.equal(d.kind, 'wire', id);
      return d.rules(ctx);
    });
    proxy = await startProxy(upstream.server.url, both(rules[0]!, rules[1]!));
  });
  after(async () => {
    await proxy.close();
    await stop(upstream);
    await stop(plain);
  });

  test('both are reported, each shrunk and replayable', { timeout: 400_000 }, async () => {
    const dir = outputDir();
    const r = await cli(['explore', '--base-url', proxy.url, '--budget', '15s', '--seed', '5', '--output', dir], 300_000);
    assert.equal(r.code, 1, r.out.slice(-3000));
    const rep = JSON.parse(readFileSync(join(dir, 'explore-report.json'), 'utf8')) as Reported;
    assert.equal(rep.verdict, 'finding');
    const stateful = rep.sequences.find(
      (s) => !s.concurrency && rep.findings.some((f) => f.finding === s.finding && f.clauses.includes('PUR-IDEM-4')),
    );
    const budget = rep.sequences.find((s) => s.concurrency?.scenario === 'budget');
    assert.ok(stateful, JSON.stringify(rep.findings));
    assert.ok(budget, JSON.stringify(rep.findings));
    // Distinct findings only: no oracle and clauses twice.
    const keys = rep.findings.map((f) => `${f.oracle} ${[...f.clauses].sort().join(',')}`);
    assert.equal(new Set(keys).size, keys.length, keys.join('; '));
    // Each shrunk: the empty cart's checkout is one plan step; the budget one request past it, fewer than it first sent.
    assert.equal(stateful.plans!.length, 1, JSON.stringify(stateful.plans));
    assert.equal(budget.concurrency!.extra, 1, JSON.stringify(budget.concurrency));
    assert.ok(budget.steps.length < budget.original, `${budget.steps.length} of ${budget.original}`);
    assert.equal(budget.concurrency!.schedule.length, budget.steps.length);
    // Each with its files, named in the report; the console names each with its clauses.
    for (const s of rep.sequences) {
      assert.equal(s.replay, join(dir, `finding-${s.finding}.replay.json`));
      assert.ok(existsSync(s.replay) && existsSync(s.script!), s.replay);
    }
    assert.equal((r.out.match(/^FINDING \d+ of \d+$/gm) ?? []).length, rep.sequences.length, r.out.slice(-3000));
    assert.match(r.out, /\[LIM-RATE-4, ERR-TABLE-12\] concurrency:/);
    assert.match(r.out, /\[PUR-IDEM-4[^\]]*\] model:/);
    // The budget's curl script sends its requests at once.
    const script = readFileSync(budget.script!, 'utf8');
    assert.equal((script.match(/^curl .* &$/gm) ?? []).length, budget.steps.length);
    assert.match(script, /^wait$/m);
    // JUnit: one failure per finding, under its oracle; the page: one section per finding.
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    assert.equal((junit.match(/<failure /g) ?? []).length, rep.findings.length);
    assert.match(junit, /classname="explore\.concurrency" name="finding \d+ \[LIM-RATE-4, ERR-TABLE-12\]"/);
    assert.match(junit, /classname="explore\.model" name="finding \d+ \[PUR-IDEM-4/);
    const html = readFileSync(join(dir, 'explore.html'), 'utf8');
    assert.equal((html.match(/<section id="finding-\d+">/g) ?? []).length, rep.sequences.length);

    // The smallest scenario, replayed: still diverges behind the defect, not on a conforming deployment.
    const again = await cli(['explore', '--replay', budget.replay, '--base-url', proxy.url, '--output', outputDir()], 120_000);
    assert.equal(again.code, 1, again.out.slice(-3000));
    assert.match(again.out, /LIM-RATE-4/);
    assert.match(again.out, /shortest sequence \(\d+ requests/);
    const fixed = await cli(['explore', '--replay', budget.replay, '--base-url', plain.server.url, '--output', outputDir()], 120_000);
    assert.equal(fixed.code, 0, fixed.out.slice(-3000));
    assert.match(fixed.out, /no longer diverges/);
    const statefulAgain = await cli(['explore', '--replay', stateful.replay, '--base-url', proxy.url, '--output', outputDir()], 120_000);
    assert.equal(statefulAgain.code, 1, statefulAgain.out.slice(-3000));
  });
});
