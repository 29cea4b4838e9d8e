// Defects of the Limits part (LIM-*) and of the request stage (AUTH-ORDER-*): caches, budgets and per-response headers.
import { headerOf, mapHeader, type ProxyAnswer, type ProxyRequest } from '../proxy.js';
import { pathOf, setField, withoutField, wire, type Defect } from './types.js';

/** A header dropped from the answers `when` picks, and from no other: one status, or one group of routes. */
const dropOn = (id: string, clause: string, header: string, what: string, when: (a: ProxyAnswer, r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${header} missing on ${what} only`, (a, r) => (when(a, r) ? { ...a, headers: withoutField(a.headers, header) } : a));
const isDpop = (r: ProxyRequest) => headerOf(r.headers, 'dpop') !== undefined;
const statusOnly = (status: number) => (a: ProxyAnswer) => a.status === status;
const dpopStatusOnly = (status: number) => (a: ProxyAnswer, r: ProxyRequest) => a.status === status && isDpop(r);

/** X-Request-Id missing on one status class alone, or on one group of routes alone (AUTH-ORDER-2, ERR-PROBLEM-7). */
const REQUEST_ID_NARROW: readonly Defect[] = [
  ...[201, 204, 304, 413, 415, 422, 429].map((s) =>
    dropOn(`limits.request-id-missing-on-${s}`, 'AUTH-ORDER-2', 'X-Request-Id', `${s} answers`, statusOnly(s)),
  ),
  dropOn('errors.request-id-missing-on-webhook', 'ERR-PROBLEM-7', 'X-Request-Id', 'the webhook route', (_a, r) =>
    pathOf(r).startsWith('/webhooks/'),
  ),
  dropOn('errors.request-id-missing-on-internal', 'ERR-PROBLEM-7', 'X-Request-Id', 'the internal routes', (_a, r) =>
    pathOf(r).startsWith('/internal/'),
  ),
  dropOn('errors.request-id-missing-on-documents', 'ERR-PROBLEM-7', 'X-Request-Id', 'the description documents', (_a, r) =>
    pathOf(r).endsWith('/openapi.json'),
  ),
];

/** DPoP-Nonce missing on one status class of DPoP requests alone (AUTH-ORDER-4). */
const NONCE_NARROW: readonly Defect[] = [201, 204, 304, 403, 404, 422, 429].map((s) =>
  dropOn(`limits.dpop-nonce-missing-on-${s}`, 'AUTH-ORDER-4', 'DPoP-Nonce', `${s} answers to DPoP requests`, dpopStatusOnly(s)),
);

export const LIMITS_DEFECTS: readonly Defect[] = [
  wire('limits.documents-short-cache', 'LIM-DOCS-1', 'both description documents cacheable for 30 seconds', (a, r) =>
    pathOf(r).endsWith('openapi.json')
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=30')) }
      : a,
  ),
  wire('limits.rate-limited-without-retry-after', 'LIM-RATE-4', '429 rate_limited without Retry-After', (a) =>
    a.status === 429 ? { ...a, headers: withoutField(a.headers, 'retry-after') } : a,
  ),
  wire('limits.request-id-dropped-on-failures', 'AUTH-ORDER-2', 'X-Request-Id missing on failure answers', (a) =>
    a.status >= 400 ? { ...a, headers: withoutField(a.headers, 'x-request-id') } : a,
  ),
  wire('limits.traceparent-not-echoed', 'AUTH-ORDER-3', 'a valid traceparent is not echoed', (a) => ({
    ...a,
    headers: withoutField(a.headers, 'traceparent'),
  })),
  wire(
    'limits.dpop-nonce-after-authentication-only',
    'AUTH-ORDER-4',
    'DPoP-Nonce missing on DPoP requests refused before authentication (400, 404, 405, 413, 415)',
    (a, r) =>
      headerOf(r.headers, 'dpop') !== undefined && [400, 404, 405, 413, 415].includes(a.status)
        ? { ...a, headers: withoutField(a.headers, 'dpop-nonce') }
        : a,
  ),
  wire('limits.dpop-nonce-only-on-failures', 'AUTH-ORDER-4', 'DPoP-Nonce missing on successful answers to DPoP requests', (a, r) =>
    a.status < 400 && headerOf(r.headers, 'dpop') ? { ...a, headers: withoutField(a.headers, 'dpop-nonce') } : a,
  ),
  wire('limits.invalid-traceparent-echoed', 'AUTH-ORDER-3', 'an invalid traceparent is echoed back', (a, r) =>
    headerOf(r.headers, 'traceparent') && !headerOf(a.headers, 'traceparent')
      ? { ...a, headers: setField(a.headers, 'traceparent', headerOf(r.headers, 'traceparent')!) }
      : a,
  ),
  ...REQUEST_ID_NARROW,
  ...NONCE_NARROW,
];
