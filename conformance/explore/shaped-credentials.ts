// The judges of an assistant's shaped DPoP proof (proofs.ts), and of the other shaped credentials explore sends besides
// Bearer tokens (admission.ts judges those): what the spec and RFC 9449 say must be answered to the credential as it
// went out, on the operation it was sent to. Pure.
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Answer, Finding, Step } from './exchange.js';
import type { PlanStep } from './plan.js';
import { judgeShapedProof } from './proofs.js';
import { judgeShapedSession } from './sessions.js';
import { judgeShapedContext } from './contexts.js';
import type { Profile } from '../../contract/profile.js';

const errorOf = (answer: Answer): unknown => (answer.json as { error?: unknown } | undefined)?.error;

/** A shaped proof's answer (the shape as sent, the nonce the session held), on the operation it was sent to. */
export function judgeProof(p: PlanStep, step: Step, answer: Answer, index: number): Finding[] {
  if (p.mutation !== 'proof-shape' || !step.proof?.sent) return [];
  const v = judgeShapedProof(
    step.proof.sent,
    { method: step.method, operation: OPERATIONS_BY_ID.get(p.op), nonceAsked: step.proof.nonceAsked ?? false },
    answer.status,
    errorOf(answer),
  );
  return v
    ? [
        {
          oracle: 'model',
          clauses: [...v.clauses],
          message: `a DPoP proof with ${step.proof.described} as ${p.caller} on ${p.op}`,
          index,
          expected: v.expected,
          actual: `${answer.status} ${String(errorOf(answer) ?? '')}`.trim(),
        },
      ]
    : [];
}

/** A finding of a shaped credential's answer, when its judge found one. */
function findingOf(
  v: { expected: string; clauses: readonly string[] } | undefined,
  what: string,
  p: PlanStep,
  answer: Answer,
  index: number,
): Finding[] {
  return v
    ? [
        {
          oracle: 'model',
          clauses: [...v.clauses],
          message: `${what} as ${p.caller} on ${p.op}`,
          index,
          expected: v.expected,
          actual: `${answer.status} ${String(errorOf(answer) ?? '')}`.trim(),
        },
      ]
    : [];
}

/** A shaped guest session's answer (sessions-expect.ts), on the operation it was sent to. */
export function judgeSession(p: PlanStep, step: Step, answer: Answer, index: number, profile: Profile): Finding[] {
  if (p.mutation !== 'session-shape' || !p.session) return [];
  const v = judgeShapedSession(p.session, { operation: OPERATIONS_BY_ID.get(p.op), profile }, answer.status, errorOf(answer));
  return findingOf(v, `a guest session with ${step.session ?? ''}`, p, answer, index);
}

/** A shaped invited-agent context's answer (contexts-expect.ts), on the operation it was sent to. */
export function judgeContext(p: PlanStep, step: Step, answer: Answer, index: number, profile: Profile): Finding[] {
  if (p.mutation !== 'context-shape' || !p.context) return [];
  const v = judgeShapedContext(p.context, { operation: OPERATIONS_BY_ID.get(p.op), profile }, answer.status, errorOf(answer));
  return findingOf(v, `an invited-agent context with ${step.context ?? ''}`, p, answer, index);
}
