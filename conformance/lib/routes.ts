// "Is this route served?" without assuming how the target answers a route it does not have. The spec leaves the status and
// code of an unmatched route open ("not shown"): the reference answers 404 not_found (405 for another method), another
// server may answer 400 unknown_route. A request is judged unserved when its answer is 404 or 405, or when it is the answer
// the target gives, for the same method and credentials, to a path no service has.
import { ERRORS } from '../../contract/errors.js';

export interface UnmatchedAnswer {
  status: number;
  error: string | undefined;
}

interface Answer {
  status: number;
  body?: unknown;
}

const errorOf = (res: Answer): string | undefined => {
  const body = res.body as { error?: unknown } | undefined;
  return typeof body?.error === 'string' ? body.error : undefined;
};

/** A path under the same first segment as `path` (`/v1/…`, `/assistant/…`) that no service has. */
export function unmatchedPathNear(path: string, nonce: string): string {
  const first = /^\/[^/?#]+\//.exec(path)?.[0] ?? '/';
  return `${first}no-such-route-${nonce}`;
}

/** Codes the spec gives a meaning (invalid_request, caller_not_allowed, …): an answer with one of them is that failure. */
const SHOWN_CODES: ReadonlySet<string> = new Set(
  Object.entries(ERRORS)
    .filter(([, e]) => e.shownInSpec)
    .map(([code]) => code),
);

/**
 * The target's answer to `send` at a path no service has, next to `path`. Left out, so that a served route is never taken
 * for a missing one: a success, a server error, a refusal of the credentials (401, 403), and an answer whose `error` is a
 * code the spec gives another meaning (a target that answers unmatched paths 400 invalid_request cannot be told apart from
 * a validation failure). The result may be empty: then only 404 and 405 count.
 */
export async function probeUnmatched(send: (path: string) => Promise<Answer>, path: string, nonce: string): Promise<UnmatchedAnswer[]> {
  const res = await send(unmatchedPathNear(path, nonce));
  const error = errorOf(res);
  if (res.status < 400 || res.status === 401 || res.status === 403 || res.status >= 500 || (error !== undefined && SHOWN_CODES.has(error)))
    return [];
  return [{ status: res.status, error }];
}

/** The answer of no route: 404, 405, or the status and `error` of a probe of an unmatched path. */
export function looksUnmatched(res: Answer, probes: readonly UnmatchedAnswer[]): boolean {
  if (res.status === 404 || res.status === 405) return true;
  return probes.some((p) => p.status === res.status && p.error === errorOf(res));
}

/** For failure messages: what counted as "no route". */
export function describeUnmatched(probes: readonly UnmatchedAnswer[]): string {
  return ['404', '405', ...probes.map((p) => `${p.status} ${p.error ?? '(no error member)'}`)].join(', ');
}
