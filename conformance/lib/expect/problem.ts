// The problem document of the spec's Resources part. Each member's rule is one condition, judged on the member's own
// clause; expectProblem() composes them for any refusal a check expects (the caller's clause for status and `error`, the
// members softly), and checks that judge the document itself compose the same conditions in their own order.
import { ERRORS } from '../../../contract/errors.js';
import { LIMITS } from '../../../contract/limits.js';
import { fail, failSoft, type ClauseOption, type ClauseRef } from './failure.js';
import { expectStatus, type HttpResult } from './response.js';
import { parseCacheControl } from './cache.js';
import { expectTitle } from '../../rules/02-resources.js';

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
 * How a member condition reports: hard by default (the check stops), softly with `soft` (recorded, the check goes on to
 * judge its own clause); `at` names the answer in the failure. `clause`, when the key is given, replaces the member's.
 */
export interface MemberOption extends ClauseOption {
  soft?: boolean;
  at?: string;
}

type Doc = Record<string, unknown>;

function report(opts: MemberOption, own: ClauseRef, what: string, expected: unknown, actual: unknown): void {
  const named = opts.at ? `${opts.at}: ${what}` : what;
  // A clause given, even none (undefined: the check's own clauses), replaces the member's.
  const clause = 'clause' in opts ? opts.clause : own;
  if (opts.soft) failSoft(named, expected, actual, { clause: clause ?? own });
  else fail(named, expected, actual, { clause });
}

/**
 * Rows of the error table whose headers the spec leaves to the error mapper: a challenge there is the server's choice at
 * the spec level (the reference's own choice is judged at the reference level).
 */
export const CHALLENGE_LEFT_OPEN: ReadonlySet<string> = new Set(['insufficient_scope']);

/** Content-Type application/problem+json (parameters aside). */
export function expectProblemMediaType(res: Pick<HttpResult, 'headers'>, opts: MemberOption = {}): void {
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/problem+json')
    report(opts, 'RES-PROBLEM-1', 'Content-Type media type', 'application/problem+json', res.headers.get('content-type'));
}

/** A failure is never stored: Cache-Control no-store (Errors part). */
export function expectFailureNoStore(res: Pick<HttpResult, 'headers'>, opts: MemberOption = {}): void {
  if (!parseCacheControl(res.headers.get('cache-control')).has('no-store'))
    report(opts, 'ERR-PROBLEM-5', 'Cache-Control of a response with status 400 or above', 'no-store', res.headers.get('cache-control'));
}

/** The body is a JSON object; returns it (undefined after a soft failure). */
export function expectProblemObject(res: HttpResult & { text?: string }, opts: MemberOption = {}): Doc | undefined {
  const body = res.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Doc;
  report(opts, 'RES-PROBLEM-1', 'problem document', 'a JSON object', typeof res.text === 'string' ? res.text.slice(0, 200) : body);
  return undefined;
}

/** `error`: the expected code when given, else a non-empty string. */
export function expectProblemError(doc: Doc, opts: MemberOption & { error?: string } = {}): void {
  if (opts.error !== undefined) {
    if (doc.error !== opts.error) report(opts, 'RES-PROBLEM-2', 'problem "error"', opts.error, doc.error);
  } else if (typeof doc.error !== 'string' || doc.error === '')
    report(opts, 'RES-PROBLEM-2', 'problem "error"', 'a non-empty string', doc.error);
}

/** `type`: the docs URL's page of the error (`<docsUrl>/api/problems/<error>`). */
export function expectProblemType(doc: Doc, opts: MemberOption & { docsUrl: string; error: string }): void {
  const type = `${opts.docsUrl.replace(/\/+$/, '')}/api/problems/${opts.error}`;
  if (doc.type !== type) report(opts, 'RES-PROBLEM-3', 'problem "type"', type, doc.type);
}

/** `title` (RES-PROBLEM-4): the rule of rules/02-resources.ts, reported as the other members are. */
export function expectProblemTitle(res: Pick<HttpResult, 'status' | 'reason'>, doc: Doc, opts: MemberOption = {}): void {
  expectTitle(res, doc, { at: opts.at, soft: opts.soft, ...('clause' in opts ? { clause: opts.clause } : {}) });
}

/** `status`: the response's status. */
export function expectProblemStatus(res: Pick<HttpResult, 'status'>, doc: Doc, opts: MemberOption = {}): void {
  if (doc.status !== res.status) report(opts, 'RES-PROBLEM-5', 'problem "status" (the response status)', res.status, doc.status);
}

/** `detail`, when present, is a string. */
export function expectProblemDetail(doc: Doc, opts: MemberOption = {}): void {
  if ('detail' in doc && typeof doc.detail !== 'string') report(opts, 'RES-PROBLEM-6', 'problem "detail"', 'a string', doc.detail);
}

/** `instance`: the response's X-Request-Id (judged where the header is present; its absence is another clause's). */
export function expectProblemInstance(res: Pick<HttpResult, 'headers'>, doc: Doc, opts: MemberOption = {}): void {
  const requestId = res.headers.get('x-request-id');
  if (requestId !== null && doc.instance !== requestId)
    report(opts, 'RES-PROBLEM-8', 'problem "instance" (the X-Request-Id)', requestId, doc.instance);
}

/**
 * Whether `issues` may come with `error` at `status`. The spec gives it "only for validation errors" and names one
 * validation failure (400 `invalid_request`), not every code a deployment may give one: `issues` may also come with a 400
 * or 422 whose code the spec does not name (`invalid_json` with a parse position, `unknown_variant` with the member path),
 * never with a code the spec names for another failure (`invalid_token`, `caller_not_allowed`, `cart_empty`, ...) nor with
 * another status. `strict`: the reference's rule, `issues` with `invalid_request` alone.
 */
export function issuesAllowed(error: string, status: unknown, strict = false): boolean {
  const entry = (ERRORS as Record<string, { members?: readonly string[]; shownInSpec?: boolean }>)[error];
  if (entry?.members?.includes('issues')) return true;
  // Named by the spec: a code of its tables, or one whose own member it names (direct_conversation_open's status is open).
  const named = entry !== undefined && (entry.shownInSpec || (entry.members?.length ?? 0) > 0);
  return !strict && !named && (status === 400 || status === 422);
}

/**
 * The members owned by one error code (`issues`, `scope`, `conversation_id`: contract ERRORS) appear with it alone;
 * `issues` also with the validation errors of a deployment's own codes (issuesAllowed; `status`: the response's, else the
 * document's; `strict`: the reference's rule).
 */
export function expectOwnedMembers(doc: Doc, error: string, opts: MemberOption & { status?: number; strict?: boolean } = {}): void {
  const members: readonly string[] = (ERRORS as Record<string, { members?: readonly string[] }>)[error]?.members ?? [];
  const own: Record<string, string> = { issues: 'RES-PROBLEM-9', scope: 'RES-PROBLEM-11', conversation_id: 'RES-PROBLEM-12' };
  const allowed = (member: string) =>
    member === 'issues' ? issuesAllowed(error, opts.status ?? doc.status, opts.strict) : members.includes(member);
  for (const [member, clause] of Object.entries(own))
    if (member in doc && !allowed(member)) report(opts, clause, `problem "${member}" on ${error}`, 'absent', doc[member]);
}

/**
 * `issues`, when present: an array of at most the contract's number of items, each with `path`, `code` and `message`.
 * `path` may be a string (`items[0].quantity`) or an array of segments (`["items", 0, "quantity"]`): the spec names the
 * member but not its form.
 */
export function expectIssues(doc: Doc, opts: MemberOption = {}): void {
  if (!('issues' in doc)) return;
  const issues = doc.issues;
  if (!Array.isArray(issues)) return report(opts, 'RES-PROBLEM-9', 'problem "issues"', 'an array', issues);
  if (issues.length > LIMITS.validationIssues)
    report(opts, 'RES-PROBLEM-9', 'number of problem "issues"', `at most ${LIMITS.validationIssues}`, issues.length);
  issues.forEach((issue: unknown, i) => {
    const item = typeof issue === 'object' && issue !== null && !Array.isArray(issue) ? (issue as Doc) : undefined;
    const pathOk =
      typeof item?.path === 'string' ||
      (Array.isArray(item?.path) && item.path.every((s) => typeof s === 'string' || typeof s === 'number'));
    if (!item || !pathOk || typeof item.code !== 'string' || typeof item.message !== 'string')
      report(
        opts,
        'RES-PROBLEM-10',
        `problem "issues[${i}]"`,
        '{ path: string | (string|number)[], code: string, message: string }',
        issue,
      );
  });
}

/** The clauses expectProblemDocument judges: the Resources table's members, each on its own (RES-PROBLEM-7 is expectProblem's). */
export const PROBLEM_DOCUMENT_CLAUSES = [
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
] as const;

/**
 * The Resources table, member by member, on one failure whatever its route or status: the media type, a JSON object,
 * `error` (the expected code when given, else a non-empty string), `type`, `title`, `status`, `detail`, `instance`, the
 * members other codes own, `issues`; each on the member's own clause, reported as `opts` says (hard, or softly and named).
 * Returns the document (undefined after a soft failure of the object). It judges neither the response's status nor its
 * headers beyond Content-Type: the check that needs them composes them (expectProblem, the every-response judge).
 */
export function expectProblemDocument(
  res: HttpResult & { text?: string },
  opts: MemberOption & { docsUrl: string; error?: string },
): Doc | undefined {
  expectProblemMediaType(res, opts);
  const doc = expectProblemObject(res, opts);
  if (!doc) return undefined;
  const error = opts.error ?? String(doc.error);
  expectProblemError(doc, opts);
  expectProblemType(doc, { ...opts, error });
  expectProblemTitle(res, doc, opts);
  expectProblemStatus(res, doc, opts);
  expectProblemDetail(doc, opts);
  expectProblemInstance(res, doc, opts);
  expectOwnedMembers(doc, error, { ...opts, status: res.status });
  expectIssues(doc, opts);
  return doc;
}

/** The caller's clause (or clauses) and a row of the error table, both blamed. */
export const withRow = (clause: ClauseRef | undefined, row: string): ClauseRef =>
  clause === undefined ? row : [...new Set([...(Array.isArray(clause) ? clause : [clause]), row])];

/**
 * A problem document as the spec's Resources part defines it (RFC 9457 plus the service's members), with the boundary's
 * headers (Cache-Control: no-store, X-Request-Id). Status, `error` and `scope` are judged on the caller's clause; the
 * format on its own clauses, softly. It does not check challenges (expectChallenge), beyond refusing one where the error
 * table puts none.
 */
export function expectProblem(res: HttpResult, want: ProblemExpectation): Doc {
  const on = { clause: want.clause };
  expectStatus(res, want.status, on);
  const soft = { soft: true };
  // Stated twice by the spec (the problem document's media type; every response of status 400 or above).
  expectProblemMediaType(res, { ...soft, clause: 'ERR-PROBLEM-4' });
  expectProblemMediaType(res, soft);
  expectFailureNoStore(res, soft);
  const doc = expectProblemObject(res, on)!;
  expectProblemError(doc, { ...on, error: want.error });
  expectProblemType(doc, { ...soft, docsUrl: want.docsUrl, error: want.error });
  expectProblemTitle(res, doc, soft);
  expectProblemStatus(res, doc, soft);

  const requestId = res.headers.get('x-request-id');
  if (requestId === null || requestId === '') failSoft('X-Request-Id header', 'present', requestId, { clause: 'ERR-PROBLEM-7' });
  else expectProblemInstance(res, doc, soft);
  if (want.requestId !== undefined && requestId !== want.requestId) fail('X-Request-Id header', want.requestId, requestId, on);

  if (want.error === 'internal_error' && 'detail' in doc)
    failSoft('problem "detail" on internal_error', 'absent', doc.detail, { clause: 'RES-PROBLEM-7' });
  expectProblemDetail(doc, soft);

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
  expectOwnedMembers(doc, want.error, { ...soft, status: res.status });
  expectIssues(doc, soft);
  if (want.error === 'insufficient_scope') {
    // The error table's own row (ERR-TABLE-9: "with the `scope` member naming it") besides the caller's clause.
    const scopeOn = { clause: withRow(want.clause, 'ERR-TABLE-9') };
    if (typeof doc.scope !== 'string' || doc.scope === '')
      fail('problem "scope" on insufficient_scope', want.scope ?? 'a non-empty string', doc.scope, scopeOn);
    if (want.scope !== undefined && doc.scope !== want.scope) fail('problem "scope"', want.scope, doc.scope, scopeOn);
  }
  return doc;
}
