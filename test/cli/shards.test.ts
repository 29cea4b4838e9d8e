// `run --shard i/n` and `report merge`, as a CI matrix uses them: each shard writes its blob report, the merge gives one
// run's reports (matrix, conformance-report.json, JUnit, HTML, JSON) whose checks are the shards' checks together.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startMutatingProxy } from '../helpers/mutating-proxy.js';
import { cli, outputDir } from '../helpers/cli.js';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const CLAUSES = ['ERR-PROBLEM-7', 'RES-PROBLEM-4', 'AUTH-GUEST-4', 'ERR-TABLE-1'];
// Of these clauses' checks, those about problem documents, guest sessions, tokens and the error table: the every-response
// clauses would add the rate budgets and status matrices, a minute that adds nothing to what shards do.
const GREP =
  'resources\\.problem|request-stage|authentication\\.guest|authentication\\.token|dpop\\.token|errors\\.no-token|errors\\.failures|errors\\.unmatched';
const reportOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));

describe('shards and their merge', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => reference.close());

  const shards = async (url: string) => {
    const dirs = [outputDir(), outputDir()];
    for (const [i, dir] of dirs.entries()) {
      const r = await cli([
        'run',
        '--base-url',
        url,
        '--clause',
        ...CLAUSES,
        '--grep',
        GREP,
        '--shard',
        `${i + 1}/2`,
        '--reporter',
        'dot',
        '--output',
        dir,
        '--no-doctor',
      ]);
      assert.ok(existsSync(join(dir, 'blob', `shard-${i + 1}-of-2.zip`)), r.out);
    }
    return dirs;
  };

  test('two shards merge into one run: every check once, the same clauses judged, JUnit and HTML written', async () => {
    const dirs = await shards(reference.url);
    const merged = outputDir();
    const r = await cli(['report', 'merge', ...dirs, '--output', merged]);
    assert.equal(r.code, 0, r.out);
    const parts = dirs.map(reportOf);
    const whole = reportOf(merged);
    assert.equal(whole.checks.length, parts[0].checks.length + parts[1].checks.length);
    assert.ok(
      parts.every((p: { checks: unknown[] }) => p.checks.length > 0),
      'each shard ran some checks',
    );
    assert.equal(whole.target, reference.url);
    for (const id of CLAUSES) assert.equal(whole.clauses.find((c: { id: string }) => c.id === id).verdict, 'passed', id);
    assert.deepEqual(whole.unjudgedMust, [], 'a merge of a --clause selection lists no unselected clause as unjudged');
    assert.match(readFileSync(join(merged, 'junit.xml'), 'utf8'), new RegExp(`tests="${whole.checks.length}"`));
    assert.ok(existsSync(join(merged, 'html', 'index.html')));
  });

  test('a failure in one shard fails the merge (exit 1) and shows in the merged matrix', async () => {
    const proxy = await startMutatingProxy(reference.url, (a) =>
      a.status === 401 ? { ...a, body: a.body.replace('"Unauthorized"', '"Not Allowed"') } : a,
    );
    try {
      const merged = outputDir();
      const r = await cli(['report', 'merge', ...(await shards(proxy.url)), '--output', merged]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /FAIL\s+RES-PROBLEM-4\b/);
      assert.equal(reportOf(merged).clauses.find((c: { id: string }) => c.id === 'RES-PROBLEM-4').verdict, 'failed');
      // JUnit: conformance failures are failures, not errors (CI dashboards read errors as broken infrastructure).
      assert.match(readFileSync(join(merged, 'junit.xml'), 'utf8'), /<testsuites [^>]*failures="[1-9]\d*"[^>]*errors="0"/);
      assert.equal(reportOf(merged).status, 'failed');

      // The merge gates on a baseline as run does: the listed failure passes the merged run, and the report says so.
      const dirs = await shards(proxy.url);
      const baseline = join(outputDir(), 'expected-failures.json');
      writeFileSync(baseline, JSON.stringify({ expectedFailures: [{ clause: 'RES-PROBLEM-4', reason: 'r', expires: '2099-12-31' }] }));
      const gated = outputDir();
      const g = await cli(['report', 'merge', ...dirs, '--output', gated, '--expected-failures', baseline]);
      assert.equal(g.code, 0, g.out);
      assert.match(g.out, /expected-failures\.json: [1-9]\d* expected failure\(s\), 0 new, 0 stale, 0 expired/);
      assert.equal(reportOf(gated).status, 'passed-with-expected-failures');
      assert.equal(reportOf(gated).baseline.ok, true);
      // A baseline naming a clause the catalogue does not have: one line, exit 2, nothing merged.
      writeFileSync(baseline, JSON.stringify({ expectedFailures: [{ clause: 'NOPE-1', reason: 'r', expires: '2099-12-31' }] }));
      const refused = outputDir();
      const bad = await cli(['report', 'merge', ...dirs, '--output', refused, '--expected-failures', baseline]);
      assert.equal(bad.code, 2, bad.out);
      assert.match(
        bad.out.trim(),
        /^shop-conformance report merge: --expected-failures: .*expected-failures\.json: expectedFailures\.0: clause NOPE-1 is not a clause of the catalogue$/,
      );
      assert.deepEqual(readdirSync(refused), []);
    } finally {
      await proxy.close();
    }
  });

  test('--json: the verdict alone on stdout (run ... --json | jq), everything else on stderr', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'run', '--base-url', reference.url, '--clause', 'ERR-PROBLEM-7', '--json', '--output', outputDir()],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    assert.equal(await new Promise((r) => child.once('exit', r)), 0, stderr);
    const verdict = JSON.parse(stdout);
    assert.equal(verdict.clauses.find((c: { id: string }) => c.id === 'ERR-PROBLEM-7').verdict, 'passed');
    assert.match(stderr, /Conformance matrix/, 'the console report goes to stderr');
  });

  test('--repro: one check alone, afresh, with its whole transcript even when it passes; an unknown id is a usage error', async () => {
    const r = await cli([
      'run',
      '--base-url',
      reference.url,
      '--repro',
      'purpose.no-cors.requests',
      '--output',
      outputDir(),
      '--no-doctor',
    ]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Running 1 test using 1 worker/);
    assert.match(
      r.out,
      /\[purpose\.no-cors\.requests\] passed\. Transcript \(\d+ exchanges\):\n\$ curl -i -X GET -H 'authorization: Bearer <redacted/,
    );
    const unknown = await cli(['run', '--base-url', reference.url, '--repro', 'no.such.check', '--output', outputDir(), '--no-doctor']);
    assert.equal(unknown.code, 2, unknown.out);
    assert.equal(
      unknown.out.trim(),
      'shop-conformance run: --repro: no check has the id no.such.check (shop-conformance run --list shows them)',
    );
  });

  test('usage errors are one line, exit 2: --shard 3/2, a directory without blob reports', async () => {
    const bad = await cli(['run', '--shard', '3/2', '--list']);
    assert.equal(bad.code, 2, bad.out);
    assert.match(bad.out, /--shard: i\/n with 1 <= i <= n/);
    const none = await cli(['report', 'merge', outputDir()]);
    assert.equal(none.code, 2, none.out);
    assert.equal(none.out.trim().split('\n').length, 1, none.out);
  });
});
