// `shop-conformance run`: exit codes, and the self-test — a deployment that breaks one checked clause fails the run,
// and the failure names that clause.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { generateProfile } from '../../cli/profile-init.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { startMutatingProxy, type Mutation } from '../helpers/mutating-proxy.js';
import { cli, outputDir } from '../helpers/cli.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const out = outputDir;

describe('exit codes', () => {
  test('nothing listens at the base URL: exit 3 within seconds', async () => {
    const r = await cli(['run', '--base-url', `http://127.0.0.1:${await freePort()}`, '--output', out()]);
    assert.equal(r.code, 3, r.out);
    assert.match(r.out, /nothing answers/);
    assert.ok(r.ms < 15_000, `took ${r.ms} ms`);
  });

  test('usage errors: exit 2', async () => {
    assert.equal((await cli(['run', '--level', 'nonsense'])).code, 2);
    assert.equal((await cli(['run', '--base-url', 'not a url'])).code, 2);
    assert.equal((await cli(['run', '--reporter', 'teletype'])).code, 2);
    assert.equal((await cli(['run', '--clause', 'lowercase'])).code, 2);
    const dir = out();
    writeFileSync(join(dir, 'bad.json'), '{"name": 1}');
    assert.equal((await cli(['run', '--profile', join(dir, 'bad.json')])).code, 2);
    assert.equal((await cli(['no-such-command'])).code, 2);
    // One line naming the file and the field, never a stack: a profile without its private key, a malformed one, --workers 0.
    const fixture = JSON.parse(readFileSync(FIXTURE_PROFILE_PATH, 'utf8'));
    const publicCopy = { ...fixture, signingKeys: fixture.signingKeys.map(({ d: _d, ...pub }: Record<string, unknown>) => pub) };
    writeFileSync(join(dir, 'public.json'), JSON.stringify(publicCopy));
    writeFileSync(join(dir, 'malformed.json'), JSON.stringify({ ...fixture, secrets: 5 }));
    for (const [args, says] of [
      [['run', '--profile', join(dir, 'public.json'), '--list'], /--profile: .*public\.json: signingKeys\.0\.d: /],
      [
        ['doctor', '--base-url', 'http://127.0.0.1:9', '--profile', join(dir, 'public.json')],
        /--profile: .*public\.json: signingKeys\.0\.d: /,
      ],
      [['run', '--profile', join(dir, 'malformed.json'), '--list'], /--profile: .*malformed\.json: secrets: /],
      [['run', '--workers', '0', '--list'], /--workers: a positive number/],
    ] as const) {
      const r = await cli([...args]);
      assert.equal(r.code, 2, r.out);
      assert.match(r.out, says);
      assert.equal(r.out.trim().split('\n').length, 1, r.out);
    }
    const none = await cli(['run', '--grep', 'no-check-has-this-title', '--reporter', 'list', '--output', out()]);
    assert.equal(none.code, 2, none.out);
    assert.match(none.out, /no check matches the selection/);
  });

  test('a selection that matches nothing: one line naming the option, exit 2, before the doctor; every earlier report stays', async () => {
    const dir = out();
    const previous: Record<string, string> = {
      'conformance-report.json': '{"the previous run": true}',
      'junit.xml': '<testsuites/>',
      'clause-matrix.html': '<p>previous</p>',
    };
    for (const [f, text] of Object.entries(previous)) writeFileSync(join(dir, f), text);
    // Nothing listens at the base URL: a run that got as far as the doctor would exit 3.
    const target = `http://127.0.0.1:${await freePort()}`;
    for (const [args, says] of [
      [['--repro', 'no.such.check'], /^shop-conformance run: --repro: no check has the id no\.such\.check/],
      [['--clause', 'NOPE-1'], /^shop-conformance run: --clause: NOPE-1: not a clause of the catalogue/],
      [['--grep', '('], /^shop-conformance run: --grep: not a regular expression: /],
      [['--grep', 'no-check-has-this-title'], /^shop-conformance run: --grep: no check matches the selection/],
      [['--clause', 'ERR-PROBLEM-7', '--grep', 'no-check-has-this-title'], /^shop-conformance run: --grep: no check matches the selection/],
    ] as const) {
      const r = await cli(['run', '--base-url', target, ...args, '--output', dir]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}`);
      assert.equal(r.out.trim().split('\n').length, 1, r.out);
      assert.match(r.out.trim(), says);
    }
    // The embedded reference is not started either (it would say where it listens).
    const embedded = await cli(['run', '--clause', 'NOPE-1', '--output', dir]);
    assert.equal(embedded.code, 2, embedded.out);
    assert.doesNotMatch(embedded.out, /embedded reference listening/);
    assert.deepEqual(readdirSync(dir).sort(), Object.keys(previous).sort());
    for (const [f, text] of Object.entries(previous)) assert.equal(readFileSync(join(dir, f), 'utf8'), text, f);
  });

  test('--list lists the checks without a target, and writes nothing where reports go', async () => {
    const dir = out();
    writeFileSync(join(dir, 'conformance-report.json'), '{"the previous run": true}');
    const r = await cli(['run', '--list', '--reporter', 'list,junit,html', '--output', dir]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /\[errors\.no-token\]/);
    assert.deepEqual(readdirSync(dir), ['conformance-report.json'], 'no junit.xml, html/ or test-results/');
    assert.equal(readFileSync(join(dir, 'conformance-report.json'), 'utf8'), '{"the previous run": true}', 'the previous report is kept');
  });
});

describe('a deployment that does not trust the suite', () => {
  let server: RunningServer;
  before(async () => {
    const dir = out();
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify(await generateProfile({ name: 'other', testOnly: true })));
    server = await startServer(
      loadConfig({ env: {}, profilePath: other, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => server.close());

  test('exit 3 with a message saying what to configure', async () => {
    const r = await cli(['run', '--base-url', server.url, '--profile', FIXTURE_PROFILE_PATH, '--output', out()]);
    assert.equal(r.code, 3, r.out);
    assert.match(r.out, /trust the suite's issuer: ISSUER=/);
  });

  test('Playwright, started while the doctor judged the deployment, is stopped before any check or report', async () => {
    const dir = out();
    writeFileSync(join(dir, 'junit.xml'), '<testsuites/>');
    const r = await cli([
      'run',
      '--base-url',
      server.url,
      '--profile',
      FIXTURE_PROFILE_PATH,
      '--reporter',
      'list,junit,json',
      '--output',
      dir,
    ]);
    assert.equal(r.code, 3, r.out);
    // It answered: its round trip was timed, so Playwright started before the doctor spoke.
    assert.match(r.out, /round trip \d+ ms: \d+ workers/);
    assert.doesNotMatch(r.out, /Running \d+ tests?/);
    assert.deepEqual(readdirSync(dir), ['junit.xml'], 'no results.json, test-results/ or report of this run');
    assert.equal(readFileSync(join(dir, 'junit.xml'), 'utf8'), '<testsuites/>');
  });
});

describe('self-test: breaking one clause fails the run and names it', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => reference.close());

  const cases: { name: string; clause: string; mutate: Mutation }[] = [
    {
      name: 'X-Request-Id dropped',
      clause: 'ERR-PROBLEM-7',
      mutate: (a) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'x-request-id')) }),
    },
    {
      name: 'problems served as plain JSON',
      clause: 'RES-PROBLEM-1',
      mutate: (a) => ({
        ...a,
        headers: { ...a.headers, 'content-type': a.headers['content-type']?.replace('problem+json', 'json') ?? '' },
      }),
    },
    {
      name: 'the DPoP challenge left out when no token is sent',
      clause: 'ERR-TABLE-1',
      mutate: (a) => (a.status === 401 ? { ...a, headers: { ...a.headers, 'www-authenticate': 'Bearer error="invalid_token"' } } : a),
    },
    {
      name: 'a wrong problem title',
      clause: 'RES-PROBLEM-4',
      mutate: (a) => (a.status === 401 ? { ...a, body: a.body.replace('"Unauthorized"', '"Not Allowed"') } : a),
    },
  ];

  for (const c of cases) {
    test(`${c.name} → exit 1 naming ${c.clause}`, async () => {
      const proxy = await startMutatingProxy(reference.url, c.mutate);
      try {
        const dir = out();
        const r = await cli(['run', '--base-url', proxy.url, '--clause', c.clause, '--reporter', 'list', '--output', dir, '--no-doctor']);
        assert.equal(r.code, 1, r.out);
        assert.match(r.out, new RegExp(`FAIL\\s+${c.clause}\\b`));
        const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
        assert.equal(report.clauses.find((x: { id: string }) => x.id === c.clause).verdict, 'failed');
        // The run ends by saying where its reports are.
        assert.match(
          r.out,
          new RegExp(`reports:\\n  ${join(dir, 'conformance-report.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  the verdict`),
        );
      } finally {
        await proxy.close();
      }
    });
  }

  test('the unbroken reference passes the same selection', async () => {
    const proxy = await startMutatingProxy(reference.url, (a) => a);
    try {
      const r = await cli([
        'run',
        '--base-url',
        proxy.url,
        '--clause',
        ...cases.map((c) => c.clause),
        '--reporter',
        'list',
        '--output',
        out(),
      ]);
      assert.equal(r.code, 0, r.out);
    } finally {
      await proxy.close();
    }
  });
});

describe('isolation: verdicts do not depend on workers or on earlier runs', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => reference.close());

  test('two runs against one long-lived deployment, with 1 and 3 workers, give the same verdicts', async () => {
    const verdicts = async (workers: string) => {
      const dir = out();
      const r = await cli(
        ['run', '--base-url', reference.url, '--level', 'reference', '--workers', workers, '--reporter', 'dot', '--output', dir],
        300_000,
      );
      assert.equal(r.code, 0, r.out.slice(-3000));
      const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8')) as { checks: { id: string; status: string }[] };
      return Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    };
    const first = await verdicts('1');
    const second = await verdicts('3');
    assert.deepEqual(second, first);
    assert.ok(Object.keys(first).length > 100);
  });
});

describe('configuration-dependent checks judge deployments configured that way', () => {
  const cases = [
    {
      check: 'events.webhook.not-configured',
      overrides: { paymentWebhookEnabled: false },
      edit: (p: any) => ({ ...p, capabilities: { ...p.capabilities, webhook: false } }),
    },
    {
      check: 'events.webhook.secret-missing',
      overrides: { stripeWebhookSecret: null },
      edit: (p: any) => ({ ...p, secrets: { ...p.secrets, stripeWebhookSecret: null } }),
    },
  ];
  for (const c of cases) {
    test(`${c.check} runs and passes`, async () => {
      const dir = out();
      const profile = join(dir, 'profile.json');
      writeFileSync(profile, JSON.stringify(c.edit(JSON.parse(readFileSync(FIXTURE_PROFILE_PATH, 'utf8')))));
      const server = await startServer(
        loadConfig({
          env: {},
          profilePath: FIXTURE_PROFILE_PATH,
          overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent', ...c.overrides },
        }),
      );
      try {
        const r = await cli([
          'run',
          '--base-url',
          server.url,
          '--profile',
          profile,
          '--grep',
          c.check.replace(/\./g, '\\.'),
          '--reporter',
          'list',
          '--output',
          dir,
        ]);
        assert.equal(r.code, 0, r.out);
        const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
        assert.deepEqual(
          report.checks.map((k: { id: string; status: string }) => [k.id, k.status]),
          [[c.check, 'passed']],
        );
      } finally {
        await server.close();
      }
    });
  }
});

describe("the embedded run's variant deployments", () => {
  test('their checks run in the one project, each reported with its deployment (the verdict that judged the row)', async () => {
    const dir = out();
    const r = await cli([
      'run',
      '--grep',
      'events\\.webhook\\.(secret-missing|not-configured)',
      '--reporter',
      'list,json',
      '--output',
      dir,
    ]);
    assert.equal(r.code, 0, r.out);
    const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
    assert.deepEqual(
      report.checks
        .map((k: { id: string; status: string; deployment?: string }) => [k.id, k.status, k.deployment ?? ''])
        .sort((a: string[], b: string[]) => a.join().localeCompare(b.join())),
      [
        ['events.webhook.not-configured', 'passed', 'variant-closed'],
        ['events.webhook.secret-missing', 'passed', 'variant-webhook-secret-missing'],
      ],
    );
    // No project per variant: a worker of its own would start for each after the main checks.
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    assert.deepEqual(
      results.config.projects.map((p: { name: string }) => p.name),
      [''],
    );
  });
});

describe('a profile that declares no named accounts', () => {
  test('the checks that read them are skipped, each naming data.accounts or data.orders; the run passes', async () => {
    const dir = out();
    const profile = join(dir, 'profile.json');
    const fixture = JSON.parse(readFileSync(FIXTURE_PROFILE_PATH, 'utf8'));
    writeFileSync(profile, JSON.stringify({ ...fixture, data: { ...fixture.data, accounts: null, orders: null } }));
    const server = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
    try {
      const r = await cli([
        'run',
        '--base-url',
        server.url,
        '--profile',
        profile,
        '--level',
        'spec',
        '--grep',
        'endpoints\\.account\\.(reads|isolation|ownership\\.orders)(?![.\\w-])',
        '--reporter',
        'list',
        '--output',
        dir,
      ]);
      assert.equal(r.code, 0, r.out);
      const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
      const checks = report.checks as { id: string; status: string; reason?: string }[];
      assert.deepEqual(checks.map((k) => k.id).sort(), [
        'endpoints.account.isolation',
        'endpoints.account.ownership.orders',
        'endpoints.account.reads',
      ]);
      for (const k of checks) {
        assert.equal(k.status, 'skipped', k.id);
        assert.match(k.reason ?? '', /data\.(accounts|orders)/, k.id);
      }
    } finally {
      await server.close();
    }
  });
});

describe('--max-failures: the checks the run did not get to are not run, everywhere', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
    );
  });
  after(() => reference.close());

  test('console, conformance-report.json and JUnit say "not run", with no orphan error line', async () => {
    const proxy = await startMutatingProxy(reference.url, (a) =>
      a.status === 401 ? { ...a, body: a.body.replace('"Unauthorized"', '"Not Allowed"') } : a,
    );
    try {
      const dir = out();
      const r = await cli([
        'run',
        '--base-url',
        proxy.url,
        '--clause',
        'RES-PROBLEM-4',
        'ERR-TABLE-1',
        'ERR-PROBLEM-7',
        'AUTH-TOKEN-2',
        '--max-failures',
        '1',
        '--workers',
        '1',
        '--reporter',
        'list,junit',
        '--output',
        dir,
        '--no-doctor',
      ]);
      assert.equal(r.code, 1, r.out);
      const report = JSON.parse(readFileSync(join(dir, 'conformance-report.json'), 'utf8'));
      const notRun = report.checks.filter((c: { status: string }) => c.status === 'not-run');
      assert.ok(notRun.length > 0, r.out);
      assert.equal(report.summary.checks.notRun, notRun.length);
      assert.equal(report.summary.checks.skipped, 0, 'nothing skipped: the checks left are not run');
      for (const c of notRun) assert.equal(c.reason, 'not run: the run stopped after --max-failures 1');
      assert.match(r.out, new RegExp(`^ {2}${notRun.length} not run \\(the run stopped after --max-failures 1\\)$`, 'm'));
      assert.doesNotMatch(r.out, /\b[1-9]\d* skipped/);
      assert.doesNotMatch(r.out, /not a part of any test/);
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      const skips = junit.match(/<skipped[^>]*>/g) ?? [];
      assert.equal(skips.length, notRun.length);
      for (const s of skips) assert.equal(s, '<skipped message="not run: the run stopped after --max-failures 1">');
    } finally {
      await proxy.close();
    }
  });
});
