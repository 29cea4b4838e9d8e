// Defects of the Limits part (LIM-*) and of the request stage (AUTH-ORDER-*): caches, budgets and per-response headers.
import { headerOf, mapHeader } from '../proxy.js';
import { pathOf, setField, withoutField, wire, type Defect } from './types.js';

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
];
