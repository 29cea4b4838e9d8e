// DPoP failures as the spec's error table and RFC 9449 describe them (spec, Errors; Request processing order): the
// answer's error code, a single DPoP challenge, the DPoP-Nonce header, and the whole failure. The DPoP checks of part 5
// (Assistant authority) compose these with the agents of conformance/checks/_shared/dpop-agents.ts.
import { expectDpopNonce } from '../../rules/05-authentication.js';
import { findChallenge, parseChallenges } from '../www-authenticate.js';
import { expectChallenge } from './challenge.js';
import { fail } from './failure.js';
import { expectProblem } from './problem.js';
import type { Answer } from './response.js';
import { challengesOf } from './refusals.js';

/** The error code of a problem answer: the body's `error`, else the DPoP challenge's `error` parameter. */
export function errorOf(res: Answer): string | undefined {
  if (typeof res.body?.error === 'string') return res.body.error;
  const header = res.headers.get('www-authenticate');
  if (header === null) return undefined;
  try {
    return findChallenge(parseChallenges(header), 'DPoP')?.params.error;
  } catch {
    return undefined;
  }
}

/** A proof failure, and a proof or nonce failure (RFC 9449 lets a server answer some defects with a nonce challenge). */
export const PROOF = ['invalid_dpop_proof'] as const;
export const PROOF_OR_NONCE = ['invalid_dpop_proof', 'use_dpop_nonce'] as const;

/** Exactly one challenge, in the DPoP scheme (a client library retries a nonce challenge only when it stands alone). */
export function expectSingleDpopChallenge(res: Answer, error: string, { clause }: { clause: string }): void {
  expectChallenge(res, { scheme: 'DPoP', error, clause });
  const challenges = challengesOf(res, { clause });
  if (challenges.length !== 1)
    fail('WWW-Authenticate: a single DPoP challenge', 'one challenge', res.headers.get('www-authenticate'), { clause });
}

/**
 * A DPoP-Nonce header (Request processing order: every response to a DPoP request carries a fresh one). On a DPoP failure
 * (401 invalid_dpop_proof or use_dpop_nonce) the error table's row requires it too (ERR-TABLE-4): its absence there
 * blames both.
 */
export function expectNonceHeader(res: Answer, { clause }: { clause: string }): void {
  const dpopFailure = res.status === 401 && (PROOF_OR_NONCE as readonly string[]).includes(errorOf(res) ?? '');
  expectDpopNonce(res, { clause: dpopFailure ? [...new Set([clause, 'ERR-TABLE-4'])] : clause });
}

/**
 * A DPoP failure (spec, Errors): 401 with one of `allowed` as the problem's error, the same error in a single DPoP
 * challenge, and a DPoP-Nonce header (Request processing order: every response to a DPoP request carries one).
 */
export function expectDpopFailure(
  shop: { readonly docsUrl: string },
  res: Answer,
  allowed: readonly string[],
  { clause, ...o }: { clause: string; nonce?: boolean; algs?: boolean },
): void {
  const error = errorOf(res) ?? '<missing>';
  if (res.status !== 401 || !allowed.includes(error))
    fail('answer', `401 ${allowed.join(' or ')}`, `${res.status} ${error} ${res.text.slice(0, 200)}`, { clause });
  expectProblem(res, { status: 401, error, docsUrl: shop.docsUrl, clause });
  expectSingleDpopChallenge(res, error, { clause });
  if (o.algs) expectChallenge(res, { scheme: 'DPoP', error, params: { algs: 'ES256' }, clause });
  if (o.nonce ?? true) expectNonceHeader(res, { clause: 'AUTH-ORDER-4' });
}
