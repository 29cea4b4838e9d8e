// docs/ci.md's CI recipes run as written: the plain-shell script, the GitHub Actions workflow and its sharded form (marked
// `<!-- ci-recipe: name -->`), each in a project of its own where `npm ci` installs shop-conformance (this checkout, as a
// `file:` dependency whose bin runs the sources) and `scripts/start-deployment.sh` starts the reference through `npx`, as a
// user's start script would start their service: two seconds late, so that only a readiness wait lets the doctor pass.
// One liberty each: the whole suite takes minutes, so the package's bin narrows `run` to one clause (RECIPE_RUN_ARGS);
// the workflow's fixed port 8787 becomes a free one. After each recipe nothing may answer on the deployment's port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rotatingProfilePath } from '../helpers/reference.js';
import { parse } from 'yaml';

const CI_MD = new URL('../../docs/ci.md', import.meta.url).pathname;
const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const TSX = import.meta.resolve('tsx');
const RUN_ARGS = '--clause ERR-TABLE-1';

/** The block of docs/ci.md marked `<!-- ci-recipe: name -->`. */
export function ciRecipe(name: string): string {
  const m = new RegExp(`<!-- ci-recipe: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(readFileSync(CI_MD, 'utf8'));
  assert.ok(m, `docs/ci.md marks a ${name} recipe`);
  return m[1]!;
}

/** The `run:` steps of a workflow, in order, as the runner hands them to bash (`|` kept, `>` folded), and its `uses:`. */
export function workflowSteps(yaml: string): { runs: string[]; uses: string[] } {
  const lines = yaml.split('\n');
  const indent = (l: string) => l.length - l.trimStart().length;
  const runs: string[] = [];
  const uses: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const u = /^\s*(?:- )?uses: (\S+)/.exec(lines[i]!);
    if (u) uses.push(u[1]!);
    const m = /^(\s*)(- )?run: ?(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const key = m[1]!.length + (m[2] ? 2 : 0);
    if (m[3] !== '|' && m[3] !== '>') {
      runs.push(m[3]!);
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || indent(lines[i + 1]!) > key)) block.push(lines[++i]!);
    const body = block.map((l) => l.trim()).filter(Boolean);
    runs.push(m[3] === '|' ? body.join('\n') : body.join(' '));
  }
  return { runs, uses };
}

/**
 * A project that uses the suite as docs/ci.md says: shop-conformance as a dev dependency (a `file:` package whose bin runs
 * this checkout's CLI in its own process, as the published bin does), its lockfile, a start script, a profile and a baseline.
 */
function createProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'shop-ci-recipe-'));
  const pkg = join(root, 'shop-conformance');
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'shop-conformance', version: '0.0.0-checkout', bin: { 'shop-conformance': 'bin.sh' } }),
  );
  writeFileSync(
    join(pkg, 'bin.sh'),
    `#!/bin/sh\nif [ "$1" = run ] && [ -n "\${RECIPE_RUN_ARGS:-}" ]; then set -- "$@" $RECIPE_RUN_ARGS; fi\nexec "${process.execPath}" --import ${TSX} ${CLI} "$@"\n`,
  );
  chmodSync(join(pkg, 'bin.sh'), 0o755);
  const project = join(root, 'project');
  mkdirSync(join(project, 'scripts'), { recursive: true });
  mkdirSync(join(project, 'conformance'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-service', version: '1.0.0', private: true, devDependencies: { 'shop-conformance': `file:${pkg}` } }),
  );
  writeFileSync(
    join(project, 'scripts', 'start-deployment.sh'),
    '#!/bin/sh\nsleep 2\nexec npx shop-conformance serve --port "${SHOP_URL##*:}" --profile conformance/profile.json\n',
  );
  chmodSync(join(project, 'scripts', 'start-deployment.sh'), 0o755);
  copyFileSync(rotatingProfilePath(), join(project, 'conformance', 'profile.json'));
  writeFileSync(join(project, 'conformance', 'expected-failures.json'), JSON.stringify({ expectedFailures: [] }));
  execFileSync('npm', ['install'], { cwd: project, env: npmEnv(), stdio: 'ignore' });
  return project;
}

/** npm without the network (the project's only dependency is a local folder), and without a surrounding `npm run`'s prefix. */
const npmEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'npm_config_local_prefix')),
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  FORCE_COLOR: '0',
  ...extra,
});

/** Runs `bash args` in `cwd` in a process group of its own, its output in a file; resolves on its exit (not on pipes). */
function bash(args: string[], cwd: string, env: NodeJS.ProcessEnv, log: string): Promise<{ code: number | null; pid: number }> {
  const fd = openSync(log, 'a');
  const child = spawn('bash', args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, pid: child.pid! })));
}

/** Whether anything still answers on the port, asked for up to `ms` (a closing server finishes its connections first). */
async function stillAnswers(url: string, ms = 8000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return false;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return true;
}

/**
 * One `run:` step as the runner runs it (`bash --noprofile --norc -eo pipefail`), with what earlier steps wrote to
 * $GITHUB_ENV in its environment; its process group joins `groups` (stopped when the job ends). It must exit 0.
 */
async function runStep(project: string, run: string, name: string, o: { githubEnv: string; log: string; groups: number[] }): Promise<void> {
  const script = join(project, `.step-${name}.sh`);
  writeFileSync(script, run + '\n');
  const fromSteps = Object.fromEntries(
    readFileSync(o.githubEnv, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const env = npmEnv({ ...fromSteps, GITHUB_ENV: o.githubEnv, RECIPE_RUN_ARGS: RUN_ARGS, SHOP_URL: fromSteps.SHOP_URL });
  const { code, pid } = await bash(['--noprofile', '--norc', '-eo', 'pipefail', script], project, env, o.log);
  o.groups.push(pid);
  assert.equal(code, 0, `step ${name} (${run.split('\n')[0]}) exited ${code}\n${readFileSync(o.log, 'utf8')}`);
}

function assertJudged(project: string): void {
  const report = JSON.parse(readFileSync(join(project, 'conformance-output', 'conformance-report.json'), 'utf8')) as {
    checks: { id: string; status: string }[];
  };
  assert.ok(report.checks.length > 0 && report.checks.every((c) => c.status === 'passed'), JSON.stringify(report.checks));
  assert.ok(existsSync(join(project, 'conformance-output', 'junit.xml')));
}

test('docs/ci.md, the plain-shell recipe, runs as written: waits for the deployment, judges it, stops it', async () => {
  const project = createProject();
  const shopUrl = `http://127.0.0.1:${await freePort()}`;
  writeFileSync(join(project, 'ci.sh'), ciRecipe('shell'));
  const log = join(project, 'ci.log');
  const { code } = await bash(['ci.sh'], project, npmEnv({ SHOP_URL: shopUrl, RECIPE_RUN_ARGS: RUN_ARGS }), log);
  const out = readFileSync(log, 'utf8');
  assert.equal(code, 0, out);
  assert.match(out, /ok {3}reachable: GET \/health answered 200/);
  assertJudged(project);
  assert.equal(await stillAnswers(shopUrl), false, 'the trap stopped the deployment');
});

test('docs/ci.md, the plain-shell recipe: a failing step still stops the deployment (exit 1, nothing left answering)', async () => {
  const project = createProject();
  const shopUrl = `http://127.0.0.1:${await freePort()}`;
  writeFileSync(join(project, 'ci.sh'), ciRecipe('shell'));
  // A baseline whose entry passes is stale: the run fails after judging.
  writeFileSync(
    join(project, 'conformance', 'expected-failures.json'),
    JSON.stringify({ expectedFailures: [{ clause: 'ERR-TABLE-1', reason: 'stale on purpose', expires: '2999-01-01' }] }),
  );
  const log = join(project, 'ci.log');
  const { code } = await bash(['ci.sh'], project, npmEnv({ SHOP_URL: shopUrl, RECIPE_RUN_ARGS: RUN_ARGS }), log);
  assert.equal(code, 1, readFileSync(log, 'utf8'));
  assert.equal(await stillAnswers(shopUrl), false, 'the trap stopped the deployment');
});

test('docs/ci.md, the GitHub Actions workflow, runs step by step as the runner runs it ($GITHUB_ENV between steps)', async () => {
  const project = createProject();
  const port = await freePort();
  const { runs, uses } = workflowSteps(ciRecipe('github-actions'));
  assert.deepEqual(uses, ['actions/checkout@v4', 'actions/setup-node@v4', 'actions/upload-artifact@v4']);
  const githubEnv = join(project, '.github-env');
  writeFileSync(githubEnv, '');
  const groups: number[] = [];
  const log = join(project, 'ci.log');
  try {
    for (const [i, run] of runs.entries())
      await runStep(project, run.replaceAll('8787', String(port)), String(i + 1), { githubEnv, log, groups });
    assertJudged(project);
  } finally {
    // The runner's end of job: every process a step left behind is stopped.
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {}
    }
  }
  assert.equal(await stillAnswers(`http://127.0.0.1:${port}`), false);
});

test('`npx shop-conformance serve &` then `kill $!` stops the server, not only npm exec', async () => {
  const project = createProject();
  const shopUrl = `http://127.0.0.1:${await freePort()}`;
  const script = [
    'npx shop-conformance serve --port "${SHOP_URL##*:}" &',
    'for i in $(seq 1 120); do curl -s -o /dev/null "$SHOP_URL/health" && break; sleep 0.25; done',
    'curl -s -o /dev/null -w "%{http_code}\\n" "$SHOP_URL/health"',
    'kill $!',
  ].join('\n');
  const log = join(project, 'kill.log');
  const { code, pid } = await bash(['-c', script], project, npmEnv({ SHOP_URL: shopUrl }), log);
  try {
    assert.equal(code, 0, readFileSync(log, 'utf8'));
    assert.match(readFileSync(log, 'utf8'), /^200$/m, 'the server answered before the kill');
    assert.equal(await stillAnswers(shopUrl), false, `still answering after kill $!\n${readFileSync(log, 'utf8')}`);
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});

test('docs/ci.md, the sharded GitHub Actions workflow, runs job by job: each shard starts and judges its deployment, the merge gates on the baseline', async () => {
  const project = createProject();
  const workflow = parse(ciRecipe('github-actions-shards')) as {
    jobs: Record<
      string,
      {
        needs?: string;
        strategy?: { matrix: { shard: number[] } };
        steps: { uses?: string; run?: string; with?: Record<string, string> }[];
      }
    >;
  };
  const { conformance, merge } = workflow.jobs as Required<typeof workflow.jobs>;
  assert.ok(conformance && merge, 'a conformance job and a merge job');
  assert.equal(merge.needs, 'conformance');
  const shards = conformance.strategy!.matrix.shard;
  assert.deepEqual(shards, [1, 2, 3]);
  const artifacts = new Map<string, string>();
  const log = join(project, 'ci.log');
  const groups: number[] = [];
  /** Runs one job's steps in the project as a runner does; `matrix` fills `${{ matrix.shard }}`. */
  const runJob = async (steps: (typeof conformance)['steps'], matrix: Record<string, string>, port: number) => {
    const fill = (s: string) => s.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, k: string) => matrix[k]!);
    const githubEnv = join(project, `.github-env-${matrix.shard ?? 'merge'}`);
    writeFileSync(githubEnv, '');
    for (const [i, step] of steps.entries()) {
      if (step.uses?.startsWith('actions/upload-artifact@')) {
        const w = step.with!;
        artifacts.set(fill(w.name!), join(project, fill(w.path!)));
        continue;
      }
      if (step.uses?.startsWith('actions/download-artifact@')) {
        // The shards' artifacts, each in a directory of its name under `path`.
        const w = step.with!;
        const pattern = new RegExp(`^${w.pattern!.replace('*', '.*')}$`);
        for (const [name, dir] of artifacts)
          if (pattern.test(name)) execFileSync('cp', ['-r', dir, join(project, w.path!, name)], { stdio: 'ignore' });
        continue;
      }
      if (step.uses) continue; // checkout and setup-node: the project and this node are there
      if (step.run === undefined) continue;
      await runStep(project, fill(step.run).replaceAll('8787', String(port)), `${matrix.shard ?? 'merge'}-${i + 1}`, {
        githubEnv,
        log,
        groups,
      });
    }
  };
  try {
    for (const shard of shards) {
      const port = await freePort();
      await runJob(conformance.steps, { shard: String(shard) }, port);
      // The job ends: the runner stops what it started, before the next shard's job.
      for (const pid of groups.splice(0)) {
        try {
          process.kill(-pid, 'SIGTERM');
        } catch {}
      }
      assert.equal(await stillAnswers(`http://127.0.0.1:${port}`), false);
      assert.ok(existsSync(join(project, `shard-${shard}`, 'blob')), `shard ${shard} wrote its blob report`);
    }
    mkdirSync(join(project, 'shards'), { recursive: true });
    await runJob(merge.steps, {}, await freePort());
    assertJudged(project);
  } finally {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {}
    }
  }
});

test('every YAML block of docs/ parses as YAML (as the runner parses a workflow)', () => {
  const docs = new URL('../../docs/', import.meta.url).pathname;
  const blocks = readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .flatMap((f) => [...readFileSync(join(docs, f), 'utf8').matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => ({ f, text: m[1]! })));
  assert.ok(blocks.length >= 3);
  for (const b of blocks) assert.doesNotThrow(() => parse(b.text, { strict: true }), `docs/${b.f}: ${b.text.split('\n')[0]}`);
});
