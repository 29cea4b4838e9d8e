// The exploration: fast-check model-based runs (fc.commands, fc.asyncModelRun) whose commands are plan steps, each sent
// to the target and, in lockstep, to a reference deployment. A run fails at the first step an oracle finds a divergence
// not reported yet; the failing run is then replayed by its seed and path and shrunk (fast-check shrinks the command
// sequence) to the shortest sequence that still shows a finding of the same oracle and clauses, and the exploring goes
// on for findings of other kinds. Every run starts from emptied carts of the two accounts and new guest carts, so that
// runs do not lean on each other.
import fc from 'fast-check';
import type { ScenarioRun } from './concurrency.js';
import type { Finding } from './exchange.js';
import { callersFor, describePlan, planStepArbitrary, type PlanStep } from './plan.js';
import { sweepPlans } from './sweep.js';
import { Diverged, Lockstep, type ExploreOptions, type ExploreResult, type Sequence, type Session } from './lockstep.js';

export type { ExploreOptions, ExploreResult, Oracles, Sequence, Session } from './lockstep.js';

/** `explore --budget` when none is given; the bench explores its defects for as long. */
export const DEFAULT_BUDGET = '2m';

/**
 * What tells findings apart: the oracle and the clauses, but for the operations' own clauses (END-OPS-*), which name
 * where a break shows, not which rule it breaks: one replayed proof accepted on fourteen operations is one finding.
 */
export const keyOf = (f: Pick<Finding, 'oracle' | 'clauses'>): string => {
  const rules = f.clauses.filter((c) => !c.startsWith('END-OPS-'));
  // A finding of an operation's clause alone keeps it: nothing else says what broke.
  return `${f.oracle} ${[...(rules.length > 0 ? rules : f.clauses)].sort().join(',')}`;
};

/**
 * Explores for `budgetMs` of generating; each new finding (by oracle and clauses) is shrunk, then the exploring goes on
 * with the rest of the budget for findings of other kinds; then the concurrent interleavings, each finding shrunk too.
 * Shrinking shares `shrinkMs` (default: the budget, at least 30 s) across the findings; a finding found when it is spent
 * is reported as found. A run ends within about `budgetMs + shrinkMs` and the interleavings.
 */
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
        failures: [{ seed: o.seed, plans: [], steps: [], answers: [], findings: setup, original: 0 }],
      };
    const arb = fc.commands([planStepArbitrary(callersFor(o.profile)).map((p) => new PlanCommand(p))], {
      maxCommands: o.maxCommands ?? 12,
    });
    const failures: Sequence[] = [];
    const reported = new Set<string>();
    let runs = 0;
    // Exploring: any finding not reported yet fails the run. Shrinking: only one of the key being shrunk does.
    let wanted: string | undefined;
    let last: Sequence | undefined;
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
      // A sequence fails when it shows a finding not reported yet (exploring), or the one being shrunk (shrinking); the
      // other new findings of the same step go with it, as one finding of several oracles.
      const fresh = seq.findings.filter((f) => !reported.has(keyOf(f)) || keyOf(f) === wanted);
      const matching = wanted === undefined ? fresh : fresh.some((f) => keyOf(f) === wanted) ? fresh : [];
      if (matching.length === 0 || !accepting) return;
      last = {
        ...seq,
        findings: wanted === undefined ? matching : [...matching].sort((a, b) => Number(keyOf(b) === wanted) - Number(keyOf(a) === wanted)),
      };
      throw new Error(matching[0]!.message);
    };
    let exploringMs = 0;
    let shrinkingLeft = o.shrinkMs ?? Math.max(30_000, o.budgetMs);
    // The sweep first (sweep.ts): every command × caller kind once, and every lone shape. A sequence that diverges is
    // shrunk to its diverging step alone where that still shows the finding.
    const swept = Date.now();
    for (const plans of sweepPlans(o.profile, o.seed)) {
      if (Date.now() - swept >= o.budgetMs) break;
      runs++;
      const seq = await lockstep.run(plans, o.seed);
      const fresh = seq.findings.filter((f) => !reported.has(keyOf(f)));
      if (fresh.length === 0) continue;
      const alone = await lockstep.run([seq.plans.at(-1)!], o.seed);
      const shown = alone.findings.filter((f) => fresh.some((g) => keyOf(g) === keyOf(f)));
      const shrunk = shown.length > 0 ? { ...alone, findings: shown } : { ...seq, findings: fresh };
      log(`finding in the sweep: ${shrunk.findings[0]!.message} (${shrunk.steps.length} of ${seq.steps.length} requests)`);
      failures.push({ ...shrunk, original: seq.steps.length });
      for (const f of shrunk.findings) reported.add(keyOf(f));
      if (o.stopAtFirst) break;
    }
    exploringMs += Date.now() - swept;
    const done = () => o.stopAtFirst === true && failures.length > 0;
    // Each round explores from its own seed (the seed, then seed+1, ...), so that a run is the same given its seed.
    for (let round = 0; exploringMs < o.budgetMs && !done(); round++) {
      const t0 = Date.now();
      wanted = undefined;
      last = undefined;
      const found = await fc.check(property, {
        seed: o.seed + round,
        numRuns: 100_000,
        interruptAfterTimeLimit: o.budgetMs - exploringMs,
        endOnFailure: true,
      });
      await settle();
      exploringMs += Date.now() - t0;
      // A run that failed with no sequence of ours: an error of the explorer or of what the target declares, never "no
      // finding" (it would end the exploration silently).
      if (found.failed && !last && accepting && found.errorInstance) throw found.errorInstance;
      if (!found.failed || !found.counterexamplePath || !last) break;
      const first: Sequence = last;
      wanted = keyOf(first.findings[0]!);
      log(`finding after ${runs} runs (${first.steps.length} steps): ${first.findings[0]!.message}; shrinking`);
      if (shrinkingLeft > 0) {
        // Replays the failing run by its path, then shrinks it (every candidate is a fresh run against the deployments).
        const t1 = Date.now();
        await fc.check(property, {
          seed: o.seed + round,
          path: found.counterexamplePath,
          numRuns: 100_000,
          interruptAfterTimeLimit: shrinkingLeft,
        });
        await settle();
        shrinkingLeft -= Date.now() - t1;
      }
      const shrunk: Sequence = last ?? first;
      failures.push({ ...shrunk, original: first.steps.length });
      for (const f of shrunk.findings) reported.add(keyOf(f));
    }
    // The interleavings of one owner's concurrent commands, whatever the sequences found (a few seconds each).
    const interleaved = done() ? [] : await lockstep.interleave(o.seed, { deadline: Date.now() + Math.max(shrinkingLeft, 10_000) });
    for (const seq of interleaved) {
      const fresh = seq.findings.filter((f) => !reported.has(keyOf(f)));
      if (fresh.length === 0) continue;
      for (const f of fresh) reported.add(keyOf(f));
      log(`finding in the concurrent interleavings: ${fresh[0]!.message} (shrunk from ${seq.original} to ${seq.steps.length} requests)`);
      failures.push({ ...seq, findings: fresh });
    }
    return { runs, steps: lockstep.steps, ms: Date.now() - started, failures, coverage: lockstep.coverage.report() };
  } finally {
    lockstep.close();
  }
}

/** Reruns a recorded sequence once, from emptied carts: its findings, if it still diverges. */
export async function replay(
  o: Omit<ExploreOptions, 'seed' | 'budgetMs'>,
  recorded: { seed: number; plans: PlanStep[]; interleavings?: boolean | undefined; concurrency?: ScenarioRun | undefined },
): Promise<Sequence> {
  const lockstep = new Lockstep(o);
  try {
    const setup = await lockstep.prepare();
    if (setup.length > 0) return { seed: recorded.seed, plans: [], steps: [], answers: [], findings: setup };
    if (recorded.interleavings || recorded.concurrency) {
      const found = await lockstep.interleave(recorded.seed, {
        shrink: false,
        ...(recorded.concurrency ? { only: recorded.concurrency } : {}),
      });
      const none: Sequence = { seed: recorded.seed, interleavings: true, plans: [], steps: [], answers: [], findings: [] };
      return found.length === 0 ? none : { ...found[0]!, findings: found.flatMap((s) => s.findings) };
    }
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
