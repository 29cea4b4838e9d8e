// Who may use a route, judged on every unmutated step `explore` sends (docs/explore.md, "Callers"): the rule book's guard
// rule (rules/04-endpoints.ts CALLER_GUARD) on the operations whose caller list the spec shows, for every sound caller
// of every kind, admitted or not, so that a refusal that should have been an answer and an answer that should have been
// a refusal are both findings; and OWN_CREDENTIAL_REQUIRED on the internal routes and the webhook, for every request
// without the route's own credential. Pure.
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { DEFAULT_SCOPES } from '../lib/mint.js';
import { CALLER_GUARD, CONDITIONAL_GET, OWN_CREDENTIAL_REQUIRED } from '../rules/04-endpoints.js';
import type { Rule } from '../rules/rule.js';
import type { Answer, Finding, Step } from './exchange.js';
import { hasOwnCredential } from './commands.js';
import { describeToken, judgeShapedToken, type TokenKind } from './tokens.js';
import type { Profile } from '../../contract/profile.js';
import { isSound, kindOfCaller, type PlanStep } from './plan.js';

/** The default scopes of the token a kind's caller presents (world.ts, agent-callers.ts mint with these). */
const SCOPES_OF: Readonly<Record<string, string>> = {
  customer: DEFAULT_SCOPES.customer,
  delegated: DEFAULT_SCOPES.delegated,
  guest: DEFAULT_SCOPES.guest,
  operator: DEFAULT_SCOPES.operator,
  // Invited agents carry every permission, assistants a session of every permission: the customer's API scopes.
  'invited-agent': DEFAULT_SCOPES.customer,
  assistant: DEFAULT_SCOPES.assistant,
};

/**
 * Whether the caller's token carries every API scope the operation needs, as far as anyone knows them: the spec's row
 * (where it shows them) and the scopes the target's documents declare. Unknown is not covered (insufficient_scope stands).
 */
function scopesCovered(operationId: string, kind: string, declared: readonly string[] | undefined): boolean {
  const op = OPERATIONS_BY_ID.get(operationId);
  if (!op || op.notShown?.includes('apiScopes')) return false;
  const held = new Set((SCOPES_OF[kind] ?? '').split(' '));
  return [...op.apiScopes, ...(declared ?? [])].every((s) => held.has(s));
}

const findingOf = (rule: Rule<any, any>, judged: unknown, index: number): Finding[] => {
  const v = rule.judge(judged);
  if (!v) return [];
  const clauses = v.clause ?? rule.clause;
  return [
    {
      oracle: 'model',
      clauses: typeof clauses === 'string' ? [clauses] : [...clauses],
      message: v.what,
      index,
      expected: v.expected,
      actual: v.actual,
    },
  ];
};

/**
 * A delivery signed with the profile's webhook secret over its exact bytes (compact or indented) is never refused for
 * its signature (END-PUBLIC-8: the body is read as raw bytes): 400 invalid_signature or missing_signature is a finding.
 */
export function judgeSignedDelivery(p: PlanStep, answer: Answer, index: number, signed: boolean): Finding[] {
  if (p.op !== 'receivePaymentWebhook' || p.caller !== 'secret:own' || p.mutation !== undefined || !signed) return [];
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  return answer.status === 400 && (error === 'invalid_signature' || error === 'missing_signature')
    ? [
        {
          oracle: 'model',
          clauses: ['END-PUBLIC-8'],
          message: `a delivery signed over its exact bytes was refused as ${String(error)}`,
          index,
          expected: '200 {received: true}',
          actual: `${answer.status} ${String(error)}`,
        },
      ]
    : [];
}

/** A shaped token's answer (tokens.ts): accepted, refused with the spec's statuses, or at least no 5xx. */
export function judgeToken(p: PlanStep, answer: Answer, index: number, profile: Profile): Finding[] {
  if (p.mutation !== 'token-shape' || !p.token) return [];
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  const kind = p.caller.split(':')[0] as TokenKind;
  const v = judgeShapedToken(kind, p.token, profile, OPERATIONS_BY_ID.get(p.op), answer.status, error);
  return v
    ? [
        {
          oracle: 'model',
          clauses: [...v.clauses],
          message: `a token with ${describeToken(p.token)} as ${p.caller} on ${p.op}`,
          index,
          expected: v.expected,
          actual: `${answer.status} ${String(error ?? '')}`.trim(),
        },
      ]
    : [];
}

/** END-CONV-8 on a conditional GET (rules/04-endpoints.ts CONDITIONAL_GET): a matching tag answers 304, with no body. */
export function judgeConditional(step: Step, answer: Answer, index: number): Finding[] {
  const sent = step.headers['if-none-match'];
  const request = { method: step.method, ifNoneMatch: typeof sent === 'string' ? sent : undefined };
  if (!CONDITIONAL_GET.applies(request)) return [];
  return findingOf(CONDITIONAL_GET, { status: answer.status, etag: answer.headers.etag, text: answer.text, request }, index);
}

/** The admission rules on one answer of the target; `declared` are the scopes its documents name for the operation. */
export function judgeAdmission(p: PlanStep, step: Step, answer: Answer, index: number, declared?: readonly string[]): Finding[] {
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  if (hasOwnCredential(p.op)) {
    const request = { operationId: p.op, presented: p.caller === 'secret:own' };
    return OWN_CREDENTIAL_REQUIRED.applies(request)
      ? findingOf(OWN_CREDENTIAL_REQUIRED, { status: answer.status, error, request }, index)
      : [];
  }
  // A mutated request may be refused for what was mutated before the guard (a body that is not JSON, a removed header).
  if (p.mutation !== undefined || !isSound(p.caller) || step.method !== OPERATIONS_BY_ID.get(p.op)?.method) return [];
  const kind = kindOfCaller(p.caller);
  if (kind === undefined || kind === 'anonymous' || kind === 'secret') return [];
  const request = { operationId: p.op, kind, scopesCovered: scopesCovered(p.op, kind, declared) };
  if (!CALLER_GUARD.applies(request)) return [];
  return findingOf(CALLER_GUARD, { status: answer.status, error, request }, index);
}
