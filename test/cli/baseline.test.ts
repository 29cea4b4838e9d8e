// `run --expected-failures` and `report compare` as a CI uses them: a deployment with one known defect (a wrong problem
// title on 401s) adopts the suite with a baseline; the baseline hides nothing else, and goes stale once the defect is fixed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startMutatingProxy, type Mutation } from '../helpers/mutating-proxy.js';
import { cli, outputDir } from '../helpers/cli.js';

const CLAUSE = 'RES-PROBLEM-4';
const wrongTitle: Mutation = (a) => (a.status === 401 ? { ...a, body: a.body.replace('"Unauthorized"', '"Not Allowed"') } : a);
const droppedRequestId: Mutation = (a) => ({
  ...a,
  headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'x-request-id')),
});

describe('expected failures and run comparison', () => {
  let reference: RunningServer;
  let baseline: string;
  const run = (url: string, dir: string, clauses: string[], extra: string[] = []) =>
    cli(['run', '--base-url', url, '--clause', ...clauses, '--reporter', 'dot', '--output', dir, '--no-doctor', ...extra]);
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
    baseline = join(outputDir(), 'expected-failures.json');
    writeFileSync(
      baseline,
      JSON.stringify({ expectedFailures: [{ clause: CLAUSE, reason: 'titles fixed in the next release', expires: '2099-12-31' }] }),
    );
  });
  after(() => reference.close());

  test('the listed failure does not fail the run; the report records the baseline; a new failure does fail it', async () => {
    const broken = await startMutatingProxy(reference.url, wrongTitle);
    const worse = await startMutatingProxy(reference.url, (a, r) => droppedRequestId(wrongTitle(a, r), r));
    try {
      const dir = outputDir();
      const r = await run(broken.url, dir, [CLAUSE], ['--expected-failures', baseline]);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /expected-failures\.json: \d+ expected failure\(s\), 0 new, 0 stale, 0 expired/);
      const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
      assert.equal(report.baseline.ok, true);
      assert.ok(report.baseline.expected.length > 0);

      const again = await run(worse.url, outputDir(), [CLAUSE, 'ERR-PROBLEM-7'], ['--expected-failures', baseline]);
      assert.equal(again.code, 1, again.out);
      assert.match(again.out, /new failure: /);
    } finally {
      await broken.close();
      await worse.close();
    }
  });

  test('once fixed, the entry is stale and fails the run; an expired entry fails it; report compare shows what changed', async () => {
    const broken = await startMutatingProxy(reference.url, wrongTitle);
    try {
      const before = outputDir();
      assert.equal((await run(broken.url, before, [CLAUSE])).code, 1);
      const fixed = outputDir();
      const r = await run(reference.url, fixed, [CLAUSE], ['--expected-failures', baseline]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, new RegExp(`stale entry: +clause ${CLAUSE} passed`));

      const expired = join(outputDir(), 'expired.json');
      writeFileSync(expired, JSON.stringify({ expectedFailures: [{ clause: CLAUSE, reason: 'r', expires: '2020-01-01' }] }));
      const late = await run(broken.url, outputDir(), [CLAUSE], ['--expected-failures', expired]);
      assert.equal(late.code, 1, late.out);
      assert.match(late.out, /expired: +clause RES-PROBLEM-4 expired on 2020-01-01/);

      const better = await cli(['report', 'compare', before, fixed]);
      assert.equal(better.code, 0, better.out);
      assert.match(better.out, /0 new failure\(s\), [1-9]\d* fixed/);
      assert.match(better.out, new RegExp(`clause: +${CLAUSE}: failed -> passed`));
      const worse = await cli(['report', 'compare', fixed, before, '--json']);
      assert.equal(worse.code, 1, worse.out);
      assert.ok(JSON.parse(worse.out).newFailures.length > 0);
    } finally {
      await broken.close();
    }
  });

  test('a malformed baseline or report: one line naming the file and field, exit 2', async () => {
    const bad = join(outputDir(), 'bad.json');
    writeFileSync(bad, JSON.stringify({ expectedFailures: [{ check: 'x', reason: 'r' }] }));
    const r = await cli(['run', '--expected-failures', bad, '--list']);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /--expected-failures: .*bad\.json: expectedFailures\.0\.expires/);
    const c = await cli(['report', 'compare', bad, bad]);
    assert.equal(c.code, 2, c.out);
    assert.equal(c.out.trim().split('\n').length, 1, c.out);
  });
});
