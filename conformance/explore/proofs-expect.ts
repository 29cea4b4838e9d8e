// What the spec says a deployment must answer to an assistant's request with a shaped DPoP proof (proofs-shape.ts),
// decided from the spec alone (Authentication > Assistant authority, Challenge scheme, Request processing order; the
// Errors table's DPoP rows) and the RFCs it rests on (RFC 9449 §4.2, §4.3, §7, §8, §9, §11; RFC 7515 and RFC 7519 for
// the JWS; RFC 9110 and RFC 3986 for the method, the scheme and the URI). Where they read two ways the answer is `either`:
// a conforming deployment must never get a finding, so only a 5xx is one. Every refusal of the proof, the binding or the
// scheme is the authenticate stage's, whose checks the spec does not order (nor does RFC 9449 §4.3 its list): combined,
// any of their refusals may be the answer; the guard comes after (AUTH-ORDER-1). Pure.
import { OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';
import { LIST_CLAUSE, shownCallers } from '../rules/04-endpoints.js';
import { describeRefusal, IAT_TIMED_BY_NONCE, type ErrorsByStatus } from '../rules/05-authentication.js';
import { asSent, type ProofShape } from './proofs-shape.js';
import { decide, judgeExpectation, type ShapeExpectation } from './shapes-expect.js';

export { describeRefusal, type ErrorsByStatus };

export type ProofExpectation = ShapeExpectation;

export interface ProofJudgeOptions {
  /** The request's method (what `htm` names). */
  method: string;
  /**
   * The operation sent to, by an assistant session holding every permission with a token of every API scope (as
   * agent-callers.ts registers them); default: the cart read.
   */
  operation?: Operation;
  /**
   * Whether the deployment has given this caller a nonce (a `DPoP-Nonce` on an answer, which every answer to a DPoP
   * request carries, AUTH-ORDER-4; a 401 use_dpop_nonce is the explicit ask): buildProof's `nonce` is then its latest,
   * and RFC 9449 §4.3 item 10 binds every proof to a nonce it provided. false: the caller holds none yet.
   */
  nonceAsked: boolean;
}

/** The stages a proof is judged at: authenticate (token, scheme, proof, binding, nonce, replay), then the guard. */
const STAGES = ['authenticate', 'guard'] as const;
type Stage = (typeof STAGES)[number];

interface Verdict {
  stage: Stage;
  /** A definite refusal, or one the spec reads two ways (the refusal is then what it would be if refused). */
  definite: boolean;
  refusal: ErrorsByStatus;
  clauses: readonly string[];
  why?: string;
}

// The refusals (Errors, "DPoP proof or nonce failure | 401 | invalid_dpop_proof or use_dpop_nonce"), as the DPoP checks'
// negative matrix reads them (checks/_shared/dpop-negative-matrix.ts): a defect of the proof is invalid_dpop_proof; a
// missing or unaccepted nonce use_dpop_nonce (RFC 9449 §9), or invalid_dpop_proof, which the row names for both; a key
// or a proof that does not fit the token (RFC 9449 §7.1 binds the two) and a missing proof either a proof or a token error.
const PROOF: ErrorsByStatus = { 401: ['invalid_dpop_proof'] };
const PROOF_OR_NONCE: ErrorsByStatus = { 401: ['invalid_dpop_proof', 'use_dpop_nonce'] };
const PROOF_OR_TOKEN: ErrorsByStatus = { 401: ['invalid_dpop_proof', 'invalid_token'] };
// ERR-TABLE-3: "assistant token sent as Bearer | 401 | invalid_token".
const BEARER: ErrorsByStatus = { 401: ['invalid_token'] };
// The guard: a kind outside the list, or a scope (one stage, no order inside it: rules/04-endpoints.ts CALLER_GUARD).
const GUARD: ErrorsByStatus = { 403: ['caller_not_allowed', 'insufficient_scope'] };

const C_PROOF = ['AUTH-ASST-1', 'ERR-TABLE-4'];
const C_REPLAY = ['AUTH-ASST-11', 'ERR-TABLE-4'];
const C_BEARER = ['AUTH-ASST-2', 'ERR-TABLE-3'];
const C_NONCE = ['ERR-TABLE-4'];
const C_GUARD = ['PUR-RULE-2', 'ERR-TABLE-8'];

/** Why the two readings of each unsure variation stand. */
const WHY = {
  typUpper:
    'typ DPoP+JWT: RFC 9449 §4.3 item 4 asks for the value dpop+jwt, RFC 7515 §4.1.9 (after RFC 2045) compares media types case-insensitively',
  typMediaType:
    'typ application/dpop+jwt: RFC 7515 §4.1.9 makes it the media type dpop+jwt names (a typ without a slash is read under application/), RFC 9449 §4.3 item 4 writes the value dpop+jwt',
  htuNormal:
    'htu equal to the request URI only after RFC 3986 §6.2.2 normalisation (case, percent-encoding, dot segments): RFC 9449 §4.3 says a server SHOULD normalise before comparing, so one that does not refuses',
  iatSkew: 'iat fifteen seconds off: RFC 9449 §11.1 leaves the window of acceptable creation times to the server (seconds or minutes)',
  iatByNonce: IAT_TIMED_BY_NONCE,
  noncePrevious:
    'the nonce given before the latest: the spec gives a fresh DPoP-Nonce on every response (AUTH-ORDER-4) but never says an earlier one stops being accepted, and RFC 9449 §8 and §9 leave the lifetime of a nonce to the server',
  nonceNotAsked:
    'the deployment has given this caller no nonce yet: the spec does not say every proof carries one, RFC 9449 §9 lets a resource server require one (401 use_dpop_nonce) or not, and §4.3 item 10 binds only a nonce it provided',
  callersNotShown: "the spec does not show the operation's caller list: an accepted proof may meet the guard's refusal",
} as const;

const refuse = (refusal: ErrorsByStatus, clauses: readonly string[], stage: Stage = 'authenticate'): Verdict => ({
  stage,
  definite: true,
  refusal,
  clauses,
});
const unsure = (why: string, refusal: ErrorsByStatus, clauses: readonly string[], stage: Stage = 'authenticate'): Verdict => ({
  stage,
  definite: false,
  refusal,
  clauses,
  why,
});

/** The verdicts of the authenticate stage on the shape as sent. */
function authenticateVerdicts(s: ProofShape, o: ProofJudgeOptions): Verdict[] {
  const out: Verdict[] = [];
  const bad = (refusal: ErrorsByStatus = PROOF, clauses = C_PROOF) => out.push(refuse(refusal, clauses));
  const maybe = (why: string, refusal: ErrorsByStatus = PROOF, clauses = C_PROOF) => out.push(unsure(why, refusal, clauses));

  // The form. AUTH-ASST-1, RFC 9449 §7.1: a DPoP-bound token travels with a proof; §4.3 item 1: "not more than one DPoP
  // HTTP request header field". AUTH-ASST-2, ERR-TABLE-3: never accepted as Bearer, a proof beside it or not (RFC 9449
  // §7.2). RFC 9110 §11.1: the scheme is a case-insensitive token, so `dpop` is the DPoP scheme (and no verdict).
  if (s.form === 'no-proof') bad(PROOF_OR_TOKEN);
  if (s.form === 'two-proofs') bad();
  if (s.form === 'bearer') bad(BEARER, C_BEARER);

  // AUTH-ASST-11: an accepted proof's jti is recorded and every instance refuses it again; the proof resent carries an
  // earlier nonce, which a deployment may refuse first (use_dpop_nonce).
  if (s.jti === 'replay') bad(PROOF_OR_NONCE, C_REPLAY);
  // RFC 9449 §4.2: jti is required; RFC 7519 §4.1.7: a case-sensitive string.
  else if (s.jti) bad();

  // The JOSE header. Item 4: typ dpop+jwt. Item 5: a registered asymmetric algorithm, not none (HS256 is not one), and
  // RFC 7515 §4.1.1: alg is required; RS256 over an ES256 signature verifies under no key (item 6).
  if (s.typ === 'upper') maybe(WHY.typUpper);
  else if (s.typ === 'media-type') maybe(WHY.typMediaType);
  else if (s.typ) bad();
  if (s.alg) bad();
  // §4.2: jwk is required; item 7: no private key; item 6: the signature verifies with the jwk's key. A valid proof of
  // another key fails item 12 (the token's cnf.jkt): a proof or a token error (RFC 9449 §7.1).
  if (s.jwk === 'unbound') bad(PROOF_OR_TOKEN);
  else if (s.jwk) bad();
  if (s.signature) bad();

  // Item 8: htm is the request's method; RFC 9110 §9.1: methods are case-sensitive, so `get` is not GET.
  if (s.htm === 'other' || (s.htm === 'lower-case' && o.method.toLowerCase() !== o.method)) bad();
  // Item 9: htu is the request's URI "ignoring any query and fragment parts" (a query or fragment is no verdict); another
  // path, scheme or host, a trailing slash (RFC 3986 §6.2.3 equates an empty path with "/" only) or a relative reference
  // is another URI; a spelling RFC 3986 §6.2.2 normalises to it is one a server SHOULD accept.
  if (s.htu === 'upper-case' || s.htu === 'dot-segment' || s.htu === 'percent-encoded') maybe(WHY.htuNormal);
  else if (s.htu && s.htu !== 'query' && s.htu !== 'fragment') bad();

  // Item 10: a nonce the server provided. The current one (no variation) is accepted; see WHY for the others.
  const byNonce = o.nonceAsked && (s.nonce === undefined || s.nonce === 'previous');
  if (!o.nonceAsked) maybe(WHY.nonceNotAsked, PROOF_OR_NONCE, C_NONCE);
  else if (s.nonce === 'previous') maybe(WHY.noncePrevious, PROOF_OR_NONCE, C_NONCE);
  else if (s.nonce) bad(PROOF_OR_NONCE, C_NONCE);

  // Item 11: the creation time. RFC 7519 §4.1.6: iat is a NumericDate (a string is no iat); an hour off is outside any
  // window unless the nonce times the proof; a refusal of the time may come as a nonce challenge (§11.1).
  if (s.iat === 'string') bad();
  else if (s.iat === 'skew-past' || s.iat === 'skew-future') maybe(WHY.iatSkew, PROOF_OR_NONCE);
  else if (s.iat && byNonce) maybe(WHY.iatByNonce, PROOF_OR_NONCE);
  else if (s.iat) bad(PROOF_OR_NONCE);

  // Item 12 and §4.2: with an access token, ath is required and is the token's hash (base64url, RFC 7515 §2).
  if (s.ath) bad();
  return out;
}

/** The read an assistant's proof is judged on when no operation is named: the cart. */
function defaultOperation(): Operation {
  const op = OPERATIONS_BY_ID.get('getCart');
  if (!op) throw new TypeError('contract/operations.ts lacks getCart');
  return op;
}

/**
 * The guard on a sound assistant session of every permission: its kind against the operation's caller list where the
 * spec shows it (rules/04-endpoints.ts shownCallers, CALLER_GUARD), the deployment's choice elsewhere.
 */
function guardVerdicts(op: Operation): Verdict[] {
  const clauses = [...C_GUARD, LIST_CLAUSE[op.callers]];
  const members = shownCallers(op.operationId);
  if (members === undefined) return [unsure(WHY.callersNotShown, GUARD, clauses, 'guard')];
  return members.includes('assistant') ? [] : [refuse(GUARD, clauses, 'guard')];
}

/**
 * What a deployment must answer to an assistant's request whose proof has this shape (as sent: asSent), on `operation`.
 * Accepted means a 2xx on a read. A replay is judged as one: pass `asSent(shape, built.replayed)` when buildProof had no
 * earlier proof to resend.
 */
export function expectedOfProof(shape: ProofShape, o: ProofJudgeOptions): ProofExpectation {
  const verdicts = [...authenticateVerdicts(asSent(shape), o), ...guardVerdicts(o.operation ?? defaultOperation())];
  return decide(STAGES, verdicts);
}

/**
 * An answer judged on an expectation: undefined when it fits, else what was expected. Accepted: a 2xx. Refused: one of
 * the statuses, with one of that status's codes. Either way: never a 5xx.
 */
export const judgeProofAnswer = (e: ProofExpectation, status: number, error: unknown) => judgeExpectation(e, status, error, C_PROOF);
