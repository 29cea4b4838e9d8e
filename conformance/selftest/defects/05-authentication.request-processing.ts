// Defects of the request stage (AUTH-ORDER-*): the order of authentication, validation and rate limiting, the headers a
// caller kind may not send, and the per-response headers (X-Request-Id, traceparent, DPoP-Nonce) on every answer.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  bearerChallenge,
  headerOf,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  refusal,
  refused,
  tokenClaims,
  withHeaderLast,
  withoutHeader,
} from './helpers.js';
import { lenient, wire, wireWith, type Defect } from './types.js';
import { malformedJsonRepaired } from './04-endpoints.conventions.js';
import { dropHeaders } from './05-authentication.guest-sessions.js';

/** A header dropped from the answers `when` picks, and from no other: one status, or one group of routes. */
export const dropOn = (
  id: string,
  clause: string,
  header: string,
  what: string,
  when: (a: ProxyAnswer, r: ProxyRequest) => boolean,
): Defect =>
  wire(id, clause, `${header} missing on ${what} only`, (a, r) => (when(a, r) ? { ...a, headers: withoutHeader(a.headers, header) } : a));

const carriesProof = (r: ProxyRequest) => headerOf(r.headers, 'dpop') !== undefined;

const statusOnly = (status: number) => (a: ProxyAnswer) => a.status === status;

const dpopStatusOnly = (status: number) => (a: ProxyAnswer, r: ProxyRequest) => a.status === status && carriesProof(r);

/** DPoP-Nonce missing on one status class of DPoP requests alone (AUTH-ORDER-4). */
const NONCE_NARROW: readonly Defect[] = [201, 204, 304, 403, 404, 409, 415, 422, 429].map((s) =>
  dropOn(
    `authentication.limits.dpop-nonce-missing-on-${s}`,
    'AUTH-ORDER-4',
    'DPoP-Nonce',
    `${s} answers to DPoP requests`,
    dpopStatusOnly(s),
  ),
);

export const AUTHENTICATION_REQUEST_PROCESSING_DEFECTS: readonly Defect[] = [
  lenient(
    'authentication.foreign-headers-ignored',
    'AUTH-ORDER-6',
    'Guest-Session, Shopper-IP and Operator from the wrong caller kinds are ignored instead of refused',
    dropHeaders(
      ['guest-session', 'shopper-ip', 'operator'],
      (c, ctx) => c !== undefined && c.client_id !== ctx.profile.clients.storefront && c.client_id !== ctx.profile.clients.backoffice,
    ),
  ),
  lenient(
    'authentication.guest-session-ignored-for-invited-agents',
    'AUTH-ORDER-6',
    'Guest-Session from a forwarded invited agent is ignored instead of refused',
    dropHeaders(['guest-session'], (c, ctx) => c?.client_id === ctx.profile.clients.webAgentForwarder),
  ),
  lenient(
    'authentication.operator-header-ignored-for-guests',
    'AUTH-ORDER-6',
    'the Operator header from a guest is ignored instead of refused',
    dropHeaders(['operator'], (c, ctx) => c?.client_id === ctx.profile.clients.storefront),
  ),
  wire('authentication.limits.request-id-dropped-on-failures', 'AUTH-ORDER-2', 'X-Request-Id missing on failure answers', (a) =>
    a.status >= 400 ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
  ),
  wire('authentication.limits.traceparent-not-echoed', 'AUTH-ORDER-3', 'a valid traceparent is not echoed', (a) => ({
    ...a,
    headers: withoutHeader(a.headers, 'traceparent'),
  })),
  wire(
    'authentication.limits.dpop-nonce-after-authentication-only',
    'AUTH-ORDER-4',
    'DPoP-Nonce missing on DPoP requests refused before authentication (400, 404, 405, 413, 415)',
    (a, r) =>
      headerOf(r.headers, 'dpop') !== undefined && [400, 404, 405, 413, 415].includes(a.status)
        ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') }
        : a,
  ),
  wire(
    'authentication.limits.dpop-nonce-only-on-failures',
    'AUTH-ORDER-4',
    'DPoP-Nonce missing on successful answers to DPoP requests',
    (a, r) => (a.status < 400 && headerOf(r.headers, 'dpop') ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a),
  ),
  wire('authentication.limits.invalid-traceparent-echoed', 'AUTH-ORDER-3', 'an invalid traceparent is echoed back', (a, r) =>
    headerOf(r.headers, 'traceparent') && !headerOf(a.headers, 'traceparent')
      ? { ...a, headers: withHeaderLast(a.headers, 'traceparent', headerOf(r.headers, 'traceparent')!) }
      : a,
  ),
  wire(
    'authentication.limits.traceparent-not-echoed-on-delete',
    'AUTH-ORDER-3',
    'a valid traceparent is not echoed on DELETE requests only',
    (a, r) => (r.method === 'DELETE' ? { ...a, headers: withoutHeader(a.headers, 'traceparent') } : a),
  ),
  ...[201, 204, 304, 413, 415, 422, 429].map((s) =>
    dropOn(`authentication.limits.request-id-missing-on-${s}`, 'AUTH-ORDER-2', 'X-Request-Id', `${s} answers`, statusOnly(s)),
  ),
  ...NONCE_NARROW,
  malformedJsonRepaired('AUTH-ORDER-11', 'authentication'),
  wire(
    'authentication.rate-limit-after-validation',
    'AUTH-ORDER-9',
    'an over-budget request with an invalid body is answered 400',
    (a, r) => (a.status === 429 && r.method !== 'GET' ? refusal(400, 'invalid_request', 'Bad Request') : a),
  ),
  wire('authentication.validation-before-token', 'AUTH-ORDER-10', 'a bad token with a body is answered 400 invalid_request', (a, r) =>
    problemCode(a) === 'invalid_token' && r.method !== 'GET' && headerOf(r.headers, 'authorization')
      ? refusal(400, 'invalid_request', 'Bad Request')
      : a,
  ),
  {
    // A rate limit that runs before the guard: once a shopper's budget of an operation is spent (a 429 seen), the requests
    // of that shopper to that operation the guard refuses (caller_not_allowed, insufficient_scope) are answered 429 too.
    id: 'authentication.rate-limit-before-guard',
    clause: 'AUTH-ORDER-8',
    kind: 'wire',
    description: 'over a spent budget, a request the guard refuses is answered 429 with Retry-After (the rate limit runs first)',
    rules: () => {
      const spent = new Set<string>();
      const keyOf = (r: ProxyRequest) => `${headerOf(r.headers, 'shopper-ip') ?? String(tokenClaims(r)?.sub)} ${r.method} ${pathOf(r)}`;
      return {
        buffer: notAStream,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          if (a.status === 429) spent.add(keyOf(r));
          else if (spent.has(keyOf(r)) && ['caller_not_allowed', 'insufficient_scope'].includes(problemCode(a) ?? '')) {
            const limited = refused(a, 429, 'rate_limited');
            return { ...limited, headers: [...limited.headers, ['Retry-After', '1']] };
          }
          return a;
        },
      };
    },
  },
  wireWith(
    'authentication.errors.authenticate-before-decoding',
    'AUTH-ORDER-1',
    'authenticate runs before the body is decoded: a malformed JSON body without a token is 401 invalid_token, not 400',
    (ctx) => (a, r) =>
      problemCode(a) === 'invalid_json' && headerOf(r.headers, 'authorization') === undefined
        ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', bearerChallenge)
        : a,
  ),
];
