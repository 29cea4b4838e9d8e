// The rules of every response (spec, Request processing order; Errors; Endpoints > Conventions): X-Request-Id on every
// response, a fresh DPoP-Nonce on every response to a DPoP request, the boundary's headers, the problem document of every
// failure, and no challenge or nonce on a domain error. Judged softly, answer by answer, so that a check that gathers
// answers of many statuses and routes shows each one that breaks a rule; check() applies them to every exchange of the
// checks that declare `everyResponse` (engine/transport/every-response.ts).
import { expectDpopNonce as nonceRule } from '../../rules/05-authentication.js';
import { failSoft } from './failure.js';
import { DESCRIPTION, ASSISTANT_DESCRIPTION } from '../../../contract/routes.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { routeOf } from '../../../contract/requests.js';
import { expectProblemDocument, PROBLEM_DOCUMENT_CLAUSES } from './problem.js';
import type { HttpResult } from './response.js';

/** An answer as these rules read it: status, headers, the body as text and parsed. */
type ShopResponse = HttpResult & { text: string; body: any };

/** X-Request-Id on an answer: the request stage's rule (AUTH-ORDER-2) and the boundary's (ERR-PROBLEM-7), both blamed. */
export function expectRequestId(res: ShopResponse, what: string): void {
  if (res.headers.get('x-request-id')) return;
  failSoft(`${what} (${res.status}): X-Request-Id`, 'present', null, { clause: ['AUTH-ORDER-2', 'ERR-PROBLEM-7'] });
}

/** DPoP-Nonce on the answer to a DPoP request (AUTH-ORDER-4: the rule rules/05-authentication.ts), softly. */
export function expectDpopNonce(res: ShopResponse, what: string): void {
  nonceRule(res, { at: `${what} (${res.status})`, soft: true });
}

/**
 * The boundary's rules on one answer (spec, Errors; Endpoints > Conventions): a failure (400 or above) is a problem
 * document (ERR-PROBLEM-1) labelled application/problem+json (ERR-PROBLEM-4) and never stored (ERR-PROBLEM-5); any other
 * answer but a catalog GET or a description document (`cacheable`) is no-store by default (END-CONV-9). Judged softly.
 */
const DOCUMENTS = new Set<string>([DESCRIPTION.path, ASSISTANT_DESCRIPTION.path]);

/** A catalog GET or a description document: the answers whose caching is their own (END-CONV-9 exempts them). */
export function cacheable(method: string, path: string): boolean {
  if (DOCUMENTS.has(path)) return true;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const op = routeOf(method, path)?.operationId;
  return op !== undefined && OPERATIONS_BY_ID.get(op)?.group === 'catalog';
}

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
 * expectProblemDocument (lib/expect/problem.ts), softly, each answer named. The Errors table's rows without
 * headers add that neither a wrong caller kind nor a validation failure carries a challenge.
 */
export function expectProblemMembers(docsUrl: string, res: ShopResponse, what: string): void {
  if (res.status < 400) return;
  const opts = { soft: true, at: `${what} (${res.status})` };
  const d = expectProblemDocument(res, { ...opts, docsUrl });
  if (!d) return;
  const challengeless: Record<string, string> = { caller_not_allowed: 'ERR-TABLE-8', invalid_request: 'ERR-TABLE-11' };
  const row = challengeless[String(d.error)];
  if (row && res.headers.get('www-authenticate') !== null)
    failSoft(`${opts.at}: WWW-Authenticate on ${String(d.error)}`, 'absent', res.headers.get('www-authenticate'), { clause: row });
}

/** The clauses every answer of a gathering check is judged on (the order of the checks' citations). */
export const EVERY_RESPONSE_CLAUSES = [
  'AUTH-ORDER-2',
  'ERR-PROBLEM-7',
  'ERR-PROBLEM-1',
  'ERR-PROBLEM-4',
  'ERR-PROBLEM-5',
  'END-CONV-9',
  ...PROBLEM_DOCUMENT_CLAUSES,
  'ERR-TABLE-8',
  'ERR-TABLE-11',
] as const;

/** One answer a gathering check hands expectEveryResponse: what was sent, and its response. */
export type Answer = [what: string, res: ShopResponse];

/** A case of a gathering check that sends one request (`send`): its answer, named `what`. */
export const answerOf =
  (what: string, send: () => Promise<ShopResponse>): (() => Promise<Answer[]>) =>
  async () => [[what, await send()]];

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

// ERR-PROBLEM-8, the headers of a domain error: the rules of rules/07-errors.ts (re-exported for the judges that import them here).
export { expectDomainErrorHeaders, isDomainError } from '../../rules/07-errors.js';
