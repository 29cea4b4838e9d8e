// Defects that prove the strengthened checks: each breaks its clause the way the weak form of a check let through.
import { createHash } from 'node:crypto';
import { PERMISSIONS } from '../../../contract/scopes.js';
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../proxy.js';
import { SECRET_ROUTES, type SecretName } from './internal.js';
import {
  editJson,
  editJsonBody,
  headerOf,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  repairBearer,
  tokenClaims,
  withHeader,
} from './helpers.js';
import { lenient, wire, wireWith, type Defect, type DefectContext } from './types.js';

/**
 * An internal route that compares its credential with a stale value (a secret rotated on one side only): the proxy spoils
 * the right secret wherever the request carries it, so the route refuses every caller, the rightful one included.
 */
const staleSecret = (match: (path: string) => boolean, secret: SecretName) => (ctx: DefectContext) => ({
  request(req: ProxyRequest): ProxyRequest {
    const value = ctx.profile.secrets[secret];
    if (req.method !== 'POST' || !match(pathOf(req)) || typeof value !== 'string') return req;
    return { ...req, headers: req.headers.map(([k, v]) => [k, v.split(value).join(`${value}-stale`)] as [string, string]) };
  },
});

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

export const STRENGTH_DEFECTS: readonly Defect[] = [
  // An account-wide cutoff: customer tokens issued before the sub's latest token seen here are refused, expiry or not.
  wireWith(
    'strength.customer-cutoff-at-newest-token',
    'AUTH-CUST-5',
    "a customer token older than its sub's newest one is refused 401",
    (ctx) => {
      const newest = new Map<string, number>();
      return (a, r) => {
        const c = tokenClaims(r);
        if (c?.client_id !== ctx.profile.clients.website || typeof c.sub !== 'string' || typeof c.iat !== 'number' || 'act' in c) return a;
        const latest = Math.max(newest.get(c.sub) ?? 0, c.iat);
        newest.set(c.sub, latest);
        return c.iat < latest || c.iat < Date.now() / 1000 - 30 * 60
          ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', [['WWW-Authenticate', 'Bearer error="invalid_token"']])
          : a;
      };
    },
  ),
  // Grants merged instead of replaced: a narrower grant reported after the token was minted leaves every permission live.
  lenient('strength.live-grant-only-widens', 'AUTH-ASST-6', "a granted report never narrows a session's live scopes", () => ({
    requestBody(req, body) {
      if (req.method !== 'POST' || pathOf(req) !== '/internal/agent-authorization') return body;
      return editJsonBody(body, (report) => report.decision === 'granted' && ((report.permissions = [...PERMISSIONS]), true));
    },
  })),
  // A description generated from the catalog and cart routers only: the account routes are served but not described.
  wire('strength.account-routes-undescribed', 'PUR-RULE-5', '/openapi.json leaves out the account routes under /v1/me/', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? editJson(a, (doc) => {
          const paths = doc.paths as Record<string, unknown> | undefined;
          for (const p of Object.keys(paths ?? {})) if (p.startsWith('/v1/me/')) delete paths![p];
        })
      : a,
  ),
  // A validator cache that answers "not modified" as soon as the client holds any tag, never comparing it.
  wire('strength.not-modified-any-tag', 'END-CONV-8', 'a GET with any If-None-Match is answered 304, a non-matching tag too', (a, r) =>
    r.method === 'GET' &&
    a.status === 200 &&
    headerOf(a.headers, 'etag') !== undefined &&
    headerOf(r.headers, 'if-none-match') !== undefined
      ? { status: 304, headers: a.headers.filter(([k]) => !/^content-(type|length)$/i.test(k)), body: '' }
      : a,
  ),
  ...SECRET_ROUTES.filter(([clause]) => /^END-PUBLIC-(9|1[1-6])$/.test(clause)).map(
    ([clause, match, secret]) =>
      ({
        id: `strength.${clause.toLowerCase()}.own-secret-refused`,
        clause,
        description: 'the route refuses every credential, its own secret included (compared with a stale value)',
        kind: 'wire',
        rules: staleSecret(match, secret),
      }) satisfies Defect,
  ),
  // A reader that stops at the cap but reports the cut body as invalid: the refusal no longer says it is about size.
  wireWith(
    'strength.intent-cap-as-validation',
    'LIM-INTENT-1',
    'a security intent over 8 KiB is refused 400 invalid_request (as an invalid body) instead of as too large',
    (ctx) => (a, r) =>
      pathOf(r) === '/internal/account/security-intents' && problemCode(a) === 'payload_too_large'
        ? problemAnswer(ctx, a, 400, 'invalid_request', 'Bad Request')
        : a,
  ),
  {
    id: 'strength.guest-rate-per-prefix',
    clause: 'LIM-RATE-1',
    description: 'guests are counted per path prefix (every /v1/cart* operation shares one budget, every /v1/catalog* one)',
    kind: 'wire',
    rules: guestLimiter((p) => p.split('/').slice(0, 3).join('/'), false),
  },
  {
    // Upstream, the shopper is renamed per path, so the server's per-operation budget is spread over paths as well.
    id: 'strength.guest-rate-per-path',
    clause: 'LIM-RATE-1',
    description: 'guests are counted per request path, whatever the method: getProduct has a budget per handle',
    kind: 'wire',
    rules: guestLimiter((p) => p, true),
  },
  // Verifiers that check a claim only when it is there (jose without requiredClaims), or accept every audience of the issuer
  // for every kind. The proxy adds what is missing and re-signs with the profile key.
  lenient(
    'strength.token-without-exp-accepted',
    'AUTH-TOKEN-6',
    'a token without exp never expires: accepted (re-signed with an exp)',
    repairBearer((_h, c) => (c.exp === undefined ? ((c.exp = Math.floor(Date.now() / 1000) + 300), true) : false)),
  ),
  lenient(
    'strength.token-without-iss-accepted',
    'AUTH-TOKEN-2',
    'a token without iss passes the issuer check: accepted (re-signed with the profile issuer)',
    repairBearer((_h, c, ctx) => (c.iss === undefined ? ((c.iss = ctx.profile.issuer), true) : false)),
  ),
  lenient(
    'strength.customer-agent-audience-accepted',
    'AUTH-TOKEN-4',
    'a customer token for the agent audience is accepted as for the API (re-signed for the API audience)',
    repairBearer((_h, c, ctx) => {
      const aud = Array.isArray(c.aud) ? (c.aud as unknown[]) : [c.aud];
      const customer = c.client_id === ctx.profile.clients.website && c.act === undefined;
      if (!customer || aud.includes(ctx.profile.audiences.api) || !aud.includes(ctx.profile.audiences.agent)) return false;
      c.aud = ctx.profile.audiences.api;
      return true;
    }),
  ),
  {
    // The cap enforced by the cart's own body parser only: elsewhere an over-cap body is read whole, as if it were small.
    id: 'strength.body-cap-one-route-only',
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
