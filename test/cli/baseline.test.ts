// `run --expected-failures`, `report compare` and `report grid` as a CI uses them: a deployment with one known defect (a wrong problem
// title on 401s) adopts the suite with a baseline; the baseline hides nothing else, and goes stale once the defect is fixed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startMutatingProxy, type Mutation } from '../helpers/mutating-proxy.js';
import { cli, outputDir } from '../helpers/cli.js';

const CLAUSE = 'RES-PROBLEM-4';
const GREP = 'resources\\.problem|request-stage';
const wrongTitle: Mutation = (a) => (a.status === 401 ? { ...a, body: a.body.replace('"Unauthorized"', '"Not Allowed"') } : a);
const droppedRequestId: Mutation = (a) => ({
  ...a,
  headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'x-request-id')),
});

describe('expected failures and run comparison', () => {
  let reference: RunningServer;
  let baseline: string;
  // The clause's problem-document checks only: the clause's other checks (rate budgets, every-response matrices) take a
  // minute and add nothing to what a baseline does.
  const run = (url: string, dir: string, clauses: string[], extra: string[] = []) =>
    cli(['run', '--base-url', url, '--clause', ...clauses, '--grep', GREP, '--reporter', 'dot', '--output', dir, '--no-doctor', ...extra]);
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
      // The report's top-level status is the gate's decision, the one the exit code follows.
      assert.equal(report.status, 'passed-with-expected-failures');
      assert.equal(report.playwrightStatus, 'failed');
      assert.match(r.out, /status: passed with expected failures/);

      const worseDir = outputDir();
      const again = await run(worse.url, worseDir, [CLAUSE, 'ERR-PROBLEM-7'], ['--expected-failures', baseline]);
      assert.equal(again.code, 1, again.out);
      assert.match(again.out, /new failure: /);
      assert.equal(JSON.parse(readFileSync(join(worseDir, 'conformance-report.json'), 'utf8')).status, 'failed');
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

      // The grid of the two runs: the clause whose verdict changed comes first, each cell linked to its run's matrix.
      const gridDir = outputDir();
      const grid = await cli(['report', 'grid', before, fixed, '--label', 'broken', 'fixed', '--output', gridDir]);
      assert.equal(grid.code, 0, grid.out);
      const g = JSON.parse(readFileSync(join(gridDir, 'grid.json'), 'utf8')) as {
        runs: { label: string; matrix?: string }[];
        rows: { id: string; differs: boolean; cells: { verdict: string; firstFailure?: { check: string } }[] }[];
      };
      assert.deepEqual(
        g.runs.map((r) => r.label),
        ['broken', 'fixed'],
      );
      const row = g.rows.find((r) => r.id === CLAUSE)!;
      assert.equal(row.differs, true);
      assert.ok(g.rows.indexOf(row) < g.rows.filter((r) => r.differs).length, 'the differing rows come first');
      assert.deepEqual(
        row.cells.map((c) => c.verdict),
        ['failed', 'passed'],
      );
      assert.ok(row.cells[0]!.firstFailure?.check, 'the failed cell names its first failing check');
      const html = readFileSync(join(gridDir, 'grid.html'), 'utf8');
      assert.ok(html.includes(`${g.runs[0]!.matrix}#${CLAUSE}`), "a verdict links to the clause in its run's matrix");
      assert.ok(readFileSync(join(before, 'clause-matrix.html'), 'utf8').includes(`id="${CLAUSE}"`));
      const one = await cli(['report', 'grid', before]);
      assert.equal(one.code, 2);
      assert.match(one.out, /^shop-conformance report grid: give at least two runs/m);
    } finally {
      await broken.close();
    }
  });

  test('an entry naming a clause or check the suite does not have: one line naming the file and the entry, exit 2, before the run', async () => {
    const dir = outputDir();
    writeFileSync(join(dir, 'conformance-report.json'), '{"the previous run": true}');
    for (const [entry, says] of [
      [{ clause: 'NOPE-1' }, /--expected-failures: .*unknown\.json: expectedFailures\.1: clause NOPE-1 is not a clause of the catalogue$/],
      [
        { check: 'no.such.check' },
        /--expected-failures: .*unknown\.json: expectedFailures\.1: check no\.such\.check is not a check of the suite$/,
      ],
    ] as const) {
      const file = join(outputDir(), 'unknown.json');
      const known = { clause: CLAUSE, reason: 'r', expires: '2099-12-31' };
      writeFileSync(file, JSON.stringify({ expectedFailures: [known, { ...entry, reason: 'r', expires: '2099-12-31' }] }));
      // Nothing listens at the base URL: a run that got as far as the doctor would exit 3.
      const r = await cli(['run', '--base-url', 'http://127.0.0.1:9', '--expected-failures', file, '--output', dir]);
      assert.equal(r.code, 2, r.out);
      assert.equal(r.out.trim().split('\n').length, 1, r.out);
      assert.match(r.out.trim(), says);
    }
    assert.deepEqual(readdirSync(dir), ['conformance-report.json']);
  });

  test('--update-expected-failures writes a baseline of the failures, which then gates the run; it replaces a file only with --force', async () => {
    const broken = await startMutatingProxy(reference.url, wrongTitle);
    try {
      const file = join(outputDir(), 'written.json');
      const first = await run(broken.url, outputDir(), [CLAUSE], ['--update-expected-failures', file]);
      assert.equal(first.code, 1, first.out);
      assert.match(first.out, /baseline written: .*written\.json \(\d+ failed check\(s\)/);
      const written = JSON.parse(readFileSync(file, 'utf8'));
      assert.ok(written.expectedFailures.length > 0);
      const in90 = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
      for (const e of written.expectedFailures) {
        assert.match(e.check, /^[\w.-]+$/);
        assert.match(e.reason, /^TODO: why this failure is accepted/);
        assert.equal(e.expires, in90);
      }
      const gated = outputDir();
      const r = await run(broken.url, gated, [CLAUSE], ['--expected-failures', file]);
      assert.equal(r.code, 0, r.out);
      assert.equal(JSON.parse(readFileSync(join(gated, 'conformance-report.json'), 'utf8')).status, 'passed-with-expected-failures');

      writeFileSync(file, '{"kept": true}');
      const refused = await run(broken.url, outputDir(), [CLAUSE], ['--update-expected-failures', file]);
      assert.equal(refused.code, 2, refused.out);
      assert.match(
        refused.out.trim(),
        /^shop-conformance run: --update-expected-failures: .*written\.json: exists \(add --force to replace it\)$/,
      );
      assert.equal(readFileSync(file, 'utf8'), '{"kept": true}');
      const forced = await run(broken.url, outputDir(), [CLAUSE], ['--update-expected-failures', file, '--force']);
      assert.equal(forced.code, 1, forced.out);
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).expectedFailures, written.expectedFailures);
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

describe('redaction everywhere the run writes', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => reference.close());

  test('a failing run leaves no token, session or secret in the console, junit.xml, results.json, the report or test-results/', async () => {
    // no-store dropped on 401 and 403, and every request with a browser session refused: the failing checks sent tokens,
    // proofs, guest sessions and browser sessions, which their transcripts and messages show.
    const proxy = await startMutatingProxy(reference.url, (a, req) =>
      req.headers['assistant-browser-session'] !== undefined
        ? { ...a, status: 418 }
        : a.status === 401 || a.status === 403
          ? { ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'cache-control')) }
          : a,
    );
    try {
      const dir = outputDir();
      const r = await cli([
        'run',
        '--base-url',
        proxy.url,
        '--clause',
        'ERR-PROBLEM-5',
        'AUTH-CRED-8',
        '--reporter',
        'list,junit,json',
        '--output',
        dir,
        '--no-doctor',
      ]);
      assert.equal(r.code, 1, r.out);
      const texts: [string, string][] = [['console', r.out]];
      const walk = (d: string): void => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if (e.isDirectory()) walk(p);
          else if (/\.(json|xml|txt|md)$/.test(e.name)) texts.push([p, readFileSync(p, 'utf8')]);
        }
      };
      walk(dir);
      // results.json holds attachments base64-encoded: decode them too.
      const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
      JSON.stringify(
        results,
        (k, v) => (k === 'body' && typeof v === 'string' && texts.push(['attachment', Buffer.from(v, 'base64').toString('utf8')]), v),
      );
      assert.ok(
        texts.some(([, t]) => t.includes('<redacted')),
        `the transcript is there, redacted:\n${r.out.slice(0, 4000)}`,
      );
      const secrets = Object.values(JSON.parse(readFileSync(FIXTURE_PROFILE_PATH, 'utf8')).secrets).filter(
        (s) => typeof s === 'string' && s.length >= 8,
      ) as string[];
      for (const [where, text] of texts) {
        assert.doesNotMatch(text, /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]+/, `a JWT in ${where}`);
        assert.doesNotMatch(text, /\b(asb1|gs1)\.[^\s.'"<]+\.[\w-]{8,}/, `a browser or guest session in ${where}`);
        for (const s of secrets) assert.ok(!text.includes(s), `a profile secret in ${where}`);
      }
    } finally {
      await proxy.close();
    }
  });
});
