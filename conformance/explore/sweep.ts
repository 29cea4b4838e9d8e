// The sweep (docs/explore.md, "Callers"): before the random search, every command is sent once as each caller kind the
// profile lets `explore` send (coverage.ts kindsOf: the kinds it claims, no credential, and the route's own credential
// where it has one), unmutated, so that every command × caller-kind cell, admitted or refused, is reached in the first
// seconds of a run whatever its budget; the random search then goes deep. One sound label per kind (account a's, guest
// a's). With them, every lone variation of each shape family (sweep-shapes.ts). All in an order drawn from the seed, cut
// into sequences as long as the search's. Pure.
import fc from 'fast-check';
import type { Profile } from '../../contract/profile.js';
import { COMMANDS, hasOwnCredential } from './commands.js';
import { kindsOf } from './coverage.js';
import { shapeSweep, soundLabel } from './sweep-shapes.js';
import { callersFor, type PlanStep } from './plan.js';

/** The sweep's sequences: every command × kind once and every lone shape, shuffled by the seed, `length` steps each. */
export function sweepPlans(profile: Profile, seed: number, length = 12): PlanStep[][] {
  const callers = callersFor(profile);
  const kinds = kindsOf(profile);
  const cells: PlanStep[] = COMMANDS.flatMap((c) =>
    kinds
      .filter((k) => k !== 'secret' || hasOwnCredential(c.id))
      .flatMap((k) => {
        const caller = soundLabel(k, callers);
        return caller ? [{ op: c.id, caller, variant: 0 as const, quantity: 1 }] : [];
      }),
  );
  const steps = [...cells, ...shapeSweep(callers, seed)];
  const [order] = fc.sample(fc.shuffledSubarray(steps, { minLength: steps.length, maxLength: steps.length }), { seed, numRuns: 1 });
  const out: PlanStep[][] = [];
  for (let i = 0; i < order!.length; i += length) out.push(order!.slice(i, i + length));
  return out;
}
