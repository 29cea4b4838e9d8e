// Deployments that choose differently where the spec says "not shown" and say so in their own description documents
// (test/helpers/described-alternates.ts): the spec level learns each choice and passes. Each alternate's undescribed twin
// (the same choice, with the reference's documents left as they were) must fail on the operation's clause, so that the
// passes prove the learning, not an idle proxy.
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { ProxyRules } from '../helpers/mutating-proxy.js';
import { behindProxy } from '../helpers/behind-proxy.js';
import { cartBodies, DESCRIBED_ALTERNATES, opsRoutes } from '../helpers/described-alternates.js';
import { shortRun } from '../helpers/short-run.js';
import { cli, outputDir, readReport, type Report } from '../helpers/cli.js';
import { CREDENTIAL_CONVENTIONS, credentialFormats } from '../helpers/credential-alternate.js';
import { fixtureProfile } from '../helpers/reference.js';

const failures = (report: Report | undefined, out: string) =>
  report
    ? report.checks
        .filter((c) => c.status !== 'passed' && c.status !== 'skipped')
        .map((c) => `  ${c.status} [${c.id}] ${c.reason ?? ''}`)
        .join('\n')
    : out.slice(-3000);

const report = (dir: string): Report | undefined => {
  try {
    return readReport(dir);
  } catch {
    return undefined;
  }
};

/** The same rules without the rewrite of the description documents: the choice made, but not described. */
const undescribed = (rules: ProxyRules): ProxyRules => ({ ...rules, response: undefined });

describe("self-described choices: learned from the deployment's documents", { concurrency: 2 }, () => {
  for (const alternate of shortRun(
    'described alternates',
    DESCRIBED_ALTERNATES,
    process.env.DESCRIBED_ALTERNATES?.split(',').filter(Boolean),
    2,
  )) {
    test(`conforming: ${alternate.name} (${alternate.choice})`, { timeout: 240_000 }, async (t) => {
      await behindProxy(alternate.rules, async (url) => {
        const dir = outputDir();
        const r = await cli(['run', '--base-url', url, '--level', 'spec', '--reporter', 'dot', '--output', dir], 200_000);
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        assert.equal(r.code, 0, `${alternate.name}: exit ${r.code}\n${failures(report(dir), r.out)}`);
      });
    });
  }

  const twins = [
    // The reference's cart body is refused: the checks that add a line fail on their own clauses.
    { of: cartBodies, clauses: ['AUTH-CUST-2', 'AUTH-CUST-3', 'AUTH-CUST-4'], grep: 'authentication\\.customer' },
    // The reference's operator paths are no routes here: the operator control of PUR-RULE-3 finds none.
    { of: opsRoutes, clauses: ['PUR-RULE-3'], grep: 'endpoints\\.ops' },
  ];
  for (const twin of twins) {
    test(`undescribed twin of ${twin.of.name}: fails ${twin.clauses.join(' or ')}`, { timeout: 120_000 }, async () => {
      await behindProxy(undescribed(twin.of.rules), async (url) => {
        const dir = outputDir();
        const r = await cli([
          'run',
          '--base-url',
          url,
          '--level',
          'spec',
          '--grep',
          twin.grep,
          '--reporter',
          'dot',
          '--output',
          dir,
          '--no-doctor',
        ]);
        assert.equal(r.code, 1, r.out.slice(-3000));
        const failed = report(dir)!
          .clauses.filter((c) => c.verdict === 'failed')
          .map((c) => c.id);
        assert.ok(
          twin.clauses.some((c) => failed.includes(c)),
          `expected ${twin.clauses.join(' or ')} among the failed clauses, got ${failed.join(', ')}`,
        );
      });
    });
  }

  // Credential formats no document can state: the profile's conventions say them; without them the same deployment fails.
  const selection =
    '\\[authentication\\.agents\\.(invited|assistant)\\.|\\[limits\\.agents\\.assistant\\.|\\[endpoints\\.(internal|conversations)\\.';
  const profileWith = (conventions: unknown) => {
    const path = join(outputDir(), 'profile.json');
    writeFileSync(path, JSON.stringify({ ...fixtureProfile, conventions }));
    return path;
  };
  test(`conforming: ${credentialFormats.name} (${credentialFormats.choice})`, { timeout: 240_000 }, async (t) => {
    await behindProxy(credentialFormats.rules, async (url) => {
      const dir = outputDir();
      const profile = profileWith(CREDENTIAL_CONVENTIONS);
      const r = await cli(
        ['run', '--base-url', url, '--profile', profile, '--level', 'spec', '--reporter', 'dot', '--output', dir],
        200_000,
      );
      t.diagnostic(`${Math.round(r.ms / 1000)} s`);
      assert.equal(r.code, 0, `${credentialFormats.name}: exit ${r.code}\n${failures(report(dir), r.out)}`);
    });
  });
  test(`the same deployment, its conventions left out of the profile: fails`, { timeout: 120_000 }, async () => {
    await behindProxy(credentialFormats.rules, async (url) => {
      const dir = outputDir();
      const args = ['run', '--base-url', url, '--profile', profileWith(undefined), '--level', 'spec', '--grep', selection];
      const r = await cli([...args, '--reporter', 'dot', '--output', dir, '--no-doctor']);
      assert.equal(r.code, 1, r.out.slice(-3000));
      const failed = report(dir)!
        .clauses.filter((c) => c.verdict === 'failed')
        .map((c) => c.id);
      // The proxy reports (END-PUBLIC-12) and the invited-agent context (AUTH-CRED-*) are refused in the reference's format.
      assert.ok(failed.includes('END-PUBLIC-12'), failed.join(', '));
      assert.ok(
        failed.some((c) => c.startsWith('AUTH-CRED-')),
        failed.join(', '),
      );
    });
  });
});
