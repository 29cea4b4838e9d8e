// `shop-conformance run`: the suite against a base URL, or against the embedded reference when none is given.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import {
  BaselineError,
  baselineFrom,
  checkBaselineIds,
  readBaseline,
  writeBaseline,
  type Baseline,
  type RunReport,
} from '../../conformance/engine/report/baseline.js';
import { listChecks } from '../../conformance/engine/runner/list.js';
import { tryStartInFlightPool, type InFlightPool } from '../../conformance/engine/runner/in-flight-pool.js';
import type { Profile } from '../../contract/profile.js';
import { doctor, formatDoctorSteps } from '../../conformance/engine/doctor/doctor.js';
import { readCaFile, readProfileFile } from '../../conformance/engine/runner/params.js';
import { planEnv, writePlan, type RunPlan } from '../../conformance/engine/runner/plan.js';
import { writeLateTarget, writeLaunch } from '../../conformance/engine/runner/late.js';
import { parseDuration, waitForReady } from '../../conformance/engine/doctor/wait.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
// The reference is imported when the run starts it (half a second of loading a run against a deployment never needs, and
// that Playwright's start need not wait for).
import type { RunningServer } from '../../reference/src/server.js';
import type { Logger } from '../../reference/src/log.js';
import { EXIT, exitAfterOutput } from '../exit.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../../conformance/engine/transport/in-flight.js';
import { chooseWorkers, measureRoundTrip, type ChosenWorkers } from '../../conformance/engine/runner/workers.js';
import { EMBEDDED_VARIANTS, startEmbeddedVariants, type RunningVariants } from '../embedded-variants.js';
import { gateRun } from '../gate.js';
import { selectChecks, SelectionError } from '../selection.js';
import { parseOptions, shardSchema } from '../options.js';
import { isFixtureProfile, writeRotatedProfile } from '../rotation.js';

import { PLAYWRIGHT_CLI, SUITE_CONFIG as CONFIG } from '../playwright.js';
import { playwrightEnv } from '../../conformance/engine/runner/native-load.js';
import { passOnStop, stopExitCode, stopSignalReceived } from '../stop-signal.js';
const REPORTERS = ['list', 'line', 'dot', 'json', 'junit', 'html', 'github'] as const;

const optionsSchema = z.object({
  baseUrl: z.url().optional(),
  profile: z.string().min(1),
  level: z.enum(['spec', 'reference']),
  grep: z.string().optional(),
  clause: z.array(z.string().regex(/^[A-Z]+(-[A-Z0-9]+)*-\d+$/, 'a clause id like AUTH-GUEST-3')).optional(),
  strict: z.boolean(),
  workers: z
    .string()
    .regex(/^[1-9]\d*%?$/, 'a positive number of workers, or a percentage of cores like 50%')
    .optional(),
  maxInFlight: z.coerce
    .number({ error: 'a positive number of requests' })
    .int('a positive number of requests')
    .min(1, 'a positive number of requests'),
  shard: shardSchema.optional(),
  maxFailures: z.coerce.number().int().min(1).optional(),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  list: z.boolean(),
  reporter: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()))
    .pipe(z.array(z.enum(REPORTERS)).min(1)),
  output: z.string().min(1),
  showSecrets: z.boolean(),
  lastFailed: z.boolean(),
  doctor: z.boolean(),
  ca: z.string().min(1).optional(),
  insecure: z.boolean(),
  expectedFailures: z.string().min(1).optional(),
  updateExpectedFailures: z.string().min(1).optional(),
  force: z.boolean().optional(),
  json: z.boolean(),
  repro: z
    .string()
    .regex(/^[\w.-]+$/, 'a check id, as reports and run --list show it')
    .optional(),
  wait: z
    .string()
    .refine((s) => parseDuration(s) !== undefined, 'a duration like 60s, 2m or 500ms')
    .optional(),
});

export type RunOptions = z.infer<typeof optionsSchema>;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Playwright takes one --grep: the user's pattern and the clause tags must both match. */
export function grepFor(o: Pick<RunOptions, 'grep' | 'clause'>): string | undefined {
  const clauses = o.clause?.length ? `@(?:${o.clause.map(escape).join('|')})(?![\\w-])` : undefined;
  if (o.grep && clauses) return `^(?=[\\s\\S]*(?:${o.grep}))(?=[\\s\\S]*${clauses})`;
  return o.grep ?? clauses;
}

/** Where this run's reports are: one line each, the ones its reporters wrote. */
function printReportPaths(output: string, o: Pick<RunOptions, 'reporter' | 'shard'>, out: (s: string) => void): void {
  const shown: [string, string][] = [
    ['conformance-report.json', 'the verdict per clause and per check'],
    ['clause-matrix.html', 'the matrix as a page: per clause its verdict, checks, first failure and coverage'],
    ['domain-coverage.html', 'per clause, the cells of its domain the checks tried and those they never tried'],
    ...(o.reporter.includes('junit') ? ([['junit.xml', 'JUnit, for the CI test view']] as [string, string][]) : []),
    ...(o.reporter.includes('html')
      ? ([[join('html', 'index.html'), `HTML (npx playwright show-report ${join(output, 'html')})`]] as [string, string][])
      : []),
    ...(o.reporter.includes('json') ? ([['results.json', "Playwright's JSON"]] as [string, string][]) : []),
    ...(o.shard
      ? ([[join('blob', `shard-${o.shard.replace('/', '-of-')}.zip`), 'blob report, for report merge']] as [string, string][])
      : []),
  ];
  const lines = shown.filter(([f]) => existsSync(join(output, f))).map(([f, what]) => `  ${join(output, f)}  ${what}\n`);
  if (lines.length > 0) out(`reports:\n${lines.join('')}`);
}

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The options that say what a run judged and how, as typed: a failure's `run --repro` command repeats them. */
export function reproArgs(o: RunOptions): string {
  return [
    ...(o.baseUrl ? ['--base-url', o.baseUrl] : []),
    ...(o.profile !== FIXTURE_PROFILE ? ['--profile', o.profile] : []),
    ...(o.level !== 'spec' ? ['--level', o.level] : []),
    ...(o.strict ? ['--strict'] : []),
    ...(o.seed !== 1 ? ['--seed', String(o.seed)] : []),
    ...(o.ca ? ['--ca', o.ca] : []),
    ...(o.insecure ? ['--insecure'] : []),
  ]
    .map(shellWord)
    .join(' ');
}

/** The embedded reference's log (warnings and errors, JSON lines) in `<output>/reference.log`, begun afresh. */
export async function referenceLogIn(output: string): Promise<{ log: Logger; path: string }> {
  const { createLogger } = await import('../../reference/src/log.js');
  const path = join(output, 'reference.log');
  rmSync(path, { force: true });
  const log = createLogger('warn', {
    write(line: string) {
      mkdirSync(output, { recursive: true });
      appendFileSync(path, line.endsWith('\n') ? line : `${line}\n`);
    },
  });
  return { log, path };
}

/**
 * The embedded reference, started from the profile with its guest-key rotation begun now: a previous key the profile
 * declares verifies for the next 29 days, which the returned profile (the one the checks read) states too (cli/rotation.ts).
 */
export async function startEmbedded(
  profilePath: string,
  log?: Logger,
  /** The public base URL, for a reference served behind a proxy under a path prefix (the proxy's URL and prefix). */
  publicBaseUrl?: string,
): Promise<{ server: RunningServer; dir: string; profilePath: string; profile: Profile }> {
  const [{ loadConfig }, { startServer }] = await Promise.all([
    import('../../reference/src/config.js'),
    import('../../reference/src/server.js'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'shop-conformance-'));
  const { profilePath: embeddedProfile, profile } = writeRotatedProfile(readProfileFile(profilePath, { toMint: true }), dir);
  const config = loadConfig({
    env: {},
    profilePath: embeddedProfile,
    overrides: {
      port: 0,
      host: '127.0.0.1',
      databasePath: join(dir, 'reference.db'),
      logLevel: 'error',
      ...(publicBaseUrl ? { publicBaseUrl } : {}),
    },
  });
  return { server: await startServer(config, { log }), dir, profilePath: embeddedProfile, profile };
}

/** The workers' settings of the plan (or the launch file): their places in flight, the pool's socket, the round trip. */
function workersOf(workers: ChosenWorkers | undefined, pool: string | undefined): RunPlan['workers'] {
  return {
    ...(workers ? { count: workers.workers, maxInFlight: workers.perWorker } : {}),
    ...(pool ? { inFlightPool: pool } : {}),
    ...(workers?.roundTripMs !== undefined ? { roundTripMs: Math.round(workers.roundTripMs) } : {}),
  };
}

/**
 * The run plan (conformance/engine/runner/plan.ts) of one Playwright run of the suite. `lateDir`: the target's URL, its
 * profile and the variants' deployments come later, in a file there (runner/late.ts); so do the workers when they are
 * chosen `later`. The embedded run names its variants now, so that their checks' copies load with the rest.
 */
export function runPlanOf(
  o: RunOptions,
  run: {
    grep: string | undefined;
    /** 'later': chosen once the deployment's round trip is measured, through the launch file (`writeLaunch`). */
    workers: ChosenWorkers | 'later' | undefined;
    /** The workers' common pool of places in flight (conformance/engine/runner/in-flight-pool.ts). */
    pool: string | undefined;
    output: string;
    profilePath: string;
    embedded: boolean;
    lateDir: string | undefined;
  },
): RunPlan {
  const { workers, lateDir } = run;
  return {
    target: {
      baseUrl: o.baseUrl ?? 'http://127.0.0.1:9',
      profilePath: run.profilePath,
      kind: run.embedded ? 'embedded' : 'external',
      ...(o.ca !== undefined ? { caPath: resolve(o.ca) } : {}),
      insecure: o.insecure,
    },
    level: o.level,
    strict: o.strict,
    seed: o.seed,
    showSecrets: o.showSecrets,
    selection: {
      // 'shard': only the shard leaves checks out, so the merged shards (report merge) are the whole selection.
      partial: run.grep || o.lastFailed || o.maxFailures !== undefined ? 'part' : o.shard ? 'shard' : 'whole',
      clauses: o.clause ?? [],
      ...(o.shard ? { shard: o.shard } : {}),
      repro: o.repro !== undefined,
      reproArgs: reproArgs(o),
    },
    workers: workers === 'later' ? {} : workersOf(workers, run.pool),
    output: { dir: run.output, reporters: o.list ? ['list'] : [...o.reporter] },
    variants: run.embedded ? EMBEDDED_VARIANTS.map((v) => ({ name: v.name, checks: [...v.checks] })) : [],
    ...(lateDir
      ? {
          late: {
            target: join(lateDir, LATE_TARGET),
            ...(workers === 'later' ? { launch: join(lateDir, LAUNCH) } : {}),
            from: process.pid,
          },
        }
      : {}),
  };
}

const LATE_TARGET = 'late-target.json';
const LAUNCH = 'launch.json';

type Playwright = { child: ChildProcess; exited: Promise<number> };

/** Starts Playwright on the suite with the plan, written beside the late files (or where --list's reports go). */
function startPlaywright(o: RunOptions, plan: RunPlan, grep: string | undefined): Playwright {
  const args = [PLAYWRIGHT_CLI, 'test', '--config', CONFIG];
  // --repro: that one check alone, one worker, every request made afresh (new tokens, proofs, nonces, signatures).
  if (grep) args.push('--grep', grep);
  if (o.level === 'spec') args.push('--grep-invert', '@reference(?![\\w-])');
  // Workers follow what the run waits on (conformance/engine/runner/workers.ts); they share --max-in-flight (engine/transport/in-flight.ts).
  if (o.repro !== undefined) args.push('--workers', '1');
  else if (plan.workers.count !== undefined) args.push('--workers', String(plan.workers.count));
  if (o.shard) args.push('--shard', o.shard);
  if (o.maxFailures !== undefined) args.push('--max-failures', String(o.maxFailures));
  if (o.list) args.push('--list');
  if (o.lastFailed) args.push('--last-failed');
  const planFile = writePlan(plan.late?.target ? dirname(plan.late.target) : plan.output.dir, plan);
  // --json: stdout carries the verdict alone, so Playwright's console goes to stderr.
  const child = spawn(process.execPath, args, {
    env: playwrightEnv(CONFIG, planEnv(planFile)),
    stdio: o.json ? ['inherit', process.stderr, 'inherit'] : 'inherit',
  });
  const exited = new Promise<number>((done) => child.once('exit', (c) => done(c ?? 1)));
  passOnStop(child);
  return { child, exited };
}

type Io = { out: (s: string) => void; err: (s: string) => void };

/** What a run reads before anything starts. */
interface Prepared {
  profilePath: string;
  profile: Profile;
  ca: string | undefined;
  baseline: Baseline | undefined;
  output: string;
}

/** What a run has started, stopped and removed in `closeRun` whatever happens. */
interface Live {
  /** Where the plan and the late files go (none for --list, whose plan goes where its reports go). */
  lateDir: string | undefined;
  playwright?: Playwright | undefined;
  pool?: InFlightPool | undefined;
  embedded?: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  variants?: RunningVariants | undefined;
  // The variants start while the doctor judges the embedded reference (they are not its concern).
  variantsStarting?: Promise<RunningVariants | undefined> | undefined;
  // A target judged with the fixture profile: its rotation begun now, as `serve` begins it (cli/rotation.ts).
  rotated?: { dir: string; profilePath: string; profile: Profile } | undefined;
}

/** The profile, the CA and the baseline read, the selection judged, the output chosen; or the exit code of a usage error. */
async function prepareRun(o: RunOptions, io: Io): Promise<Prepared | number> {
  const usage = (flag: string, err: unknown) => {
    io.err(`shop-conformance run: ${flag}${(err as Error).message}\n`);
    return EXIT.usage;
  };
  const profilePath = resolve(o.profile);
  let profile: Profile;
  let ca: string | undefined;
  let baseline: Baseline | undefined;
  try {
    profile = readProfileFile(profilePath, { toMint: true });
  } catch (err) {
    return usage('--profile: ', err);
  }
  try {
    ca = o.ca === undefined ? undefined : readCaFile(resolve(o.ca));
  } catch (err) {
    return usage('--ca: ', err);
  }
  try {
    baseline = o.expectedFailures === undefined ? undefined : readBaseline(resolve(o.expectedFailures));
  } catch (err) {
    return usage('--expected-failures: ', err);
  }
  if (o.updateExpectedFailures !== undefined && !o.force && existsSync(resolve(o.updateExpectedFailures))) {
    io.err(`shop-conformance run: --update-expected-failures: ${o.updateExpectedFailures}: exists (add --force to replace it)\n`);
    return EXIT.usage;
  }
  const refused = await checkSelection(o, baseline, io);
  if (refused !== undefined) return refused;
  // --list judges nothing, so it writes nothing where reports go: Playwright's files land in a directory removed after.
  const output = o.list ? mkdtempSync(join(tmpdir(), 'shop-conformance-list-')) : resolve(o.output);
  if (!o.list) rmSync(join(output, 'conformance-report.json'), { force: true });
  return { profilePath, profile, ca, baseline, output };
}

/**
 * The selection and the baseline's ids are judged against the suite's check list before anything starts: a mistake is
 * a usage error (its exit code) that leaves the previous run's reports as they were.
 */
async function checkSelection(o: RunOptions, baseline: Baseline | undefined, io: Io): Promise<number | undefined> {
  if (o.grep === undefined && !o.clause?.length && o.repro === undefined && !baseline) return undefined;
  let checks;
  try {
    checks = await listChecks();
  } catch (err) {
    io.err(`shop-conformance run: ${(err as Error).message.split('\n')[0]}\n`);
    return EXIT.usage;
  }
  try {
    selectChecks(o, checks);
    if (baseline) checkBaselineIds(baseline, resolve(o.expectedFailures!), new Set(checks.map((c) => c.id)));
  } catch (err) {
    if (!(err instanceof SelectionError) && !(err instanceof BaselineError)) throw err;
    io.err(`shop-conformance run: ${err instanceof BaselineError ? '--expected-failures: ' : ''}${err.message}\n`);
    return EXIT.usage;
  }
  return undefined;
}

/**
 * Playwright, started. It takes seconds to load the checks and start its workers: it starts first, while the embedded
 * reference starts and the doctor judges the target, and its checks wait for what those learn. Against a deployment it
 * starts even before the round trip is measured: its configuration waits for the workers chosen from it (the launch
 * file). Returns `chooseLater` when the round trip could not be measured yet.
 */
async function launchPlaywright(
  o: RunOptions,
  p: Prepared,
  live: Live,
  grep: string | undefined,
  io: Io,
): Promise<{ chooseLater?: () => Promise<void> }> {
  const tls = { ca: p.ca, insecure: o.insecure };
  const planOf = (workers: ChosenWorkers | 'later' | undefined, pool: string | undefined) =>
    runPlanOf(o, {
      grep,
      workers,
      pool,
      output: p.output,
      profilePath: live.rotated?.profilePath ?? p.profilePath,
      embedded: !o.baseUrl,
      lateDir: live.lateDir,
    });
  // Past its own places, a worker borrows from a pool the CLI holds: the places other workers leave idle.
  const startPool = async (workers: ChosenWorkers | undefined) => {
    if (workers && workers.pool > 0 && live.lateDir) live.pool = await tryStartInFlightPool(workers.pool, live.lateDir);
    return live.pool?.path;
  };
  if (o.list) {
    live.playwright = startPlaywright(o, planOf(undefined, undefined), grep);
    return {};
  }
  if (!o.baseUrl) {
    const workers = await chooseWorkers(o, o.baseUrl, tls, io.err);
    live.playwright = startPlaywright(o, planOf(workers, await startPool(workers)), grep);
    return {};
  }
  const plan = planOf('later', undefined);
  live.playwright = startPlaywright(o, plan, grep);
  /** A deployment's workers, chosen from its round trip, handed to the Playwright that waits for them. */
  const chooseLater = async (measured: { roundTripMs: number | undefined }) => {
    const workers = await chooseWorkers(o, o.baseUrl, tls, io.err, measured);
    const settings = workersOf(workers, await startPool(workers));
    writeLaunch(plan.late!.launch!, { ...settings, count: workers.workers });
  };
  const measured = { roundTripMs: await measureRoundTrip(o.baseUrl, tls) };
  if (measured.roundTripMs !== undefined) {
    await chooseLater(measured);
    return {};
  }
  // A deployment whose round trip the doctor's first probe could not measure, though it answered the doctor.
  return { chooseLater: () => chooseLater({ roundTripMs: undefined }) };
}

/** The embedded reference, started (its log beside the reports), and its variants starting (cli/embedded-variants.ts). */
async function startEmbeddedTarget(p: Prepared, live: Live, io: Io): Promise<{ baseUrl: string; profile: Profile }> {
  // The reference's own log (warnings and errors, JSON lines) goes to a file beside the reports, not into the run's console.
  const { log, path: referenceLog } = await referenceLogIn(p.output);
  live.embedded = await startEmbedded(p.profilePath, log);
  const baseUrl = live.embedded.server.url;
  io.err(`embedded reference listening on ${baseUrl} (its log: ${referenceLog})\n`);
  // Deployments configured for the rows the fixture cannot show at once (cli/embedded-variants.ts).
  live.variantsStarting = startEmbeddedVariants(live.embedded.profile, live.embedded.dir, undefined, log);
  // Held until awaited below or in `closeRun`: a failure to start is thrown where it is awaited.
  live.variantsStarting.catch(() => undefined);
  return { baseUrl, profile: live.embedded.profile };
}

/** The doctor's judgement of the target: the setup violations (they fail the run; the checks still run), or exit 3. */
async function runDoctor(
  o: RunOptions,
  target: { baseUrl: string; profile: Profile; ca: string | undefined },
  io: Io,
): Promise<{ step: string; clauses: string[] }[] | number> {
  if (o.list || !o.doctor) return [];
  const report = await doctor(target.baseUrl, target.profile, { tls: { ca: target.ca, insecure: o.insecure }, maxInFlight: o.maxInFlight });
  for (const line of formatDoctorSteps(report)) io.err(`doctor: ${line}\n`);
  for (const a of report.advice) io.err(`doctor: ${a}\n`);
  if (report.exitCode === EXIT.unreachable) return report.exitCode;
  return report.violations;
}

/**
 * Starts what the run judges and Playwright, lets the doctor judge the target, and hands the checks their target (the
 * late target file): the setup violations, or the exit code of a run that stops here.
 */
async function startRun(o: RunOptions, p: Prepared, live: Live, io: Io): Promise<{ step: string; clauses: string[] }[] | number> {
  // --wait: a deployment started a moment ago is given that long to answer before the doctor judges it.
  if (!o.list && o.baseUrl && o.wait !== undefined) {
    const waited = await waitForReady(o.baseUrl, {
      timeoutMs: parseDuration(o.wait)!,
      tls: { ca: p.ca, insecure: o.insecure },
      label: `shop-conformance run: --wait ${o.wait}`,
    });
    if (!waited.ready) {
      io.err(`${waited.line}\n`);
      return EXIT.unreachable;
    }
  }
  const grep = o.repro !== undefined ? `\\[${escape(o.repro)}\\]` : grepFor(o);
  // For a deployment that does not answer at all, the doctor speaks first and alone: it says why, and Playwright, still
  // waiting, is stopped before it printed anything.
  const { chooseLater } = await launchPlaywright(o, p, live, grep, io);
  let target = { baseUrl: o.baseUrl, profile: live.rotated?.profile ?? p.profile };
  if (!o.list && !o.baseUrl) target = await startEmbeddedTarget(p, live, io);
  const violations = await runDoctor(o, { baseUrl: target.baseUrl!, profile: target.profile, ca: p.ca }, io);
  if (typeof violations === 'number') return violations;
  live.variants = await live.variantsStarting;
  await chooseLater?.();
  // The checks begin now: they learn the target's URL, its profile and the variants' deployments.
  if (live.lateDir)
    writeLateTarget(join(live.lateDir, LATE_TARGET), {
      baseUrl: target.baseUrl!,
      profilePath: live.embedded?.profilePath ?? live.rotated?.profilePath ?? p.profilePath,
      variants: live.variants?.variants ?? [],
    });
  return violations;
}

/** After Playwright: the report read, the selection checked, the gate (baseline, setup violations), the baseline written. */
function concludeRun(o: RunOptions, p: Prepared, code: number, setupViolations: { step: string; clauses: string[] }[], io: Io): number {
  if (o.list) return code === 0 ? EXIT.ok : EXIT.usage;
  // With --json, everything but the verdict goes to stderr.
  const note = o.json ? io.err : io.out;
  printReportPaths(p.output, o, note);
  const reportFile = join(p.output, 'conformance-report.json');
  if (!existsSync(reportFile)) {
    io.err(`shop-conformance run: Playwright exited ${code} without a conformance report\n`);
    return EXIT.usage;
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport & { summary: { checks: { total: number } } };
  // An empty selection judged nothing (a shard of a small selection, --last-failed after a green run): a usage error.
  if (report.summary.checks.total === 0) {
    io.err('shop-conformance run: no check matches the selection (--grep, --clause, --level, --shard, --last-failed)\n');
    return EXIT.usage;
  }
  if (setupViolations.length > 0)
    note(`setup violations (the run fails): ${setupViolations.map((v) => `${v.step} [${v.clauses.join(' ')}]`).join('; ')}\n`);
  // Listed failures do not fail the run; a new failure, a stale entry or an expired one does (conformance/engine/report/baseline.ts).
  const exit = gateRun(
    reportFile,
    {
      playwrightCode: code,
      setupViolations,
      baseline: p.baseline && { file: resolve(o.expectedFailures!), shown: o.expectedFailures!, data: p.baseline },
    },
    note,
  );
  if (o.updateExpectedFailures !== undefined) {
    const written = baselineFrom(report, new Date().toISOString().slice(0, 10));
    writeBaseline(resolve(o.updateExpectedFailures), written, true);
    note(
      `baseline written: ${o.updateExpectedFailures} (${written.expectedFailures.length} failed check(s); replace each TODO reason, check the expiry)\n`,
    );
  }
  if (o.json) io.out(readFileSync(reportFile, 'utf8'));
  return exit;
}

/** Everything the run started, stopped; everything it wrote outside the reports, removed. */
async function closeRun(o: RunOptions, p: Prepared, live: Live): Promise<void> {
  // Started but not awaited (the doctor refused the target, or something threw): stopped before it reports anything.
  if (live.playwright) {
    live.playwright.child.kill('SIGKILL');
    await live.playwright.exited;
  }
  await live.pool?.close();
  if (live.lateDir) rmSync(live.lateDir, { recursive: true, force: true });
  if (o.list) rmSync(p.output, { recursive: true, force: true });
  if (live.rotated) rmSync(live.rotated.dir, { recursive: true, force: true });
  await (live.variants ?? (await live.variantsStarting?.catch(() => undefined)))?.close();
  if (live.embedded) {
    await live.embedded.server.close();
    rmSync(live.embedded.dir, { recursive: true, force: true });
  }
}

export async function runSuite(
  o: RunOptions,
  io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) },
): Promise<number> {
  const prepared = await prepareRun(o, io);
  if (typeof prepared === 'number') return prepared;
  // The plan and what Playwright learns after it started go to a directory of the run's own (runner/plan.ts, late.ts).
  const live: Live = { lateDir: o.list ? undefined : mkdtempSync(join(tmpdir(), 'shop-conformance-late-')) };
  if (!o.list && o.baseUrl && isFixtureProfile(prepared.profilePath)) {
    const dir = mkdtempSync(join(tmpdir(), 'shop-conformance-'));
    live.rotated = { dir, ...writeRotatedProfile(prepared.profile, dir) };
  }
  try {
    const violations = await startRun(o, prepared, live, io);
    if (typeof violations === 'number') return violations;
    const code = await live.playwright!.exited;
    live.playwright = undefined;
    // Stopped from outside (cli/stop-signal.ts): Playwright was stopped too; no verdict.
    const stopped = stopSignalReceived();
    if (stopped) {
      io.err(`shop-conformance run: stopped by ${stopped}\n`);
      return stopExitCode(stopped);
    }
    return concludeRun(o, prepared, code, violations, io);
  } finally {
    await closeRun(o, prepared, live);
  }
}

export function addRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run the conformance suite against a deployment, or against the embedded reference when --base-url is absent.')
    .option(
      '--base-url <url>',
      'the deployment to judge; without it the embedded reference is started (temporary database, ephemeral port)',
    )
    .option('--profile <file>', 'profile the deployment shares with the suite', FIXTURE_PROFILE)
    .addOption(
      new Option('--level <level>', "spec: what the spec says; reference: also the reference's choices")
        .choices(['spec', 'reference'])
        .default('spec'),
    )
    .option('--grep <regex>', 'only checks whose title or tags match')
    .option('--clause <id...>', 'only checks that cite these clause ids')
    .option('--strict', 'SHOULD-level failures fail the run instead of warning', false)
    .option(
      '--workers <n>',
      'parallel workers (a number or a percentage of cores); default: the cores, more for a deployment with a longer round trip',
    )
    .option(
      '--max-in-flight <n>',
      'requests in flight against the deployment at once, all workers together (each worker keeps a few places, the rest is a pool they borrow from)',
      String(DEFAULT_MAX_IN_FLIGHT),
    )
    .option('--shard <i/n>', 'run shard i of n; also writes a Playwright blob report to <output>/blob for `report merge`')
    .option('--max-failures <n>', 'stop after n failed checks (the checks not run are listed as not run)')
    .option('--seed <n>', 'seed of every generated value', '1')
    .option('--list', 'list the selected checks without running them', false)
    .option('--reporter <names>', `comma-separated: ${REPORTERS.join(', ')} (Playwright's reporters)`, 'list,junit,html')
    .option('--output <dir>', 'where reports go (conformance-report.json, junit.xml, html/, results.json)', 'conformance-output')
    .option('--show-secrets', 'show tokens and secrets in transcripts instead of redacting them', false)
    .option('--last-failed', 'only the checks that failed in the previous run (same --output)', false)
    .option(
      '--wait <duration>',
      'with --base-url: first wait (e.g. 60s, 2m) for /health and then the description documents to answer; time up: exit 3 naming what never answered',
    )
    .option('--no-doctor', 'skip the reachability and trust checks before the run')
    .option('--ca <file>', "PEM bundle of the CA that issued the deployment's TLS certificate (a private CA)")
    .option('--insecure', 'accept any TLS certificate of the deployment (tests only)', false)
    .option(
      '--repro <check-id>',
      'rerun one check alone (one worker, fresh tokens, proofs, nonces and signatures) and print its full transcript, pass or fail',
    )
    .option('--json', 'print the verdict (conformance-report.json) on stdout, everything else on stderr (run ... --json | jq)', false)
    .option(
      '--update-expected-failures <file>',
      "write a baseline of this run's failed checks to <file> (a TODO reason and an expiry 90 days ahead each; refuses to replace a file without --force)",
    )
    .option('--force', 'with --update-expected-failures: replace an existing file', false)
    .option(
      '--expected-failures <file>',
      'baseline of known failures (JSON: check or clause ids, each with a reason and an expiry date): they do not fail the run; a new failure, a listed check that passes or an expired entry does',
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 conformant, 1 a check failed (or a setup route broke its clause), 2 usage or configuration error, 3 nothing
answers, TLS untrusted, not this service, or the deployment's refusal says the issuer's tokens are not trusted.

Examples:
  $ shop-conformance run                                   # embedded reference, fixture profile
  $ shop-conformance run --base-url https://shop.example --profile ./profile.json
  $ shop-conformance run --base-url https://shop.internal:8443 --ca ./private-ca.pem
  $ shop-conformance run --clause AUTH-GUEST-4 ERR-PROBLEM-1 --reporter list
  $ shop-conformance run --level reference --workers 4 --output ./reports --reporter list,junit,html,json`,
    )
    .action(async (raw: Record<string, unknown>) => {
      await exitAfterOutput(await runSuite(parseOptions('run', optionsSchema, raw)));
    });
}
