// `shop-conformance explore`: generated request sequences against a deployment (the embedded reference without
// --base-url), judged by the model of what the spec pins, a lockstep embedded reference and the deployment's own
// description documents (docs/explore.md). Every distinct finding is shrunk and written as a replay file; --replay
// reruns one.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { doctor, formatDoctorSteps } from '../../conformance/engine/doctor/doctor.js';
import { readCaFile, readProfileFile } from '../../conformance/engine/runner/params.js';
import { parseDuration } from '../../conformance/engine/doctor/wait.js';
import { DEFAULT_BUDGET, explore, replay, type ExploreOptions, type ExploreResult } from '../../conformance/explore/runner.js';
import { formatFinding, replaySchema, writeReports, type ReplayFile } from '../../conformance/explore/report.js';
import { formatCoverageMap } from '../../conformance/explore/coverage.js';
import { exploreOracles, curlScriptOf } from '../../conformance/explore/oracles.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { EXIT, exitAfterOutput } from '../exit.js';
import { parseOptions } from '../options.js';
import { startEmbedded } from './run.js';

const optionsSchema = z.object({
  baseUrl: z.url().optional(),
  /** Absent when not given: the fixture profile, or with --replay the one the finding recorded. */
  profile: z.string().min(1).optional(),
  budget: z.string().refine((s) => parseDuration(s) !== undefined, 'a duration like 30s, 2m or 500ms'),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /** Absent when not given: explore-output, or with --replay a directory beside the finding's (replayOutput). */
  output: z.string().min(1).optional(),
  replay: z.string().min(1).optional(),
  reference: z.boolean(),
  ca: z.string().min(1).optional(),
  insecure: z.boolean(),
});
export type ExploreCliOptions = z.infer<typeof optionsSchema>;

type Io = { out: (s: string) => void; err: (s: string) => void };
const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** The replay file, or the one line that names what is wrong with it. */
function readReplay(file: string): ReplayFile | string {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return `${file}: ${(err as Error).message.split('\n')[0]}`;
  }
  const parsed = replaySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`;
}

export const DEFAULT_OUTPUT = 'explore-output';

/** Where a replay's reports go by default: beside the finding's directory, never in it (`<dir>-replay-finding-1`). */
export function replayOutput(replayFile: string): string {
  const file = resolve(replayFile);
  return `${dirname(file)}-replay-${basename(file).replace(/\.replay\.json$|\.json$/, '')}`;
}

export async function runExplore(o: ExploreCliOptions, io: Io = stdio): Promise<number> {
  const name = 'shop-conformance explore';
  let recorded: ReplayFile | undefined;
  if (o.replay !== undefined) {
    const r = readReplay(resolve(o.replay));
    if (typeof r === 'string') {
      io.err(`${name}: --replay: ${r}\n`);
      return EXIT.usage;
    }
    recorded = r;
  }
  // A replay never writes into the directory of the finding it replays: its reports would replace the finding's.
  let output = resolve(o.output ?? DEFAULT_OUTPUT);
  if (o.replay !== undefined) {
    if (o.output === undefined) output = replayOutput(o.replay);
    else if (output === dirname(resolve(o.replay))) {
      io.err(`${name}: --output: ${o.output} holds the finding being replayed (${o.replay}); name another directory\n`);
      return EXIT.usage;
    }
  }
  // The finding's profile unless --profile says otherwise: a deployment with keys of its own refuses the fixture's.
  const profilePath =
    o.profile !== undefined
      ? resolve(o.profile)
      : recorded?.profile !== undefined
        ? resolve(dirname(resolve(o.replay!)), recorded.profile)
        : FIXTURE_PROFILE;
  const fromFinding = o.profile === undefined && recorded?.profile !== undefined;
  let profile;
  try {
    profile = readProfileFile(profilePath, { toMint: true });
  } catch (err) {
    const where = fromFinding ? `--replay: ${o.replay}: profile` : '--profile';
    io.err(`${name}: ${where}: ${(err as Error).message}${fromFinding ? ' (pass --profile)' : ''}\n`);
    return EXIT.usage;
  }
  if (fromFinding) io.err(`profile ${profilePath} (the finding's)\n`);
  let ca: string | undefined;
  try {
    ca = o.ca === undefined ? undefined : readCaFile(resolve(o.ca));
  } catch (err) {
    io.err(`${name}: --ca: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  const seed = o.seed ?? recorded?.seed ?? Math.floor(Math.random() * 2 ** 31);
  const budgetMs = parseDuration(o.budget)!;
  const started: { close(): Promise<void> }[] = [];
  try {
    let baseUrl = o.baseUrl;
    if (!baseUrl) {
      const embedded = await startEmbedded(profilePath);
      started.push({ close: async () => (await embedded.server.close(), rmSync(embedded.dir, { recursive: true, force: true })) });
      profile = embedded.profile;
      baseUrl = embedded.server.url;
      io.err(`embedded reference listening on ${baseUrl}\n`);
    } else {
      // As `run` does: nothing answers, not this service, TLS untrusted or the issuer refused is exit 3.
      const report = await doctor(baseUrl, profile, { tls: { ca, insecure: o.insecure } });
      for (const line of formatDoctorSteps(report)) io.err(`doctor: ${line}\n`);
      if (report.exitCode === EXIT.unreachable) return EXIT.unreachable;
    }
    let referenceUrl: string | undefined;
    if (o.reference) {
      const reference = await startEmbedded(profilePath);
      started.push({ close: async () => (await reference.server.close(), rmSync(reference.dir, { recursive: true, force: true })) });
      referenceUrl = reference.server.url;
    }
    const common: Omit<ExploreOptions, 'seed' | 'budgetMs'> = {
      baseUrl,
      tls: { ca, insecure: o.insecure },
      referenceUrl,
      profile,
      oracles: exploreOracles(),
      log: (line) => io.err(`explore: ${line}\n`),
    };
    let result: ExploreResult;
    if (recorded) {
      const what = recorded.concurrency
        ? `the concurrent scenario ${recorded.concurrency.scenario}`
        : recorded.interleavings
          ? 'the concurrent interleavings'
          : `${recorded.plans.length} plan steps`;
      io.err(`replaying ${o.replay} (${what}, seed ${recorded.seed}) against ${baseUrl}\n`);
      const t0 = Date.now();
      const seq = await replay(common, recorded);
      result = { runs: 1, steps: seq.steps.length, ms: Date.now() - t0, failures: seq.findings.length ? [seq] : [] };
    } else {
      io.err(`exploring ${baseUrl} for ${o.budget} (seed ${seed}${referenceUrl ? ', lockstep reference ' + referenceUrl : ''})\n`);
      result = await explore({ ...common, seed, budgetMs });
    }
    const files = writeReports(output, result, {
      target: baseUrl,
      seed,
      budgetMs,
      ...(profilePath !== FIXTURE_PROFILE ? { profile: profilePath } : {}),
      script: (seq) =>
        curlScriptOf(seq.steps, {
          baseUrl: o.baseUrl ?? 'http://127.0.0.1:8787',
          profile: profile!,
          parallel: seq.parallel,
          ...(profilePath !== FIXTURE_PROFILE ? { profilePath } : {}),
          title: `shop-conformance explore, seed ${seed}: ${seq.findings.map((f) => `[${f.clauses.join(', ')}] ${f.message}`).join('; ')}`,
        }),
    });
    io.out(`${result.runs} sequences, ${result.steps} requests in ${(result.ms / 1000).toFixed(1)} s (seed ${seed})\n`);
    result.failures.forEach((seq, i) => {
      const f = files.findings[i]!;
      io.out(`FINDING ${i + 1} of ${result.failures.length}\n${formatFinding(seq).join('\n')}\n`);
      io.out(`replay: shop-conformance explore --replay ${f.replay}${o.baseUrl ? ` --base-url ${o.baseUrl}` : ''}\n`);
      if (f.script) io.out(`curl script: ${f.script}\n`);
    });
    if (result.coverage) io.out(`${formatCoverageMap(result.coverage).join('\n')}\n`);
    if (result.failures.length === 0) io.out(recorded ? 'the recorded sequence no longer diverges\n' : 'no finding\n');
    io.out(`reports: ${files.report} ${files.junit} ${files.html}\n`);
    return result.failures.length ? EXIT.failed : EXIT.ok;
  } finally {
    for (const s of started.reverse()) await s.close();
  }
}

export function addExploreCommand(program: Command): void {
  program
    .command('explore')
    .description(
      'Generated request sequences against a deployment (the embedded reference without --base-url), judged by a model of the spec, a lockstep reference and its own description documents; a finding is shrunk to a replayable file.',
    )
    .option('--base-url <url>', 'the deployment to explore; without it the embedded reference is started')
    .option('--profile <file>', "profile the deployment shares with the suite (with --replay: default the finding's)", FIXTURE_PROFILE)
    .option(
      '--budget <duration>',
      'how long to generate sequences (30s, 2m); shrinking the findings takes up to as long again in all, then the concurrent interleavings',
      DEFAULT_BUDGET,
    )
    .option('--seed <n>', "seed of the generated sequences (printed; default: random, or the replay file's)")
    .option(
      '--output <dir>',
      "where reports go (explore-report.json, junit.xml, explore.html, finding-N.replay.json and finding-N.sh per finding); with --replay: default <finding's dir>-replay-finding-N, never the finding's own",
      DEFAULT_OUTPUT,
    )
    .option('--replay <file>', 'rerun a recorded finding (a finding-N.replay.json): exit 1 if it still diverges, 0 if not')
    .option('--no-reference', 'no lockstep embedded reference: the model and schema oracles alone')
    .option('--ca <file>', "PEM bundle of the CA that issued the deployment's TLS certificate (a private CA)")
    .option('--insecure', 'accept any TLS certificate of the deployment (tests only)', false)
    .addHelpText(
      'after',
      `
Exit codes: 0 no finding, 1 a finding (or a replayed finding still diverges), 2 usage or configuration error, 3 nothing
answers, TLS untrusted, not this service, or the deployment's refusal says the issuer's tokens are not trusted.

Examples:
  $ shop-conformance explore --budget 30s --seed 7                 # the embedded reference
  $ shop-conformance explore --base-url https://shop.example --profile ./profile.json --budget 5m
  $ shop-conformance explore --replay explore-output/finding-1.replay.json --base-url https://shop.example   # its profile too`,
    )
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      // Defaults stay unset here: with --replay they come from the finding (runExplore).
      const given = (key: string) => cmd.getOptionValueSource(key) !== 'default';
      const options = parseOptions('explore', optionsSchema, {
        ...raw,
        profile: given('profile') ? raw.profile : undefined,
        output: given('output') ? raw.output : undefined,
      });
      if (options.replay !== undefined && !existsSync(resolve(options.replay))) {
        process.stderr.write(`shop-conformance explore: --replay: ${options.replay}: no such file\n`);
        process.exit(EXIT.usage);
      }
      await exitAfterOutput(await runExplore(options));
    });
}
