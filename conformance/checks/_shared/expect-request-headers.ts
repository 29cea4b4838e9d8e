// Headers every response carries (spec, Request processing order; Errors): X-Request-Id on every response, and a fresh
// DPoP-Nonce on every response to a DPoP request. Judged softly, answer by answer, so that a check that gathers answers of
// many statuses and routes shows each one that lacks a header.
import type { ShopResponse } from '../../engine/http.js';
import { failSoft } from '../../lib/assert.js';

/** X-Request-Id on an answer: the request stage's rule (AUTH-ORDER-2) and the boundary's (ERR-PROBLEM-7), both blamed. */
export function expectRequestId(res: ShopResponse, what: string): void {
  if (res.headers.get('x-request-id')) return;
  failSoft(`${what} (${res.status}): X-Request-Id`, 'present', null, ['AUTH-ORDER-2', 'ERR-PROBLEM-7']);
}

/** DPoP-Nonce on the answer to a DPoP request (AUTH-ORDER-4). */
export function expectDpopNonce(res: ShopResponse, what: string): void {
  const nonce = res.headers.get('dpop-nonce');
  if (nonce !== null && nonce.trim() !== '') return;
  failSoft(`${what} (${res.status}): DPoP-Nonce on the answer to a DPoP request`, 'a nonce', nonce, 'AUTH-ORDER-4');
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
      failSoft(
        `${what} (${res.status}): Content-Type of a failure`,
        'application/problem+json',
        res.headers.get('content-type'),
        'ERR-PROBLEM-4',
      );
    if (!noStore)
      failSoft(`${what} (${res.status}): Cache-Control of a failure`, 'no-store', res.headers.get('cache-control'), 'ERR-PROBLEM-5');
    if (typeof res.body?.error !== 'string' || res.body.error === '')
      failSoft(
        `${what} (${res.status}): the problem document`,
        'an object with an `error` member',
        res.text.slice(0, 200),
        'ERR-PROBLEM-1',
      );
  } else if (!noStore && !cacheable) {
    failSoft(`${what} (${res.status}): Cache-Control`, 'no-store', res.headers.get('cache-control'), 'END-CONV-9');
  }
}
