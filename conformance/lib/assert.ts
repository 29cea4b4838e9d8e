// Framework-neutral, verb-named assertions over an HTTP response. Each does one job and throws a CheckFailure carrying the
// expected and actual values and, when the caller names it, the spec clause, so any runner can report the failure.
import { ERRORS, REASON_PHRASES } from '../../contract/errors.js';
import { LIMITS } from '../../contract/limits.js';
import { describeFreshness, freshnessLifetime, type Freshness } from './freshness.js';
import { pathBelowBase, resolveLocation } from './location.js';
import { ChallengeParseError, findChallenge, parseChallenges, type Challenge } from './www-authenticate.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or whatever the caller decoded). */
  body: unknown;
}

/**
 * The clause an assertion enforces, or several where one observation judges them together (the spec states one fact in
 * two parts, or one answer is both a route's and a caller kind's requirement): a failure blames every one of them.
 */
export type ClauseRef = string | readonly string[];

export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly expected: unknown;
  readonly actual: unknown;
  /** The first clause named (kept for messages and callers that know one). */
  readonly clause: string | undefined;
  /** Every clause the failed assertion names. */
  readonly clauses: readonly string[];
  /** The target refused the setup of a capability the profile claims: a failure of the refusing route's clause, never a skip. */
  readonly setup: boolean;
  constructor(what: string, details: { expected: unknown; actual: unknown; clause?: ClauseRef | undefined; setup?: boolean }) {
    const clauses = details.clause === undefined ? [] : typeof details.clause === 'string' ? [details.clause] : [...details.clause];
    super(
      `${details.setup ? 'setup failed: ' : ''}${clauses.length ? `[${clauses.join(', ')}] ` : ''}${what}: expected ${show(details.expected)}, got ${show(details.actual)}`,
    );
    this.expected = details.expected;
    this.actual = details.actual;
    this.clause = clauses[0];
    this.clauses = clauses;
    this.setup = details.setup ?? false;
  }
}

export interface ClauseOption {
  /** Clause id (or ids) the check enforces, carried by the failure. */
  clause?: ClauseRef;
}

export function expectStatus(res: Pick<HttpResult, 'status'>, status: number | readonly number[], opts: ClauseOption = {}): void {
  const allowed = typeof status === 'number' ? [status] : status;
  if (!allowed.includes(res.status)) fail('status', typeof status === 'number' ? status : allowed, res.status, opts.clause);
}

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
  const { clause } = want;
  expectStatus(res, want.status, { clause });
  // The document's format is judged on the format's own clauses, and softly: a broken member is that clause's failure,
  // and the check goes on to judge its own clause (one broken header must not fail every clause that meets a problem).
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/problem+json') {
    // Stated twice by the spec (the problem document's media type; every response of status 400 or above).
    failSoft('Content-Type media type', 'application/problem+json', res.headers.get('content-type'), 'ERR-PROBLEM-4');
    failSoft('Content-Type media type', 'application/problem+json', res.headers.get('content-type'), 'RES-PROBLEM-1');
  }
  const cacheControl = parseCacheControl(res.headers.get('cache-control'));
  if (!cacheControl.has('no-store'))
    failSoft('Cache-Control of a response with status 400 or above', 'no-store', res.headers.get('cache-control'), 'ERR-PROBLEM-5');
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('problem document', 'a JSON object', body, clause);
  const doc = body as Record<string, unknown>;
  if (doc.error !== want.error) fail('problem "error"', want.error, doc.error, clause);

  const type = `${want.docsUrl.replace(/\/+$/, '')}/api/problems/${want.error}`;
  if (doc.type !== type) failSoft('problem "type"', type, doc.type, 'RES-PROBLEM-3');
  const title = REASON_PHRASES[res.status];
  if (title !== undefined ? doc.title !== title : typeof doc.title !== 'string' || doc.title === '') {
    failSoft('problem "title" (reason phrase of the status)', title ?? 'a non-empty string', doc.title, 'RES-PROBLEM-4');
  }
  if (doc.status !== res.status) failSoft('problem "status" (the response status)', res.status, doc.status, 'RES-PROBLEM-5');

  const requestId = res.headers.get('x-request-id');
  if (requestId === null || requestId === '') failSoft('X-Request-Id header', 'present', requestId, 'ERR-PROBLEM-7');
  else if (doc.instance !== requestId) failSoft('problem "instance" (the X-Request-Id)', requestId, doc.instance, 'RES-PROBLEM-8');
  if (want.requestId !== undefined && requestId !== want.requestId) fail('X-Request-Id header', want.requestId, requestId, clause);

  if ('detail' in doc) {
    if (want.error === 'internal_error') failSoft('problem "detail" on internal_error', 'absent', doc.detail, 'RES-PROBLEM-7');
    if (typeof doc.detail !== 'string') failSoft('problem "detail"', 'a string', doc.detail, 'RES-PROBLEM-6');
  }

  // A challenge only where the error table puts one (401s, sign_in_required) or leaves the row's headers to the error
  // mapper (insufficient_scope, whose RFC 6750 §3.1 challenge a server may send): none on a validation failure
  // (ERR-TABLE-11) nor on a domain error (ERR-PROBLEM-8).
  const entry = (ERRORS as Record<string, { headers?: readonly string[] }>)[want.error];
  const www = res.headers.get('www-authenticate');
  if (entry && www !== null && !(entry.headers ?? []).includes('WWW-Authenticate') && !CHALLENGE_LEFT_OPEN.has(want.error)) {
    failSoft(`WWW-Authenticate on ${want.error}`, 'absent', www, want.error === 'invalid_request' ? 'ERR-TABLE-11' : 'ERR-PROBLEM-8');
  }

  // Extension members appear only with the errors that own them (spec, Resources > Problem document).
  const members: readonly string[] = (ERRORS as Record<string, { members?: readonly string[] }>)[want.error]?.members ?? [];
  if ('issues' in doc) {
    if (!members.includes('issues')) failSoft(`problem "issues" on ${want.error}`, 'absent', doc.issues, 'RES-PROBLEM-9');
    checkIssues(doc.issues);
  }
  if (want.error === 'insufficient_scope') {
    if (typeof doc.scope !== 'string' || doc.scope === '')
      fail('problem "scope" on insufficient_scope', want.scope ?? 'a non-empty string', doc.scope, clause);
    if (want.scope !== undefined && doc.scope !== want.scope) fail('problem "scope"', want.scope, doc.scope, clause);
  } else if ('scope' in doc) {
    failSoft(`problem "scope" on ${want.error}`, 'absent', doc.scope, 'RES-PROBLEM-11');
  }
  if ('conversation_id' in doc && !members.includes('conversation_id')) {
    failSoft(`problem "conversation_id" on ${want.error}`, 'absent', doc.conversation_id, 'RES-PROBLEM-12');
  }
  return doc;
}

function checkIssues(issues: unknown): void {
  if (!Array.isArray(issues)) return failSoft('problem "issues"', 'an array', issues, 'RES-PROBLEM-9');
  if (issues.length > LIMITS.validationIssues)
    failSoft('number of problem "issues"', `at most ${LIMITS.validationIssues}`, issues.length, 'RES-PROBLEM-9');
  issues.forEach((issue: unknown, i) => {
    const item = typeof issue === 'object' && issue !== null && !Array.isArray(issue) ? (issue as Record<string, unknown>) : undefined;
    const pathOk =
      typeof item?.path === 'string' ||
      (Array.isArray(item?.path) && item.path.every((s) => typeof s === 'string' || typeof s === 'number'));
    if (!item || !pathOk || typeof item.code !== 'string' || typeof item.message !== 'string') {
      failSoft(`problem "issues[${i}]"`, '{ path: string | (string|number)[], code: string, message: string }', issue, 'RES-PROBLEM-10');
    }
  });
}

export interface ChallengeExpectation extends ClauseOption {
  scheme: string;
  /** The challenge's `error` parameter. */
  error?: string;
  /** Further parameters (names case-insensitive); a value of `undefined` requires the parameter to be absent. */
  params?: Record<string, string | undefined>;
}

/** Finds the challenge of `scheme` in WWW-Authenticate (which must parse as a whole) and checks its parameters. */
export function expectChallenge(res: Pick<HttpResult, 'headers'>, want: ChallengeExpectation): Challenge {
  const { clause } = want;
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate header', `a ${want.scheme} challenge`, null, clause);
  let challenges: Challenge[];
  try {
    challenges = parseChallenges(header);
  } catch (err) {
    if (err instanceof ChallengeParseError) fail(`WWW-Authenticate syntax (${err.reason})`, 'RFC 9110 §11.6.1 challenges', header, clause);
    throw err;
  }
  const challenge = findChallenge(challenges, want.scheme);
  if (!challenge)
    fail(
      'WWW-Authenticate scheme',
      want.scheme,
      challenges.map((c) => c.scheme),
      clause,
    );
  const expected: Record<string, string | undefined> = { ...(want.error !== undefined ? { error: want.error } : {}) };
  for (const [name, value] of Object.entries(want.params ?? {})) expected[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(expected)) {
    const actual = Object.hasOwn(challenge.params, name) ? challenge.params[name] : undefined;
    if (actual !== value) fail(`${challenge.scheme} challenge parameter "${name}"`, value ?? 'absent', actual ?? 'absent', clause);
  }
  return challenge;
}

/** Cache-Control directives as name (lowercased) -> value (unquoted; '' when the directive has none). */
export function parseCacheControl(header: string | null): Map<string, string> {
  const directives = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...rest] = part.split('=');
    if (name.trim() === '') continue;
    directives.set(
      name.trim().toLowerCase(),
      rest
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  return directives;
}

/**
 * Every directive listed (`private`, `no-cache`, `max-age=300`) is present, with the same value when one is given.
 * With `exact`, no other directive may appear.
 */
export function expectCacheControl(
  res: Pick<HttpResult, 'headers'>,
  directives: readonly string[],
  opts: ClauseOption & { exact?: boolean } = {},
): void {
  const header = res.headers.get('cache-control');
  const actual = parseCacheControl(header);
  const wanted = parseCacheControl(directives.join(','));
  for (const [name, value] of wanted) {
    if (actual.get(name) !== value) fail(`Cache-Control directive ${name}`, directives.join(', '), header, opts.clause);
  }
  if (opts.exact && actual.size !== wanted.size) fail('Cache-Control directives (exactly)', directives.join(', '), header, opts.clause);
}

/**
 * "Cached `seconds` seconds": every cache that may store the response (a client's private cache, and a shared one unless
 * the response is `private`) gets that freshness lifetime from it, by RFC 9111 §4.2.1 (`max-age`, else `Expires` minus
 * `Date`; `s-maxage` for shared caches), and may reuse it without validation (no `no-store`, no `no-cache`). Which
 * fields state it is the server's choice. A lifetime from `Expires` may be one second off: HTTP-dates have whole seconds.
 */
export function expectFreshFor(res: Pick<HttpResult, 'headers'>, seconds: number, opts: ClauseOption & { what?: string } = {}): void {
  const shown = ['cache-control', 'expires', 'date']
    .map((n) => [n, res.headers.get(n)] as const)
    .filter(([, v]) => v !== null)
    .map(([n, v]) => `${n}: ${v}`)
    .join('; ');
  const judge = (f: Freshness, cache: string) => {
    const ok = f.stored && !f.revalidate && f.lifetime !== undefined && Math.abs(f.lifetime - seconds) <= (f.source === 'expires' ? 1 : 0);
    if (!ok)
      fail(
        `${opts.what ? `${opts.what}: ` : ''}freshness lifetime for a ${cache} cache (RFC 9111 §4.2.1), ${describeFreshness(f)}`,
        `${seconds} s, reusable without validation`,
        shown || '(no caching fields)',
        opts.clause,
      );
  };
  judge(freshnessLifetime(res.headers), 'private');
  const shared = freshnessLifetime(res.headers, { shared: true });
  if (shared.stored) judge(shared, 'shared');
}

export function expectNoStore(res: Pick<HttpResult, 'headers'>, opts: ClauseOption = {}): void {
  expectCacheControl(res, ['no-store'], opts);
}

/** A weak entity tag, `W/"<etagc>"` (RFC 9110 §8.8.3); returns it for a later If-None-Match. */
export function expectWeakEtag(res: Pick<HttpResult, 'headers'>, opts: ClauseOption = {}): string {
  const etag = res.headers.get('etag');
  if (etag === null || !/^W\/"[\x21\x23-\x7e\x80-\xff]*"$/.test(etag)) fail('ETag', 'a weak entity tag W/"…"', etag, opts.clause);
  return etag;
}

/**
 * A create (spec, Endpoints > Conventions): 201, and where the resource has a GET URL a Location header whose path below
 * the base URL matches `location`. The value is resolved once against the request's URL (RFC 9110 §10.2.2): a full URL,
 * an absolute path (with the deployment's path prefix) and a relative reference are all allowed. Returns the absolute URL.
 */
export function expectCreated(
  res: Pick<HttpResult, 'status' | 'headers'>,
  want: ClauseOption & ({ location?: undefined } | { location: RegExp; requestUrl: string; baseUrl: string }) = {},
): string | undefined {
  if (res.status !== 201) fail('status of a create', 201, res.status, want.clause);
  const location = res.headers.get('location');
  if (!want.location) return location ?? undefined;
  if (location === null) fail('Location of a create', 'a Location header', null, want.clause);
  const url = resolveLocation(location, want.requestUrl);
  const path = url ? pathBelowBase(url, want.baseUrl) : undefined;
  if (!url || path === undefined || !want.location.test(path.split('?')[0]!))
    fail(`Location of a create (a URL below ${want.baseUrl})`, String(want.location), location, want.clause);
  return url.href;
}

/** A delete (spec, Endpoints > Conventions): 204 with an empty body. */
export function expectNoContent(res: Pick<HttpResult, 'status'> & { text?: string }, opts: ClauseOption = {}): void {
  if (res.status !== 204) fail('status of a delete', 204, res.status, opts.clause);
  if (res.text !== undefined && res.text !== '') fail('body of a 204', '(empty)', res.text, opts.clause);
}

/**
 * A setup step of a claimed capability that the target refused (the identity-provider proxy did not register a session, a
 * documented body was refused): the run fails on the clause of the route that refused, with the transcript.
 */
export function failSetup(what: string, expected: unknown, actual: unknown, clause: ClauseRef): never {
  throw new CheckFailure(what, { expected, actual, clause, setup: true });
}

/**
 * The soft failures of the running check (OIDF's callAndContinueOnFailure): the check wrapper opens a ledger per check;
 * a soft failure is recorded there and the check goes on, so that it still judges its own clause. Without an open
 * ledger (a unit test calling an assertion directly) a soft failure throws like any other.
 */
export const softFailures: { ledger: CheckFailure[] | undefined } = { ledger: undefined };

/** A failed expectation of a cross-cutting clause (a problem document's member, a header every response carries). */
export function failSoft(what: string, expected: unknown, actual: unknown, clause: ClauseRef): void {
  const failure = new CheckFailure(what, { expected, actual, clause });
  if (!softFailures.ledger) throw failure;
  if (!softFailures.ledger.some((f) => f.message === failure.message)) softFailures.ledger.push(failure);
}

/** The status and the start of the body of an answer, for failure messages. */
export const brief = (res: Pick<HttpResult, 'status'> & { text: string }): string => `${res.status} ${res.text.slice(0, 300)}`;

export const is2xx = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 200 && res.status < 300;
export const is4xx = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 400 && res.status < 500;
/** The route answered: 2xx or 3xx (the suite follows no redirect, so a redirect to another route counts). */
export const answers = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 200 && res.status < 400;

/** 2xx, else a failure that shows the answer. */
export function expectSuccess(res: Pick<HttpResult, 'status'> & { text: string }, what: string, clause: ClauseRef): void {
  if (!is2xx(res)) fail(`${what}: status`, '2xx', brief(res), clause);
}

/**
 * Runs the assertions of one case of a check and names the case in their failure: `[CLAUSE] <what>: <the assertion's own
 * text>`. An async assertion gives a promise to await.
 */
export function inCase(what: string, assertion: () => Promise<unknown>): Promise<void>;
export function inCase(what: string, assertion: () => void): void;
export function inCase(what: string, assertion: () => unknown): void | Promise<void> {
  const name = (err: unknown): never => {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  };
  let result: unknown;
  try {
    result = assertion();
  } catch (err) {
    return name(err);
  }
  if (result instanceof Promise) return result.then(() => undefined, name);
}

/** A failed expectation: what was looked at, what was expected and what came, and the clause it enforces. */
export function fail(what: string, expected: unknown, actual: unknown, clause: ClauseRef | undefined): never {
  throw new CheckFailure(what, { expected, actual, clause });
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Judges every item, then fails naming the clauses of every item that failed, one line each: a server that breaks one case
 * is blamed for that case, not for the first one judged. A single failure is thrown as it is.
 */
export async function judgeEach<T>(
  items: readonly T[],
  judge: (item: T) => Promise<void>,
  summary: (failed: number, of: number) => string,
): Promise<void> {
  const failures: CheckFailure[] = [];
  for (const item of items) {
    try {
      await judge(item);
    } catch (err) {
      if (!(err instanceof CheckFailure)) throw err;
      failures.push(err);
    }
  }
  if (failures.length === 0) return;
  if (failures.length === 1) throw failures[0]!;
  const what = summary(failures.length, items.length);
  const failure = new CheckFailure(what, {
    expected: failures.map((f) => f.expected),
    actual: failures.map((f) => f.actual),
    clause: [...new Set(failures.flatMap((f) => f.clauses))],
  });
  failure.message = [`[${failure.clauses.join(', ')}] ${what}:`, ...failures.map((f) => `  ${f.message}`)].join('\n');
  throw failure;
}
