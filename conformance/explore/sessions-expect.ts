// What the spec says a deployment must answer to a guest-session shape (sessions-shape.ts), decided from the spec alone
// (Resources > Guest session value; Authentication > Guest sessions, Caller kinds, Credentials per consumer, Request
// processing order; the Errors table) and the RFCs it rests on (RFC 9110 for header fields). Where they read two ways
// the answer is `either`: a conforming deployment must never get a finding, so only a 5xx is one.
// Each variation gets a verdict at a stage of the request; combined, the earliest stage with a definite refusal decides
// and an unsure verdict at or before it may decide instead (its refusal joins the allowed answers), as for token shapes
// (tokens-expect.ts). `decide` and `guardVerdicts` are shared with the invited-agent contexts (contexts-expect.ts). Pure.
import type { CallerKind } from '../../contract/callers.js';
import { OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { BASE_API_SCOPES } from '../../contract/scopes.js';
import { CREDENTIAL_REFUSALS, type ErrorsByStatus } from '../rules/05-authentication.js';
import { LIST_CLAUSE, shownCallers } from '../rules/04-endpoints.js';
import { CUSTOMER_SCOPES } from '../lib/mint.js';
import type { ArtifactCarrier } from '../engine/transport/target.js';
import {
  ANY_4XX,
  decide,
  describeErrors,
  judgeExpectation,
  refuse,
  unsure,
  type ShapeExpectation as TokenExpectation,
  type Verdict,
} from './shapes-expect.js';
import { GUEST_SESSION_CARRIER, isSpecCarrier, type SessionShape } from './sessions-shape.js';

export { ANY_4XX, decide, describeErrors, refuse, unsure, type TokenExpectation, type Verdict };

export const either = (clauses: readonly string[], why: string): TokenExpectation => ({
  accept: 'either',
  clauses: [...new Set(clauses)],
  why,
});

/**
 * The guard's verdicts for a sound caller of `kind` holding `scopes` (undefined: its scopes are not the suite's to
 * know) on `op`: another kind than the operator on /v1/ops/* gets no success; a kind outside a list the spec shows gets 403 caller_not_allowed (insufficient_scope too: one stage,
 * ambiguities.md 18; PUR-RULE-2, ERR-TABLE-8); a list the spec does not show may admit it or not; a missing API scope is
 * 403 insufficient_scope (ERR-TABLE-9, `scopeClauses` naming the rule that maps the scopes), unsure where the operation's
 * scopes are not shown.
 */
export function guardVerdicts<S extends string>(
  stage: S,
  kind: CallerKind,
  op: Operation,
  scopes: readonly string[] | undefined,
  scopeClauses: readonly string[],
): Verdict<S>[] {
  const members = shownCallers(op.operationId);
  const list = LIST_CLAUSE[op.callers];
  // PUR-RULE-3: /v1/ops/* is operator-only, its rows not shown: no other kind gets a success there.
  if (op.group === 'operator' && kind !== 'operator') return [refuse(stage, ANY_4XX, ['PUR-RULE-3'])];
  if (members === undefined)
    return [
      unsure(stage, { 401: '*', 403: '*' }, [list], `the ${op.callers} list's members are not shown: a ${kind} may be admitted or not`),
    ];
  if (!members.includes(kind))
    return [refuse(stage, { 403: ['caller_not_allowed', 'insufficient_scope'] }, [list, 'PUR-RULE-2', 'ERR-TABLE-8'])];
  if (op.notShown?.includes('apiScopes'))
    return [unsure(stage, CREDENTIAL_REFUSALS.scope, ['ERR-TABLE-9'], `the API scopes of ${op.operationId} are not shown`)];
  if (scopes && !op.apiScopes.every((s) => scopes.includes(s)))
    return [refuse(stage, CREDENTIAL_REFUSALS.scope, [...scopeClauses, 'ERR-TABLE-9'])];
  return [];
}

export interface SessionExpectOptions {
  /** The operation the session is sent to (default: the cart read). */
  operation?: Operation;
  profile: Profile;
  /** The instant the request is judged at, for the previous guest key's deadline (default: now). */
  now?: Date;
  /** Where the target takes the session (default: the spec's `Guest-Session` header). */
  carrier?: ArtifactCarrier;
}

const STAGES = ['token', 'kind', 'session', 'guard', 'require'] as const;
type Stage = (typeof STAGES)[number];

const INVALID_SESSION: ErrorsByStatus = { 401: ['invalid_guest_session'] };
/**
 * A guest write without a session. The spec places the requirement at no stage (ambiguities.md 3), and the guest rate
 * limit precedes the handler (Request processing order): a spent budget may answer 429 rate_limited first (ERR-TABLE-12).
 */
const SESSION_REQUIRED: ErrorsByStatus = { 400: ['guest_session_required'], 429: ['rate_limited'] };
/** A minute around the previous key's deadline: clocks of two hosts are not the same instant. */
const DEADLINE_SKEW_MS = 60_000;

/** Why the two readings of each unsure variation stand. */
const WHY = {
  twice:
    'two session fields: RFC 9110 §5.3 forbids repeating a field that is not a list, and the spec does not say which one counts; a 400, a 401, either one taken (two valid carts) may come',
  cookieCarrier: "the target declares a cookie where the spec names the Guest-Session header: a deployment may read the spec's header too",
  emptyRead:
    'an empty Guest-Session field: a session that is absent (an empty cart, Guest sessions 2) or malformed (401 invalid_guest_session)',
  emptyCustomer:
    'an empty Guest-Session field beside a website token: a guest header that is present (refused) or absent (the customer served)',
  cookieSpace: 'whitespace around a cookie value: RFC 6265 §4.1.1 allows none, and parsers differ on trimming it',
  deadline: "signed with the previous key within a minute of its deadline: the deployment's clock decides",
} as const;

/** The session's format verdicts (Resources > Guest session value; Guest sessions 4 and 6). */
function formatVerdicts(shape: SessionShape, profile: Profile, now: Date): Verdict<Stage>[] {
  const out: Verdict<Stage>[] = [];
  // RES-GUEST-1: `gs1.<uuid>.<signature>`; any other shape is malformed (AUTH-GUEST-6, ERR-TABLE-6).
  if (shape.prefix || shape.signature === 'absent')
    out.push(refuse('session', INVALID_SESSION, ['RES-GUEST-1', 'AUTH-GUEST-6', 'ERR-TABLE-6']));
  // RES-GUEST-2: a lowercase UUID; an upper-case one, one without hyphens or no UUID at all is malformed.
  if (shape.uuid === 'not-uuid' || shape.uuid === 'upper-case' || shape.uuid === 'no-hyphens')
    out.push(refuse('session', INVALID_SESSION, ['RES-GUEST-2', 'AUTH-GUEST-6', 'ERR-TABLE-6']));
  // RES-GUEST-3: exactly 43 base64url characters (no padding): a shorter or padded signature is malformed.
  if (shape.signature === 'truncated' || shape.signature === 'padded')
    out.push(refuse('session', INVALID_SESSION, ['RES-GUEST-3', 'AUTH-GUEST-6', 'ERR-TABLE-6']));
  // AUTH-GUEST-5: a well-formed value whose HMAC is not the id's under the guest key is forged.
  if (
    shape.signature === 'altered' ||
    shape.signature === 'altered-late' ||
    shape.signature === 'case-flipped' ||
    shape.signature === 'other-key' ||
    shape.signature === 'other-uuid'
  )
    out.push(refuse('session', INVALID_SESSION, ['RES-GUEST-3', 'AUTH-GUEST-5', 'ERR-TABLE-6']));
  if (shape.signature === 'previous-key') {
    const { guestSessionKeyPrevious: previous, guestSessionKeyPreviousUntil: until } = profile.secrets;
    const left = until ? Date.parse(until) - now.getTime() : -Infinity;
    // AUTH-GUEST-13: the previous key verifies before its deadline; AUTH-GUEST-14: not at or after it (nor when none is
    // configured: the builder then signs with a key the deployment does not hold, AUTH-GUEST-5).
    if (!previous) out.push(refuse('session', INVALID_SESSION, ['AUTH-GUEST-5', 'ERR-TABLE-6']));
    else if (Math.abs(left) <= DEADLINE_SKEW_MS)
      out.push(unsure('session', INVALID_SESSION, ['AUTH-GUEST-13', 'AUTH-GUEST-14'], WHY.deadline));
    else if (left < 0) out.push(refuse('session', INVALID_SESSION, ['AUTH-GUEST-14', 'AUTH-GUEST-7', 'ERR-TABLE-6']));
  }
  // A valid session of another cart acts as that cart (AUTH-GUEST-16); a cart id nobody used is a new cart: the storefront
  // mints sessions and the service only verifies them (Guest sessions 1 and 7). Whitespace around a field value is not
  // part of it (RFC 9110 §5.5): the value as minted.
  return out;
}

/**
 * What a deployment must answer to a request of this session shape on `operation` (default: the cart read), sent with
 * the storefront's token (or what the shape puts instead). Accepted means a 2xx on a request the operation takes (a
 * cart write's body sound); whose cart it acts on is sessions-build.ts's `actsAs`.
 */
export function expectedOfSession(shape: SessionShape, o: SessionExpectOptions): TokenExpectation {
  const op = o.operation ?? OPERATIONS_BY_ID.get('getCart')!;
  const carrier = o.carrier ?? GUEST_SESSION_CARRIER;
  if (shape.carrier === 'twice') return either(['AUTH-KIND-9', 'AUTH-GUEST-16'], WHY.twice);
  // AUTH-TOKEN-1, ERR-TABLE-1: no token on /v1 is 401 invalid_token, whatever else the request carries.
  if (shape.token === 'none') return decide(STAGES, [refuse('token', CREDENTIAL_REFUSALS.invalid, ['AUTH-TOKEN-1', 'ERR-TABLE-1'])]);
  if (shape.carrier === 'other' && !isSpecCarrier(carrier)) return either(['AUTH-CRED-1'], WHY.cookieCarrier);
  const sent = shape.carrier === undefined;
  const write = op.method !== 'GET';

  if (shape.token === 'customer') {
    // AUTH-CRED-2: the customer's own token and nothing else; AUTH-GUEST-11 and AUTH-ORDER-6: a guest header beside a
    // website token is refused, with any 4xx (ambiguities.md 14).
    if (sent && shape.value === 'empty') return either(['AUTH-GUEST-11'], WHY.emptyCustomer);
    if (sent) return decide(STAGES, [refuse('kind', ANY_4XX, ['AUTH-GUEST-11', 'AUTH-ORDER-6'])]);
    return decide(STAGES, guardVerdicts('guard', 'customer', op, CUSTOMER_SCOPES, ['AUTH-CUST-1']));
  }

  const verdicts: Verdict<Stage>[] = [];
  // AUTH-GUEST-2: the service verifies sessions on cart routes only; elsewhere a guest is judged by the guard alone.
  if (op.group === 'cart') {
    if (!sent) {
      // AUTH-GUEST-3: a guest read without a session sees an empty cart; AUTH-GUEST-4, ERR-TABLE-7: a write is refused.
      if (write) verdicts.push(refuse('require', SESSION_REQUIRED, ['AUTH-GUEST-4', 'ERR-TABLE-7', 'ERR-TABLE-12']));
    } else if (shape.value === 'empty') {
      if (write)
        verdicts.push(
          refuse('require', { ...SESSION_REQUIRED, ...INVALID_SESSION }, ['AUTH-GUEST-4', 'AUTH-GUEST-6', 'ERR-TABLE-7', 'ERR-TABLE-12']),
        );
      else verdicts.push(unsure('session', INVALID_SESSION, ['AUTH-GUEST-3', 'AUTH-GUEST-6'], WHY.emptyRead));
    } else {
      verdicts.push(...formatVerdicts(shape, o.profile, o.now ?? new Date()));
      if (shape.value === 'whitespace' && carrier.in === 'cookie')
        verdicts.push(unsure('session', INVALID_SESSION, ['RES-GUEST-1'], WHY.cookieSpace));
    }
  }
  verdicts.push(...guardVerdicts<Stage>('guard', 'guest', op, BASE_API_SCOPES, ['AUTH-ACTIVE-2']));
  return decide(STAGES, verdicts);
}

/**
 * An answer judged on an expectation: undefined when it fits, else what was expected. Accepted: a 2xx. Refused: one of
 * the statuses, with one of that status's codes (CREDENTIAL_REFUSED). Either way: never a 5xx.
 */
export const judgeSessionAnswer = (e: TokenExpectation, status: number, error: unknown) =>
  judgeExpectation(e, status, error, ['AUTH-KIND-9']);
