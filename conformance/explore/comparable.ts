// When the differential oracle (projection.ts) compares the outcomes of two answers: which refusals are the same answer,
// which a spec leaves unordered, and where a success against a refusal says nothing because the spec does not show that
// refusal (docs/explore.md, "What is never compared"). Pure.
import { refusalsOrdered } from '../../contract/stages.js';
import type { Step } from './exchange.js';
import type { Projection } from './projection.js';

/** What the model knows of a step before it is sent (model-knows.ts, expectedOutcome): its outcome where the spec pins it. */
export interface DifferentialContext {
  expected?: 'success' | undefined;
}

/**
 * Mutations whose handling the spec does not pin: a duplicated X-Request-Id, a bad percent-escape in the query (a real
 * parameter of searchProducts), a body without members (a checkout may take the default card), a generated body (what
 * the spec pins of it is judged by bodies-judge.ts from the spec alone), a shaped token (judged by tokens.ts). Whether
 * they are refused,
 * and how, is not compared (a 5xx still is); the model and the header rules still judge their answers.
 */
const OPEN_MUTATIONS = new Set([
  'duplicate-header',
  'bad-path-escape',
  'missing-member',
  'body-shape',
  'token-shape',
  'proof-shape',
  'session-shape',
  'context-shape',
]);

export const outcomeOpen = (step: Step, t: Projection, r: Projection, classesDiffer: boolean): boolean =>
  OPEN_MUTATIONS.has(step.mutation ?? '') &&
  t.status < 500 &&
  r.status < 500 &&
  (classesDiffer || (t.status >= 400 && (t.status !== r.status || t.error !== r.error)));

/** The cart writes whose quantity the sequence accumulates on a line (addCartItem adds to it). */
const LINE_WRITES = new Set(['addCartItem', 'updateCartItem']);

/**
 * Whether a success/refusal difference is compared. A refusal the spec names (either side's code) is; a success against a
 * refusal whose code it does not show (a repeated cancel, the removal of a line the cart lacks, the deletion of an
 * unknown address: 404 or 409 for one deployment, 2xx for another) only where the model knows the step succeeds, and then
 * only when the target is the one that refused. The reference's invalid_request on a cart line write the plan did not
 * mutate is its line cap (99 units), an input bound the spec does not show: not compared.
 */
export function outcomeComparable(step: Step, t: Projection, r: Projection, context: DifferentialContext): boolean {
  const success = (p: Projection) => p.status >= 200 && p.status < 300;
  const refusal = (p: Projection) => p.status >= 400 && p.status < 500;
  const [ok, refused] = success(t) && refusal(r) ? [t, r] : success(r) && refusal(t) ? [r, t] : [undefined, undefined];
  if (!ok || !refused) return true;
  if (refused === r && r.error === 'invalid_request' && LINE_WRITES.has(step.operationId) && step.mutation === undefined) return false;
  if (refused.pinned) return true;
  return context.expected === 'success' && refused === t;
}

/**
 * invalid_request and a refusal of a code the spec does not name are the same answer: which input shapes a deployment
 * validates as such, and how it refuses an id it does not know, is its choice (payload shapes are not shown).
 */
export const inputRefusals = (a: Projection, b: Projection): boolean =>
  (a.error === 'invalid_request' && !b.pinned) || (b.error === 'invalid_request' && !a.pinned);

/**
 * Two different refusals the spec does not order (contract/stages.ts): a request that earns both may get either, so which
 * one won is not compared; that it was refused still is (the status class, and the model).
 */
export const unorderedRefusals = (a: Projection, b: Projection): boolean =>
  a.status < 500 && b.status < 500 && a.error !== b.error && !refusalsOrdered(a, b);
