// What a refusal met while the doctor sets up means. Exit 3 is narrow: nothing answers, the target is not this service,
// TLS is not trusted, or the refusal's own error says the issuer's token is not trusted (401 invalid_token: signature,
// issuer, audience, unknown client) or cannot be verified now (503: the key set out of reach). Every other refusal of a
// setup route (a missing nonce, a refused proxy report, a malformed answer) breaks the clause of the refusing route: a
// failure (exit 1) whose advice quotes the spec, and the run goes on.
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import type { ShopResponse } from '../transport/http.js';
import { findChallenge, parseChallenges } from '../../lib/www-authenticate.js';
import { nonceOf } from '../../rules/05-authentication.js';

/** A refusal that says the token is not trusted (or cannot be verified now): the suite cannot judge this target. */
export interface Distrust {
  kind: 'distrust' | 'outage';
}

/** A setup route that broke the spec: the clauses it broke and what they require. */
export interface Violation {
  kind: 'violation';
  clauses: string[];
  /** What the answer lacked or was, in a few words. */
  why: string;
}

export type RefusalMeaning = Distrust | Violation;

/** The `error` of an answer: the problem document's member, else the challenge's parameter. */
export function errorCode(res: ShopResponse): string | undefined {
  if (typeof res.body?.error === 'string') return res.body.error;
  try {
    const challenges = parseChallenges(res.headers.get('www-authenticate') ?? '');
    return (findChallenge(challenges, 'DPoP') ?? findChallenge(challenges, 'Bearer'))?.params.error;
  } catch {
    return undefined;
  }
}

/** An application/problem+json object with a string `error` (Resources, Problem document). */
export function isProblem(res: ShopResponse): boolean {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const body = res.body as unknown;
  return (
    type === 'application/problem+json' &&
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    typeof (body as { error?: unknown }).error === 'string'
  );
}

export const violation = (clauses: string[], why: string): Violation => ({ kind: 'violation', clauses, why });

/**
 * The meaning of a 401 or 503 answer to a credential the doctor presented on a read its caller kind may use (`route`: the
 * clause of that read). `dpop`: the request was in the DPoP scheme and, when the deployment asked for a nonce with one,
 * sent again with it.
 */
export function meaningOfRefusal(res: ShopResponse, route: string, dpop = false): RefusalMeaning {
  if (res.status === 503) return { kind: 'outage' };
  const error = errorCode(res);
  if (error === 'invalid_token') return { kind: 'distrust' };
  if (dpop && error === 'use_dpop_nonce')
    return nonceOf(res.headers)
      ? violation(['AUTH-ORDER-4', route], 'a proof carrying the nonce the deployment had just issued is refused again')
      : violation(['AUTH-ORDER-4', 'ERR-TABLE-4'], 'use_dpop_nonce without a DPoP-Nonce header: the client has no nonce to use');
  if (dpop && error === 'invalid_dpop_proof') return violation(['AUTH-ASST-1', route], 'a fresh, well-formed proof is refused');
  if (!isProblem(res)) return violation(['ERR-PROBLEM-1', route], 'the refusal is not a problem document with an error');
  return violation([route], `refused with ${error}, which does not say the token is untrusted`);
}

/** The requirement a clause states, quoted: `AUTH-ORDER-4: "A request with DPoP gets …"`. */
export function quoteClause(id: string): string {
  const text = CLAUSES_BY_ID.get(id)?.text;
  return text ? `${id}: "${text}"` : id;
}
