// Status and header expectations over any HTTP response: the shapes every part of the suite repeats.
import { pathBelowBase, resolveLocation } from '../location.js';
import { fail, type ClauseOption } from './failure.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or whatever the caller decoded). */
  body: unknown;
  /** The reason phrase of the status line, where the transport read one (HTTP/1.1). */
  reason?: string;
}

/** An answer as the suite's transport gives it: its body text, and the body parsed as JSON (undefined when it is not). */
export interface Answer extends HttpResult {
  text: string;
  body: any;
}

/** What a failure names as looked at (default: the helper's own noun). */
export interface WhatOption extends ClauseOption {
  what?: string;
}

/** The status and the start of the body of an answer, for failure messages. */
export const brief = (res: Pick<HttpResult, 'status'> & { text: string }): string => `${res.status} ${res.text.slice(0, 300)}`;

export const is2xx = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 200 && res.status < 300;
export const is4xx = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 400 && res.status < 500;
/** The route answered: 2xx or 3xx (the suite follows no redirect, so a redirect to another route counts). */
export const answers = (res: Pick<HttpResult, 'status'>): boolean => res.status >= 200 && res.status < 400;

/** What a failure shows of an answer: its status, and the start of its body where the response kept it. */
const shown = (res: Pick<HttpResult, 'status'> & { text?: string }): number | string =>
  typeof res.text === 'string' ? brief(res as { status: number; text: string }) : res.status;

/** One of the statuses; a failure shows the status and the start of the body. */
export function expectStatus(
  res: Pick<HttpResult, 'status'> & { text?: string },
  status: number | readonly number[],
  opts: WhatOption = {},
): void {
  const allowed = typeof status === 'number' ? [status] : status;
  if (!allowed.includes(res.status)) fail(opts.what ?? 'status', typeof status === 'number' ? status : allowed, shown(res), opts);
}

/** 2xx, else a failure that shows the answer. */
export function expectSuccess(res: Pick<HttpResult, 'status'> & { text: string }, opts: WhatOption & { what: string }): void {
  if (!is2xx(res)) fail(`${opts.what}: status`, '2xx', brief(res), opts);
}

/** No answer (not 2xx/3xx): a path that is not a route of the service, an alias that must not exist. */
export function expectNoAnswer(res: Pick<HttpResult, 'status'>, opts: WhatOption = {}): void {
  if (answers(res)) fail(opts.what ?? 'status', 'no answer (not 2xx/3xx)', res.status, opts);
}

/** Not a server error (5xx): whatever the client sent, the answer is the service's judgement of it. */
export function expectNoServerError(res: Pick<HttpResult, 'status'> & { text: string }, opts: WhatOption = {}): void {
  if (res.status >= 500) fail(opts.what ?? 'status', 'not a server error', brief(res), opts);
}

/** A client error (4xx), else a failure that shows the answer. */
export function expect4xx(res: Pick<HttpResult, 'status'> & { text: string }, opts: WhatOption = {}): void {
  if (!is4xx(res)) fail(opts.what ?? 'status', '4xx', brief(res), opts);
}

/** Two values equal as JSON (members in the same order): records, lists of ids, bodies. */
export function expectSameJson(actual: unknown, expected: unknown, opts: WhatOption & { what: string }): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) fail(opts.what, expected, actual, opts);
}

/** The header is present (non-empty), and equal to or matching `value` when given; returns it. */
export function expectHeader(res: Pick<HttpResult, 'headers'>, name: string, opts: WhatOption & { value?: string | RegExp } = {}): string {
  const actual = res.headers.get(name);
  const { value } = opts;
  const ok =
    actual !== null && actual !== '' && (value === undefined || (typeof value === 'string' ? actual === value : value.test(actual)));
  if (!ok) fail(opts.what ?? `${name} header`, value === undefined ? 'present' : String(value), actual, opts);
  return actual!;
}

/** The header is absent. */
export function expectNoHeader(res: Pick<HttpResult, 'headers'>, name: string, opts: WhatOption = {}): void {
  const actual = res.headers.get(name);
  if (actual !== null) fail(opts.what ?? `${name} header`, 'absent', actual, opts);
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
  if (res.status !== 201) fail('status of a create', 201, res.status, want);
  const location = res.headers.get('location');
  if (!want.location) return location ?? undefined;
  if (location === null) fail('Location of a create', 'a Location header', null, want);
  const url = resolveLocation(location, want.requestUrl);
  const path = url ? pathBelowBase(url, want.baseUrl) : undefined;
  if (!url || path === undefined || !want.location.test(path.split('?')[0]!))
    fail(`Location of a create (a URL below ${want.baseUrl})`, String(want.location), location, want);
  return url.href;
}

/** A delete (spec, Endpoints > Conventions): 204 with an empty body. */
export function expectNoContent(res: Pick<HttpResult, 'status'> & { text?: string }, opts: ClauseOption = {}): void {
  if (res.status !== 204) fail('status of a delete', 204, res.status, opts);
  if (res.text !== undefined && res.text !== '') fail('body of a 204', '(empty)', res.text, opts);
}
