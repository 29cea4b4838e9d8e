// The scheduler-driven interleavings of `explore` (concurrency.ts) against the target, one sequence per scenario that
// found something, each shrunk (concurrency-shrink.ts) unless `shrink` is false; with `only`, that one recorded scenario
// as it was recorded (a replay). The steps of a finding are in the order the scheduler released them.
import type { Profile } from '../../contract/profile.js';
import { runInterleavings, type InterleavingOptions, type ScenarioRun } from './concurrency.js';
import { shrinkConcurrency } from './concurrency-shrink.js';
import { guestBudgetOf, provisionAssistant } from './interleave-callers.js';
import type { Sequence } from './lockstep.js';
import { newRunContext, type World } from './world.js';

export async function interleaveOn(
  w: World,
  profile: Profile,
  seed: number,
  o: { only?: ScenarioRun; shrink?: boolean; deadline?: number } = {},
): Promise<Sequence[]> {
  w.reset();
  if (!profile.capabilities.delegated) return [];
  const assistant = await provisionAssistant(w);
  const target = await w.described();
  // Fresh callers for every rerun: a budget attempt's guest is minted once per label, so a rerun needs new labels.
  const options = (extra: Partial<InterleavingOptions> = {}): InterleavingOptions => {
    const ctx = newRunContext(profile);
    const budget = guestBudgetOf(profile, ctx.run);
    return {
      send: (step) => w.send(step, ctx),
      // explore judges what the spec pins: how many simultaneous checkouts of one cart succeed is the reference's choice.
      level: 'spec',
      seed,
      target,
      owner: 'delegated:a',
      variants: w.fixture.variants,
      paymentMethod: w.fixture.accounts.a.card,
      address: w.fixture.accounts.a.address,
      baseUrl: w.baseUrl,
      ...(assistant ? { assistant } : {}),
      ...(budget ? { budget } : {}),
      ...extra,
    };
  };
  const rerun = (run: ScenarioRun) =>
    runInterleavings(
      options({
        scenarios: [run.scenario],
        runs: 1,
        schedule: run.schedule,
        ...(run.clients !== undefined ? { clients: run.clients } : {}),
        ...(run.extra !== undefined ? { extra: run.extra } : {}),
      }),
    );
  const found = o.only ? await rerun(o.only) : await runInterleavings(options());
  const out: Sequence[] = [];
  for (const scenario of [...new Set(found.map((f) => f.run.scenario))]) {
    const mine = found.filter((f) => f.run.scenario === scenario);
    const first = mine[0]!;
    const shrunk = o.only || o.shrink === false ? first : await shrinkConcurrency(first, rerun, { deadline: o.deadline });
    const findings = shrunk === first ? mine : [shrunk];
    out.push({
      seed,
      interleavings: true,
      concurrency: shrunk.run,
      parallel: shrunk.parallel,
      plans: [],
      steps: shrunk.steps,
      answers: [],
      original: first.steps.length,
      findings: findings.map(({ steps: _s, parallel: _p, run: _r, interleaving, ...f }) => ({
        ...f,
        message: `${f.message} (interleaving ${shortened(interleaving)})`,
      })),
    });
  }
  return out;
}

/** The first releases of a long interleaving (the whole order is the replay file's `concurrency.schedule`). */
const shortened = (interleaving: string, keep = 6) => {
  const parts = interleaving.split(' | ');
  return parts.length <= keep ? interleaving : `${parts.slice(0, keep).join(' | ')} | … ${parts.length - keep} more`;
};
