// A short run against a deployment far away: the reference behind the latency proxy (40 ms round trip), the short part
// of the window clauses (test/helpers/window-clauses.ts: rate-limit budgets, the guard and validation order around them,
// DPoP replay). They pass as they do nearby, and the run takes more workers than the cores (it measured the round trip).
// The full suite at 0, 40 and 100 ms is in `npm run bench -- --only remote`; every window clause at 300 ms, against the
// reference and every conforming alternate, with the self-test, in `npm run bench -- --only windows`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { rotatingProfilePath } from '../helpers/reference.js';
import { startLatencyProxy } from '../helpers/latency-proxy.js';
import { cli, describeOutcome, outputDir, tryReport } from '../helpers/cli.js';
import { SHORT_WINDOW_CLAUSE_IDS } from '../helpers/window-clauses.js';

test('a few window-dependent clauses pass through a 40 ms round trip', async () => {
  const profile = rotatingProfilePath();
  const reference = await startServer(
    loadConfig({ env: {}, profilePath: profile, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
  const proxy = await startLatencyProxy(reference.url, 40);
  try {
    const dir = outputDir();
    const r = await cli(
      ['run', '--base-url', proxy.url, '--profile', profile, '--clause', ...SHORT_WINDOW_CLAUSE_IDS, '--reporter', 'list', '--output', dir],
      240_000,
    );
    const report = tryReport(dir);
    assert.equal(r.code, 0, describeOutcome(report, r.out));
    const measured = /round trip (\d+) ms: (\d+) workers/.exec(r.out);
    assert.ok(measured, r.out.slice(-2000));
    assert.ok(Number(measured[1]) >= 40, `measured ${measured[1]} ms`);
    const judged = report!.checks.filter((c) => c.status === 'passed');
    assert.ok(judged.length >= SHORT_WINDOW_CLAUSE_IDS.length, `${judged.length} checks passed`);
    assert.ok(proxy.connections() > 0);
  } finally {
    await proxy.close();
    await reference.close();
  }
});

test('--max-in-flight takes a positive number of requests: anything else is a one-line usage error', async () => {
  for (const value of ['0', '-3', 'many', '2.5']) {
    const r = await cli(['run', '--max-in-flight', value, '--list']);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /--max-in-flight: a positive number of requests/);
    assert.equal(r.out.trim().split('\n').length, 1, r.out);
  }
});
