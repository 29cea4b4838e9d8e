// A generated body (bodies.ts) judged on the answer it got: what the spec pins for that body on that route
// (bodies-expect.ts expectedOfBody: a body that is not JSON is 400 before anything else, one over the cap a 4xx, the
// recovery request's members as the spec lists them, and never a 5xx), as a finding of the model. Pure.
import { INTERNAL_PREFIX, WEBHOOK_PREFIX } from '../../contract/routes.js';
import { capOf, expectedOfBody } from './bodies-expect.js';
import { describeBody } from './bodies.js';
import type { Answer, Finding, Step } from './exchange.js';
import type { PlanStep } from './plan.js';

/** The recovery request's own clauses: judged only where the route's credential was presented (it is checked first). */
const RECOVERY_PINNED = /^(RES-RECOVERY|LIM-RECOVERY|END-RECOVERY)-/;

export function judgeBodyShape(p: PlanStep, step: Step, answer: Answer, index: number, o: { credentialPresented: boolean }): Finding[] {
  if (p.mutation !== 'body-shape' || !p.bodyShape || step.path.startsWith(WEBHOOK_PREFIX)) return [];
  const route = { operationId: step.operationId, method: step.method, path: step.path.split('?')[0]! };
  const e = expectedOfBody(route, p.bodyShape, step.generatedFrom ?? {});
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  const what = `${step.method} ${step.path} with ${describeBody(p.bodyShape)} (${e.why})`;
  const finding = (expected: unknown): Finding[] => [
    { oracle: 'model', clauses: [...e.clauses], message: what, index, expected, actual: `${answer.status} ${String(error ?? '')}`.trim() },
  ];
  // A body within its cap is never refused as too large (413, RFC 9110 15.5.14): the cap is the spec's, exactly at it
  // is within it (LIM-BODY-1, LIM-CONV-1, LIM-INTENT-1).
  const cap = capOf(route);
  const bytes = step.body ? Buffer.byteLength('text' in step.body ? step.body.text : JSON.stringify(step.body.json), 'utf8') : 0;
  if (answer.status === 413 && bytes <= cap.bytes)
    return [
      {
        oracle: 'model',
        clauses: [cap.clause],
        message: `${step.method} ${step.path} with a body of ${bytes} bytes (within the ${cap.bytes}-byte cap) refused as too large`,
        index,
        expected: 'not 413',
        actual: 413,
      },
    ];
  if (e.statuses === 'any-not-5xx' || (e.clauses.some((c) => RECOVERY_PINNED.test(c)) && !o.credentialPresented))
    return answer.status >= 500 ? finding('any status below 500') : [];
  // An internal route's secret is no token: whether it is checked before the body is decoded, the spec does not say (its
  // processing order is the operations' pipeline), so a refusal for the credential stands where none was presented.
  const credentialRefusal = step.path.startsWith(INTERNAL_PREFIX) && p.caller !== 'secret:own' && [401, 403].includes(answer.status);
  if (!e.statuses.includes(answer.status) && !credentialRefusal) return finding(e.statuses.length > 10 ? 'a 4xx' : e.statuses.join(' or '));
  if (answer.status >= 400 && !credentialRefusal && e.errors && !e.errors.includes(String(error)))
    return finding(`error ${e.errors.join(' or ')}`);
  return [];
}
