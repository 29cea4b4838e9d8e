// The machinery of the concurrency scenarios (concurrency.ts): a seeded scheduler releasing the starts of steps that are
// then all in flight together, and findings that carry the sequence to replay with the steps sent at once.
import fc from 'fast-check';
import type { Target } from '../engine/transport/target.js';
import type { Answer, Finding, Step } from './exchange.js';

export type ScenarioName = 'adds' | 'checkouts' | 'proof' | 'budget';

/** What reruns one scenario as it was: its size and the release order of its concurrent steps (recorded in a replay file). */
export interface ScenarioRun {
  scenario: ScenarioName;
  /** Clients sending at once (adds: one line each; checkouts: one checkout each). */
  clients?: number;
  /** Requests beyond the budget (budget). */
  extra?: number;
  /** The release order fast-check's scheduler reported, as indices of the batch's steps (fc.schedulerFor replays it). */
  schedule: number[];
}

/** A concurrency finding: the steps in the order the scheduler released them, and that order as fast-check reports it. */
export interface ConcurrencyFinding extends Finding {
  oracle: 'concurrency';
  /** The scenario, its size and its schedule: what a shrink shortens and a replay reruns. */
  run: ScenarioRun;
  /** The sequence to replay: setup steps, the interleaved ones in their release order, the reads after. */
  steps: Step[];
  /** Indices of `steps` sent at once (renderCurlScript's `parallel`). */
  parallel: number[][];
  interleaving: string;
}

export interface InterleavingOptions {
  send: (step: Step) => Promise<Answer>;
  /**
   * What is judged: `spec`, only what the spec pins (explore's runner: lockstep.ts); `reference` (the default, every
   * judgement a scenario makes), also the reference's choices: simultaneous checkouts of one cart place at most one order.
   */
  level?: 'spec' | 'reference';
  seed: number;
  /** Interleavings per scenario (default 3). */
  runs?: number;
  /** Clients sending at once (default 3). */
  clients?: number;
  /** Requests of the budget scenario beyond the budget (default twice the clients). */
  extra?: number;
  /** Only these scenarios (default: every one the options allow). */
  scenarios?: readonly ScenarioName[];
  /**
   * A recorded release order (indices of a batch's steps): each batch is released in that order (fc.schedulerFor), the
   * indices beyond the batch left out and its steps the order does not name released after, in their order.
   */
  schedule?: readonly number[];
  /** Paths, methods and bodies as the target serves them (the runner's Target). */
  target: Pick<Target, 'operation' | 'path' | 'body'>;
  /** The caller label of one account that can check out (agent-checkout list) with `paymentMethod`: the cart's owner. */
  owner: string;
  /** Well-stocked variants, one per client at least for the adds (ids of the deployment's data). */
  variants: readonly string[];
  /** A saved payment method of `owner`; without it the checkout scenario is not run. */
  paymentMethod?: string;
  /** An address of the same account, for a checkout body that declares an `address` role. */
  address?: string;
  /** A fresh assistant credential for one request (Authorization and DPoP headers); without it the replay scenario is not run. */
  assistant?: (request: { method: string; url: string; nonce?: string }) => Promise<Record<string, string>>;
  /** The caller label of that assistant in a replay script (default `assistant`; `<label>:replay` sends its last proof again). */
  assistantCaller?: string;
  /** The base URL the DPoP proof's htu names. */
  baseUrl?: string;
  /** A budget to spend from several connections: its limit and a fresh caller (fresh counters) per attempt. */
  /** Called with each interleaved batch's answers (in the order of its steps), for the report and for tests. */
  onBatch?: (scenario: 'adds' | 'checkouts' | 'proof' | 'budget', answers: readonly Answer[]) => void;
  budget?: {
    limit: number;
    /** The operation spent (default listCollections: every caller may call it and it changes nothing). */
    operationId?: string;
    caller: (attempt: number) => string;
    headers?: (attempt: number) => Record<string, string>;
    clauses?: string[];
  };
}

type Json = Record<string, unknown>;
export const ok = (a: Answer) => a.status >= 200 && a.status < 300;
export const codeOf = (a: Answer) => (typeof a.json === 'object' && a.json !== null ? (a.json as Json).error : undefined);

export function stepOf(o: InterleavingOptions, operationId: string, caller: string, extra: Partial<Step> = {}, ...params: string[]): Step {
  const op = o.target.operation(operationId);
  return { operationId, method: op.method, path: o.target.path(operationId, ...params), caller, headers: {}, ...extra };
}

/** One interleaved batch: how it was released (the scheduler's report and the release order of the steps' indices). */
export interface Batch {
  interleaving: string;
  released: number[];
}

/** The release order `schedule` names for a batch of `n` steps, completed with the steps it does not name. */
export const scheduleFor = (schedule: readonly number[], n: number): number[] => {
  const named = [...new Set(schedule.filter((i) => Number.isInteger(i) && i >= 0 && i < n))];
  return [...named, ...Array.from({ length: n }, (_, i) => i).filter((i) => !named.includes(i))];
};

/**
 * The steps released in the scheduler's order (or the recorded `o.schedule`), all in flight together; answers in the
 * order of `steps`.
 */
export async function interleave(
  o: InterleavingOptions,
  seeded: fc.Scheduler,
  steps: Step[],
): Promise<{ answers: Answer[]; order: Step[]; batch: Batch }> {
  const s = o.schedule ? fc.schedulerFor(scheduleFor(o.schedule, steps.length).map((i) => i + 1)) : seeded;
  const order: Step[] = [];
  const released: number[] = [];
  const from = s.report().length;
  const all = Promise.all(
    steps.map(async (step, i) => {
      await s.schedule(Promise.resolve(i), `${i}: ${step.method} ${step.path}`);
      order.push(step);
      released.push(i);
      return o.send(step);
    }),
  );
  const answers = await s.waitFor(all);
  const interleaving = s
    .report()
    .slice(from)
    .map((r) => r.label)
    .join(' | ');
  return { answers, order, batch: { interleaving, released } };
}

export interface Sequence {
  steps: Step[];
  parallel: number[][];
}
/** `before`, then `concurrent` sent at once, then `after`. */
export const sequenceOf = (before: Step[], concurrent: Step[], after: Step[] = []): Sequence => ({
  steps: [...before, ...concurrent, ...after],
  parallel: [concurrent.map((_, i) => before.length + i)],
});

export const finding = (
  run: Omit<ScenarioRun, 'schedule'>,
  batch: Batch,
  seq: Sequence,
  clauses: string[],
  message: string,
  index: number,
  expected: unknown,
  actual: unknown,
): ConcurrencyFinding => ({
  oracle: 'concurrency',
  clauses,
  message,
  index,
  expected,
  actual,
  run: { ...run, schedule: batch.released },
  steps: seq.steps,
  parallel: seq.parallel,
  interleaving: batch.interleaving,
});
