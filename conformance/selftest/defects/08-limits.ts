// Defects of Limits (spec part 8, LIM-*): body caps, rate budgets of guests and assistants counted otherwise, caches of
// the description documents, and Shopper-IP's bound.
import { createHash } from 'node:crypto';
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../proxy.js';
import {
  editJson,
  headerOf,
  mapHeader,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  served,
  servedWithTrace,
  tokenClaims,
  usesDpop,
  withHeader,
  withoutHeader,
} from './helpers.js';
import { lenient, wire, wireWith, type Defect, type DefectContext } from './types.js';
import { dropHeaders } from './05-authentication.guest-sessions.js';

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

/** One assistant budget missing: only the `other` limits, so a 429 within the other budget's room is served. */
const onlyOtherBudget = (id: string, clause: string, description: string, other: 'session' | 'client'): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: assistantLedger((a, v, ctx) => {
    const budgets = ctx.profile.rateLimits;
    const room = (other === 'client' ? budgets?.assistantClientBudget : budgets?.assistantSessionBudget) ?? Infinity;
    return a.status === 429 && (other === 'client' ? v.clientCount : v.sessionCount) <= room ? served(a) : a;
  }),
});

const budgetUnenforced = (id: string, clause: string, what: string, when: (r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${what}: 429 answered 200 {}`, (a, r) => (a.status === 429 && when(r) ? served(a) : a));

/**
 * A guest limiter keyed by something coarser or finer than the operation id (`key` of the path): the proxy counts the
 * profile's guest budget per key and shopper in fixed windows and answers 429 rate_limited past it. With `hide`, the
 * shopper is told apart per key upstream too, so the server's own per-operation counter never limits first.
 */
const guestLimiter =
  (key: (path: string) => string, hide: boolean) =>
  (ctx: DefectContext): ProxyRules => {
    const limits = ctx.profile.rateLimits;
    const windows = new Map<string, { start: number; count: number }>();
    const isGuest = (r: ProxyRequest) => {
      const c = tokenClaims(r);
      return c?.client_id === ctx.profile.clients.storefront && c.sub === `${ctx.profile.clients.storefront}@clients`;
    };
    const shopper = (r: ProxyRequest) => headerOf(r.headers, 'shopper-ip') ?? headerOf(r.headers, 'guest-session') ?? 'storefront';
    const counted = (r: ProxyRequest) => limits !== undefined && pathOf(r).startsWith('/v1/') && isGuest(r);
    return {
      buffer: notAStream,
      request(req) {
        const ip = headerOf(req.headers, 'shopper-ip');
        if (!hide || !counted(req) || ip === undefined) return req;
        const alias = createHash('sha256')
          .update(`${ip}|${key(pathOf(req))}`)
          .digest();
        return { ...req, headers: withHeader(req.headers, 'Shopper-IP', `10.${alias[0]}.${alias[1]}.${alias[2]}`) };
      },
      response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
        if (!counted(r) || a.status === 429) return a;
        const k = `${key(pathOf(r))}|${shopper(r)}`;
        const now = Date.now();
        const w = windows.get(k);
        const current = w && now - w.start < limits!.guestWindowSeconds * 1000 ? w : { start: now, count: 0 };
        current.count += 1;
        windows.set(k, current);
        if (current.count <= limits!.guestBudget) return a;
        const retry = Math.max(1, Math.ceil((current.start + limits!.guestWindowSeconds * 1000 - now) / 1000));
        return problemAnswer(ctx, a, 429, 'rate_limited', 'Too Many Requests', [['Retry-After', String(retry)]]);
      },
    };
  };

export const LIMITS_DEFECTS: readonly Defect[] = [
  lenient(
    'limits.shopper-ip-unbounded',
    'LIM-SHOPPERIP-1',
    'a Shopper-IP longer than 64 characters is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => (headerOf(r.headers, 'shopper-ip') ?? '').length > 64),
  ),
  wire('limits.documents-short-cache', 'LIM-DOCS-1', 'both description documents cacheable for 30 seconds', (a, r) =>
    pathOf(r).endsWith('openapi.json')
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=30')) }
      : a,
  ),
  wire('limits.rate-limited-without-retry-after', 'LIM-RATE-4', '429 rate_limited without Retry-After', (a) =>
    a.status === 429 ? { ...a, headers: withoutHeader(a.headers, 'retry-after') } : a,
  ),
  {
    id: 'limits.session-budget-per-client',
    clause: 'LIM-RATE-2',
    description: "the session budget is counted per client: one session's spent budget limits every session of its client",
    kind: 'wire',
    rules: assistantLedger((a, v, ctx) =>
      a.status !== 429 && v.clientCount > (ctx.profile.rateLimits?.assistantSessionBudget ?? Infinity) ? limitedInstead(ctx, a) : a,
    ),
  },
  onlyOtherBudget(
    'limits.session-budget-missing',
    'LIM-RATE-2',
    'no session budget: only the client budget limits (a 429 within the client budget is served)',
    'client',
  ),
  onlyOtherBudget(
    'limits.client-budget-missing',
    'LIM-RATE-3',
    "no client budget: only session budgets limit (a 429 within the session's budget is served)",
    'session',
  ),
  wire('limits.body-cap-absent', 'LIM-BODY-1', 'a body over 256 KiB is accepted (413 answered 200 {})', (a, r) =>
    a.status === 413 && !pathOf(r).startsWith('/assistant/') && !pathOf(r).startsWith('/internal/') ? servedWithTrace(a) : a,
  ),
  wire('limits.conversation-cap-absent', 'LIM-CONV-1', 'a conversation body over 64 KiB is accepted (413 answered 200 {})', (a, r) =>
    a.status === 413 && pathOf(r).startsWith('/assistant/') ? servedWithTrace(a) : a,
  ),
  wire('limits.intent-cap-absent', 'LIM-INTENT-1', 'a security intent over 8 KiB is accepted (413 answered 202 {})', (a, r) =>
    a.status === 413 && pathOf(r) === '/internal/account/security-intents' ? { ...servedWithTrace(a), status: 202 } : a,
  ),
  wire('limits.issues-unbounded', 'LIM-ISSUES-1', '`issues` holds every problem (padded past 20)', (a) =>
    problemCode(a) === 'invalid_request'
      ? editJson(a, (b) => {
          // A server that reports every problem: 30 bad members, 30 issues (repeated here past the cap of 20).
          if (Array.isArray(b.issues) && b.issues.length > 0) {
            let issues: unknown[] = b.issues;
            while (issues.length <= 25) issues = [...issues, ...issues];
            b.issues = issues;
          }
        })
      : a,
  ),
  budgetUnenforced('limits.guest-budget-unenforced', 'LIM-RATE-1', 'guest budgets', (r) => !pathOf(r).startsWith('/assistant/')),
  budgetUnenforced('limits.session-budget-unenforced', 'LIM-RATE-2', 'assistant session budgets', () => true),
  budgetUnenforced('limits.client-budget-unenforced', 'LIM-RATE-3', 'assistant client budgets', () => true),
  // A reader that stops at the cap but reports the cut body as invalid: the refusal no longer says it is about size.
  wireWith(
    'limits.strength.intent-cap-as-validation',
    'LIM-INTENT-1',
    'a security intent over 8 KiB is refused 400 invalid_request (as an invalid body) instead of as too large',
    (ctx) => (a, r) =>
      pathOf(r) === '/internal/account/security-intents' && problemCode(a) === 'payload_too_large'
        ? problemAnswer(ctx, a, 400, 'invalid_request', 'Bad Request')
        : a,
  ),
  {
    id: 'limits.strength.guest-rate-per-prefix',
    clause: 'LIM-RATE-1',
    description: 'guests are counted per path prefix (every /v1/cart* operation shares one budget, every /v1/catalog* one)',
    kind: 'wire',
    rules: guestLimiter((p) => p.split('/').slice(0, 3).join('/'), false),
  },
  {
    // Upstream, the shopper is renamed per path, so the server's per-operation budget is spread over paths as well.
    id: 'limits.strength.guest-rate-per-path',
    clause: 'LIM-RATE-1',
    description: 'guests are counted per request path, whatever the method: getProduct has a budget per handle',
    kind: 'wire',
    rules: guestLimiter((p) => p, true),
  },
  {
    // The cap enforced by the cart's own body parser only: elsewhere an over-cap body is read whole, as if it were small.
    id: 'limits.strength.body-cap-one-route-only',
    clause: 'LIM-BODY-1',
    description: 'only POST /v1/cart/items refuses a body over 256 KiB; other write routes take it (its padding dropped)',
    kind: 'leniency',
    rules: () => ({
      requestBody(req, body) {
        if (Buffer.byteLength(body) <= 256 * 1024 || (req.method === 'POST' && pathOf(req) === '/v1/cart/items')) return body;
        try {
          return JSON.stringify(JSON.parse(body));
        } catch {
          return body;
        }
      },
    }),
  },
];
