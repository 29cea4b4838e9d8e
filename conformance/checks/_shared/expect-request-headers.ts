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
