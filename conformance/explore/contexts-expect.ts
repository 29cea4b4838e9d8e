// What the spec says a deployment must answer to an invited-agent context shape (contexts-shape.ts), decided from the
// spec alone (Caller kinds: invited-agent; Credentials per consumer; Customer authority; Scope translation and its
// permission table; Assistant authority: forwarders; the Errors table) and the RFCs it rests on (RFC 7519 and RFC 7515:
// the context is a JWT, `invited-agent+jwt`). The spec names the context's type, key and binding; its claims are the
// deployment's format, so a member the spec does not judge is `either` where the reference's format (docs/tokens.md)
// would refuse it. A conforming deployment must never get a finding: where the spec reads two ways, only a 5xx is one.
// Stages as the spec orders them: the forwarder's token is verified (authenticate), its artifact counted and the context
// verified (classification, admit caller), then the guard. Pure.
import type { Operation } from '../../contract/operations.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { BASE_API_SCOPES, PERMISSION_API_SCOPES, type Permission } from '../../contract/scopes.js';
import { CREDENTIAL_REFUSALS, type ErrorsByStatus } from '../rules/05-authentication.js';
import {
  decide,
  either,
  guardVerdicts,
  judgeSessionAnswer,
  refuse,
  unsure,
  type TokenExpectation,
  type Verdict,
} from './sessions-expect.js';
import { permissionsOf, type ContextShape } from './contexts-shape.js';

const STAGES = ['token', 'artifact', 'context', 'guard'] as const;
type Stage = (typeof STAGES)[number];

/**
 * A refused context or forwarder: "rejected with 401 or 403" (AUTH-TOKEN-8), the code not named for a companion
 * credential (the checks' expectCredentialRefused; the reference answers 401 invalid_token).
 */
const REFUSED: ErrorsByStatus = { 401: '*', 403: '*' };

/** Why the two readings of each unsure variation stand. */
const WHY = {
  typUpper: 'its typ in upper case: RFC 7515 §4.1.9 compares media types case-insensitively, the spec writes invited-agent+jwt',
  typMediaType: 'its typ as application/<type>: RFC 7515 §4.1.9 takes it as the same type, the spec writes invited-agent+jwt',
  hs512: 'the spec names the key that signs contexts (WEB_SESSION_CONTEXT_KEY), not the algorithm: HS256 is the format of docs/tokens.md',
  subUnknown:
    'the spec does not say whether the service knows an account before its first request: a context for one may make it or be refused',
  subMachine:
    'a machine subject as the account: no account has it, and the spec says only that the context key creates no customer authority (AUTH-CUST-8)',
  agentId: 'the agent id is a member of the deployment\'s format, not of the spec: "the existing delegated agent" may be named otherwise',
  permissionsForm: "the permissions are the deployment's format: absent or as a string, they may be refused or read as none",
  expLeeway: 'exp seconds past: RFC 7519 §4.1.4 lets a verifier allow "some small leeway"',
  expFar: 'the spec bounds no context lifetime: a verifier may cap it (as the reference caps its age) or not',
  expAbsent: 'exp is OPTIONAL in RFC 7519 §4.1.4, and the spec names no expiry for contexts',
  iat: 'iat is not judged by the spec; RFC 7519 §4.1.6 lets a verifier judge age by it',
  aud: 'the spec names no audience for contexts and the format has none; RFC 7519 §4.1.3 rejects a JWT whose aud does not name its processor, a verifier may ignore a claim its format lacks',
  otherKind:
    "the context beside another caller kind's token: refused (AUTH-CUST-9, AUTH-ORDER-6), or the header ignored and the token served as what it is; never the context's authority",
  twice:
    'the context header twice: RFC 9110 §5.3 forbids repeating a field that is not a list; the spec counts artifacts ("exactly one"), and these are one artifact twice',
} as const;

/** The verdicts of the context's own members (its typ, algorithm, signature and claims). */
function contextVerdicts(shape: ContextShape): Verdict<Stage>[] {
  const out: Verdict<Stage>[] = [];
  const no = (clauses: string[]) => out.push(refuse('context', REFUSED, clauses));
  const maybe = (why: string, clauses: string[]) => out.push(unsure('context', REFUSED, clauses, why));

  // AUTH-CRED-7: the token type invited-agent+jwt; another typ, or none, is refused.
  if (shape.typ === 'upper') maybe(WHY.typUpper, ['AUTH-CRED-7']);
  else if (shape.typ === 'media-type') maybe(WHY.typMediaType, ['AUTH-CRED-7']);
  else if (shape.typ) no(['AUTH-CRED-7']);

  // AUTH-CRED-5, AUTH-KIND-10: a signed context, with WEB_SESSION_CONTEXT_KEY (Customer authority): unsigned (alg none,
  // RFC 7515), an algorithm no JWS registers (alg is case-sensitive, RFC 7515 §4.1.1), or another key's signature (the
  // identity provider's, the guest key, any other) is no such context.
  if (shape.alg === 'hs512') maybe(WHY.hs512, ['AUTH-CRED-5']);
  else if (shape.alg) no(['AUTH-CRED-5', 'AUTH-KIND-10']);
  if (shape.signing) no(['AUTH-CRED-5', 'AUTH-KIND-10']);

  // AUTH-KIND-10: the agent acts for the account of its context; a context naming none (RFC 7519 §4.1.2: sub is a
  // string) names no account to act for. Another account's context acts for that account.
  if (shape.sub === 'absent' || shape.sub === 'empty' || shape.sub === 'wrong-type') no(['AUTH-KIND-10']);
  else if (shape.sub === 'unknown') maybe(WHY.subUnknown, ['AUTH-KIND-10']);
  else if (shape.sub === 'machine') maybe(WHY.subMachine, ['AUTH-CUST-8', 'AUTH-KIND-10']);
  if (shape.agent_id && shape.agent_id !== 'other') maybe(WHY.agentId, ['AUTH-KIND-10']);
  if (shape.permissions === 'absent' || shape.permissions === 'wrong-type') maybe(WHY.permissionsForm, ['AUTH-SCOPE-3']);

  // RFC 7519 §4.1.4: a JWT whose exp has passed "MUST NOT be accepted"; an hour is past any leeway, and an exp that is
  // no NumericDate cannot be compared.
  if (shape.exp === 'past-far' || shape.exp === 'string') no(['AUTH-KIND-10']);
  else if (shape.exp === 'past-seconds') maybe(WHY.expLeeway, ['AUTH-KIND-10']);
  else if (shape.exp === 'future-far') maybe(WHY.expFar, ['AUTH-KIND-10']);
  else if (shape.exp === 'absent') maybe(WHY.expAbsent, ['AUTH-KIND-10']);
  if (shape.iat) maybe(WHY.iat, ['AUTH-KIND-10']);

  // AUTH-CRED-6: bearer-bound: a context bound to another token, to none, or by a binding that is no hash, is refused.
  if (shape.ath) no(['AUTH-CRED-6']);
  if (shape.aud && shape.aud !== 'api') maybe(WHY.aud, ['AUTH-KIND-10']);
  return out;
}

/** The API scopes a context's permissions map to (Scope translation), undefined where the member is not a list. */
export function scopesOfPermissions(permissions: readonly string[] | undefined): readonly string[] | undefined {
  if (permissions === undefined) return undefined;
  const known = permissions.filter((p): p is Permission => Object.hasOwn(PERMISSION_API_SCOPES, p));
  // AUTH-SCOPE-6: base authority for every agent; AUTH-SCOPE-7..9 each permission's scopes; AUTH-SCOPE-10: unknown
  // permissions unlock nothing beyond the base scopes.
  return [...new Set([...BASE_API_SCOPES, ...known.flatMap((p) => PERMISSION_API_SCOPES[p])])];
}

/** The clauses a missing scope of `op` is judged by, for an invited agent. */
function scopeClauses(shape: ContextShape, op: Operation): string[] {
  const out = ['AUTH-SCOPE-3', 'AUTH-SCOPE-4'];
  if (op.operationId === 'checkoutSavedCard') out.push('AUTH-SCOPE-11');
  if (['unknown-only', 'api-scopes', 'upper-case'].includes(shape.permissions ?? '')) out.push('AUTH-SCOPE-10');
  if (shape.permissions === 'none') out.push('AUTH-SCOPE-6');
  return out;
}

export interface ContextExpectOptions {
  /** The operation the context is sent to (default: the cart read). */
  operation?: Operation;
  profile: Profile;
}

/**
 * What a deployment must answer to a request of this context shape on `operation` (default: the cart read): the
 * web-agent forwarder's token plus the context, both as the shape varies them. Accepted means a 2xx on a request the
 * operation takes, acting for the account contexts-shape.ts actsAsOfContext names.
 */
export function expectedOfContext(shape: ContextShape, o: ContextExpectOptions): TokenExpectation {
  const op = o.operation ?? OPERATIONS_BY_ID.get('getCart')!;
  if (shape.forwarder === 'storefront' || shape.forwarder === 'customer') return either(['AUTH-CUST-9'], WHY.otherKind);
  if (shape.carrier === 'twice') return either(['AUTH-ASST-18', 'AUTH-CRED-5'], WHY.twice);
  const v: Verdict<Stage>[] = [];
  // AUTH-TOKEN-4, AUTH-TOKEN-6, ERR-TABLE-2: the forwarder's token is verified first, as every access token.
  if (shape.forwarder === 'other-audience') v.push(refuse('token', CREDENTIAL_REFUSALS.invalid, ['AUTH-TOKEN-4', 'ERR-TABLE-2']));
  if (shape.forwarder === 'expired') v.push(refuse('token', CREDENTIAL_REFUSALS.invalid, ['AUTH-TOKEN-6', 'ERR-TABLE-2']));
  // AUTH-ASST-17, AUTH-ASST-18: a forwarder needs exactly one original artifact (a context in a cookie is none: it
  // travels in its header, Credentials per consumer). AUTH-CUST-9: a context is taken only with the web-agent
  // forwarder's token, so the MCP forwarder's has no artifact of its own.
  if (shape.carrier === 'absent' || shape.carrier === 'cookie') v.push(refuse('artifact', REFUSED, ['AUTH-ASST-17', 'AUTH-CRED-5']));
  if (shape.carrier === 'two-artifacts') v.push(refuse('artifact', REFUSED, ['AUTH-ASST-18']));
  if (shape.forwarder === 'mcp-forwarder') v.push(refuse('artifact', REFUSED, ['AUTH-CUST-9', 'AUTH-ASST-17']));
  if (shape.carrier !== 'absent') v.push(...contextVerdicts(shape));
  // AUTH-SCOPE-5: the forwarding credential must be allowed to forward agents (agent:forward), checked by the guard.
  if (shape.forwarder === 'no-forward-scope') v.push(refuse('guard', REFUSED, ['AUTH-SCOPE-5']));
  // AUTH-SCOPE-3, AUTH-SCOPE-4: the guard requires the operation's scopes within those the permissions map to.
  const scopes = scopesOfPermissions(permissionsOf(shape));
  v.push(...guardVerdicts<Stage>('guard', 'invited-agent', op, scopes, scopeClauses(shape, op)));
  if (scopes === undefined && !op.apiScopes.every((s) => (BASE_API_SCOPES as readonly string[]).includes(s)))
    v.push(unsure('guard', CREDENTIAL_REFUSALS.scope, ['AUTH-SCOPE-4'], WHY.permissionsForm));
  return decide(STAGES, v);
}

/**
 * An answer judged on an expectation: undefined when it fits, else what was expected. Accepted: a 2xx. Refused: one of
 * the statuses, with one of that status's codes. Either way: never a 5xx.
 */
export function judgeContextAnswer(
  e: TokenExpectation,
  status: number,
  error: unknown,
): { expected: string; clauses: readonly string[] } | undefined {
  const v = judgeSessionAnswer(e, status, error);
  return v && e.accept === true ? { ...v, clauses: ['AUTH-KIND-10'] } : v;
}
