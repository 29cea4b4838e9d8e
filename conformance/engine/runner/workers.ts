// How many workers a run against a deployment takes when --workers is not given. A check mostly waits on the target:
// on the embedded reference or a deployment next door the cores bound the run (as many workers as cores, at least two),
// but a deployment far away leaves the cores idle for a round trip per request, so the run takes more workers as the
// round trip grows, within a ceiling and within the cap on requests in flight (every worker keeps at least one place).
import { availableParallelism } from 'node:os';
import { ShopHttp } from '../transport/http.js';
import { splitCap } from '../transport/in-flight.js';
import type { TlsOptions } from '../transport/wire.js';

/** More workers than this only add start-up cost and memory on the runner. */
export const MAX_NETWORK_WORKERS = 16;
/** Round trip (ms) per extra worker per core: at 33 ms, twice the cores; at 100 ms, four times. */
const MS_PER_EXTRA_WORKER = 33;

/** The cores' number of workers (the embedded run's default): as many as cores, at least two. */
export const coreWorkers = (cores = availableParallelism()) => Math.max(2, cores);

/** Default workers for a deployment whose round trip is `roundTripMs` (undefined: not measured, the cores decide). */
export function networkWorkers(roundTripMs: number | undefined, maxInFlight: number, cores = availableParallelism()): number {
  const local = coreWorkers(cores);
  if (roundTripMs === undefined || !Number.isFinite(roundTripMs)) return Math.min(local, maxInFlight);
  const wanted = Math.round(local * (1 + roundTripMs / MS_PER_EXTRA_WORKER));
  return Math.max(1, Math.min(Math.max(local, wanted), MAX_NETWORK_WORKERS, maxInFlight));
}

/**
 * The deployment's round trip in ms: the fastest of a few GET /health on a connection already open (the first request
 * opens it and is not counted). Undefined when it does not answer (the doctor says why).
 */
export async function measureRoundTrip(baseUrl: string, tls: TlsOptions = {}, samples = 3): Promise<number | undefined> {
  const http = new ShopHttp(baseUrl.replace(/\/+$/, ''), tls);
  try {
    await http.get('/health', { timeoutMs: 5000 });
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await http.get('/health', { timeoutMs: 5000 });
      times.push(performance.now() - started);
    }
    return Math.min(...times);
  } catch {
    return undefined;
  } finally {
    http.close();
  }
}

/** `--workers`: a number, or a percentage of the cores as Playwright reads it. */
export function resolveWorkers(given: string, cores = availableParallelism()): number {
  return given.endsWith('%') ? Math.max(1, Math.floor((cores * Number(given.slice(0, -1))) / 100)) : Number(given);
}

/** What `chooseWorkers` chose: the workers, each one's own places of the cap, the pool of the rest, and the round trip it measured. */
export interface ChosenWorkers {
  workers: number;
  /** Places in flight each worker uses without asking (the plan's workers.maxInFlight, runner/plan.ts). */
  perWorker: number;
  /** Places the workers borrow from, one at a time, when their own are taken (conformance/engine/runner/in-flight-pool.ts). */
  pool: number;
  roundTripMs?: number;
}

/**
 * The run's workers and each one's share of the in-flight cap. Given --workers wins (--repro: one); for the embedded
 * reference (no `remote`) the cores decide; for a deployment, its measured round trip (also returned: checks get more
 * time), said in one line on `note`.
 */
export async function chooseWorkers(
  o: { workers?: string | undefined; repro?: string | undefined; maxInFlight: number },
  remote: string | undefined,
  tls: TlsOptions,
  note: (s: string) => void,
  /** The round trip, when the caller has measured it already. */
  measured?: { roundTripMs: number | undefined },
): Promise<ChosenWorkers> {
  const roundTripMs = remote === undefined ? undefined : measured ? measured.roundTripMs : await measureRoundTrip(remote, tls);
  const workers =
    o.repro !== undefined
      ? 1
      : o.workers
        ? resolveWorkers(o.workers)
        : remote === undefined
          ? Math.min(coreWorkers(), o.maxInFlight)
          : networkWorkers(roundTripMs, o.maxInFlight);
  const { own: perWorker, pool } = splitCap(o.maxInFlight, workers);
  if (remote !== undefined) {
    const measured = roundTripMs === undefined ? 'round trip not measured' : `round trip ${roundTripMs.toFixed(0)} ms`;
    note(
      `${measured}: ${workers} workers, at most ${o.maxInFlight} requests in flight (${perWorker} per worker, ${pool} shared) (--workers, --max-in-flight)\n`,
    );
  }
  return { workers, perWorker, pool, ...(roundTripMs !== undefined ? { roundTripMs } : {}) };
}
