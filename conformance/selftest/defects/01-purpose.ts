// Defects of "What the service does" (spec part 1, PUR-*): banner reads that show more than the display name, CORS offered,
// routes that must not exist answered (RPC, batch, aliases, storefront-only capabilities), operations not served, a
// description document that forgets routes, idempotency keys refused or replayed, and the internal group behind the guard.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  editJson,
  headerOf,
  jsonAnswer,
  jsonSegment,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  refusal,
  servedWithTrace,
  tokenClaims,
  usesDpop,
  withHeaderLast,
} from './helpers.js';
import { referenceOnly, wire, wireWith, type Defect, type DefectContext } from './types.js';
import { admitsAny, unserved } from './04-endpoints.js';

/** The request carries a signed invited-agent context (a JWS whose header says `typ: invited-agent+jwt`) in any field. */
const carriesInvitedContext = (r: ProxyRequest): boolean =>
  r.headers.some(([, v]) => {
    const m = /^([\w-]+)\.[\w-]+\.[\w-]+$/.exec(v.trim());
    return m !== null && jsonSegment(m[1]!)?.typ === 'invited-agent+jwt';
  });

/** Answers 200 {} where the target has no route: a server that serves what the spec says is not a service endpoint. */
export const servesUnknownRoutes = (id: string, clause: string, what: string): Defect =>
  wire(id, clause, `${what} answered 200 {} (every unmatched route is served)`, (a) =>
    (a.status === 404 || a.status === 405) &&
    problemCode(a) !== undefined &&
    !/recovery|order|address|conversation|not_configured/.test(problemCode(a)!)
      ? jsonAnswer(a, 200, '{}')
      : a,
  );

/** The agent caller kind of a request, as the banner defects tell them apart; undefined for other callers. */
function agentKind(r: ProxyRequest, ctx: DefectContext): 'invited-agent' | 'assistant' | 'assistant-browser' | 'delegated' | undefined {
  if (usesDpop(r)) return 'assistant';
  const claims = tokenClaims(r);
  if (claims?.client_id === ctx.profile.clients.agentProtocol && 'act' in claims) return 'delegated';
  if (claims?.client_id !== ctx.profile.clients.webAgentForwarder) return undefined;
  return carriesInvitedContext(r) ? 'invited-agent' : 'assistant-browser';
}

/** The identity read, for one agent caller kind alone, carries what the banner must not show (`leak` edits the body). */
const bannerLeak = (id: string, clause: string, kind: string, what: string, leak: (b: Record<string, unknown>) => void): Defect => ({
  id,
  clause,
  description: `the identity read for ${kind} callers alone carries ${what}`,
  kind: 'wire',
  rules: (ctx) => ({
    response: (a, r) => (pathOf(r) === '/v1/me/identity' && a.status === 200 && agentKind(r, ctx) === kind ? editJson(a, leak) : a),
  }),
});

const withEmail = (b: Record<string, unknown>) => {
  b.email = 'ada@example.test';
};

const withPhone = (b: Record<string, unknown>) => {
  b.phone = '+1 718 555 0101';
};

/** Answers replayed by Idempotency-Key (a server that stores and replays them). */
const replay = (id: string, clause: string): Defect => ({
  id,
  clause,
  kind: 'wire',
  description: 'answers stored and replayed by Idempotency-Key',
  rules: () => {
    const stored = new Map<string, ProxyAnswer>();
    return {
      buffer: notAStream,
      response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
        const key = headerOf(r.headers, 'idempotency-key');
        if (!key || r.method === 'GET') return a;
        const seen = stored.get(`${pathOf(r)} ${key}`);
        if (seen) return seen;
        stored.set(`${pathOf(r)} ${key}`, a);
        return a;
      },
    };
  },
});

export const PURPOSE_DEFECTS: readonly Defect[] = [
  bannerLeak('purpose.identity-email-to-invited-agent', 'PUR-BANNER-2', 'invited-agent', 'the account email', withEmail),
  bannerLeak('purpose.identity-email-to-assistant', 'PUR-BANNER-2', 'assistant', 'the account email', withEmail),
  bannerLeak('purpose.identity-email-to-assistant-browser', 'PUR-BANNER-2', 'assistant-browser', 'the account email', withEmail),
  bannerLeak('purpose.identity-phone-to-invited-agent', 'PUR-BANNER-1', 'invited-agent', 'a telephone number', withPhone),
  bannerLeak('purpose.identity-phone-to-assistant', 'PUR-BANNER-1', 'assistant', 'a telephone number', withPhone),
  // A service built for the storefront, agent-protocol server, backoffice and assistants that never learned invited agents:
  // the web-agent-forwarder's requests with a context fall to the guard as a machine client of no list.
  wireWith(
    'purpose.invited-agents-not-accepted',
    'PUR-CALLERS-1',
    'invited agents in a website session are not served: a forwarder token with an invited-agent context gets 403 caller_not_allowed',
    (ctx) => (a, r) => (carriesInvitedContext(r) && a.status < 400 ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden') : a),
  ),
  wire('purpose.cors-offered', 'PUR-PROTO-3', 'Access-Control-Allow-Origin: * on answers to requests with Origin', (a, r) =>
    headerOf(r.headers, 'origin')
      ? {
          ...a,
          headers: withHeaderLast(
            withHeaderLast(a.headers, 'Access-Control-Allow-Origin', '*'),
            'Access-Control-Allow-Methods',
            'GET, POST',
          ),
        }
      : a,
  ),
  // A CDN rule that answers browsers only (Sec-Fetch-Mode: cors, which no HTTP client sends unasked): only a real browser
  // sees it (check purpose.no-cors.browser).
  wire(
    'purpose.cors-for-browsers',
    'PUR-PROTO-3',
    'CORS granted to browsers only (Sec-Fetch-Mode: cors): the Origin echoed with credentials, preflights answered 204 allowing all',
    (a, r) => {
      const origin = headerOf(r.headers, 'origin');
      if (headerOf(r.headers, 'sec-fetch-mode') !== 'cors' || !origin) return a;
      const granted = withHeaderLast(
        withHeaderLast(a.headers, 'Access-Control-Allow-Origin', origin),
        'Access-Control-Allow-Credentials',
        'true',
      );
      if (r.method !== 'OPTIONS') return { ...a, headers: granted };
      const allow = headerOf(r.headers, 'access-control-request-headers') ?? '';
      return {
        status: 204,
        headers: withHeaderLast(
          withHeaderLast(granted, 'Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE'),
          'Access-Control-Allow-Headers',
          allow,
        ),
        body: '',
      };
    },
  ),
  servesUnknownRoutes('purpose.rpc-endpoint-served', 'PUR-PROTO-1', 'an RPC endpoint'),
  servesUnknownRoutes('purpose.batch-endpoint-served', 'PUR-PROTO-2', 'a batch endpoint'),
  servesUnknownRoutes('purpose.alias-paths-served', 'PUR-RULE-1', 'a second path of an operation'),
  servesUnknownRoutes('purpose.storefront-prefix-served', 'PUR-RULE-6', 'a storefront-prefixed route'),
  ...Array.from({ length: 14 }, (_, i) =>
    servesUnknownRoutes(`purpose.storefront-capability-${i + 1}-served`, `PUR-STOREFRONT-${i + 1}`, 'a storefront-only capability'),
  ),
  servesUnknownRoutes('purpose.human-only-route-served', 'PUR-HUMAN-3', 'a human-only operation'),
  wire('purpose.endpoints.identity-leaks-email', 'PUR-BANNER-2', 'the identity read carries the account email', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          b.email = 'leak@example.test';
        })
      : a,
  ),
  unserved('purpose.routes.catalog-unserved', 'PUR-SERVE-1', 'the catalog reads', (r) => pathOf(r).startsWith('/v1/catalog/')),
  unserved('purpose.routes.cart-unserved', 'PUR-SERVE-2', 'the cart', (r) => pathOf(r).startsWith('/v1/cart')),
  unserved('purpose.routes.checkout-unserved', 'PUR-SERVE-3', 'checkout', (r) =>
    /^\/v1\/(checkouts|checkout-previews|me\/checkout-)/.test(pathOf(r)),
  ),
  unserved('purpose.routes.account-unserved', 'PUR-SERVE-4', 'the account data', (r) =>
    /^\/v1\/me\/(profile|addresses|orders|payment-methods)/.test(pathOf(r)),
  ),
  unserved('purpose.routes.ops-unserved', 'PUR-SERVE-5', 'the operator routes', (r) => pathOf(r).startsWith('/v1/ops/')),
  unserved('purpose.routes.health-unserved', 'PUR-SERVE-6', 'the health route', (r) => pathOf(r) === '/health'),
  wire('purpose.routes.cart-undocumented', 'PUR-RULE-5', 'the general description document omits the cart item routes', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? editJson(a, (b) => {
          const paths = b.paths as Record<string, unknown> | undefined;
          if (paths) for (const p of Object.keys(paths)) if (p.startsWith('/v1/cart/items')) delete paths[p];
        })
      : a,
  ),
  // A server that mounted its internal routes behind the operations' pipeline: an access token reaches the caller guard,
  // which refuses it as a caller kind of no list, instead of the route's own authentication refusing the credential.
  referenceOnly(
    wireWith(
      'purpose.internal.routes-behind-caller-guard',
      'PUR-RULE-4',
      "internal routes are guarded by the operations' caller guard: a valid access token is refused 403 caller_not_allowed",
      (ctx) => (a, r) =>
        pathOf(r).startsWith('/internal/') &&
        tokenClaims(r) !== undefined &&
        (a.status === 401 || a.status === 403) &&
        problemCode(a) !== 'caller_not_allowed'
          ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden')
          : a,
    ),
    'the spec names no code for an access token refused on an internal route: 403 caller_not_allowed (a wrong caller kind) is a reading of it, and the route stays unserved as PUR-RULE-4 asks',
  ),
  admitsAny('PUR-RULE-2', 'the guard of an operation admits any caller kind', () => true, 'purpose'),
  admitsAny('PUR-RULE-3', 'an ops route admits other callers', (r) => pathOf(r).startsWith('/v1/ops/'), 'purpose'),
  replay('purpose.idempotent-replay', 'PUR-IDEM-2'),
  replay('purpose.order-replayed', 'PUR-IDEM-3'),
  wire('purpose.idempotency-key-refused', 'PUR-IDEM-1', 'a request with Idempotency-Key is refused 400', (a, r) =>
    headerOf(r.headers, 'idempotency-key') && a.status < 400 ? refusal(400, 'invalid_request', 'Bad Request') : a,
  ),
  wire(
    'purpose.idempotency-key-refused-for-assistants',
    'PUR-IDEM-1',
    'a request with Idempotency-Key is refused 400 when an assistant (DPoP) sends it',
    (a, r) =>
      headerOf(r.headers, 'idempotency-key') && usesDpop(r) && a.status < 400 ? refusal(400, 'invalid_request', 'Bad Request') : a,
  ),
  wire('purpose.idempotency-key-refused-on-account', 'PUR-IDEM-1', 'a request with Idempotency-Key under /v1/me/ is refused 400', (a, r) =>
    headerOf(r.headers, 'idempotency-key') && pathOf(r).startsWith('/v1/me/') && a.status < 400
      ? refusal(400, 'invalid_request', 'Bad Request')
      : a,
  ),
  wire('purpose.empty-cart-checkout-accepted', 'PUR-IDEM-4', 'cart_empty answered 201 {}', (a) =>
    problemCode(a) === 'cart_empty' ? { ...servedWithTrace(a), status: 201 } : a,
  ),
  wire('purpose.banner-leaks-phone', 'PUR-BANNER-1', 'the identity read carries a phone number besides the display name', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          b.phone = '+15550100';
        })
      : a,
  ),
  wire(
    'purpose.human-only-operation-described',
    'PUR-HUMAN-4',
    'the general description document lists an operation requiring account:security',
    (a, r) =>
      pathOf(r) === '/openapi.json'
        ? editJson(a, (b) => {
            const paths = (b.paths ?? {}) as Record<string, unknown>;
            paths['/v1/me/security-methods'] = {
              get: {
                operationId: 'listSecurityMethods',
                'x-scopes': ['account:security'],
                security: [{ bearer: ['account:security'] }],
                responses: { 200: { description: 'ok' } },
              },
            };
            b.paths = paths;
          })
        : a,
  ),
  // A description generated from the catalog and cart routers only: the account routes are served but not described.
  wire('purpose.strength.account-routes-undescribed', 'PUR-RULE-5', '/openapi.json leaves out the account routes under /v1/me/', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? editJson(a, (doc) => {
          const paths = doc.paths as Record<string, unknown> | undefined;
          for (const p of Object.keys(paths ?? {})) if (p.startsWith('/v1/me/')) delete paths![p];
        })
      : a,
  ),
];
