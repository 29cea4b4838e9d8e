// Defects of the Limits part (LIM-*) and of the request stage (AUTH-ORDER-*): caches, budgets and per-response headers.
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../proxy.js';
import {
  headerOf,
  served,
  mapHeader,
  notAStream,
  pathOf,
  problemAnswer,
  tokenClaims,
  usesDpop,
  withHeaderLast,
  withoutHeader,
} from './helpers.js';
import { wire, type Defect, type DefectContext } from './types.js';

// --- assistant budgets counted otherwise than the spec says ------------------------------------------------------------------
// The proxy learns each session's client from the identity-provider proxy's reports (the suite registers every session
// there) and counts the assistant requests that reach the rate limit (answers other than 401 and 403), per window.

/** Every member named `name` in a JSON value, depth first. */
function membersNamed(value: unknown, name: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((v) => membersNamed(v, name));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === name ? [v] : membersNamed(v, name)));
}

interface BudgetView {
  session: string;
  client: string;
  /** Counts of the window after this request: of its session, and of its client. */
  sessionCount: number;
  clientCount: number;
}

/**
 * A rate limiter of assistants the proxy keeps beside the server's: `decide` sees each counted answer with both counts
 * and may replace it (a 429 served, or a 429 of its own).
 */
function assistantLedger(decide: (a: ProxyAnswer, v: BudgetView, ctx: DefectContext) => ProxyAnswer): (ctx: DefectContext) => ProxyRules {
  return (ctx) => {
    const clientOf = new Map<string, string>();
    const windows = new Map<string, { start: number; count: number }>();
    const windowMs = (ctx.profile.rateLimits?.assistantWindowSeconds ?? 60) * 1000;
    const bump = (key: string, now: number): number => {
      const w = windows.get(key);
      const current = w && now - w.start < windowMs ? w : { start: now, count: 0 };
      current.count += 1;
      windows.set(key, current);
      return current.count;
    };
    return {
      buffer: notAStream,
      requestBody(req, body) {
        if (pathOf(req).startsWith('/internal/assistant/')) {
          try {
            const json = JSON.parse(body) as unknown;
            const [session] = membersNamed(json, 'session_id');
            const [client] = membersNamed(json, 'client_id');
            if (typeof session === 'string' && typeof client === 'string') clientOf.set(session, client);
          } catch {
            // Not JSON: nothing learned.
          }
        }
        return body;
      },
      response(a, r) {
        const sid = tokenClaims(r)?.sid;
        if (!usesDpop(r) || typeof sid !== 'string') return a;
        if (a.status === 401 || a.status === 403) return a;
        const client = clientOf.get(sid) ?? `unknown:${sid}`;
        const now = Date.now();
        return decide(a, { session: sid, client, sessionCount: bump(`s ${sid}`, now), clientCount: bump(`c ${client}`, now) }, ctx);
      },
    };
  };
}

const limitedInstead = (ctx: DefectContext, a: ProxyAnswer): ProxyAnswer =>
  problemAnswer(ctx, a, 429, 'rate_limited', 'Too Many Requests', [['Retry-After', '30']]);

const BUDGET_DEFECTS: readonly Defect[] = [
  {
    id: 'limits.session-budget-per-client',
    clause: 'LIM-RATE-2',
    description: "the session budget is counted per client: one session's spent budget limits every session of its client",
    kind: 'wire',
    rules: assistantLedger((a, v, ctx) =>
      a.status !== 429 && v.clientCount > (ctx.profile.rateLimits?.assistantSessionBudget ?? Infinity) ? limitedInstead(ctx, a) : a,
    ),
  },
  {
    id: 'limits.session-budget-missing',
    clause: 'LIM-RATE-2',
    description: 'no session budget: only the client budget limits (a 429 within the client budget is served)',
    kind: 'wire',
    rules: assistantLedger((a, v, ctx) =>
      a.status === 429 && v.clientCount <= (ctx.profile.rateLimits?.assistantClientBudget ?? Infinity) ? served(a) : a,
    ),
  },
  {
    id: 'limits.client-budget-missing',
    clause: 'LIM-RATE-3',
    description: "no client budget: only session budgets limit (a 429 within the session's budget is served)",
    kind: 'wire',
    rules: assistantLedger((a, v, ctx) =>
      a.status === 429 && v.sessionCount <= (ctx.profile.rateLimits?.assistantSessionBudget ?? Infinity) ? served(a) : a,
    ),
  },
];

/** A header dropped from the answers `when` picks, and from no other: one status, or one group of routes. */
const dropOn = (id: string, clause: string, header: string, what: string, when: (a: ProxyAnswer, r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${header} missing on ${what} only`, (a, r) => (when(a, r) ? { ...a, headers: withoutHeader(a.headers, header) } : a));
const carriesProof = (r: ProxyRequest) => headerOf(r.headers, 'dpop') !== undefined;
const statusOnly = (status: number) => (a: ProxyAnswer) => a.status === status;
const dpopStatusOnly = (status: number) => (a: ProxyAnswer, r: ProxyRequest) => a.status === status && carriesProof(r);

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
const NONCE_NARROW: readonly Defect[] = [201, 204, 304, 403, 404, 409, 415, 422, 429].map((s) =>
  dropOn(`limits.dpop-nonce-missing-on-${s}`, 'AUTH-ORDER-4', 'DPoP-Nonce', `${s} answers to DPoP requests`, dpopStatusOnly(s)),
);

export const LIMITS_DEFECTS: readonly Defect[] = [
  wire('limits.documents-short-cache', 'LIM-DOCS-1', 'both description documents cacheable for 30 seconds', (a, r) =>
    pathOf(r).endsWith('openapi.json')
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=30')) }
      : a,
  ),
  wire('limits.rate-limited-without-retry-after', 'LIM-RATE-4', '429 rate_limited without Retry-After', (a) =>
    a.status === 429 ? { ...a, headers: withoutHeader(a.headers, 'retry-after') } : a,
  ),
  wire('limits.request-id-dropped-on-failures', 'AUTH-ORDER-2', 'X-Request-Id missing on failure answers', (a) =>
    a.status >= 400 ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
  ),
  wire('limits.traceparent-not-echoed', 'AUTH-ORDER-3', 'a valid traceparent is not echoed', (a) => ({
    ...a,
    headers: withoutHeader(a.headers, 'traceparent'),
  })),
  wire(
    'limits.dpop-nonce-after-authentication-only',
    'AUTH-ORDER-4',
    'DPoP-Nonce missing on DPoP requests refused before authentication (400, 404, 405, 413, 415)',
    (a, r) =>
      headerOf(r.headers, 'dpop') !== undefined && [400, 404, 405, 413, 415].includes(a.status)
        ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') }
        : a,
  ),
  wire('limits.dpop-nonce-only-on-failures', 'AUTH-ORDER-4', 'DPoP-Nonce missing on successful answers to DPoP requests', (a, r) =>
    a.status < 400 && headerOf(r.headers, 'dpop') ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  wire('limits.invalid-traceparent-echoed', 'AUTH-ORDER-3', 'an invalid traceparent is echoed back', (a, r) =>
    headerOf(r.headers, 'traceparent') && !headerOf(a.headers, 'traceparent')
      ? { ...a, headers: withHeaderLast(a.headers, 'traceparent', headerOf(r.headers, 'traceparent')!) }
      : a,
  ),
  wire('limits.traceparent-not-echoed-on-delete', 'AUTH-ORDER-3', 'a valid traceparent is not echoed on DELETE requests only', (a, r) =>
    r.method === 'DELETE' ? { ...a, headers: withoutHeader(a.headers, 'traceparent') } : a,
  ),
  ...REQUEST_ID_NARROW,
  ...NONCE_NARROW,
  ...BUDGET_DEFECTS,
];
