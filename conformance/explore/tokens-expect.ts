// What the spec says a deployment must answer to a shaped token (tokens-shape.ts), decided from the spec alone (Authentication
// > Token verification, Caller kinds, Request processing order; the Errors table) and the RFCs it rests on (RFC 9068 for
// at+jwt access tokens, RFC 7519 and RFC 7515 for JWTs, RFC 9449 for DPoP, RFC 6750 and RFC 9110 for the header). Where
// they read two ways the answer is `either`: a conforming deployment must never get a finding, so only a 5xx is one.
// Each variation gets a verdict at a stage of the request; combined, the earliest stage with a definite refusal decides
// and an unsure verdict at or before it may decide instead (its refusal joins the allowed answers). Pure.
import type { Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { CREDENTIAL_REFUSALS, describeRefusal, type ErrorsByStatus } from '../rules/05-authentication.js';
import { decide, judgeExpectation, type ShapeExpectation } from './shapes-expect.js';
import { classify, claimsOf } from './tokens-classify.js';
import { defaultOperation, mintedAudience, type TokenKind, type TokenShape } from './tokens-shape.js';

export { describeRefusal, type ErrorsByStatus };

export type TokenExpectation = ShapeExpectation;

/**
 * The stages of the spec's processing order a token is judged at, in order: the credential's presence (`form`),
 * verification (Token verification 2, and a DPoP proof), classification (Token verification 3-4: "the caller kind is
 * derived" after verifying, "even with a valid signature"), the guard (API scopes). The first three are the
 * authenticate stage; the spec orders verification before classification by its numbered list and by the Errors table,
 * which answers every rejected token 401 invalid_token.
 */
const STAGES = ['form', 'verify', 'classify', 'guard'] as const;
type Stage = (typeof STAGES)[number];

interface Verdict {
  stage: Stage;
  /** A definite refusal, or one the spec reads two ways (the refusal is then what it would be if refused). */
  definite: boolean;
  refusal: ErrorsByStatus;
  clauses: string[];
  why?: string;
}

// The spec's refusals by stage (rules/05-authentication.ts): ERR-TABLE-2, AUTH-TOKEN-8, ERR-TABLE-9.
const INVALID: ErrorsByStatus = CREDENTIAL_REFUSALS.invalid;
const COMBINATION: ErrorsByStatus = CREDENTIAL_REFUSALS.combination;
const SCOPE: ErrorsByStatus = CREDENTIAL_REFUSALS.scope;
// Ambiguities 6 and 14 (docs/ambiguities.md): a token of another kind with this kind's headers: any of 400, 401, 403.
const ANY_REFUSAL: ErrorsByStatus = { 400: '*', 401: ['invalid_token'], 403: '*' };

const refuse = (stage: Stage, refusal: ErrorsByStatus, clauses: string[]): Verdict => ({ stage, definite: true, refusal, clauses });
const unsure = (stage: Stage, refusal: ErrorsByStatus, clauses: string[], why: string): Verdict => ({
  stage,
  definite: false,
  refusal,
  clauses,
  why,
});

/** Why the two readings of each unsure variation stand. */
const WHY = {
  audBoth:
    'aud holds its audience and another: "a token for another audience" is refused (AUTH-TOKEN-4), yet RFC 9068 §4 asks only that aud contain the service\'s',
  audSlash:
    'aud spelt with a trailing slash: RFC 7519 §7.3 compares strings exactly, but RFC 9068 §4 takes "an identifier the resource server expects for itself", which a deployment may know in both spellings',
  audProfileOther: 'the spec names the audience of customer and assistant tokens only, and the profile declares none for this kind',
  typUpper: 'typ AT+JWT: RFC 9068 §4 names "at+jwt", RFC 7515 §4.1.9 compares media types case-insensitively',
  typMediaType: 'typ application/at+jwt: RFC 9068 §4 takes it as at+jwt (RFC 7515 §4.1.9), the spec writes at+jwt',
  kid: 'kid is a hint (RFC 7515 §4.1.4): the spec verifies the signature against the published key set, which a key of it verifies',
  expLeeway: 'exp seconds past: RFC 9068 §4 lets a verifier allow "some small leeway, usually no more than a few minutes"',
  nbf: 'nbf is not among the claims the spec verifies (issuer, signature, audience, type, expiry), RFC 7519 §4.1.5 makes it binding',
  iat: 'iat is not among the claims the spec verifies; RFC 9068 §2.2 requires it and RFC 7519 §4.1.6 lets a verifier judge age by it',
  jti: 'jti is not among the claims the spec verifies; RFC 9068 §2.2 requires it',
  cnf: 'a confirmation the service has no means to check (RFC 7800): a verifier may ignore it or refuse the token',
  scopeForm:
    'scope is a space-delimited string (RFC 9068 §2.2.3, RFC 6749 §3.3, one SP between tokens): a lenient verifier splits it otherwise, a strict one refuses or grants nothing',
  scopeNotShown: "the operation's API scopes are not shown",
  duplicate:
    'two Authorization fields: RFC 9110 §5.3 forbids repeating a singleton field, and the spec does not say which one counts; a 400, either one taken, or a refusal may come. The two tokens are for the same caller and account, so a 2xx acting as the shaped one is indistinguishable here from one acting as the sound one: a shaped token that must be refused alone is judged alone',
  otherKind: 'the variations together make a token of another caller kind, which this caller presents with its own headers',
} as const;

/** The stage of each refusal, the refusal, and the clauses that judge it, for one variation. */
function verdictsOf(kind: TokenKind, shape: TokenShape, profile: Profile, op: Operation): Verdict[] {
  const out: Verdict[] = [];
  const verify = (clauses: string[]) => out.push(refuse('verify', INVALID, [...clauses, 'ERR-TABLE-2']));
  const maybe = (why: string, clauses: string[], stage: Stage = 'verify', refusal = INVALID) =>
    out.push(unsure(stage, refusal, clauses, why));

  // AUTH-TOKEN-2: the issuer; RFC 9068 §4: it "MUST exactly match" (a trailing slash is another issuer).
  if (shape.iss) verify(['AUTH-TOKEN-2']);

  // AUTH-TOKEN-4: the audience; RFC 7519 §4.1.3: an array is the general form, one holding the service's is for it.
  if (shape.aud === 'array-both') maybe(WHY.audBoth, ['AUTH-TOKEN-4']);
  else if (shape.aud === 'slash') maybe(WHY.audSlash, ['AUTH-TOKEN-4']);
  else if (shape.aud === 'profile-other') {
    const other = mintedAudience(kind, profile) === 'api' ? 'agent' : 'api';
    // A deployment that declares the kind's tokens for both audiences takes both; AUTH-CRED-2: a customer's is for the API.
    if (!profile.audiences.callers?.[kind]?.includes(other)) {
      if (kind === 'customer' && other === 'agent') verify(['AUTH-CRED-2', 'AUTH-TOKEN-4']);
      else if (kind !== 'customer') maybe(WHY.audProfileOther, ['AUTH-TOKEN-4']);
    }
  } else if (shape.aud && shape.aud !== 'array-own') verify(['AUTH-TOKEN-4']);

  // AUTH-TOKEN-5: type at+jwt (RFC 9068 §4: "reject tokens carrying any other value").
  if (shape.typ === 'upper') maybe(WHY.typUpper, ['AUTH-TOKEN-5']);
  else if (shape.typ === 'media-type') maybe(WHY.typMediaType, ['AUTH-TOKEN-5']);
  else if (shape.typ) verify(['AUTH-TOKEN-5']);

  // AUTH-TOKEN-3: the signature against the published key set. RFC 9068 §4: alg none MUST be rejected; RFC 7515 §4.1.1:
  // alg is required and case-sensitive, and another alg over these bytes (RS256, ES384, HS256 keyed with the public key)
  // verifies under no published key.
  if (shape.alg || shape.signing) verify(['AUTH-TOKEN-3']);
  if (shape.kid) maybe(WHY.kid, ['AUTH-TOKEN-3']);

  // AUTH-TOKEN-6: expiry. An hour past is past any leeway; no exp, or one that is no NumericDate (RFC 7519 §4.1.4: "MUST
  // be a number"), cannot be verified. Ten years ahead is unexpired; a fractional NumericDate is valid (RFC 7519 §2).
  if (shape.exp === 'past-seconds') maybe(WHY.expLeeway, ['AUTH-TOKEN-6']);
  else if (shape.exp === 'past-far' || shape.exp === 'string' || shape.exp === 'absent') verify(['AUTH-TOKEN-6']);

  if (shape.nbf === 'future' || shape.nbf === 'string') maybe(WHY.nbf, ['ERR-TABLE-2']);
  if (shape.iat) maybe(WHY.iat, ['ERR-TABLE-2']);
  if (shape.jti) maybe(WHY.jti, ['ERR-TABLE-2']);

  // RFC 9449 §7.2: a protected resource supporting both schemes "MUST reject a DPoP-bound access token received as a bearer
  // token" (cnf.jkt, RFC 9449 §6.1). Other confirmations the service cannot check.
  if (shape.cnf === 'jkt') verify([]);
  else if (shape.cnf) maybe(WHY.cnf, ['ERR-TABLE-2']);

  // Scope is read by the guard (Request processing order); its form may be refused while verifying.
  if (shape.scope === 'array' || shape.scope === 'extra-spaces')
    maybe(WHY.scopeForm, ['ERR-TABLE-9'], 'verify', { 401: ['invalid_token'], 403: ['insufficient_scope'] });
  else if (shape.scope && shape.scope !== 'extra') {
    const known = !op.notShown?.includes('apiScopes') && op.apiScopes.length > 0;
    // AUTH-CUST-1, AUTH-SCOPE-2, ERR-TABLE-9: a token without the operation's API scopes; scopes are case-sensitive (RFC 6749 §3.3).
    const clause = kind === 'customer' ? ['AUTH-CUST-1'] : kind === 'delegated' ? ['AUTH-SCOPE-2'] : [];
    if (known) out.push(refuse('guard', SCOPE, [...clause, 'ERR-TABLE-9']));
    else maybe(WHY.scopeNotShown, ['ERR-TABLE-9'], 'guard', SCOPE);
  }

  // Token verification 3-4 on the claims the variations leave (tokens-classify.ts).
  if (shape.client_id || shape.sub || shape.act) {
    const c = classify(claimsOf(kind, shape));
    if ('refused' in c) out.push(refuse('classify', COMBINATION, c.refused));
    else if ('unsure' in c) maybe(c.unsure, ['AUTH-TOKEN-8'], 'classify', COMBINATION);
    else if (c.kind !== kind) maybe(`${WHY.otherKind} (${c.kind})`, ['AUTH-TOKEN-8'], 'classify', ANY_REFUSAL);
  }

  // The Authorization header's form. AUTH-TOKEN-1: the token is read from the header only, a query parameter or a cookie
  // is no token (ERR-TABLE-1); a credential without its scheme is malformed. RFC 9110 §11.1: the scheme is
  // case-insensitive; §11.4 and RFC 6750 §2.1: one or more spaces follow it (both are the token as minted).
  if (shape.form === 'query' || shape.form === 'cookie') out.push(refuse('form', INVALID, ['AUTH-TOKEN-1', 'ERR-TABLE-1']));
  if (shape.form === 'no-scheme') out.push(refuse('form', INVALID, ['AUTH-TOKEN-1', 'ERR-TABLE-2']));
  // ERR-TABLE-4: the DPoP scheme without a proof is a proof failure (RFC 9449 §7.1), decided with the token's verification.
  if (shape.form === 'dpop-scheme')
    out.push(refuse('verify', { 401: ['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'] }, ['ERR-TABLE-4', 'ERR-TABLE-2']));
  return out;
}

const uniq = (xs: readonly string[]) => [...new Set(xs)];

/**
 * What a deployment must answer to a kind's token of this shape, sent by a sound caller of the kind (its Guest-Session or
 * Operator header besides) on `operation`, one the kind may call (default: the cart; the operators' order search). Accepted
 * means the token is the kind's sound token: a 2xx on a read.
 */
export function expectedOfToken(kind: TokenKind, shape: TokenShape, profile: Profile, operation?: Operation): TokenExpectation {
  const verdicts = verdictsOf(kind, shape, profile, operation ?? defaultOperation(kind));
  const e = decide(STAGES, verdicts);
  // Two Authorization fields: whatever the shaped token alone must get, the spec pins no answer but a non-5xx.
  if (shape.form === 'duplicate-bad-first' || shape.form === 'duplicate-bad-last')
    return { accept: 'either', clauses: uniq(['AUTH-TOKEN-1', ...(e.accept === true ? [] : e.clauses)]), why: WHY.duplicate };
  return e;
}

/**
 * An answer judged on an expectation: undefined when it fits, else what was expected. Accepted: a 2xx. Refused: one of
 * the statuses, with one of that status's codes. Either way: never a 5xx.
 */
export const judgeTokenAnswer = (e: TokenExpectation, status: number, error: unknown) =>
  judgeExpectation(e, status, error, ['ERR-TABLE-2']);
