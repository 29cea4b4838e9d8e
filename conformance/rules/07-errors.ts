// The rules of the spec's Errors part judged on more than one exchange: the headers of a domain error (ERR-PROBLEM-8),
// judged on every answer of the checks that gather answers, every exchange of the every-response judge and every answer
// `explore` gets.
import { ERRORS, type ErrorCode } from '../../contract/errors.js';
import { challengeSchemeOf, headerOf, mayBeDpopRequest, type Credentials, type HeaderBag } from '../../contract/requests.js';
import { CHALLENGE_LEFT_OPEN } from '../lib/expect/problem.js';
import { DPOP_NONCE_HEADER } from './05-authentication.js';
import { enforce, type Rule } from './rule.js';

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

/** An answer as the domain-error rules read it. */
export interface Answered {
  status: number;
  headers: HeaderBag;
  body?: unknown;
}

/** The request as the domain-error nonce rule reads it: its path and what it presents. */
export interface Requested {
  path: string;
  credentials: Credentials;
}

const codeOf = (res: Answered): unknown => (res.body as { error?: unknown } | undefined)?.error;
const domainError = (res: Answered) => res.status >= 400 && isDomainError(codeOf(res));

/** ERR-PROBLEM-8: a domain error carries no challenge. */
export const NO_CHALLENGE_ON_DOMAIN_ERROR: Rule<Answered> = {
  name: 'no challenge on a domain error',
  clause: 'ERR-PROBLEM-8',
  section: 'Errors',
  scope: { route: 'every', caller: 'every', status: 'each domain error code of the table (isDomainError)', request: 'any request' },
  applies: () => true,
  judge(res) {
    const challenge = headerOf(res.headers, 'www-authenticate');
    if (!domainError(res) || challenge === undefined) return undefined;
    return { what: 'WWW-Authenticate on a domain error', expected: 'absent', actual: challenge };
  },
};

/**
 * Whether a nonce may come on a domain error to this request: a DPoP request in either reading of the spec
 * (contract/requests.ts mayBeDpopRequest), or a request whose challenge scheme is DPoP (a conversation path, an assistant's
 * token sent as Bearer), which a deployment may treat as one.
 */
export const nonceAllowed = (request: Requested): boolean =>
  mayBeDpopRequest(request.credentials) || challengeSchemeOf(request.path, request.credentials) === 'DPoP';

/**
 * ERR-PROBLEM-8: a domain error carries no nonce unless the request is one a nonce may answer (a DPoP request gets a
 * fresh nonce on every response: AUTH-ORDER-4).
 */
export const NO_NONCE_ON_DOMAIN_ERROR: Rule<Answered, Requested> = {
  name: 'no nonce on a domain error to a request without a proof',
  clause: 'ERR-PROBLEM-8',
  section: 'Errors',
  scope: {
    route: 'every',
    caller: 'every',
    status: 'each domain error code of the table (isDomainError)',
    request: 'a request no nonce may answer (not nonceAllowed)',
  },
  applies: (request) => !nonceAllowed(request),
  judge(res) {
    const nonce = headerOf(res.headers, DPOP_NONCE_HEADER);
    if (!domainError(res) || nonce === undefined) return undefined;
    return { what: 'DPoP-Nonce on a domain error to a request without a proof', expected: 'absent', actual: nonce };
  },
};

/**
 * ERR-PROBLEM-8 on one answer, softly: a domain error has no challenge, nor a nonce unless one may answer the request.
 * `request` is the request (its path and credentials), or whether a nonce may answer it (a caller that decided already).
 */
export function expectDomainErrorHeaders(res: Answered, what: string, request: Requested | boolean = false): void {
  const at = `${what} (${res.status} ${String(codeOf(res))})`;
  enforce(NO_CHALLENGE_ON_DOMAIN_ERROR, res, { at, soft: true });
  const allowed = typeof request === 'boolean' ? request : !NO_NONCE_ON_DOMAIN_ERROR.applies(request);
  if (!allowed) enforce(NO_NONCE_ON_DOMAIN_ERROR, res, { at, soft: true });
}
