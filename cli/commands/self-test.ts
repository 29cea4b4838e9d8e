// `shop-conformance self-test`: the suite's power to fail, measured. Each defect of the library (conformance/selftest/defects/)
// breaks one clause behind its own proxy in front of the target; one Playwright run judges them all (a project per defect)
// and the kill matrix says which checks caught which defect. Any survivor exits 1.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { CLAUSES_BY_ID } from '../../contract/clauses/index.js';
import { readCaFile, readProfileFile, type TargetVariant } from '../../conformance/engine/runner/params.js';
import { planEnv, writePlan, type RunPlan } from '../../conformance/engine/runner/plan.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { DEFECTS, toothless, type Defect } from '../../conformance/selftest/defects/index.js';
import { buildMatrix, formatMatrix, htmlMatrix, matrixPasses, type Outcome } from '../../conformance/selftest/matrix.js';
import { isBaseline, makeupPlan, packDefects, selfTestPlanSchema, type Plan, type PlannedDefect } from '../../conformance/selftest/plan.js';
import { ALREADY_KILLED } from '../../conformance/selftest/kill-ledger.js';
import { sendUpstream, startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { KNOWN_SURVIVORS } from '../../conformance/selftest/known-survivors.js';
import { reachOf, resetReach } from '../../conformance/selftest/scoped.js';
import { listScoped, scopeSelection, scopedOptions, screenVariants, type ScopedOptions } from './self-test-scoped.js';
import { deriveVariants } from '../../conformance/selftest/scoped.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import type { Profile } from '../../contract/profile.js';
import type { RunningServer } from '../../reference/src/server.js';
import type { Logger } from '../../reference/src/log.js';
import { EMBEDDED_VARIANTS, startConfigured, startEmbeddedVariants, type RunningVariants } from '../embedded-variants.js';
import { EXIT, exitAfterOutput } from '../exit.js';
import { referenceLogIn, startEmbedded } from './run.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../../conformance/engine/transport/in-flight.js';
import { chooseWorkers } from '../../conformance/engine/runner/workers.js';
import { tryStartInFlightPool, type InFlightPool } from '../../conformance/engine/runner/in-flight-pool.js';
import { parseOptions, shardOf, shardSchema } from '../options.js';
import { playwrightEnv } from '../../conformance/engine/runner/native-load.js';
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
const PLAYWRIGHT = require.resolve('@playwright/test/cli');

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

/** Runs Playwright on the self-test's configuration with the plan `planFile`; stdout is captured ('pipe') or sent to a file descriptor. */
function playwright(args: string[], planFile: string, stdout: 'pipe' | number): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [PLAYWRIGHT, 'test', '--config', CONFIG, ...args], {
      env: playwrightEnv(CONFIG, planEnv(planFile)),
      stdio: ['ignore', stdout, 'inherit'],
    });
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

/** What a self-test reads before anything starts. */
interface Prepared {
  defects: Defect[];
  profilePath: string;
  profile: Profile;
  tls: { ca?: string; insecure: boolean };
  level: 'spec' | 'reference';
  output: string;
}

/** The defects selected, the profile and the CA read, the level chosen; or the exit code (a usage error, or --list done). */
function prepareSelfTest(o: SelfTestOptions, io: Io): Prepared | number {
  const usage = (message: string) => {
    io.err(`shop-conformance self-test: ${message}\n`);
    return EXIT.usage;
  };
  let defects: Defect[];
  try {
    defects = selectDefects(o);
    if (o.shard) defects = shardOf(defects, o.shard);
  } catch (err) {
    return usage((err as Error).message);
  }
  if (o.list) {
    if (o.scoped && o.scoped !== 'none') return listScoped(defects, o, io);
    for (const d of defects) io.out(`${d.id}\t${d.clause}\t${d.kind}\t${d.description}\n`);
    return EXIT.ok;
  }
  const profilePath = resolve(o.profile);
  let profile: Profile;
  let tls: { ca?: string; insecure: boolean };
  try {
    profile = readProfileFile(profilePath, { toMint: true });
  } catch (err) {
    return usage(`--profile: ${(err as Error).message}`);
  }
  try {
    tls = { ...(o.ca ? { ca: readCaFile(resolve(o.ca)) } : {}), insecure: o.insecure };
  } catch (err) {
    return usage(`--ca: ${(err as Error).message}`);
  }
  if (o.beyondSpec && o.level === 'spec')
    return usage('--beyond-spec: judges at the reference level; it cannot be given with --level spec');
  const level = o.beyondSpec ? 'reference' : (o.level ?? (o.baseUrl ? 'spec' : 'reference'));
  return { defects, profilePath, profile, tls, level, output: resolve(o.output) };
}

/** What a self-test has started, stopped and removed in `closeSelfTest` whatever happens. */
interface Live {
  proxies: Proxy[];
  pool?: InFlightPool | undefined;
  variantSets: RunningVariants[];
  embedded?: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  /** The deployments of configuration defects, and the directories of their profiles (which hold the profile's secrets). */
  configured: RunningServer[];
  scratch: string[];
}

async function closeSelfTest(live: Live): Promise<void> {
  await live.pool?.close();
  await Promise.all(live.proxies.map((p) => p.close()));
  await Promise.all(live.variantSets.map((v) => v.close()));
  await Promise.all(live.configured.map((c) => c.close()));
  for (const dir of live.scratch) rmSync(dir, { recursive: true, force: true });
  if (live.embedded) {
    await live.embedded.server.close();
    rmSync(live.embedded.dir, { recursive: true, force: true });
  }
}

type Matrix = ReturnType<typeof buildMatrix>;

/** The run of the self-test once its target is known: where its plan goes, and the run plan each Playwright run reads. */
interface Session {
  o: SelfTestOptions;
  p: Prepared;
  live: Live;
  io: Io;
  log: Logger;
  target: string;
  /** The profile the target runs on (the embedded reference's, rotated). */
  profile: Profile;
  /** The selected defects' clauses. */
  clauses: string[];
  planFile: string;
  /** The workers' settings, once chosen (the listing and the screening run without). */
  workers: RunPlan['workers'];
}

/** Writes the run plan of one Playwright run of the self-test, with the self-test's own plan (conformance/selftest/plan.ts). */
function writeSelfTestPlan(s: Session, selfTest: Plan, level: 'spec' | 'reference' = s.p.level): string {
  const plan: RunPlan = {
    target: {
      baseUrl: s.target,
      profilePath: s.live.embedded?.profilePath ?? s.p.profilePath,
      kind: s.live.embedded ? 'embedded' : 'external',
      // The baseline talks to the target itself, over the same TLS as the proxies.
      ...(s.o.ca ? { caPath: resolve(s.o.ca) } : {}),
      insecure: s.o.insecure,
    },
    level,
    strict: true,
    seed: 1,
    showSecrets: false,
    selection: { partial: 'part', clauses: [], repro: false, reproArgs: '' },
    workers: s.workers,
    output: { dir: s.p.output, reporters: [] },
    variants: [],
    selfTest: selfTestPlanSchema.parse(selfTest),
  };
  return writePlan(dirname(s.planFile), plan, basename(s.planFile));
}

/** The checks Playwright lists for `clauses` at `level` (a run of the self-test's configuration with --list). */
async function listFor(s: Session, level: 'spec' | 'reference'): Promise<ListedCheck[]> {
  const file = writeSelfTestPlan(s, { target: s.target, level, baseline: [], projects: [], listing: s.clauses }, level);
  return listedChecks((await playwright(['--list', '--reporter', 'json'], file, 'pipe')).stdout);
}

/**
 * The defects that run, and the checks of the selected clauses (their clause tags, to pack the defects into as few
 * projects as possible). A defect whose clause no check judges at this level (its checks judge the reference's choices),
 * or whose break is a conforming choice at the spec level (Defect.referenceOnly), is set aside, named with the reason.
 */
async function selectByListing(
  s: Session,
  defects: Defect[],
): Promise<{ defects: Defect[]; outOfLevel: Defect[]; listing: ListedCheck[] }> {
  // --beyond-spec: only the defects the spec level sets aside, which only the reference's own checks judge; the others
  // are killed at the reference level whenever the spec level kills them (its checks are a subset).
  if (s.o.beyondSpec) {
    const atSpec = await listFor(s, 'spec');
    defects = defects.filter((d) => d.referenceOnly !== undefined || !atSpec.some((c) => c.clauses.includes(d.clause)));
    s.io.err(`--beyond-spec: ${defects.length} defect(s) only the reference level judges\n`);
  }
  const listing = await listFor(s, s.p.level);
  const outOfLevel = defects.filter(
    (d) => (s.p.level === 'spec' && d.referenceOnly !== undefined) || !listing.some((c) => c.clauses.includes(d.clause)),
  );
  return { defects: defects.filter((d) => !outOfLevel.includes(d)), outOfLevel, listing };
}

/** Screening (self-test-scoped.ts): with a baseline, each narrowed variant runs only the checks that reach its cell. */
async function screen(s: Session, defects: Defect[], outcomesFile: string) {
  if (!s.o.baseline) return undefined;
  return screenVariants(
    defects,
    async (clauses) => {
      const file = writeSelfTestPlan(s, { target: s.target, level: s.p.level, baseline: clauses, projects: [] });
      await playwright([...(s.o.workers ? ['--workers', s.o.workers] : [])], file, 2);
      return existsSync(outcomesFile) ? (JSON.parse(readFileSync(outcomesFile, 'utf8')) as Outcome[]) : [];
    },
    s.io,
  );
}

/** Each defect (but configuration defects) behind its own proxy in front of the target, packed into plan projects. */
async function proxyDefects(
  s: Session,
  defects: readonly Defect[],
  reaching: Map<string, string[]> | undefined,
  checks: readonly (readonly string[])[],
): Promise<Plan['projects']> {
  const runs = (d: Defect) => reaching?.get(d.id)?.length !== 0;
  const ctx = { profile: s.profile, mint: createMinter(s.profile), send: sendUpstream(s.target, s.p.tls), target: s.target };
  const planned: PlannedDefect[] = [];
  for (const d of defects.filter((x) => !x.configure && runs(x))) {
    const proxy = await startProxy(s.target, d.rules(ctx), 0, s.p.tls);
    s.live.proxies.push(proxy);
    planned.push({ id: d.id, clause: d.clause, url: proxy.url, ...(reaching?.has(d.id) ? { checks: reaching.get(d.id)! } : {}) });
  }
  return packDefects(planned, checks).map((defects, i) => ({ name: `defects-${i + 1}`, defects }));
}

type VariantProjects = NonNullable<Plan['variants']>;

/**
 * A configuration defect's checks judge a deployment configured against its clause, through a profile that says so: the
 * embedded reference started from that profile, or the user's deployment (whose configuration only its profile shows).
 */
async function configuredProjects(s: Session, defects: readonly Defect[], listing: readonly ListedCheck[]): Promise<VariantProjects> {
  const projects: VariantProjects = [];
  for (const [i, d] of defects.entries()) {
    if (!d.configure) continue;
    const name = `configured-${i + 1}`;
    const dir = mkdtempSync(join(tmpdir(), `shop-conformance-${name}-`));
    s.live.scratch.push(dir);
    let variant: TargetVariant;
    const checks = listing.filter((c) => c.clauses.includes(d.clause)).map((c) => c.id);
    if (s.live.embedded) {
      const started = await startConfigured(d.configure(s.profile), dir, name, s.log);
      s.live.configured.push(started.server);
      variant = { name, baseUrl: started.server.url, profilePath: started.profilePath, checks };
    } else {
      const profileFile = join(dir, 'profile.json');
      writeFileSync(profileFile, JSON.stringify(d.configure(s.profile), null, 2));
      variant = { name, baseUrl: s.target, profilePath: profileFile, checks };
    }
    projects.push({ name, variant, defects: [{ id: d.id, clause: d.clause, url: variant.baseUrl }] });
  }
  return projects;
}

/** One variant deployment with its own identity provider, in its own directory. */
async function startVariant(s: Session, dir: string, name: string): Promise<TargetVariant> {
  mkdirSync(dir, { recursive: true });
  const set = await startEmbeddedVariants(s.profile, dir, [name], s.log);
  s.live.variantSets.push(set);
  return set.variants[0]!;
}

/**
 * The embedded run's variant deployments (cli/embedded-variants.ts): a defect whose clause a variant's check judges is
 * also judged there, behind its own proxy in front of its own instance of that variant; with a baseline, each variant
 * without defect too.
 */
async function embeddedVariantProjects(
  s: Session,
  defects: readonly Defect[],
  listing: readonly ListedCheck[],
  reaching: Map<string, string[]> | undefined,
): Promise<VariantProjects> {
  const embedded = s.live.embedded;
  if (!embedded) return [];
  const projects: VariantProjects = [];
  const baselineChecks = new Map<string, Set<string>>();
  for (const [i, d] of defects.entries()) {
    if (d.configure) continue;
    for (const v of EMBEDDED_VARIANTS) {
      const ids = v.checks.filter(
        (id) => listing.some((c) => c.id === id && c.clauses.includes(d.clause)) && (reaching?.get(d.id)?.includes(id) ?? true),
      );
      if (ids.length === 0) continue;
      const instance = await startVariant(s, join(embedded.dir, `defect-${i}-${v.name}`), v.name);
      const variantProfile = readProfileFile(instance.profilePath, { toMint: true });
      const send = sendUpstream(instance.baseUrl);
      const proxy = await startProxy(
        instance.baseUrl,
        d.rules({ profile: variantProfile, mint: createMinter(variantProfile), send, target: instance.baseUrl }),
      );
      s.live.proxies.push(proxy);
      const variant: TargetVariant = { ...instance, baseUrl: proxy.url, checks: ids };
      projects.push({ name: `variant-${v.name}-${i + 1}`, variant, defects: [{ id: d.id, clause: d.clause, url: proxy.url }] });
      for (const id of ids) baselineChecks.set(v.name, (baselineChecks.get(v.name) ?? new Set()).add(id));
    }
  }
  if (s.o.baseline)
    for (const [name, ids] of baselineChecks) {
      const instance = await startVariant(s, join(embedded.dir, `baseline-${name}`), name);
      projects.push({ name: `baseline-variant-${name}`, variant: { ...instance, checks: [...ids] }, defects: [] });
    }
  return projects;
}

/** Workers follow the deployment's round trip as in `run` (conformance/engine/runner/workers.ts), within the default cap. */
async function chooseSelfTestWorkers(s: Session): Promise<number> {
  const workers = await chooseWorkers({ workers: s.o.workers, maxInFlight: DEFAULT_MAX_IN_FLIGHT }, s.o.baseUrl, s.p.tls, s.io.err);
  // Past its own places, a worker borrows from a pool this process holds (conformance/engine/runner/in-flight-pool.ts).
  if (workers.pool > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'shop-conformance-pool-'));
    s.live.scratch.push(dir);
    s.live.pool = await tryStartInFlightPool(workers.pool, dir);
  }
  s.workers = {
    count: workers.workers,
    maxInFlight: workers.perWorker,
    ...(s.live.pool ? { inFlightPool: s.live.pool.path } : {}),
    ...(workers.roundTripMs !== undefined ? { roundTripMs: Math.round(workers.roundTripMs) } : {}),
  };
  return workers.workers;
}

/** One Playwright run of a plan, and its outcomes, each copy's resolved to its defect (undefined: stopped, or no outcomes). */
type Judge = (run: Plan) => Promise<Outcome[] | undefined>;

function judgeWith(s: Session, plan: Plan, workers: number, outcomesFile: string): Judge {
  const byProject = new Map([...plan.projects, ...(plan.variants ?? [])].map((p) => [p.name, p.defects]));
  return async (run) => {
    const file = writeSelfTestPlan(s, run);
    rmSync(outcomesFile, { force: true });
    // Playwright's progress (dot) goes to stderr; stdout holds the matrix. A phase may hold no check of the selection.
    const { code } = await playwright(['--pass-with-no-tests', '--workers', String(workers)], file, 2);
    // Stopped from outside (cli/stop-signal.ts): Playwright was stopped too; no verdict.
    const stopped = stopSignalReceived();
    if (stopped) {
      s.io.err(`shop-conformance self-test: stopped by ${stopped}\n`);
      return undefined;
    }
    if (!existsSync(outcomesFile)) {
      s.io.err(`shop-conformance self-test: Playwright exited ${code} without outcomes\n`);
      return undefined;
    }
    // A packed project's outcome belongs to the one defect whose clause the check cites; a variant's baseline is baseline.
    return (JSON.parse(readFileSync(outcomesFile, 'utf8')) as Outcome[]).map((x) =>
      isBaseline(x.project)
        ? { ...x, project: 'baseline' }
        : { ...x, project: byProject.get(x.project)?.find((d) => x.tags?.includes(d.clause))?.id ?? x.project },
    );
  };
}

/**
 * The plan judged: with the ledger, the quick checks first, then the long ones (plan.ts, `phase`) for the defects still
 * alive; then, for a defect whose every kill failed on the baseline too, the checks the first kill left unrun. The matrix.
 */
async function judgeAll(
  s: Session,
  plan: Plan,
  judge: Judge,
  first: readonly Outcome[],
  matrixOf: (all: readonly Outcome[]) => Matrix,
): Promise<Matrix | undefined> {
  let outcomes = [...first];
  for (const phase of plan.kills ? (['quick', 'long'] as const) : [undefined]) {
    const judged = await judge({ ...plan, ...(phase ? { phase } : {}) });
    if (!judged) return undefined;
    outcomes.push(...judged);
  }
  const matrix = matrixOf(outcomes);
  const makeup = matrix.defects.filter((d) => d.verdict !== 'killed' && d.afterKill.length > 0);
  if (makeup.length === 0) return matrix;
  s.io.err(`self-test: ${makeup.length} defect(s) whose kills failed without the defect too: their other checks run now\n`);
  const again = await judge(makeupPlan(plan, makeup));
  if (!again) return undefined;
  const redo = new Set(makeup.map((d) => d.id));
  outcomes = [...outcomes.filter((x) => !(redo.has(x.project) && x.note?.startsWith(ALREADY_KILLED))), ...again];
  return matrixOf(outcomes);
}

/** The matrix written (self-test.json, self-test.html) and printed; the exit code. */
function reportMatrix(s: Session, matrix: Matrix, started: number): number {
  const output = s.p.output;
  writeFileSync(
    join(output, 'self-test.json'),
    JSON.stringify({ ...matrix, seconds: Math.round((Date.now() - started) / 1000) }, null, 2) + '\n',
  );
  writeFileSync(join(output, 'self-test.html'), htmlMatrix(matrix));
  s.io.out(formatMatrix(matrix));
  s.io.out(
    `Wall time ${((Date.now() - started) / 1000).toFixed(1)} s; reports: ${join(output, 'self-test.json')}, ${join(output, 'self-test.html')}\n`,
  );
  return matrixPasses(matrix) ? EXIT.ok : EXIT.failed;
}

/** The plan of the defects that run: proxies, configured and variant deployments started; the ledger cleared. */
async function planDefects(
  s: Session,
  defects: Defect[],
  listing: readonly ListedCheck[],
  screened: Awaited<ReturnType<typeof screen>>,
): Promise<Plan> {
  const reaching = screened?.reaching;
  const projects = await proxyDefects(
    s,
    defects,
    reaching,
    listing.map((c) => c.clauses),
  );
  const variants = [...(await configuredProjects(s, defects, listing)), ...(await embeddedVariantProjects(s, defects, listing, reaching))];
  // First kill (conformance/selftest/kill-ledger.ts): a defect's checks stop at its first kill, unless --every-check.
  const kills = s.o.everyCheck ? undefined : join(s.p.output, 'self-test-kills');
  if (kills) rmSync(kills, { recursive: true, force: true });
  const plan: Plan = {
    target: s.target,
    level: s.p.level,
    // The screening's baseline stands for its clauses: the run's own baseline judges the others.
    baseline: s.o.baseline ? s.clauses.filter((c) => !screened?.clauses.includes(c)) : [],
    projects,
    ...(variants.length ? { variants } : {}),
    ...(kills ? { kills } : {}),
  };
  s.io.err(
    `self-test: ${defects.length} defect(s) behind ${s.live.proxies.length} proxies in ${projects.length + variants.length} project(s) (${variants.length} on variant deployments), ${listing.length} checks, level ${s.p.level}${kills ? '; each defect until its first kill (--every-check: all)' : ''}\n`,
  );
  return plan;
}

export async function selfTest(
  o: SelfTestOptions,
  io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) },
): Promise<number> {
  const p = prepareSelfTest(o, io);
  if (typeof p === 'number') return p;
  mkdirSync(p.output, { recursive: true });
  const outcomesFile = join(p.output, 'self-test-outcomes.json');
  rmSync(outcomesFile, { force: true });
  const started = Date.now();
  // The deployments' own log lines go beside the reports, not into the matrix's console.
  const { log } = await referenceLogIn(p.output);
  const live: Live = { proxies: [], variantSets: [], configured: [], scratch: [] };
  try {
    let target = o.baseUrl;
    if (!target) {
      live.embedded = await startEmbedded(p.profilePath, log);
      target = live.embedded.server.url;
      io.err(`embedded reference listening on ${target}\n`);
    }
    const clauses = [...new Set(p.defects.map((d) => d.clause))];
    const planFile = join(p.output, 'self-test-plan.json');
    const s: Session = { o, p, live, io, log, target, profile: live.embedded?.profile ?? p.profile, clauses, planFile, workers: {} };
    const selected = await selectByListing(s, p.defects);
    // --scoped: the narrowed variants of the selected defects (all, or a seeded sample with their broad defects).
    resetReach();
    const defects = scopeSelection(selected.defects, o, io);
    const screened = await screen(s, defects, outcomesFile);
    const plan = await planDefects(s, defects, selected.listing, screened);
    const workers = await chooseSelfTestWorkers(s);
    const matrixOf = (all: readonly Outcome[]) =>
      buildMatrix({
        target: o.baseUrl ?? 'embedded reference',
        level: p.level,
        defects,
        outOfLevel: selected.outOfLevel,
        library: DEFECTS,
        outcomes: all,
        reach: reachOf,
        known: KNOWN_SURVIVORS,
      });
    const matrix = await judgeAll(s, plan, judgeWith(s, plan, workers, outcomesFile), screened?.baseline ?? [], matrixOf);
    if (!matrix) return stoppedCode() ?? EXIT.usage;
    return reportMatrix(s, matrix, started);
  } finally {
    await closeSelfTest(live);
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
      await exitAfterOutput(await selfTest(parseOptions('self-test', optionsSchema, raw)));
    });
}
