// The exploration: fast-check model-based runs (fc.commands, fc.asyncModelRun) whose commands are plan steps, each sent
// to the target and, in lockstep, to a reference deployment. A run fails at the first step an oracle finds a divergence
// at; the failing run is then replayed by its seed and path and shrunk (fast-check shrinks the command sequence) to the
// shortest sequence that still shows a finding of the same oracle and clauses. Every run starts from emptied carts of
// the two accounts and new guest carts, so that runs do not lean on each other.
import fc from 'fast-check';
import type { Finding } from './exchange.js';
import { callersFor, describePlan, planStepArbitrary, type PlanStep } from './plan.js';
import { Diverged, Lockstep, type ExploreOptions, type ExploreResult, type Sequence, type Session } from './lockstep.js';

export type { ExploreOptions, ExploreResult, Oracles, Sequence, Session } from './lockstep.js';

const keyOf = (f: Finding) => `${f.oracle} ${[...f.clauses].sort().join(',')}`;

/** Explores for `budgetMs`; on a finding, shrinks its sequence. */
export async function explore(o: ExploreOptions): Promise<ExploreResult> {
  const started = Date.now();
  const log = o.log ?? (() => undefined);
  const lockstep = new Lockstep(o);
  try {
    const setup = await lockstep.prepare();
    if (setup.length > 0)
      return {
        runs: 0,
        steps: 0,
        ms: Date.now() - started,
        failure: { seed: o.seed, plans: [], steps: [], answers: [], findings: setup, original: 0 },
      };
    const arb = fc.commands([planStepArbitrary(callersFor(o.profile)).map((p) => new PlanCommand(p))], {
      maxCommands: o.maxCommands ?? 12,
    });
    let runs = 0;
    let wanted: string | undefined;
    let last: Sequence | undefined;
    let original = 0;
    // fast-check's time limit abandons the run under way without waiting for it: that run's requests must end before
    // anything else is sent, and what it finds once abandoned is not taken (`accepting`).
    let accepting = true;
    let active: Promise<unknown> = Promise.resolve();
    const settle = async () => {
      accepting = false;
      await active.catch(() => undefined);
      accepting = true;
    };
    const property = fc.asyncProperty(arb, (cmds) => {
      const run = sequence(cmds);
      active = run;
      return run;
    });
    const sequence = async (cmds: Iterable<fc.AsyncCommand<object, Session>>) => {
      runs++;
      const session = await lockstep.begin(o.seed);
      try {
        await fc.asyncModelRun(() => ({ model: {}, real: session }), cmds);
      } catch (err) {
        if (!(err instanceof Diverged)) throw err;
      }
      const seq = session.seq;
      const matching = seq.findings.filter((f) => wanted === undefined || keyOf(f) === wanted);
      if (matching.length === 0 || !accepting) return;
      if (wanted === undefined) {
        wanted = keyOf(matching[0]!);
        original = seq.steps.length;
        log(`finding after ${runs} runs (${seq.steps.length} steps): ${matching[0]!.message}; shrinking`);
      }
      last = { ...seq, findings: matching };
      throw new Error(matching[0]!.message);
    };
    const found = await fc.check(property, { seed: o.seed, numRuns: 100_000, interruptAfterTimeLimit: o.budgetMs, endOnFailure: true });
    await settle();
    const explored = runs;
    if (found.failed && found.counterexamplePath) {
      // Replays the failing run by its path, then shrinks it (every candidate is a fresh run against the deployments).
      await fc.check(property, {
        seed: o.seed,
        path: found.counterexamplePath,
        numRuns: 100_000,
        interruptAfterTimeLimit: o.shrinkMs ?? Math.max(30_000, o.budgetMs),
      });
      await settle();
    }
    // Then, when the sequences found nothing, the interleavings of one owner's concurrent commands (a few seconds).
    if (!last) {
      const concurrent = await lockstep.interleave(o.seed);
      if (concurrent.findings.length > 0) {
        log(`finding in the concurrent interleavings: ${concurrent.findings[0]!.message}`);
        last = concurrent;
        original = concurrent.steps.length;
      }
    }
    return {
      runs: explored,
      steps: lockstep.steps,
      ms: Date.now() - started,
      ...(last ? { failure: { ...(last as Sequence), original } } : {}),
    };
  } finally {
    lockstep.close();
  }
}

/** Reruns a recorded sequence once, from emptied carts: its findings, if it still diverges. */
export async function replay(
  o: Omit<ExploreOptions, 'seed' | 'budgetMs'>,
  recorded: { seed: number; plans: PlanStep[]; interleavings?: boolean | undefined },
): Promise<Sequence> {
  const lockstep = new Lockstep(o);
  try {
    const setup = await lockstep.prepare();
    if (setup.length > 0) return { seed: recorded.seed, plans: [], steps: [], answers: [], findings: setup };
    if (recorded.interleavings) return await lockstep.interleave(recorded.seed);
    return await lockstep.run(recorded.plans, recorded.seed);
  } finally {
    lockstep.close();
  }
}

/** One plan step as a fast-check command; the model of the spec lives in the session (model.ts), judged as it runs. */
class PlanCommand implements fc.AsyncCommand<object, Session> {
  constructor(readonly plan: PlanStep) {}
  check(): boolean {
    return true;
  }
  async run(_model: object, real: Session): Promise<void> {
    await real.exec(this.plan);
  }
  toString(): string {
    return describePlan(this.plan);
  }
}
