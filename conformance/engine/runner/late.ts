// Settings that arrive after Playwright has started. Playwright takes about three seconds to load the checks and start
// its workers; the CLI starts it first and, meanwhile, starts the embedded reference and its variants, lets the doctor
// judge the target, and (against a deployment) measures its round trip to choose the workers. What it learns then it
// writes once, to the files the run plan names (plan.ts, `late`): the target (the reference's URL and profile, the
// variants' deployments), which every worker waits for before its first check, so that no check runs before the doctor
// has passed the target; and the launch (the workers and their share of the cap on requests in flight), which the
// configuration waits for. Each file has its schema here; neither carries anything else.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { firstIssue, variantSchema, workersSchema, writeJsonAtomically, type RunPlan } from './plan.js';

/** The late target: what the checks judge, once the CLI has started it (or the doctor has passed it). */
export const lateTargetSchema = z.strictObject({
  baseUrl: z.url(),
  profilePath: z.string().min(1),
  /** The variant deployments the embedded run started (cli/embedded-variants.ts). */
  variants: z.array(variantSchema),
});
export type LateTarget = z.infer<typeof lateTargetSchema>;

/** The launch: the workers chosen from the deployment's round trip. */
export const launchSchema = workersSchema.required({ count: true });
export type Launch = z.infer<typeof launchSchema>;

/** How often a waiting process looks for the file: a small share of a check's time, nothing on the CPU. */
const POLL_MS = 5;
/** How often it asks whether the CLI that will write the file is still there. */
const ALIVE_EVERY = 200;

/** Whether the process `pid` (the CLI) still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Written by the CLI, validated, whole or not at all (a worker never reads half a file). */
export function writeLateTarget(file: string, value: LateTarget): void {
  writeJsonAtomically(file, lateTargetSchema.parse(value));
}

export function writeLaunch(file: string, value: Launch): void {
  writeJsonAtomically(file, launchSchema.parse(value));
}

function readLate<T>(file: string, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`late settings ${file}: ${firstIssue(parsed.error)}`);
  return Object.freeze(parsed.data);
}

/** Resolves once `file` exists; throws if the CLI (`from`, its pid) that will write it has ended first. */
async function waitForFile(file: string, from: number, what: string): Promise<void> {
  for (let i = 1; !existsSync(file); i++) {
    if (i % ALIVE_EVERY === 0 && from > 0 && !alive(from))
      throw new Error(`the shop-conformance run that started this check has ended before it ${what}`);
    await sleep(POLL_MS);
  }
}

/** Per file: a process reads it once, whatever number of checks asks. */
const targets = new Map<string, Promise<LateTarget>>();
const arrived = new Map<string, LateTarget>();

/** Resolves with the late target once the CLI has written it; undefined at once when the plan is the whole target. */
export function awaitLateTarget(plan: Pick<RunPlan, 'late'> | undefined): Promise<LateTarget | undefined> {
  const file = plan?.late?.target;
  if (!file) return Promise.resolve(undefined);
  let waiting = targets.get(file);
  if (!waiting)
    targets.set(
      file,
      (waiting = (async () => {
        await waitForFile(file, plan.late!.from, 'named its target');
        const target = readLate(file, lateTargetSchema);
        arrived.set(file, target);
        return target;
      })()),
    );
  return waiting;
}

/**
 * The late target if it has arrived: in a worker once `awaitLateTarget` resolved; in the reporter at the end of the run
 * (the file is there if any check ran).
 */
export function lateTarget(plan: Pick<RunPlan, 'late'> | undefined): LateTarget | undefined {
  const file = plan?.late?.target;
  if (!file) return undefined;
  const known = arrived.get(file);
  if (known || !existsSync(file)) return known;
  const target = readLate(file, lateTargetSchema);
  arrived.set(file, target);
  return target;
}

let launched: Launch | undefined;

/**
 * A run against a deployment starts Playwright before it has measured the deployment's round trip, which decides the
 * workers (engine/runner/workers.ts): the configuration (in the runner and in every worker) waits for the CLI's choice.
 * Undefined when the plan chose them before Playwright started.
 */
export async function awaitLaunch(plan: Pick<RunPlan, 'late'> | undefined): Promise<Launch | undefined> {
  const file = plan?.late?.launch;
  if (!file) return undefined;
  await waitForFile(file, plan.late!.from, 'chose its workers');
  return (launched = readLate(file, launchSchema));
}

/** The workers' settings: the launch's once the configuration has awaited it, else the plan's own. */
export function workerSettings(plan: Pick<RunPlan, 'workers' | 'late'> | undefined): z.infer<typeof workersSchema> {
  return plan?.late?.launch && launched ? launched : (plan?.workers ?? {});
}
