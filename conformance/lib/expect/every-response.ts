// The rules of every response (spec, Request processing order; Errors; Endpoints > Conventions): X-Request-Id on every
// response, a fresh DPoP-Nonce on every response to a DPoP request, the boundary's headers, the problem document of every
// failure, and no challenge or nonce on a domain error. Judged softly, answer by answer, so that a check that gathers
// answers of many statuses and routes shows each one that breaks a rule; check() applies them to every exchange of the
// checks that declare `everyResponse` (engine/every-response.ts).
import { ERRORS, type ErrorCode } from '../../../contract/errors.js';
import { failSoft } from './failure.js';
import {
  CHALLENGE_LEFT_OPEN,
  expectIssues,
  expectOwnedMembers,
  expectProblemDetail,
  expectProblemError,
  expectProblemInstance,
  expectProblemMediaType,
  expectProblemObject,
  expectProblemStatus,
  expectProblemTitle,
  expectProblemType,
} from './problem.js';
import type { HttpResult } from './response.js';

/** An answer as these rules read it: status, headers, the body as text and parsed. */
type ShopResponse = HttpResult & { text: string; body: any };

/** X-Request-Id on an answer: the request stage's rule (AUTH-ORDER-2) and the boundary's (ERR-PROBLEM-7), both blamed. */
export function expectRequestId(res: ShopResponse, what: string): void {
  if (res.headers.get('x-request-id')) return;
  failSoft(`${what} (${res.status}): X-Request-Id`, 'present', null, { clause: ['AUTH-ORDER-2', 'ERR-PROBLEM-7'] });
}

/** DPoP-Nonce on the answer to a DPoP request (AUTH-ORDER-4). */
export function expectDpopNonce(res: ShopResponse, what: string): void {
  const nonce = res.headers.get('dpop-nonce');
  if (nonce !== null && nonce.trim() !== '') return;
  failSoft(`${what} (${res.status}): DPoP-Nonce on the answer to a DPoP request`, 'a nonce', nonce, { clause: 'AUTH-ORDER-4' });
}

/**
 * The boundary's rules on one answer (spec, Errors; Endpoints > Conventions): a failure (400 or above) is a problem
 * document (ERR-PROBLEM-1) labelled application/problem+json (ERR-PROBLEM-4) and never stored (ERR-PROBLEM-5); any other
 * answer but a catalog GET or a description document (`cacheable`) is no-store by default (END-CONV-9). Judged softly.
 */
export function expectBoundaryRules(res: ShopResponse, what: string, cacheable: boolean): void {
  const noStore = /(^|,)\s*no-store\s*(,|$)/i.test(res.headers.get('cache-control') ?? '');
  if (res.status >= 400) {
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/problem+json')
      failSoft(`${what} (${res.status}): Content-Type of a failure`, 'application/problem+json', res.headers.get('content-type'), {
        clause: 'ERR-PROBLEM-4',
      });
    if (!noStore)
      failSoft(`${what} (${res.status}): Cache-Control of a failure`, 'no-store', res.headers.get('cache-control'), {
        clause: 'ERR-PROBLEM-5',
      });
    if (typeof res.body?.error !== 'string' || res.body.error === '')
      failSoft(`${what} (${res.status}): the problem document`, 'an object with an `error` member', res.text.slice(0, 200), {
        clause: 'ERR-PROBLEM-1',
      });
  } else if (!noStore && !cacheable) {
    failSoft(`${what} (${res.status}): Cache-Control`, 'no-store', res.headers.get('cache-control'), { clause: 'END-CONV-9' });
  }
}

/**
 * The problem document of one failure, member by member (Resources > Problem document), whatever route or status gave it:
 * the shared member conditions (lib/expect/problem.ts), softly, each answer named. The Errors table's rows without
 * headers add that neither a wrong caller kind nor a validation failure carries a challenge.
 */
export function expectProblemMembers(docsUrl: string, res: ShopResponse, what: string): void {
  if (res.status < 400) return;
  const opts = { soft: true, at: `${what} (${res.status})` };
  expectProblemMediaType(res, opts);
  const d = expectProblemObject(res, opts);
  if (!d) return;
  expectProblemError(d, opts);
  expectProblemType(d, { ...opts, docsUrl, error: String(d.error) });
  expectProblemTitle(res, d, opts);
  expectProblemStatus(res, d, opts);
  expectProblemDetail(d, opts);
  expectProblemInstance(res, d, opts);
  expectIssues(d, opts);
  const challengeless: Record<string, string> = { caller_not_allowed: 'ERR-TABLE-8', invalid_request: 'ERR-TABLE-11' };
  const row = challengeless[String(d.error)];
  if (row && res.headers.get('www-authenticate') !== null)
    failSoft(`${opts.at}: WWW-Authenticate on ${String(d.error)}`, 'absent', res.headers.get('www-authenticate'), { clause: row });
  expectOwnedMembers(d, String(d.error), { ...opts, status: res.status });
}

/** The clauses every answer of a gathering check is judged on (the order of the checks' citations). */
export const EVERY_RESPONSE_CLAUSES = [
  'AUTH-ORDER-2',
  'ERR-PROBLEM-7',
  'ERR-PROBLEM-1',
  'ERR-PROBLEM-4',
  'ERR-PROBLEM-5',
  'END-CONV-9',
  'RES-PROBLEM-1',
  'RES-PROBLEM-2',
  'RES-PROBLEM-3',
  'RES-PROBLEM-4',
  'RES-PROBLEM-5',
  'RES-PROBLEM-6',
  'RES-PROBLEM-8',
  'RES-PROBLEM-9',
  'RES-PROBLEM-10',
  'RES-PROBLEM-11',
  'RES-PROBLEM-12',
  'ERR-TABLE-8',
  'ERR-TABLE-11',
] as const;

/**
 * Every answer gathered, judged on its own on the rules of every response: DPoP-Nonce (answers to DPoP requests),
 * X-Request-Id, the boundary's rules (`cacheable` tells catalog GETs and description documents) and the problem document.
 */
export function expectEveryResponse(
  answers: readonly (readonly [what: string, res: ShopResponse])[],
  opts: { docsUrl: string; dpop: boolean; cacheable: (what: string) => boolean },
): void {
  for (const [what, res] of answers) {
    if (opts.dpop) expectDpopNonce(res, what);
    expectRequestId(res, what);
    expectBoundaryRules(res, what, opts.cacheable(what));
    expectProblemMembers(opts.docsUrl, res, what);
  }
}

/**
 * Whether `code` is a domain error of the table (ERR-PROBLEM-8): a row without a challenge of its own, not 500, and not a
 * row whose headers the spec leaves to the error mapper (insufficient_scope: judged at the reference level alone).
 */
export const isDomainError = (code: unknown): code is ErrorCode =>
  typeof code === 'string' &&
  code in ERRORS &&
  !ERRORS[code as ErrorCode].headers.includes('WWW-Authenticate') &&
  ERRORS[code as ErrorCode].status !== 500 &&
  !CHALLENGE_LEFT_OPEN.has(code);

/**
 * ERR-PROBLEM-8 on one answer: a domain error has no challenge, nor a nonce unless the request carried a DPoP proof (a DPoP
 * request gets a fresh nonce on every response: AUTH-ORDER-4). Judged by the code the answer carries.
 */
export function expectDomainErrorHeaders(res: ShopResponse, what: string, dpop = false): void {
  const code = (res.body as { error?: unknown } | undefined)?.error;
  if (res.status < 400 || !isDomainError(code)) return;
  const at = `${what} (${res.status} ${code})`;
  const challenge = res.headers.get('www-authenticate');
  if (challenge !== null) failSoft(`${at}: WWW-Authenticate on a domain error`, 'absent', challenge, { clause: 'ERR-PROBLEM-8' });
  const nonce = res.headers.get('dpop-nonce');
  if (nonce !== null && !dpop)
    failSoft(`${at}: DPoP-Nonce on a domain error to a request without a proof`, 'absent', nonce, { clause: 'ERR-PROBLEM-8' });
}
