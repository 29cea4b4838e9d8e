// Headers every response carries (spec, Request processing order; Errors): X-Request-Id on every response, and a fresh
// DPoP-Nonce on every response to a DPoP request. Judged softly, answer by answer, so that a check that gathers answers of
// many statuses and routes shows each one that lacks a header.
import type { ShopResponse } from '../../engine/http.js';
import { failSoft } from '../../lib/assert.js';
import { REASON_PHRASES } from '../../../contract/errors.js';

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

/** Members that belong to one error code alone (Resources > Problem document), with their clause. */
const OWNED: readonly [member: string, error: string, clause: string][] = [
  ['issues', 'invalid_request', 'RES-PROBLEM-9'],
  ['scope', 'insufficient_scope', 'RES-PROBLEM-11'],
  ['conversation_id', 'direct_conversation_open', 'RES-PROBLEM-12'],
];

/**
 * The problem document of one failure, member by member (Resources > Problem document), whatever route or status gave it:
 * media type, `error`, `type` under the docs URL, `title` the reason phrase, `status`, `detail` a string, `instance` the
 * X-Request-Id, and the members owned by one error code absent elsewhere. Judged softly.
 */
export function expectProblemMembers(docsUrl: string, res: ShopResponse, what: string): void {
  if (res.status < 400) return;
  const at = `${what} (${res.status})`;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/problem+json')
    failSoft(`${at}: media type of the problem`, 'application/problem+json', type, { clause: 'RES-PROBLEM-1' });
  const d = res.body as Record<string, unknown> | undefined;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) {
    failSoft(`${at}: the problem document`, 'a JSON object', res.text.slice(0, 200), { clause: 'RES-PROBLEM-1' });
    return;
  }
  if (typeof d.error !== 'string' || d.error === '') failSoft(`${at}: "error"`, 'a non-empty string', d.error, { clause: 'RES-PROBLEM-2' });
  const wantType = `${docsUrl.replace(/\/+$/, '')}/api/problems/${String(d.error)}`;
  if (d.type !== wantType) failSoft(`${at}: "type"`, wantType, d.type, { clause: 'RES-PROBLEM-3' });
  const title = REASON_PHRASES[res.status];
  if (title === undefined ? typeof d.title !== 'string' || d.title === '' : d.title !== title)
    failSoft(`${at}: "title" (reason phrase of the status)`, title ?? 'a reason phrase', d.title, { clause: 'RES-PROBLEM-4' });
  if (d.status !== res.status) failSoft(`${at}: "status"`, res.status, d.status, { clause: 'RES-PROBLEM-5' });
  if ('detail' in d && typeof d.detail !== 'string')
    failSoft(`${at}: "detail"`, 'a string when present', d.detail, { clause: 'RES-PROBLEM-6' });
  const requestId = res.headers.get('x-request-id');
  if (requestId !== null && d.instance !== requestId) failSoft(`${at}: "instance"`, requestId, d.instance, { clause: 'RES-PROBLEM-8' });
  if (Array.isArray(d.issues)) {
    if (d.issues.length > 20) failSoft(`${at}: "issues"`, 'at most 20 items', d.issues.length, { clause: 'RES-PROBLEM-9' });
    const malformed = (d.issues as unknown[]).filter(
      (i) => typeof i !== 'object' || i === null || !['path', 'code', 'message'].every((k) => k in (i as object)),
    );
    if (malformed.length > 0)
      failSoft(`${at}: each "issues" item`, 'members path, code and message', malformed.slice(0, 3), { clause: 'RES-PROBLEM-10' });
  }
  // The Errors table's rows without headers: neither a wrong caller kind nor a validation failure carries a challenge.
  const challengeless: Record<string, string> = { caller_not_allowed: 'ERR-TABLE-8', invalid_request: 'ERR-TABLE-11' };
  const row = challengeless[String(d.error)];
  if (row && res.headers.get('www-authenticate') !== null)
    failSoft(`${at}: WWW-Authenticate on ${String(d.error)}`, 'absent', res.headers.get('www-authenticate'), { clause: row });
  for (const [member, owner, clause] of OWNED)
    if (member in d && d.error !== owner) failSoft(`${at}: "${member}" on ${String(d.error)}`, `only on ${owner}`, d[member], { clause });
}
