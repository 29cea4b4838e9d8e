// Parameters that arrive after Playwright has started. Playwright takes about three seconds to load the checks and start
// its workers; the CLI starts it first and, meanwhile, starts the embedded reference and its variants and lets the doctor
// judge the target. What it learns then (the reference's URL and profile, the variants' deployments) it writes once, to
// the file ENV.late names: every worker waits for that file before its first check, so no check runs before the doctor
// has passed the target, and the reporter reads it at the end.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENV } from './params.js';

/** How often a waiting worker looks for the file: a small share of a check's time, nothing on the CPU. */
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

/** Per file: a worker reads it once, whatever number of checks asks. */
const merged = new Map<string, Promise<void>>();

/** Written by the CLI, whole or not at all (a worker never reads half a file): environment values the checks read. */
export function writeLateParams(file: string, values: Readonly<Record<string, string>>): void {
  writeFileSync(`${file}.partial`, JSON.stringify(values));
  renameSync(`${file}.partial`, file);
}

function merge(file: string): void {
  Object.assign(process.env, JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>);
}

/** Resolves once `file` exists; throws if the CLI (`from`, its pid) that will write it has ended first. */
async function waitForFile(file: string, from: number, what: string): Promise<void> {
  for (let i = 1; !existsSync(file); i++) {
    if (i % ALIVE_EVERY === 0 && from > 0 && !alive(from))
      throw new Error(`the shop-conformance run that started this check has ended before it ${what}`);
    await sleep(POLL_MS);
  }
}

/** Resolves once the late parameters are in this process's environment (at once when the run has none). */
export function awaitLateParams(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = env[ENV.late];
  if (!file) return Promise.resolve();
  let waiting = merged.get(file);
  if (!waiting)
    merged.set(
      file,
      (waiting = (async () => {
        await waitForFile(file, Number(env[ENV.lateFrom]), 'named its target');
        merge(file);
      })()),
    );
  return waiting;
}

/**
 * A run against a deployment starts Playwright before it has measured the deployment's round trip, which decides the
 * workers (engine/workers.ts): the configuration waits for the CLI's choice (ENV.launch), merges what the workers read
 * (their places in flight, the pool, the round trip) into the environment, and returns the number of workers. Undefined
 * when the run chose them before it started Playwright.
 */
export async function awaitLaunchParams(env: NodeJS.ProcessEnv = process.env): Promise<number | undefined> {
  const file = env[ENV.launch];
  if (!file) return undefined;
  await waitForFile(file, Number(env[ENV.lateFrom]), 'chose its workers');
  const values = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  Object.assign(env, values);
  return Number(values[ENV.workers]) || undefined;
}

/** The reporter's read at the end of the run: the file is there if any check ran. */
export function applyLateParams(env: NodeJS.ProcessEnv = process.env): void {
  const file = env[ENV.late];
  if (file && existsSync(file)) merge(file);
}
