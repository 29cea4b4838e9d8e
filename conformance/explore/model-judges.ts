// Every judgement of the model on one answer of the target (docs/explore.md, "What is compared", 1): the rules of every
// response, the sequence's state (model.ts), who may use the route (admission.ts), a conditional GET, a shaped token, a
// generated body, a signed webhook delivery, and the account's data across its callers (model-accounts.ts, readers.ts). One call
// per step, so that the lockstep runner only sends and collects. Pure.
import type { Profile } from '../../contract/profile.js';
import { judgeAdmission, judgeConditional, judgeSignedDelivery, judgeToken } from './admission.js';
import { judgeBodyShape } from './bodies-judge.js';
import type { Answer, Finding, Step } from './exchange.js';
import { judgeHeaders, judgeStep, type ModelState } from './model.js';
import { judgeAccountData } from './model-accounts.js';
import type { PlanStep } from './plan.js';
import { judgeReaders, type ReaderAnswer } from './readers.js';
import { judgeContext, judgeProof, judgeSession } from './shaped-credentials.js';

/** One step of the target as the model judges it: the request, its answer, and what the runner learnt around it. */
export interface JudgedStep {
  p: PlanStep;
  step: Step;
  answer: Answer;
  index: number;
  /** The GET of the answer's Location as the same caller, and as the other callers that may or may not read it. */
  follow?: Answer | undefined;
  readers?: readonly ReaderAnswer[];
  /** The id of the row a create made. */
  created?: string | undefined;
  /** The scopes the target's documents declare for the operation. */
  declaredScopes?: readonly string[] | undefined;
  /** The other account's fixture rows, which no read of this caller's account may show. */
  foreign: readonly string[];
  variants: readonly [string, string];
}

export function judgeByModel(model: ModelState, s: JudgedStep, profile: Profile): Finding[] {
  const { p, step, answer, index } = s;
  // No answer at all: every failure is a problem document (ERR-PROBLEM-1), and every response carries X-Request-Id
  // (ERR-PROBLEM-7); nothing else can be judged of it.
  if (answer.status === 0)
    return [
      {
        oracle: 'model',
        clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-7'],
        message: `no answer to ${step.method} ${step.path} as ${p.caller}`,
        index,
        expected: 'an HTTP answer',
        actual: answer.text,
      },
    ];
  // A shaped session or context may act on a cart other than the caller's own (another guest's, its account's customer's,
  // another account's): after a write it took, no cart is known any more.
  if ((p.mutation === 'session-shape' || p.mutation === 'context-shape') && step.method !== 'GET' && answer.status < 300)
    for (const owner of model.carts.keys()) model.carts.set(owner, undefined);
  return [
    ...judgeHeaders(step, answer, index, profile.docsUrl),
    ...judgeStep(model, p, step, answer, { index, variants: s.variants, follow: s.follow }),
    ...judgeAdmission(p, step, answer, index, s.declaredScopes),
    ...judgeConditional(step, answer, index),
    ...judgeToken(p, answer, index, profile),
    ...judgeProof(p, step, answer, index),
    ...judgeSession(p, step, answer, index, profile),
    ...judgeContext(p, step, answer, index, profile),
    ...judgeBodyShape(p, step, answer, index, {
      credentialPresented: p.caller === 'secret:own' && profile.secrets.accountRecoverySecret !== null,
    }),
    ...judgeSignedDelivery(p, answer, index, profile.secrets.stripeWebhookSecret !== null),
    ...judgeAccountData(model, p, step, answer, { index, created: s.created, foreign: s.foreign }),
    ...judgeReaders(p, s.readers ?? [], index),
  ];
}
