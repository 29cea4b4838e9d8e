// The suite is the CI gate of alternate implementations: at level `spec` it may fail a deployment only for breaking the
// spec. Each conforming alternate (test/helpers/alternates.ts) is the reference behind a proxy that changes one thing the
// spec or the RFCs it cites leave free; the whole spec level must pass it. Each broken twin changes the same thing wrongly
// and must fail, so that the alternates' passes are the suite's tolerance and not an idle proxy.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startProxy, type ProxyRules } from '../helpers/mutating-proxy.js';
import { ALTERNATES, BROKEN_TWINS } from '../helpers/alternates.js';
import { cli, outputDir, readReport, type Report } from '../helpers/cli.js';

/** Full spec runs at a time: each is one Playwright worker, mostly waiting on the network, so two cores carry three. */
const CONCURRENCY = 3;

/** A reference of its own (fresh in-memory database) behind the alternate's proxy, for the time of `body`. */
async function behindProxy<T>(rules: ProxyRules, body: (url: string) => Promise<T>): Promise<T> {
  const reference = await startServer(loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }));
  const proxy = await startProxy(reference.url, rules);
  try {
    return await body(proxy.url);
  } finally {
    await proxy.close();
    await reference.close();
  }
}

function describeOutcome(report: Report | undefined, out: string): string {
  if (!report) return `no conformance report; output:\n${out.slice(-4000)}`;
  const bad = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  return bad.map((c) => `  ${c.status.toUpperCase()} [${c.id}] ${c.reason ?? ''}`).join('\n') || `(no failed check; output:\n${out.slice(-2000)})`;
}

function tryReport(dir: string): Report | undefined {
  try {
    return readReport(dir);
  } catch {
    return undefined;
  }
}

// One pool for both, long runs first, so that the short twin runs fill the cores while the last full runs finish.
describe('alternates pass the spec level; their broken twins fail it', { concurrency: CONCURRENCY }, () => {
  for (const alternate of ALTERNATES) {
    test(`conforming: ${alternate.name} (${alternate.freedom})`, { timeout: 240_000 }, async (t) => {
      await behindProxy(alternate.rules, async (url) => {
        const dir = outputDir();
        const r = await cli(['run', '--base-url', url, '--level', 'spec', '--reporter', 'list', '--output', dir], 200_000);
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        const report = tryReport(dir);
        const message = `${alternate.name} (${Math.round(r.ms / 1000)} s): exit ${r.code}\n${describeOutcome(report, r.out)}`;
        assert.equal(r.code, 0, message);
        // A SHOULD-level failure is a warning, not a failed run; on a conforming deployment it is as false as a failure.
        assert.deepEqual(report?.checks.filter((c) => c.status === 'warning').map((c) => c.id), [], message);
      });
    });
  }
  for (const twin of BROKEN_TWINS) {
    test(`broken twin of ${twin.of}: ${twin.name}`, { timeout: 120_000 }, async (t) => {
      await behindProxy(twin.rules, async (url) => {
        const dir = outputDir();
        const grep = `\\[${twin.check.replace(/\./g, '\\.')}\\]`;
        const r = await cli(['run', '--base-url', url, '--level', 'spec', '--grep', grep, '--reporter', 'list', '--output', dir, '--no-doctor']);
        t.diagnostic(`${Math.round(r.ms / 1000)} s`);
        const report = tryReport(dir);
        assert.equal(r.code, 1, `${twin.name}: exit ${r.code}\n${describeOutcome(report, r.out)}`);
        const caught = report!.checks.find((c) => c.id === twin.check);
        assert.equal(caught?.status, 'failed', `${twin.name}: ${twin.check} ${caught?.status ?? 'not run'}`);
        assert.ok(caught!.reason?.includes(`[${twin.clause}]`), `${twin.name}: ${twin.check} should fail naming ${twin.clause}: ${caught!.reason}`);
      });
    });
  }
});
