// A composite GitHub Action's steps, run here as a runner runs them (action.yml): its inputs with their defaults, each
// step's `if:` (the expressions action.yml uses), its `env:` and `with:` with `${{ … }}` filled in, `run:` scripts through
// `bash --noprofile --norc -eo pipefail` with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV, RUNNER_TEMP and
// GITHUB_ACTION_PATH, and the step outputs and outcomes later steps read. A `uses:` step is not run: it is recorded with
// its filled-in `with:` for the test to judge (actions/setup-node, actions/upload-artifact need GitHub).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

export interface Action {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface StepResult {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  /** For a `uses:` step: what it was given (it is not run here). */
  uses?: { action: string; with: Record<string, string> };
  code?: number | null;
}

export interface ActionRun {
  steps: StepResult[];
  /** The action's outputs, as the workflow reads them. */
  outputs: Record<string, string>;
  /** What every step printed, in order. */
  log: string;
  /** The job summary the steps appended to. */
  summary: string;
  /** The job's verdict: a step failed. */
  failed: boolean;
}

export const readAction = (path: string): Action => parse(readFileSync(path, 'utf8')) as Action;

/** `name=value` lines of a GITHUB_OUTPUT or GITHUB_ENV file (action.yml writes no multi-line values). */
function keyValues(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

interface Context {
  inputs: Record<string, string>;
  github: { action_path: string };
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  failed: boolean;
}

/** One operand of an expression: a context path or a quoted string. */
function operand(ctx: Context, s: string): string {
  const t = s.trim();
  const quoted = /^'(.*)'$/.exec(t);
  if (quoted) return quoted[1]!;
  const parts = t.split('.');
  let v: unknown = ctx;
  for (const p of parts) v = (v as Record<string, unknown> | undefined)?.[p];
  if (v === undefined && parts[0] !== 'steps' && parts[0] !== 'inputs') throw new Error(`unknown expression: ${t}`);
  return v === undefined ? '' : String(v);
}

/** The `if:` expressions action.yml uses: always(), success(), failure(), ==, != and &&. */
function condition(ctx: Context, expr: string | undefined): boolean {
  const e = (expr ?? 'success()').replace(/^\$\{\{(.*)\}\}$/, '$1');
  const terms = e.split('&&').map((t) => t.trim());
  if (!terms.some((t) => ['always()', 'success()', 'failure()'].includes(t))) terms.push('success()');
  return terms.every((t) => {
    if (t === 'always()') return true;
    if (t === 'success()') return !ctx.failed;
    if (t === 'failure()') return ctx.failed;
    const m = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(t);
    if (!m) throw new Error(`unsupported condition: ${t}`);
    const equal = operand(ctx, m[1]!) === operand(ctx, m[3]!);
    return m[2] === '==' ? equal : !equal;
  });
}

const fill = (ctx: Context, s: string) => s.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => operand(ctx, e));
const fillAll = (ctx: Context, o: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, fill(ctx, String(v))]));

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, log: string): Promise<number | null> {
  const fd = openSync(log, 'a');
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Runs the action at `actionFile` with `inputs` in `workspace` (the job's working directory); `env` is the job's
 * environment. A required input left out throws, as the runner refuses it.
 */
export async function runAction(
  actionFile: string,
  inputs: Record<string, string>,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<ActionRun> {
  const action = readAction(actionFile);
  for (const [name, spec] of Object.entries(action.inputs))
    if (spec.required && !(name in inputs)) throw new Error(`input required and not supplied: ${name}`);
  const temp = mkdtempSync(join(tmpdir(), 'shop-action-runner-'));
  const summaryFile = join(temp, 'step-summary.md');
  const envFile = join(temp, 'github-env');
  const logFile = join(temp, 'log');
  writeFileSync(summaryFile, '');
  writeFileSync(envFile, '');
  writeFileSync(logFile, '');
  mkdirSync(join(temp, 'runner'));
  const ctx: Context = {
    inputs: {
      ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])),
      ...inputs,
    },
    github: { action_path: dirname(actionFile) },
    steps: {},
    failed: false,
  };
  const steps: StepResult[] = [];
  for (const [i, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${i + 1}`;
    if (!condition(ctx, step.if)) {
      steps.push({ name, outcome: 'skipped' });
      if (step.id) ctx.steps[step.id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    if (step.uses) {
      steps.push({ name, outcome: 'success', uses: { action: step.uses, with: fillAll(ctx, step.with) } });
      if (step.id) ctx.steps[step.id] = { outputs: {}, outcome: 'success' };
      continue;
    }
    if (step.shell !== 'bash') throw new Error(`${name}: a composite run step names its shell (bash)`);
    const outputFile = join(temp, `output-${i}`);
    writeFileSync(outputFile, '');
    const script = join(temp, `step-${i}.sh`);
    writeFileSync(script, fill(ctx, step.run ?? '') + '\n');
    const code = await bash(
      script,
      workspace,
      {
        ...env,
        ...keyValues(envFile),
        ...fillAll(ctx, step.env),
        GITHUB_OUTPUT: outputFile,
        GITHUB_ENV: envFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_ACTION_PATH: ctx.github.action_path,
        GITHUB_ACTIONS: 'true',
        RUNNER_TEMP: join(temp, 'runner'),
      },
      logFile,
    );
    const outcome = code === 0 ? 'success' : 'failure';
    if (outcome === 'failure') ctx.failed = true;
    steps.push({ name, outcome, code });
    if (step.id) ctx.steps[step.id] = { outputs: keyValues(outputFile), outcome };
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, fill(ctx, v.value)]));
  return { steps, outputs, log: readFileSync(logFile, 'utf8'), summary: readFileSync(summaryFile, 'utf8'), failed: ctx.failed };
}
