// The blind-written conforming alternates (test/helpers/blind-alternates.ts) at the suite's `spec` level: each must pass
// (exit 0, no warning). Each is the reference behind a proxy that changes only what the spec or the RFCs it cites leave
// free, written by authors who did not read the checks, so that a failure here is a finding about the suite.
// `BLIND_ALTERNATES=name,name` runs only those.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { BLIND_ALTERNATES, type BlindAlternate } from '../helpers/blind-alternates.js';
import { startProxy } from '../helpers/mutating-proxy.js';
import { rotatingProfilePath } from '../helpers/reference.js';
import { cli, outputDir, readReport, type Report } from '../helpers/cli.js';

/** Full spec runs at a time (each one Playwright worker). */
const CONCURRENCY = 2;

const only = process.env.BLIND_ALTERNATES?.split(',').filter(Boolean);
const selected = BLIND_ALTERNATES.filter((a) => !only || only.includes(a.name));

/** A port free now, for a proxy whose public URL the reference must know before the proxy listens. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

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
  const proxy = await startProxy(reference.url, alternate.rules, port);
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

function describeOutcome(report: Report | undefined, out: string): string {
  if (!report) return `no conformance report; output:\n${out.slice(-4000)}`;
  const bad = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  return (
    bad.map((c) => `  ${c.status.toUpperCase()} [${c.id}] ${c.reason ?? ''}`).join('\n') ||
    `(no failed check; output:\n${out.slice(-2000)})`
  );
}

function tryReport(dir: string): Report | undefined {
  try {
    return readReport(dir);
  } catch {
    return undefined;
  }
}

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
