// npm run bench -- --only explore [--explore-budget 20] [--explore-defect-budget 120] [--explore-targets id,name,...]:
// `explore` (fixed seed, fixed budget) against the self-test's stateful defects, each behind its proxy in front of an embedded reference, and against
// the conforming alternates. What it finds on each is printed; a stateful or concurrency defect it misses, and a finding
// on an alternate, are failures of the bench (explore must never blame a freedom the spec leaves).
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { startEmbedded } from '../cli/commands/run.js';
import { exploreOracles } from '../conformance/explore/oracles.js';
import { explore } from '../conformance/explore/runner.js';
import { DEFECTS } from '../conformance/selftest/defects/index.js';
import { EXPLORE_REACH_DEFECTS } from '../conformance/selftest/defects/explore-reach/index.js';
import { startProxy, type ProxyRules } from '../conformance/selftest/proxy.js';
import { createMinter } from '../conformance/lib/mint.js';
import { FIXTURE_PROFILE } from '../reference/src/paths.js';
import { readProfileFile } from '../conformance/engine/runner/params.js';
import { ALTERNATES } from '../test/helpers/alternates.js';
import { BLIND_ALTERNATES } from '../test/helpers/blind-alternates.js';
import { DESCRIBED_ALTERNATES } from '../test/helpers/described-alternates.js';
import { freePort } from '../test/helpers/free-port.js';

/** Defects whose break shows only after a sequence of calls, or on one caller kind, route or input shape. */
export const EXPLORE_DEFECTS = [
  'purpose.empty-cart-checkout-accepted',
  'purpose.order-replayed',
  'purpose.idempotent-replay',
  'endpoints.account.others-rows-served',
  'endpoints.account.others-data-served',
  'blind.purpose.idempotency-replay-add-address',
  'blind.endpoints.delete-foreign-address-204',
  'errors.cart-empty-as-409',
  'blind.errors.cart-empty-409',
  // Shown only by requests at once: one proof sent twice, a budget spent from several connections.
  'authentication.dpop-replay-accepted',
  'limits.guest-budget-unenforced',
] as const;

export const SEED = 20_261_126;
/** The exploration the coverage map is measured on (issue: every cell of a two-minute run). */
const COVERAGE_BUDGET_S = 120;

export async function benchExplore(
  line: (s: string) => void,
  verdict: (ok: boolean) => string,
  o: {
    /** Each alternate's exploration (the whole of it: no finding is the target). */
    budgetS: number;
    /** Each defect's, at most: `explore`'s default budget; its run ends at its first finding. */
    defectBudgetS: number;
    targets?: readonly string[];
  },
): Promise<void> {
  const wanted = (name: string) => !o.targets || o.targets.includes(name);
  // The self-test's stateful defects, and the deviations written blind from the spec for explore's reach (one family each:
  // rarely sent routes, callers on routes closed to them, token shapes, body shapes, reads across callers of an account).
  const defects = [...EXPLORE_DEFECTS.map((id) => DEFECTS.find((d) => d.id === id)!), ...EXPLORE_REACH_DEFECTS].filter((d) => wanted(d.id));
  // Alternates that change the profile (another audience, a cookie) need a reference configured alike: left to `run`.
  const alternates = [...ALTERNATES, ...DESCRIBED_ALTERNATES, ...BLIND_ALTERNATES.filter((a) => !a.profile)].filter((a) => wanted(a.name));
  line(
    `\n== explore (seed ${SEED}, ${o.defectBudgetS} s at most per defect, ending at its first finding; ${o.budgetS} s per alternate): ${defects.length} defects (stateful, and blind-written for reach), ${alternates.length} conforming alternates; targets: every defect found, no finding on an alternate`,
  );
  // A fresh target and lockstep reference for each: what one exploration leaves (orders, stock) never weighs on the next.
  const run = async (rules: ProxyRules, basePath = '', budgetS = o.budgetS, stopAtFirst = false) => {
    // Under a path prefix the target knows its public URL (its proofs' `htu`, its Locations): the proxy's, on a port
    // chosen before the target starts, as a deployment behind a gateway is configured.
    const port = basePath ? await freePort() : 0;
    const target = await startEmbedded(FIXTURE_PROFILE, undefined, basePath ? `http://127.0.0.1:${port}${basePath}` : undefined);
    const reference = await startEmbedded(FIXTURE_PROFILE);
    const listening = `http://127.0.0.1:${(target.server.server.address() as AddressInfo).port}`;
    const proxy = await startProxy(listening, rules, port);
    try {
      return await explore({
        baseUrl: proxy.url + basePath,
        referenceUrl: reference.server.url,
        profile: target.profile,
        seed: SEED,
        budgetMs: budgetS * 1000,
        // A defect is found or not: the first finding ends its run, shrunk for at most the alternates' budget.
        shrinkMs: (stopAtFirst ? o.budgetS : budgetS) * 1000,
        stopAtFirst,
        oracles: exploreOracles(),
      });
    } finally {
      await proxy.close();
      for (const e of [target, reference]) {
        await e.server.close();
        rmSync(e.dir, { recursive: true, force: true });
      }
    }
  };
  const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
  // The coverage map: a two-minute run against the embedded reference reaches every command × caller-kind cell, and
  // sends about as many requests a second as before every route was a command (measured then on this machine's class,
  // 2026-11-28, seed 7, 60 s in lockstep: 241 requests/s; after: 257/s).
  if (wanted('coverage')) {
    const r = await run({}, '', COVERAGE_BUDGET_S);
    const unreached = r.coverage?.unreached ?? [];
    const rate = r.steps / (r.ms / 1000);
    line(
      `   coverage ${COVERAGE_BUDGET_S} s: ${r.steps} requests (${rate.toFixed(0)}/s; 241/s before every route was a command), ${r.coverage?.rows.length ?? 0} cells reached, ${unreached.length} command × caller-kind cells never reached${unreached.length ? ` (${unreached.map((u) => `${u.command} as ${u.kind}`).join(', ')})` : ''}, ${r.failures.length} findings  ${verdict(unreached.length === 0 && r.failures.length === 0)}`,
    );
  }
  {
    let found = 0;
    for (const d of defects) {
      const r = await run(d.rules({ profile, mint: createMinter(profile) }), '', o.defectBudgetS, true);
      const fs = r.failures;
      if (fs.length) found++;
      line(
        `   defect ${d.id.padEnd(48)} ${fs.length ? `FOUND ${fs.map((f) => `[${[...new Set(f.findings.flatMap((x) => x.clauses))].join(' ')}] in ${f.steps.length} requests (shrunk from ${f.original})`).join(', ')}, ${r.runs} runs, ${(r.ms / 1000).toFixed(0)} s with shrinking` : `not found (${r.runs} runs, ${r.steps} requests)`}  ${verdict(fs.length > 0)}`,
      );
    }
    if (defects.length) line(`   defects found: ${found} of ${defects.length}`);
    for (const a of alternates) {
      const r = await run(a.rules, 'basePath' in a ? ((a as { basePath?: string }).basePath ?? '') : '');
      const all = r.failures.flatMap((f) => f.findings);
      line(
        `   alternate ${a.name.padEnd(45)} ${all.length ? `FINDING [${all.map((x) => `${x.clauses.join(' ')}: ${x.message}`).join('; ')}]` : `no finding (${r.runs} runs, ${r.steps} requests)`}  ${verdict(all.length === 0)}`,
      );
    }
  }
}
