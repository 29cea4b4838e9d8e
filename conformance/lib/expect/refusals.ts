// Refusals the checks of several parts expect: a problem document of some 4xx where the spec names no status, a refused
// credential, invalid_token in a scheme, the challenges of an answer, insufficient_scope, sign_in_required, a token whose
// claims match no caller kind, and invalid_guest_session.
import { findChallenge, parseChallenges, type Challenge } from '../www-authenticate.js';
import { expectChallenge } from './challenge.js';
import { fail, type ClauseRef } from './failure.js';
import { CREDENTIAL_REFUSALS, CREDENTIAL_REFUSED } from '../../rules/05-authentication.js';
import { enforce } from '../../rules/rule.js';
import { expectProblem, withRow } from './problem.js';
import { brief, expect4xx, expectStatus, type Answer } from './response.js';

/** Where the problem types of the deployment live (its `docsUrl`): what a refusal's problem document is judged against. */
type Docs = { readonly docsUrl: string };

/** The problem's `error` when it is a string, else a marker that no expected code equals. */
const errorMember = (res: Answer): string => (typeof res.body?.error === 'string' ? res.body.error : '<missing>');

/** Any 4xx problem document ("refused" where the spec names no status; status and code are left to the service). */
export function expectRefusal(shop: Docs, res: Answer, { clause, what }: { clause: string; what?: string }): Record<string, unknown> {
  expect4xx(res, { what: what ? `${what}: refused` : 'refused', clause });
  return expectProblem(res, { status: res.status, error: errorMember(res), docsUrl: shop.docsUrl, clause });
}

/** A refused credential where the spec says "refused" or "401 or 403": a 401 problem with a challenge, or a 403 problem. */
export function expectCredentialRefused(shop: Docs, res: Answer, { clause }: { clause: string }): void {
  if (res.status === 401) {
    expectProblem(res, { status: 401, error: errorMember(res), docsUrl: shop.docsUrl, clause });
    if (res.headers.get('www-authenticate') === null) fail('WWW-Authenticate on a 401', 'a challenge', null, { clause });
    return;
  }
  if (res.status === 403) {
    expectProblem(res, { status: 403, error: errorMember(res), docsUrl: shop.docsUrl, clause });
    return;
  }
  fail('refused', '401 or 403', brief(res), { clause });
}

/** The challenges of the answer (WWW-Authenticate must be present and parse). */
export function challengesOf(res: Answer, { clause }: { clause: string }): Challenge[] {
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate header', 'present', null, { clause });
  return parseChallenges(header!);
}

/** The answer is in one scheme: no challenge of `scheme`. */
export function expectNoChallengeOf(res: Answer, scheme: string, { clause }: { clause: string }): void {
  if (findChallenge(challengesOf(res, { clause }), scheme))
    fail(
      `WWW-Authenticate: answered in one scheme, no ${scheme} challenge`,
      `no ${scheme} challenge`,
      res.headers.get('www-authenticate'),
      { clause },
    );
}

/**
 * 401 invalid_token with a challenge of `scheme` carrying error="invalid_token". With `only`, no challenge of the other
 * scheme (a request without any token is answered in both, Errors table).
 */
export function expectInvalidToken(
  shop: Docs,
  res: Answer,
  { clause, scheme = 'Bearer', only = false }: { clause: string; scheme?: 'Bearer' | 'DPoP'; only?: boolean },
): void {
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme, error: 'invalid_token', clause });
  if (only) expectNoChallengeOf(res, scheme === 'Bearer' ? 'DPoP' : 'Bearer', { clause });
}

/** No WWW-Authenticate, or challenges of the DPoP scheme only (conversation paths); a 401 must carry one. */
export function expectDpopChallengesOnly(res: Answer, { clause }: { clause: string }): void {
  const header = res.headers.get('www-authenticate');
  if (header === null) {
    if (res.status === 401) fail('WWW-Authenticate on a 401', 'a DPoP challenge', null, { clause });
    return;
  }
  let challenges: Challenge[];
  try {
    challenges = parseChallenges(header);
  } catch {
    return fail('WWW-Authenticate syntax', 'RFC 9110 challenges', header, { clause });
  }
  if (!findChallenge(challenges, 'DPoP') || findChallenge(challenges, 'Bearer'))
    fail('WWW-Authenticate: the DPoP scheme only', 'DPoP', header, { clause });
}

/** 403 insufficient_scope; `scope` is the scope the problem must name, or a list of acceptable names. */
export function expectInsufficientScope(
  shop: Docs,
  res: Answer,
  { clause, scope }: { clause: string; scope?: string | readonly string[] },
): void {
  const doc = expectProblem(res, {
    status: 403,
    error: 'insufficient_scope',
    docsUrl: shop.docsUrl,
    clause,
    ...(typeof scope === 'string' ? { scope } : {}),
  });
  if (Array.isArray(scope) && !scope.includes(doc.scope as string))
    fail('problem "scope"', scope.join(' or '), doc.scope, { clause: withRow(clause, 'ERR-TABLE-9') });
}

/** 403 sign_in_required with `WWW-Authenticate: <scheme> error="sign_in_required"` (spec, Assistant authority; Errors). */
export function expectSignInRequired(shop: Docs, res: Answer, scheme: 'Bearer' | 'DPoP', { clause }: { clause: ClauseRef }): void {
  expectProblem(res, { status: 403, error: 'sign_in_required', docsUrl: shop.docsUrl, clause: 'AUTH-SIGNIN-1' });
  expectChallenge(res, { scheme, error: 'sign_in_required', clause });
}

/** Another account's row is refused, 403 or 404, with a problem document (the spec does not say which). */
export function expectOwnershipRefusal(shop: Docs, res: Answer, { what, clause }: { what: string; clause: ClauseRef }): void {
  expectStatus(res, [403, 404], { what: `${what}: refused as not the caller's`, clause });
  expectProblem(res, { status: res.status, error: errorMember(res), docsUrl: shop.docsUrl, clause });
}

/**
 * Token verification 3: a combination matching no caller kind is refused with 401 or 403 (the spec allows both). A 401 is
 * a rejected token (invalid_token with a Bearer challenge: these tokens carry no assistant marker); a 403 is any problem.
 */
export function expectRefusedCombination(shop: Docs, res: Answer, { what, clause }: { what: string; clause: string }): void {
  // The refusal due (rules/05-authentication.ts, AUTH-TOKEN-8): 401 invalid_token, or a 403 whose code is not named.
  enforce(
    CREDENTIAL_REFUSED,
    { status: res.status, error: res.body?.error, refusal: CREDENTIAL_REFUSALS.combination },
    { at: what, clause },
  );
  if (res.status === 401) return expectInvalidToken(shop, res, { clause });
  if (res.status === 403) {
    expectProblem(res, {
      status: 403,
      error: typeof res.body?.error === 'string' ? res.body.error : '<missing>',
      docsUrl: shop.docsUrl,
      clause,
    });
  }
}

/** 401 invalid_guest_session with exactly one challenge, `Bearer error="invalid_token"` (Guest sessions 4; Errors table). */
export function expectInvalidGuestSession(shop: Docs, res: Answer, { clause }: { clause: ClauseRef }): void {
  expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause });
  const header = res.headers.get('www-authenticate') ?? '';
  const challenges = parseChallenges(header);
  if (challenges.length !== 1 || challenges[0]?.scheme.toLowerCase() !== 'bearer') {
    fail('WWW-Authenticate: exactly Bearer error="invalid_token"', 'one Bearer challenge', header, { clause });
  }
}
