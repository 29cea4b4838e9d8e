// `shop-conformance self-test`: the suite's power to fail, measured. Each defect of the library (conformance/selftest/defects/)
// breaks one clause behind its own proxy in front of the target; one Playwright run judges them all (a project per defect)
// and the kill matrix says which checks caught which defect. Any survivor exits 1.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { CLAUSES_BY_ID } from '../../contract/clauses/index.js';
import { ENV, readCaFile, readProfileFile, type TargetVariant } from '../../conformance/engine/params.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { DEFECTS, toothless, type Defect } from '../../conformance/selftest/defects/index.js';
import { buildMatrix, formatMatrix, htmlMatrix, matrixPasses, type Outcome } from '../../conformance/selftest/matrix.js';
import { isBaseline, makeupPlan, packDefects, PLAN_ENV, type Plan, type PlannedDefect } from '../../conformance/selftest/plan.js';
import { ALREADY_KILLED } from '../../conformance/selftest/kill-ledger.js';
import { sendUpstream, startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { KNOWN_SURVIVORS } from '../../conformance/selftest/known-survivors.js';
import { reachOf, resetReach } from '../../conformance/selftest/scoped.js';
import { listScoped, scopeSelection, scopedOptions, screenVariants, type ScopedOptions } from './self-test-scoped.js';
import { deriveVariants } from '../../conformance/selftest/scoped.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import type { Profile } from '../../contract/profile.js';
import type { RunningServer } from '../../reference/src/server.js';
import { EMBEDDED_VARIANTS, startConfigured, startEmbeddedVariants, type RunningVariants } from '../embedded-variants.js';
import { EXIT, exitAfterOutput } from '../exit.js';
import { referenceLogIn, startEmbedded } from './run.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../../conformance/engine/in-flight.js';
import { chooseWorkers } from '../../conformance/engine/workers.js';
import { tryStartInFlightPool, type InFlightPool } from '../../conformance/engine/in-flight-pool.js';
import { shardOf, shardSchema, usageLine } from '../options.js';
import { playwrightEnv } from '../../conformance/engine/native-load.js';
import { passOnStop, stopExitCode, stopSignalReceived } from '../stop-signal.js';

/** The exit code of a self-test stopped from outside, if it was. */
const stoppedCode = () => {
  const stopped = stopSignalReceived();
  return stopped ? stopExitCode(stopped) : undefined;
};

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const CONFIG = resolve(here, '..', '..', 'conformance', 'selftest', `playwright.config.${ext}`);

const optionsSchema = z.object({
  baseUrl: z.url().optional(),
  profile: z.string().min(1),
  level: z.enum(['spec', 'reference']).optional(),
  defect: z.array(z.string().min(1)).optional(),
  clause: z.array(z.string().min(1)).optional(),
  workers: z
    .string()
    .regex(/^[1-9]\d*%?$/, 'a positive number of workers, or a percentage of cores like 50%')
    .optional(),
  output: z.string().min(1),
  list: z.boolean(),
  baseline: z.boolean(),
  ca: z.string().min(1).optional(),
  insecure: z.boolean(),
  beyondSpec: z.boolean().optional(),
  shard: shardSchema.optional(),
  /** Tests only: adds a defect that changes nothing for this clause (it must survive). */
  toothless: z.string().optional(),
  everyCheck: z.boolean(),
  ...scopedOptions,
});

export type SelfTestOptions = z.infer<typeof optionsSchema> & ScopedOptions;
type Io = { out: (s: string) => void; err: (s: string) => void };

/** The defects the options select; a name that matches nothing is a usage error (thrown as one line). */
export function selectDefects(o: Pick<SelfTestOptions, 'defect' | 'clause' | 'toothless'>, library: readonly Defect[] = DEFECTS): Defect[] {
  // A narrowed variant by its id (`<defect>@<dimension>=<value>`, as the self-test names a survivor): that cell alone.
  const variants: Defect[] = [];
  for (const id of (o.defect ?? []).filter((x) => x.includes('@'))) {
    const broad = library.find((d) => d.id === id.slice(0, id.indexOf('@')));
    const variant = broad && deriveVariants(broad).find((v) => v.id === id);
    if (!variant) throw new Error(`--defect: no narrowed variant ${id} (see --list --scoped all)`);
    variants.push(variant);
  }
  if (variants.length > 0) {
    const rest = (o.defect ?? []).filter((x) => !x.includes('@'));
    return [...(rest.length || o.clause?.length ? selectDefects({ ...o, defect: rest }, library) : []), ...variants];
  }
  for (const id of o.defect ?? []) if (!library.some((d) => d.id === id)) throw new Error(`--defect: no defect ${id} (see --list)`);
  for (const c of o.clause ?? []) if (!CLAUSES_BY_ID.has(c)) throw new Error(`--clause: no clause ${c} in the catalogue`);
  if (o.toothless !== undefined && !CLAUSES_BY_ID.has(o.toothless))
    throw new Error(`--toothless: no clause ${o.toothless} in the catalogue`);
  const narrowed = o.defect?.length || o.clause?.length;
  const picked = library.filter((d) => !narrowed || o.defect?.includes(d.id) || o.clause?.includes(d.clause));
  return o.toothless === undefined ? picked : [...(o.defect?.length || o.clause?.length ? picked : []), toothless(o.toothless)];
}

/** Runs Playwright; stdout is captured ('pipe') or sent to a file descriptor. */
function playwright(args: string[], env: NodeJS.ProcessEnv, stdout: 'pipe' | number): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { env: playwrightEnv(CONFIG, env), stdio: ['ignore', stdout, 'inherit'] });
    passOnStop(child);
    let text = '';
    child.stdout?.on('data', (d: Buffer) => (text += d.toString('utf8')));
    child.once('exit', (c) => done({ code: c ?? 1, stdout: text }));
  });
}

interface ListedSuite {
  specs?: { title?: string; tags?: string[] }[];
  suites?: ListedSuite[];
}

interface ListedCheck {
  /** The check id (`[<id>] …` of the title). */
  id: string;
  clauses: string[];
}

/** Every listed check: its id and clause tags (Playwright's JSON report of `--list`). */
export function listedChecks(json: string): ListedCheck[] {
  const out: ListedCheck[] = [];
  const walk = (s: ListedSuite) => {
    for (const spec of s.specs ?? [])
      out.push({
        id: /^\[([^\]]+)\]/.exec(spec.title ?? '')?.[1] ?? '',
        clauses: (spec.tags ?? []).map((t) => t.replace(/^@/, '')).filter((t) => /^[A-Z]+-[A-Z0-9-]*\d$/.test(t)),
      });
    for (const child of s.suites ?? []) walk(child);
  };
  try {
    for (const s of (JSON.parse(json) as { suites?: ListedSuite[] }).suites ?? []) walk(s);
  } catch {
    // No listing: every defect gets its own project (correct, slower).
  }
  return out;
}

export async function selfTest(
  o: SelfTestOptions,
  io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) },
): Promise<number> {
  let defects: Defect[];
  try {
    defects = selectDefects(o);
    if (o.shard) defects = shardOf(defects, o.shard);
  } catch (err) {
    io.err(`shop-conformance self-test: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  if (o.list) {
    if (o.scoped && o.scoped !== 'none') return listScoped(defects, o, io);
    for (const d of defects) io.out(`${d.id}\t${d.clause}\t${d.kind}\t${d.description}\n`);
    return EXIT.ok;
  }
  const profilePath = resolve(o.profile);
  let profile: Profile;
  try {
    profile = readProfileFile(profilePath, { toMint: true });
  } catch (err) {
    io.err(`shop-conformance self-test: --profile: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  let tls: { ca?: string; insecure: boolean };
  try {
    tls = { ...(o.ca ? { ca: readCaFile(resolve(o.ca)) } : {}), insecure: o.insecure };
  } catch (err) {
    io.err(`shop-conformance self-test: --ca: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  if (o.beyondSpec && o.level === 'spec') {
    io.err('shop-conformance self-test: --beyond-spec: judges at the reference level; it cannot be given with --level spec\n');
    return EXIT.usage;
  }
  const level = o.beyondSpec ? 'reference' : (o.level ?? (o.baseUrl ? 'spec' : 'reference'));
  const output = resolve(o.output);
  mkdirSync(output, { recursive: true });
  const outcomesFile = join(output, 'self-test-outcomes.json');
  rmSync(outcomesFile, { force: true });
  const started = Date.now();
  // The deployments' own log lines go beside the reports, not into the matrix's console.
  const { log } = await referenceLogIn(output);
  const proxies: Proxy[] = [];
  let pool: InFlightPool | undefined;
  const variantSets: RunningVariants[] = [];
  /** One variant deployment with its own identity provider, in its own directory. */
  const startVariants = async (p: typeof profile, dir: string, name: string): Promise<RunningVariants> => {
    mkdirSync(dir, { recursive: true });
    const set = await startEmbeddedVariants(p, dir, [name], log);
    variantSets.push(set);
    return set;
  };
  let embedded: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  /** The deployments of configuration defects, and the directories of their profiles (which hold the profile's secrets). */
  const configured: RunningServer[] = [];
  const scratch: string[] = [];
  try {
    let target = o.baseUrl;
    if (!target) {
      embedded = await startEmbedded(profilePath, log);
      profile = embedded.profile;
      target = embedded.server.url;
      io.err(`embedded reference listening on ${target}\n`);
    }
    const clauses = [...new Set(defects.map((d) => d.clause))];
    const planFile = join(output, 'self-test-plan.json');
    const env = {
      ...process.env,
      [PLAN_ENV]: planFile,
      [ENV.baseUrl]: target,
      [ENV.profile]: embedded?.profilePath ?? profilePath,
      [ENV.level]: level,
      [ENV.strict]: '1',
      [ENV.seed]: '1',
      [ENV.showSecrets]: '0',
      [ENV.output]: output,
      [ENV.target]: embedded ? 'embedded' : 'external',
      [ENV.partial]: '1',
      // The baseline talks to the target itself, over the same TLS as the proxies.
      ...(o.ca ? { [ENV.ca]: resolve(o.ca) } : {}),
      ...(o.insecure ? { [ENV.insecure]: '1' } : {}),
      [ENV.selftest]: '1',
      FORCE_COLOR: process.env.FORCE_COLOR ?? '0',
    };
    // --beyond-spec: only the defects the spec level sets aside (below), which only the reference's own checks judge; the
    // others are killed at the reference level whenever the spec level kills them (its checks are a subset).
    if (o.beyondSpec) {
      writeFileSync(
        planFile,
        JSON.stringify({ target, level: 'spec', baseline: [], projects: [], listing: clauses } satisfies Plan) + '\n',
      );
      const listed = await playwright(
        [require.resolve('@playwright/test/cli'), 'test', '--config', CONFIG, '--list', '--reporter', 'json'],
        { ...env, [ENV.level]: 'spec' },
        'pipe',
      );
      const atSpec = listedChecks(listed.stdout);
      defects = defects.filter((d) => d.referenceOnly !== undefined || !atSpec.some((c) => c.clauses.includes(d.clause)));
      io.err(`--beyond-spec: ${defects.length} defect(s) only the reference level judges\n`);
    }
    // The checks of the selected clauses (their clause tags), to pack the defects into as few projects as possible.
    writeFileSync(planFile, JSON.stringify({ target, level, baseline: [], projects: [], listing: clauses } satisfies Plan) + '\n');
    const listed = await playwright(
      [require.resolve('@playwright/test/cli'), 'test', '--config', CONFIG, '--list', '--reporter', 'json'],
      env,
      'pipe',
    );
    const listing = listedChecks(listed.stdout);
    const checks = listing.map((c) => c.clauses);
    // A defect whose clause no check judges at this level (its checks judge the reference's choices), or whose break is a
    // conforming choice at the spec level (Defect.referenceOnly), is set aside and named with the reason.
    const outOfLevel = defects.filter(
      (d) => (level === 'spec' && d.referenceOnly !== undefined) || !listing.some((c) => c.clauses.includes(d.clause)),
    );
    defects = defects.filter((d) => !outOfLevel.includes(d));
    // --scoped: the narrowed variants of the selected defects (all, or a seeded sample with their broad defects).
    resetReach();
    defects = scopeSelection(defects, o, io);
    // Screening (self-test-scoped.ts): with a baseline, each variant runs only the checks that reach its cell.
    const screened = o.baseline
      ? await screenVariants(
          defects,
          async (clauses) => {
            writeFileSync(planFile, JSON.stringify({ target, level, baseline: clauses, projects: [] } satisfies Plan) + '\n');
            await playwright(
              [require.resolve('@playwright/test/cli'), 'test', '--config', CONFIG, ...(o.workers ? ['--workers', o.workers] : [])],
              env,
              2,
            );
            return existsSync(outcomesFile) ? (JSON.parse(readFileSync(outcomesFile, 'utf8')) as Outcome[]) : [];
          },
          io,
        )
      : undefined;
    const reaching = screened?.reaching;
    const runs = (d: Defect) => reaching?.get(d.id)?.length !== 0;
    const ctx = { profile, mint: createMinter(profile), send: sendUpstream(target, tls), target };
    const planned: PlannedDefect[] = [];
    for (const d of defects.filter((x) => !x.configure && runs(x))) {
      const proxy = await startProxy(target, d.rules(ctx), 0, tls);
      proxies.push(proxy);
      planned.push({ id: d.id, clause: d.clause, url: proxy.url, ...(reaching?.has(d.id) ? { checks: reaching.get(d.id)! } : {}) });
    }
    const packs = packDefects(planned, checks);
    // The embedded run's variant deployments (cli/embedded-variants.ts): a defect whose clause a variant's check judges is
    // also judged there, behind its own proxy in front of its own instance of that variant.
    const variantProjects: NonNullable<Plan['variants']> = [];
    // A configuration defect's checks judge a deployment configured against its clause, through a profile that says so:
    // the embedded reference started from that profile, or the user's deployment (whose configuration only its profile shows).
    for (const [i, d] of defects.entries()) {
      if (!d.configure) continue;
      const name = `configured-${i + 1}`;
      const dir = mkdtempSync(join(tmpdir(), `shop-conformance-${name}-`));
      scratch.push(dir);
      let variant: TargetVariant;
      const checks = listing.filter((c) => c.clauses.includes(d.clause)).map((c) => c.id);
      if (embedded) {
        const started = await startConfigured(d.configure(profile), dir, name, log);
        configured.push(started.server);
        variant = { name, baseUrl: started.server.url, profilePath: started.profilePath, checks };
      } else {
        const profileFile = join(dir, 'profile.json');
        writeFileSync(profileFile, JSON.stringify(d.configure(profile), null, 2));
        variant = { name, baseUrl: target, profilePath: profileFile, checks };
      }
      variantProjects.push({ name, variant, defects: [{ id: d.id, clause: d.clause, url: variant.baseUrl }] });
    }
    if (embedded) {
      const baselineChecks = new Map<string, Set<string>>();
      for (const [i, d] of defects.entries()) {
        if (d.configure) continue;
        for (const v of EMBEDDED_VARIANTS) {
          const ids = v.checks.filter(
            (id) => listing.some((c) => c.id === id && c.clauses.includes(d.clause)) && (reaching?.get(d.id)?.includes(id) ?? true),
          );
          if (ids.length === 0) continue;
          const [instance] = (await startVariants(profile, join(embedded.dir, `defect-${i}-${v.name}`), v.name)).variants;
          const variantProfile = readProfileFile(instance!.profilePath, { toMint: true });
          const proxy = await startProxy(
            instance!.baseUrl,
            d.rules({
              profile: variantProfile,
              mint: createMinter(variantProfile),
              send: sendUpstream(instance!.baseUrl),
              target: instance!.baseUrl,
            }),
          );
          proxies.push(proxy);
          const variant: TargetVariant = { ...instance!, baseUrl: proxy.url, checks: ids };
          variantProjects.push({ name: `variant-${v.name}-${i + 1}`, variant, defects: [{ id: d.id, clause: d.clause, url: proxy.url }] });
          for (const id of ids) baselineChecks.set(v.name, (baselineChecks.get(v.name) ?? new Set()).add(id));
        }
      }
      if (o.baseline)
        for (const [name, ids] of baselineChecks) {
          const [instance] = (await startVariants(profile, join(embedded.dir, `baseline-${name}`), name)).variants;
          variantProjects.push({ name: `baseline-variant-${name}`, variant: { ...instance!, checks: [...ids] }, defects: [] });
        }
    }
    // First kill (conformance/selftest/kill-ledger.ts): a defect's checks stop at its first kill, unless --every-check.
    const kills = o.everyCheck ? undefined : join(output, 'self-test-kills');
    if (kills) rmSync(kills, { recursive: true, force: true });
    const plan: Plan = {
      target,
      level,
      // The screening's baseline stands for its clauses: the run's own baseline judges the others.
      baseline: o.baseline ? clauses.filter((c) => !screened?.clauses.includes(c)) : [],
      projects: packs.map((defects, i) => ({ name: `defects-${i + 1}`, defects })),
      ...(variantProjects.length ? { variants: variantProjects } : {}),
      ...(kills ? { kills } : {}),
    };
    writeFileSync(planFile, JSON.stringify(plan, null, 2) + '\n');
    io.err(
      `self-test: ${defects.length} defect(s) behind ${proxies.length} proxies in ${plan.projects.length + variantProjects.length} project(s) (${variantProjects.length} on variant deployments), ${checks.length} checks, level ${level}${kills ? '; each defect until its first kill (--every-check: all)' : ''}\n`,
    );
    // A phase may hold no check of the selection.
    const args = [require.resolve('@playwright/test/cli'), 'test', '--config', CONFIG, '--pass-with-no-tests'];
    // Workers follow the deployment's round trip as in `run` (conformance/engine/workers.ts), within the default cap.
    const workers = await chooseWorkers({ workers: o.workers, maxInFlight: DEFAULT_MAX_IN_FLIGHT }, o.baseUrl, tls, io.err);
    args.push('--workers', String(workers.workers));
    // Past its own places, a worker borrows from a pool this process holds (conformance/engine/in-flight-pool.ts).
    if (workers.pool > 0) {
      const dir = mkdtempSync(join(tmpdir(), 'shop-conformance-pool-'));
      scratch.push(dir);
      pool = await tryStartInFlightPool(workers.pool, dir);
    }
    Object.assign(env, {
      [ENV.maxInFlight]: String(workers.perWorker),
      [ENV.inFlightPool]: pool?.path ?? '',
      ...(workers.roundTripMs !== undefined ? { [ENV.roundTrip]: workers.roundTripMs.toFixed(0) } : {}),
    });
    const byProject = new Map([...plan.projects, ...variantProjects].map((p) => [p.name, p.defects]));
    /** One Playwright run of `run`'s plan; its outcomes, each copy's resolved to its defect (undefined: no outcomes). */
    const judge = async (run: Plan): Promise<Outcome[] | undefined> => {
      writeFileSync(planFile, JSON.stringify(run, null, 2) + '\n');
      rmSync(outcomesFile, { force: true });
      // Playwright's progress (dot) goes to stderr; stdout holds the matrix.
      const { code } = await playwright(args, env, 2);
      // Stopped from outside (cli/stop-signal.ts): Playwright was stopped too; no verdict.
      const stopped = stopSignalReceived();
      if (stopped) {
        io.err(`shop-conformance self-test: stopped by ${stopped}\n`);
        return undefined;
      }
      if (!existsSync(outcomesFile)) {
        io.err(`shop-conformance self-test: Playwright exited ${code} without outcomes\n`);
        return undefined;
      }
      // A packed project's outcome belongs to the one defect whose clause the check cites; a variant's baseline is baseline.
      return (JSON.parse(readFileSync(outcomesFile, 'utf8')) as Outcome[]).map((x) =>
        isBaseline(x.project)
          ? { ...x, project: 'baseline' }
          : { ...x, project: byProject.get(x.project)?.find((d) => x.tags?.includes(d.clause))?.id ?? x.project },
      );
    };
    // With the ledger, the quick checks first; then the long ones (plan.ts, `phase`), for the defects still alive.
    let outcomes = [...(screened?.baseline ?? [])];
    for (const phase of kills ? (['quick', 'long'] as const) : [undefined]) {
      const judged = await judge({ ...plan, ...(phase ? { phase } : {}) });
      if (!judged) return stoppedCode() ?? EXIT.usage;
      outcomes.push(...judged);
    }
    const matrixOf = (all: readonly Outcome[]) =>
      buildMatrix({
        target: o.baseUrl ?? 'embedded reference',
        level,
        defects,
        outOfLevel,
        library: DEFECTS,
        outcomes: all,
        reach: reachOf,
        known: KNOWN_SURVIVORS,
      });
    let matrix = matrixOf(outcomes);
    // A defect whose every kill failed on the baseline too, with checks the first kill left unrun: they run now.
    const makeup = matrix.defects.filter((d) => d.verdict !== 'killed' && d.afterKill.length > 0);
    if (makeup.length > 0) {
      io.err(`self-test: ${makeup.length} defect(s) whose kills failed without the defect too: their other checks run now\n`);
      const again = await judge(makeupPlan(plan, makeup));
      if (!again) return stoppedCode() ?? EXIT.usage;
      const redo = new Set(makeup.map((d) => d.id));
      outcomes = [...outcomes.filter((x) => !(redo.has(x.project) && x.note?.startsWith(ALREADY_KILLED))), ...again];
      matrix = matrixOf(outcomes);
    }
    writeFileSync(
      join(output, 'self-test.json'),
      JSON.stringify({ ...matrix, seconds: Math.round((Date.now() - started) / 1000) }, null, 2) + '\n',
    );
    writeFileSync(join(output, 'self-test.html'), htmlMatrix(matrix));
    io.out(formatMatrix(matrix));
    io.out(
      `Wall time ${((Date.now() - started) / 1000).toFixed(1)} s; reports: ${join(output, 'self-test.json')}, ${join(output, 'self-test.html')}\n`,
    );
    return matrixPasses(matrix) ? EXIT.ok : EXIT.failed;
  } finally {
    await pool?.close();
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(variantSets.map((v) => v.close()));
    await Promise.all(configured.map((c) => c.close()));
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    if (embedded) {
      await embedded.server.close();
      rmSync(embedded.dir, { recursive: true, force: true });
    }
  }
}

export function addSelfTestCommand(program: Command): void {
  program
    .command('self-test')
    .description('Prove the suite can fail: run each named defect behind a proxy in front of the target and print the kill matrix.')
    .option('--base-url <url>', 'the deployment behind the defects; without it the embedded reference is started')
    .option('--profile <file>', 'profile the deployment shares with the suite (keys for leniency defects)', FIXTURE_PROFILE)
    .addOption(
      new Option(
        '--level <level>',
        'checks of this level judge the defects (default: reference for the embedded reference, spec with --base-url)',
      ).choices(['spec', 'reference']),
    )
    .option('--defect <id...>', 'only these defects (see --list), or narrowed variants by their id (`<defect>@<dimension>=<value>`)')
    .option('--clause <id...>', 'only the defects that break these clauses')
    .option('--workers <n>', 'parallel workers (a number or a percentage of cores)')
    .option('--output <dir>', 'where self-test.json and self-test.html go', 'conformance-output')
    .option('--list', 'list the selected defects (id, clause, kind, description) without running them', false)
    .option('--ca <file>', "PEM bundle of the CA that issued the deployment's TLS certificate (a private CA)")
    .option('--insecure', 'accept any TLS certificate of the deployment (tests only)', false)
    .option('--beyond-spec', 'only the defects the spec level sets aside, judged at the reference level (with --level spec, the whole)')
    .option('--shard <i/n>', 'only shard i of n of the selected defects (every n-th from the i-th; the shards cover the selection)')
    .option('--every-check', "run every check of every defect (the whole matrix), not only until the defect's first kill", false)
    .option('--no-baseline', 'do not run the checks against the target without defect first (failing checks then count as kills)')
    .addOption(
      new Option('--scoped <mode>', "also run narrowed variants, each breaking one cell of its clause's domain").choices([
        'none',
        'sample',
        'all',
      ]),
    )
    .option('--sample <n>', 'with --scoped sample: how many variants (default 40)')
    .option('--seed <n>', 'with --scoped sample: the seed of the pick (default 1; printed)')
    .addOption(new Option('--toothless <clause>', 'add a defect that changes nothing (tests of the self-test)').hideHelp())
    .addHelpText(
      'after',
      `
Exit codes: 0 every defect killed (but those unjudged only for lack of a browser, and the known survivors of --scoped,
conformance/selftest/known-survivors.ts), 1 a defect survived (or no check judged it), 2 usage or configuration error.

Examples:
  $ shop-conformance self-test                                  # every defect, embedded reference
  $ shop-conformance self-test --list
  $ shop-conformance self-test --clause ERR-PROBLEM-5 END-CONV-2 --workers 2
  $ shop-conformance self-test --clause PUR-BANNER-2 --scoped all     # plus one variant per cell of the clause's domain
  $ shop-conformance self-test --scoped sample --seed 7 --sample 40    # 40 variants picked with seed 7, and their broad defects
  $ shop-conformance self-test --list --scoped all                     # the variants, with their cells
  $ shop-conformance self-test --base-url https://shop.example --profile ./profile.json --output ./reports`,
    )
    .action(async (raw: Record<string, unknown>) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success) {
        process.stderr.write(usageLine('self-test', parsed.error));
        process.exit(EXIT.usage);
      }
      await exitAfterOutput(await selfTest(parsed.data));
    });
}
