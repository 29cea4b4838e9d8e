// A credential reused (docs/explore.md, "Callers"): a sound assistant's or invited agent's step (plan.ts `reuse`) is
// sent again at once with the credential of the first send reused, not made afresh. The assistant resends the very DPoP
// proof the deployment just took for the same request (RFC 9449 §11.1; spec, "proof replay": an accepted proof `jti` is
// refused everywhere after, whatever the method); the invited agent sends the very context it just sent, with a new
// forwarder token (spec, "a bearer-bound signed invited-agent context": bound to the token it was made for, however it
// was taken before). Both are the shapes that say so (proofs-shape.ts `jti: replay`, contexts-shape.ts `ath: lifted`),
// judged as any shape is. The second send is derived from the step, never part of the plan. Pure.
import type { PlanStep } from './plan.js';

/** Whether a step may be sent again with its credential reused: a sound assistant's or invited agent's, unmutated. */
export const reusable = (p: Pick<PlanStep, 'caller' | 'mutation'>): boolean =>
  p.mutation === undefined && /^(assistant|invited):[ab]$/.test(p.caller);

/** The second send of a step with `reuse`: the same request, its credential the first send's. */
export function reusedOf(p: PlanStep): PlanStep | undefined {
  if (!p.reuse || !reusable(p)) return undefined;
  const { reuse: _r, repeat: _p, rekey: _k, ...rest } = p;
  return p.caller.startsWith('assistant:')
    ? { ...rest, mutation: 'proof-shape', proof: { jti: 'replay' } }
    : { ...rest, mutation: 'context-shape', context: { ath: 'lifted' } };
}
