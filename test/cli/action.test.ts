// The repository's GitHub Action (action.yml) runs step by step as a runner runs it (test/helpers/actions-runner.ts): it
// installs the suite with npm (here this checkout, as a folder package whose bin runs the sources, offline), waits for
// the deployment, runs with the profile and the baseline, summarizes the run in the job summary, annotates each failure
// with its clause, hands the reports to the upload step and gates the job on the run's exit code. The deployment is
// implementations/plainhttp (an independent implementation written from the spec), narrowed by the `args` input to
// webhook clauses: one it meets (EVT-WEBHOOK-4) and one it breaks, a deviation its own baseline lists (EVT-WEBHOOK-6).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readAction, runAction, type ActionRun } from '../helpers/actions-runner.js';
import { freePort } from '../helpers/free-port.js';

const ACTION = new URL('../../action.yml', import.meta.url).pathname;
const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const IMPLEMENTATION = new URL('../../implementations/plainhttp/', import.meta.url).pathname;
const TSX = import.meta.resolve('tsx');

/** The suite as an npm folder package: its bin runs this checkout's CLI, as the published bin runs the built one. */
function suitePackage(): string {
  const pkg = mkdtempSync(join(tmpdir(), 'shop-action-package-'));
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'shop-conformance', version: '0.0.0-checkout', bin: { 'shop-conformance': 'bin.sh' } }),
  );
  writeFileSync(join(pkg, 'bin.sh'), `#!/bin/sh\nexec "${process.execPath}" --import ${TSX} ${CLI} "$@"\n`);
  chmodSync(join(pkg, 'bin.sh'), 0o755);
  return pkg;
}

/** The job's environment: npm offline (the package is a local folder), no colour. */
const jobEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_'))),
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
  FORCE_COLOR: '0',
});

let server: ChildProcess;
let baseUrl: string;
let pkg: string;

before(async () => {
  pkg = suitePackage();
  server = spawn(process.execPath, ['--import', 'tsx', join(IMPLEMENTATION, 'main.ts'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${out}`)), 20_000);
    const read = (d: Buffer) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) resolve((clearTimeout(timer), m[1]!.replace(/\/$/, '')));
    };
    server.stdout!.on('data', read);
    server.stderr!.on('data', read);
  });
});

after(() => {
  server.kill();
});

/** A fresh workspace and the action run in it with `inputs` (the package input always this checkout's). */
async function run(inputs: Record<string, string>): Promise<ActionRun & { workspace: string }> {
  const workspace = mkdtempSync(join(tmpdir(), 'shop-action-workspace-'));
  mkdirSync(join(workspace, 'conformance'));
  const result = await runAction(ACTION, { package: pkg, 'node-version': '', ...inputs }, workspace, jobEnv());
  return { ...result, workspace };
}

const outcomes = (r: ActionRun) => Object.fromEntries(r.steps.map((s) => [s.name, s.outcome]));
const explain = (r: ActionRun) => `${JSON.stringify(r.steps)}\n${r.log}\nsummary:\n${r.summary}`;

test('action.yml declares the inputs a workflow gives and the steps it runs', () => {
  const action = readAction(ACTION);
  assert.equal(action.runs.using, 'composite');
  assert.deepEqual(
    Object.entries(action.inputs)
      .filter(([, v]) => v.required)
      .map(([k]) => k),
    ['base-url', 'profile'],
  );
  for (const k of ['expected-failures', 'level', 'wait', 'output', 'args', 'package', 'upload']) assert.ok(k in action.inputs, k);
  assert.deepEqual(
    action.runs.steps.filter((s) => s.uses).map((s) => s.uses),
    ['actions/setup-node@v4', 'actions/upload-artifact@v4'],
  );
});

test('a conforming run: every step succeeds, the summary says passed, no annotation, the reports go to the upload', async () => {
  const r = await run({ 'base-url': baseUrl, profile: join(IMPLEMENTATION, 'profile.json'), args: '--clause EVT-WEBHOOK-4' });
  assert.equal(r.failed, false, explain(r));
  assert.equal(r.outputs['exit-code'], '0');
  assert.equal(r.outputs.report, 'conformance-output/conformance-report.json');
  assert.ok(existsSync(join(r.workspace, r.outputs.report!)), explain(r));
  assert.match(r.summary, /^## ✅ shop-conformance: passed$/m);
  assert.doesNotMatch(r.log, /^::(error|warning|notice)/m);
  assert.match(r.log, /ok {3}reachable: GET \/health answered 200/, 'the run waited for the deployment and ran its doctor');
  const upload = r.steps.find((s) => s.uses?.action === 'actions/upload-artifact@v4')!;
  assert.deepEqual(upload.uses!.with, { name: 'conformance-output', path: 'conformance-output', 'if-no-files-found': 'ignore' });
  assert.equal(outcomes(r)['actions/setup-node@v4'], 'skipped', 'node-version empty: the runner node is used');
});

test('a failing run: the failure is annotated with its clause and summarized, the reports are still uploaded, the job fails with 1', async () => {
  const r = await run({ 'base-url': baseUrl, profile: join(IMPLEMENTATION, 'profile.json'), args: '--clause EVT-WEBHOOK-6' });
  assert.equal(r.failed, true, explain(r));
  assert.equal(r.outputs['exit-code'], '1');
  assert.deepEqual(
    r.steps.map((s) => [s.name, s.outcome, s.code]),
    [
      ['actions/setup-node@v4', 'skipped', undefined],
      ['Install shop-conformance', 'success', 0],
      ['Run the conformance suite', 'success', 0],
      ['Summarize and annotate', 'success', 0],
      ['actions/upload-artifact@v4', 'success', undefined],
      ["Gate on the run's exit code", 'failure', 1],
    ],
  );
  assert.match(r.log, /^::error title=EVT-WEBHOOK-6::\[events\.webhook\.unreadable-delivery\] .+/m, explain(r));
  assert.match(r.summary, /^## ❌ shop-conformance: failed$/m);
  assert.match(r.summary, /^\| `events\.webhook\.unreadable-delivery` \| EVT-WEBHOOK-6 \| .+ \|$/m);
});

test('a failure the baseline lists: a notice, not an error, and the job passes', async () => {
  const r = await run({
    'base-url': baseUrl,
    profile: join(IMPLEMENTATION, 'profile.json'),
    'expected-failures': join(IMPLEMENTATION, 'expected-failures.json'),
    args: '--clause EVT-WEBHOOK-6',
    upload: 'false',
  });
  assert.equal(r.failed, false, explain(r));
  assert.match(r.log, /^::notice title=EVT-WEBHOOK-6 \(expected failure\)::\[events\.webhook\.unreadable-delivery\]/m);
  assert.doesNotMatch(r.log, /^::error/m);
  assert.match(r.summary, /^## ✅ shop-conformance: passed-with-expected-failures$/m);
  assert.match(r.summary, /^### Expected failures \(listed in the baseline\) \(1\)$/m);
  assert.equal(outcomes(r)['actions/upload-artifact@v4'], 'skipped', 'upload: false');
});

test('nothing answers at the base URL: the wait runs out, the summary says no report, the job fails with 3', async () => {
  const r = await run({ 'base-url': `http://127.0.0.1:${await freePort()}`, profile: join(IMPLEMENTATION, 'profile.json'), wait: '2s' });
  assert.equal(r.failed, true);
  assert.equal(r.outputs['exit-code'], '3', explain(r));
  assert.match(r.summary, /^No conformance report in conformance-output: the run stopped before judging/m);
  assert.equal(r.steps.at(-1)!.code, 3);
});

test('a required input left out is refused before any step, as the runner refuses it', async () => {
  await assert.rejects(runAction(ACTION, { 'base-url': baseUrl }, tmpdir(), jobEnv()), /input required and not supplied: profile/);
});

test("docs/ci.md's workflow with the action runs as written: its start step, then the action with its inputs", async () => {
  const block = /<!-- ci-recipe: github-action -->\n```yaml\n([\s\S]*?)```/.exec(
    readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8'),
  );
  assert.ok(block, 'docs/ci.md marks a github-action recipe');
  const workflow = parse(block[1]!) as {
    jobs: Record<string, { steps: { uses?: string; run?: string; with?: Record<string, string> }[] }>;
  };
  const steps = Object.values(workflow.jobs)[0]!.steps;
  assert.deepEqual(
    steps.map((s) => s.uses ?? 'run'),
    [
      'actions/checkout@v4',
      'run',
      `shop-conformance/shop-conformance@v${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version}`,
    ],
    "the workflow checks out, starts the deployment and uses this repository's action at the package's version",
  );
  // The checkout: the project's files the workflow names. Its start script starts the deployment the test judges.
  const workspace = mkdtempSync(join(tmpdir(), 'shop-action-workflow-'));
  mkdirSync(join(workspace, 'conformance'));
  mkdirSync(join(workspace, 'scripts'));
  copyFileSync(join(IMPLEMENTATION, 'profile.json'), join(workspace, 'conformance', 'profile.json'));
  copyFileSync(join(IMPLEMENTATION, 'expected-failures.json'), join(workspace, 'conformance', 'expected-failures.json'));
  writeFileSync(
    join(workspace, 'scripts', 'start-deployment.sh'),
    `#!/bin/sh\nexec "${process.execPath}" --import ${TSX} ${join(IMPLEMENTATION, 'main.ts')} --port "\${SHOP_URL##*:}"\n`,
  );
  chmodSync(join(workspace, 'scripts', 'start-deployment.sh'), 0o755);
  const port = String(await freePort());
  const githubEnv = join(workspace, '.github-env');
  writeFileSync(githubEnv, '');
  const start = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', steps[1]!.run!.replaceAll('8787', port)], {
    cwd: workspace,
    env: { ...jobEnv(), GITHUB_ENV: githubEnv },
    detached: true,
    stdio: 'ignore',
  });
  try {
    const code = await new Promise<number | null>((resolve) => start.once('exit', resolve));
    assert.equal(code, 0, 'the start step exits once the deployment runs in the background');
    const shopUrl = /^SHOP_URL=(.*)$/m.exec(readFileSync(githubEnv, 'utf8'))?.[1];
    assert.equal(shopUrl, `http://127.0.0.1:${port}`);
    const inputs = Object.fromEntries(
      Object.entries(steps[2]!.with!).map(([k, v]) => [k, String(v).replace('${{ env.SHOP_URL }}', shopUrl!)]),
    );
    // One liberty, as for the other recipes: the whole suite takes minutes, so `args` narrows the run to one clause.
    const r = await runAction(ACTION, { ...inputs, package: pkg, 'node-version': '', args: '--clause EVT-WEBHOOK-6' }, workspace, jobEnv());
    assert.equal(r.failed, false, explain(r));
    assert.match(r.log, /^::notice title=EVT-WEBHOOK-6 \(expected failure\)::/m);
    assert.match(r.summary, /^## ✅ shop-conformance: passed-with-expected-failures$/m);
  } finally {
    try {
      process.kill(-start.pid!, 'SIGTERM');
    } catch {}
  }
});
