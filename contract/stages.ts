// The spec's request processing order (Authentication > Request processing order) as data: its stages in order, and the
// stages at which each refusal may be decided. Two refusals are ordered only where every stage that may decide one comes
// before every stage that may decide the other; where the spec places a refusal at no stage, or at several, the two may
// win either way (docs/ambiguities.md). Data and one pure lookup; both the suite and the reference may read it.

/** The stages, in the spec's order; `decoding` is the body decoding that precedes authentication. */
export const STAGES = ['decoding', 'authenticate', 'admit-caller', 'actor', 'guard', 'rate-limit', 'input-validation', 'handler'] as const;
export type Stage = (typeof STAGES)[number];

export interface StageRow {
  stage: Stage;
  /** What the spec says the stage decides. */
  decides: string;
  /** The spec's sentence that places it. */
  source: string;
}

export const STAGE_TABLE: readonly StageRow[] = [
  {
    stage: 'decoding',
    decides: 'malformed JSON bodies, bodies over the cap',
    source: 'A malformed JSON body fails during decoding, before authentication: it yields 400, not 401.',
  },
  {
    stage: 'authenticate',
    decides: 'the token (issuer, signature, audience, type, expiry), the caller kind, DPoP proofs and nonces',
    source: 'authenticate: verifies the token and classifies the caller',
  },
  {
    stage: 'admit-caller',
    decides: 'forwarded agents, headers that do not fit the caller kind',
    source: 'admit caller: resolves a forwarded agent to the caller it speaks for; admits only headers that fit the caller kind',
  },
  {
    stage: 'actor',
    decides: 'lifecycle (ended account access), delegation, the live scopes of assistant sessions',
    source: 'actor: resolves live authority: lifecycle, delegation',
  },
  {
    stage: 'guard',
    decides: "the operation's declared callers, agent scopes, API scopes",
    source: "guard: checks the operation's declared callers, assistant agentScopes, API scopes and delegated scope translation",
  },
  { stage: 'rate-limit', decides: 'guest and assistant budgets', source: 'rate limit: guest counters keyed by operation id' },
  {
    stage: 'input-validation',
    decides: 'invalid input',
    source: 'Because the stages precede input validation, a bad token is answered before the body is validated.',
  },
  { stage: 'handler', decides: 'domain refusals (an empty cart, a record that does not exist)', source: 'input validation, handler' },
];

const from = (first: Stage, last: Stage): readonly Stage[] => STAGES.slice(STAGES.indexOf(first), STAGES.indexOf(last) + 1);

/**
 * The stages at which the spec lets each named refusal be decided. A code missing here (a code the spec does not name, a
 * refusal of an unmatched route) may be decided anywhere, so it is ordered against nothing.
 */
export const REFUSAL_STAGES: Readonly<Record<string, readonly Stage[]>> = {
  invalid_token: ['authenticate'],
  invalid_dpop_proof: ['authenticate'],
  use_dpop_nonce: ['authenticate'],
  // A guest session is part of recognising the guest (Caller kinds), and is verified "on cart routes" (Guest sessions 1).
  invalid_guest_session: from('authenticate', 'admit-caller'),
  // "Every guest cart write requires a session": the spec names no stage for the requirement.
  guest_session_required: from('authenticate', 'handler'),
  account_access_ended: ['actor'],
  // Stale assistant tokens act signed out (actor); account actions are then refused, by the guard or the domain policy.
  sign_in_required: from('actor', 'handler'),
  caller_not_allowed: ['guard'],
  insufficient_scope: ['guard'],
  // A verifier or identity-proxy outage: wherever the service calls one.
  unavailable: from('authenticate', 'actor'),
  rate_limited: ['rate-limit'],
  invalid_request: ['input-validation'],
  cart_empty: ['handler'],
  direct_conversation_open: ['handler'],
};

/**
 * The stages that may decide a refusal: its code's row, else by status for a code the spec does not name: 413 and 415 at
 * decoding, another 400 at decoding or input validation, 404 and 405 anywhere (where an unmatched route is refused is
 * not shown), any other at the handler.
 */
export function stagesOf(refusal: { error: string | null; status: number }): readonly Stage[] {
  const named = refusal.error === null ? undefined : REFUSAL_STAGES[refusal.error];
  if (named) return named;
  if (refusal.status === 413 || refusal.status === 415) return ['decoding'];
  if (refusal.status === 400) return ['decoding', 'input-validation'];
  if (refusal.status === 404 || refusal.status === 405) return STAGES;
  return ['handler'];
}

/**
 * Whether the spec orders the two refusals (which one a request that earns both gets): every stage of one before every
 * stage of the other. Two different codes of one stage are not ordered either: the spec orders stages, not the checks
 * within a stage.
 */
export function refusalsOrdered(a: { error: string | null; status: number }, b: { error: string | null; status: number }): boolean {
  const ia = stagesOf(a).map((x) => STAGES.indexOf(x));
  const ib = stagesOf(b).map((x) => STAGES.indexOf(x));
  return Math.max(...ia) < Math.min(...ib) || Math.max(...ib) < Math.min(...ia);
}
