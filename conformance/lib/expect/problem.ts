// The problem document of the spec's Resources part, judged whole: the caller's clause for status and `error`, the
// format's own clauses (softly) for every member and for the boundary's headers.
import { ERRORS, REASON_PHRASES } from '../../../contract/errors.js';
import { LIMITS } from '../../../contract/limits.js';
import { fail, failSoft, type ClauseOption } from './failure.js';
import { expectStatus, type HttpResult } from './response.js';
import { parseCacheControl } from './cache.js';

export interface ProblemExpectation extends ClauseOption {
  status: number;
  error: string;
  /** Profile `docsUrl`; a trailing slash is ignored, so that `type` never gets `//api`. */
  docsUrl: string;
  /** When given, the response's X-Request-Id (and so `instance`) must equal it, e.g. the id the request sent. */
  requestId?: string;
  /** When given, the `scope` member of insufficient_scope must equal it. */
  scope?: string;
}

/**
 * Rows of the error table whose headers the spec leaves to the error mapper: a challenge there is the server's choice at
 * the spec level (the reference's own choice is judged at the reference level).
 */
export const CHALLENGE_LEFT_OPEN: ReadonlySet<string> = new Set(['insufficient_scope']);

/**
 * A problem document as the spec's Resources part defines it (RFC 9457 plus the service's members), with the boundary's
 * headers (Cache-Control: no-store, X-Request-Id). Status, `error` and `scope` are judged on the caller's clause; the
 * format on its own clauses, softly (failSoft). It does not check challenges (expectChallenge).
 * Each `issues` item needs `path`, `code` and `message`: `path` may be a string (`items[0].quantity`) or an array of
 * segments (`["items", 0, "quantity"]`), since the spec names the member but not its form. `title` must be the reason
 * phrase of contract REASON_PHRASES; for a status outside that table any non-empty string passes.
 */
export function expectProblem(res: HttpResult, want: ProblemExpectation): Record<string, unknown> {
  const on = { clause: want.clause };
  expectStatus(res, want.status, on);
  // The document's format is judged on the format's own clauses, and softly: a broken member is that clause's failure,
  // and the check goes on to judge its own clause (one broken header must not fail every clause that meets a problem).
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/problem+json') {
    // Stated twice by the spec (the problem document's media type; every response of status 400 or above).
    failSoft('Content-Type media type', 'application/problem+json', res.headers.get('content-type'), { clause: 'ERR-PROBLEM-4' });
    failSoft('Content-Type media type', 'application/problem+json', res.headers.get('content-type'), { clause: 'RES-PROBLEM-1' });
  }
  const cacheControl = parseCacheControl(res.headers.get('cache-control'));
  if (!cacheControl.has('no-store'))
    failSoft('Cache-Control of a response with status 400 or above', 'no-store', res.headers.get('cache-control'), {
      clause: 'ERR-PROBLEM-5',
    });
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('problem document', 'a JSON object', body, on);
  const doc = body as Record<string, unknown>;
  if (doc.error !== want.error) fail('problem "error"', want.error, doc.error, on);

  const type = `${want.docsUrl.replace(/\/+$/, '')}/api/problems/${want.error}`;
  if (doc.type !== type) failSoft('problem "type"', type, doc.type, { clause: 'RES-PROBLEM-3' });
  const title = REASON_PHRASES[res.status];
  if (title !== undefined ? doc.title !== title : typeof doc.title !== 'string' || doc.title === '') {
    failSoft('problem "title" (reason phrase of the status)', title ?? 'a non-empty string', doc.title, { clause: 'RES-PROBLEM-4' });
  }
  if (doc.status !== res.status) failSoft('problem "status" (the response status)', res.status, doc.status, { clause: 'RES-PROBLEM-5' });

  const requestId = res.headers.get('x-request-id');
  if (requestId === null || requestId === '') failSoft('X-Request-Id header', 'present', requestId, { clause: 'ERR-PROBLEM-7' });
  else if (doc.instance !== requestId)
    failSoft('problem "instance" (the X-Request-Id)', requestId, doc.instance, { clause: 'RES-PROBLEM-8' });
  if (want.requestId !== undefined && requestId !== want.requestId) fail('X-Request-Id header', want.requestId, requestId, on);

  if ('detail' in doc) {
    if (want.error === 'internal_error') failSoft('problem "detail" on internal_error', 'absent', doc.detail, { clause: 'RES-PROBLEM-7' });
    if (typeof doc.detail !== 'string') failSoft('problem "detail"', 'a string', doc.detail, { clause: 'RES-PROBLEM-6' });
  }

  // A challenge only where the error table puts one (401s, sign_in_required) or leaves the row's headers to the error
  // mapper (insufficient_scope, whose RFC 6750 §3.1 challenge a server may send): none on a validation failure
  // (ERR-TABLE-11) nor on a domain error (ERR-PROBLEM-8).
  const entry = (ERRORS as Record<string, { headers?: readonly string[] }>)[want.error];
  const www = res.headers.get('www-authenticate');
  if (entry && www !== null && !(entry.headers ?? []).includes('WWW-Authenticate') && !CHALLENGE_LEFT_OPEN.has(want.error)) {
    failSoft(`WWW-Authenticate on ${want.error}`, 'absent', www, {
      clause: want.error === 'invalid_request' ? 'ERR-TABLE-11' : 'ERR-PROBLEM-8',
    });
  }

  // Extension members appear only with the errors that own them (spec, Resources > Problem document).
  const members: readonly string[] = (ERRORS as Record<string, { members?: readonly string[] }>)[want.error]?.members ?? [];
  if ('issues' in doc) {
    if (!members.includes('issues')) failSoft(`problem "issues" on ${want.error}`, 'absent', doc.issues, { clause: 'RES-PROBLEM-9' });
    checkIssues(doc.issues);
  }
  if (want.error === 'insufficient_scope') {
    if (typeof doc.scope !== 'string' || doc.scope === '')
      fail('problem "scope" on insufficient_scope', want.scope ?? 'a non-empty string', doc.scope, on);
    if (want.scope !== undefined && doc.scope !== want.scope) fail('problem "scope"', want.scope, doc.scope, on);
  } else if ('scope' in doc) {
    failSoft(`problem "scope" on ${want.error}`, 'absent', doc.scope, { clause: 'RES-PROBLEM-11' });
  }
  if ('conversation_id' in doc && !members.includes('conversation_id')) {
    failSoft(`problem "conversation_id" on ${want.error}`, 'absent', doc.conversation_id, { clause: 'RES-PROBLEM-12' });
  }
  return doc;
}

function checkIssues(issues: unknown): void {
  if (!Array.isArray(issues)) return failSoft('problem "issues"', 'an array', issues, { clause: 'RES-PROBLEM-9' });
  if (issues.length > LIMITS.validationIssues)
    failSoft('number of problem "issues"', `at most ${LIMITS.validationIssues}`, issues.length, { clause: 'RES-PROBLEM-9' });
  issues.forEach((issue: unknown, i) => {
    const item = typeof issue === 'object' && issue !== null && !Array.isArray(issue) ? (issue as Record<string, unknown>) : undefined;
    const pathOk =
      typeof item?.path === 'string' ||
      (Array.isArray(item?.path) && item.path.every((s) => typeof s === 'string' || typeof s === 'number'));
    if (!item || !pathOk || typeof item.code !== 'string' || typeof item.message !== 'string') {
      failSoft(`problem "issues[${i}]"`, '{ path: string | (string|number)[], code: string, message: string }', issue, {
        clause: 'RES-PROBLEM-10',
      });
    }
  });
}
