// The run plan: every setting of one run, written by the CLI as one JSON file and read once, validated and frozen, by the
// Playwright side (the configuration, the workers, the reporters). The environment carries only where the file is
// (PLAN_ENV); no setting travels in a variable of its own. What the CLI learns after Playwright has started (the embedded
// reference's URL, the workers chosen from a deployment's round trip) goes to the late files the plan names
// (late.ts): the plan says where they will be, never what they hold.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The one environment variable of a run: the path of its plan file. It carries no setting itself. */
export const PLAN_ENV = 'SHOP_CONFORMANCE_PLAN';

/** The plan's file name in the directory the CLI writes it to. */
export const PLAN_FILE = 'run-plan.json';

/** A deployment a Playwright project judges instead of the run's target: its own base URL and profile. */
export const variantSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  baseUrl: z.url(),
  profilePath: z.string().min(1),
  checks: z.array(z.string().min(1)).min(1),
});

/** How many workers, and what each one takes of the cap on requests in flight (engine/runner/workers.ts, in-flight.ts). */
export const workersSchema = z.object({
  /** Playwright's workers; absent: the configuration's default (the cores, at least two). */
  count: z.number().int().min(1).optional(),
  /** Requests one worker may have in flight: its share of `--max-in-flight`; absent: no cap. */
  maxInFlight: z.number().int().min(1).optional(),
  /** Where the workers' common pool of further places is served (in-flight-pool.ts); absent: none. */
  inFlightPool: z.string().min(1).optional(),
  /** The deployment's round trip in ms as the CLI measured it: checks get more time. */
  roundTripMs: z.number().min(0).optional(),
});

/** How the run judges, the same in the plan and in a worker's parameters (params.ts): level, --strict, --seed, --show-secrets. */
export const judgingSchema = z.object({
  level: z.enum(['spec', 'reference']),
  strict: z.boolean(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  showSecrets: z.boolean(),
});

export const runPlanSchema = z.strictObject({
  target: z.strictObject({
    /**
     * The deployment judged; for the embedded run a placeholder until the late target arrives (late.ts); absent where no
     * run says it (a merge of shards whose own reports are missing).
     */
    baseUrl: z.url().optional(),
    profilePath: z.string().min(1),
    /** 'embedded' when the CLI boots the reference for this run. */
    kind: z.enum(['embedded', 'external']),
    /** A PEM bundle: the CAs that issued the target's TLS certificate. */
    caPath: z.string().min(1).optional(),
    /** Accept any TLS certificate of the target. */
    insecure: z.boolean(),
  }),
  ...judgingSchema.shape,
  selection: z.strictObject({
    /** `part`: --grep, --clause, --last-failed or --max-failures left checks out; `shard`: only --shard did. */
    partial: z.enum(['whole', 'part', 'shard']),
    /** `run --clause`'s clauses: the unjudged clauses a run lists are among them. */
    clauses: z.array(z.string().min(1)),
    /** `i/n` of a sharded run: its blob report is written for `report merge`. */
    shard: z
      .string()
      .regex(/^\d+\/\d+$/)
      .optional(),
    /** `run --repro`: a passing check prints its transcript too. */
    repro: z.boolean(),
    /** The run's target options as typed: the failure report's `run --repro` commands repeat them. */
    reproArgs: z.string(),
  }),
  workers: workersSchema,
  output: z.strictObject({
    dir: z.string().min(1),
    /** Playwright's reporters the run asked for (list, line, dot, json, junit, html, github). */
    reporters: z.array(z.string().min(1)),
  }),
  /** The embedded run's variant deployments by name and checks (cli/embedded-variants.ts): each check has a copy per variant. */
  variants: z.array(variantSchema.pick({ name: true, checks: true })),
  /** Where the settings learned after Playwright started will be (late.ts); absent: the plan is the whole of them. */
  late: z
    .strictObject({
      /** The target's URL and profile and the variants' deployments: every check waits for this file. */
      target: z.string().min(1).optional(),
      /** The workers chosen from the deployment's round trip: the configuration waits for this file. */
      launch: z.string().min(1).optional(),
      /** The CLI's process id: a waiting process stops waiting once it is gone. */
      from: z.number().int().min(0),
    })
    .optional(),
  /** The self-test's own plan (conformance/selftest/plan.ts validates it); absent outside `shop-conformance self-test`. */
  selfTest: z.unknown().optional(),
});

export type RunPlan = z.infer<typeof runPlanSchema>;

/** A plan that fails its schema or is no JSON: the message is one line naming the file and the field. */
export class PlanError extends Error {
  override name = 'PlanError';
}

/** The first issue of a zod error, as `<field>: <message>` on one line. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join('.') || '(root)'}: ${issue.message.split('\n')[0]}`;
}

/** A plan, validated; `source` names where it came from in the error. */
export function parsePlan(raw: unknown, source: string): RunPlan {
  const parsed = runPlanSchema.safeParse(raw);
  if (!parsed.success) throw new PlanError(`run plan ${source}: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** Reads and validates a plan file. */
export function readPlanFile(file: string): RunPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PlanError(`run plan ${file}: ${code ? `cannot read it (${code})` : `not JSON (${(err as Error).message})`}`, { cause: err });
  }
  return parsePlan(raw, file);
}

/** Writes a JSON file whole or not at all: a reader never sees half of it. */
export function writeJsonAtomically(file: string, value: unknown): void {
  writeFileSync(`${file}.partial`, JSON.stringify(value, null, 2) + '\n');
  renameSync(`${file}.partial`, file);
}

/** Validates the plan and writes it to `dir`; returns the file's path (the value of PLAN_ENV). */
export function writePlan(dir: string, plan: RunPlan, name = PLAN_FILE): string {
  const file = join(dir, name);
  writeJsonAtomically(file, parsePlan(plan, file));
  return file;
}

/** The environment a Playwright process of the run gets: the caller's, with the plan's path and nothing else of the run. */
export function planEnv(file: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, [PLAN_ENV]: file, FORCE_COLOR: env.FORCE_COLOR ?? '0' };
}

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

let cached: { file: string; plan: Readonly<RunPlan> } | undefined;

/** This process's plan (read once, frozen); undefined when Playwright was started without one (the checks listed alone). */
export function currentPlan(env: NodeJS.ProcessEnv = process.env): Readonly<RunPlan> | undefined {
  const file = env[PLAN_ENV];
  if (!file) return undefined;
  if (cached?.file !== file) cached = { file, plan: deepFreeze(readPlanFile(file)) };
  return cached.plan;
}

/** This process's plan; throws when there is none (a check run outside `shop-conformance run`). */
export function runPlan(env: NodeJS.ProcessEnv = process.env): Readonly<RunPlan> {
  const plan = currentPlan(env);
  if (!plan) throw new PlanError(`${PLAN_ENV} is not set: the suite's checks are run by \`shop-conformance run\``);
  return plan;
}
