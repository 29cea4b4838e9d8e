// Wire defects of the operation routes (END-OPS-*, PUR-SERVE-*, PUR-RULE-5, END-PUBLIC-2/4, webhook answers): an
// operation that is not served, a description document that needs a token or forgets a route. The END-OPS defects are
// derived from the catalogue's own text ("<op> is <METHOD> <path>").
import { CLAUSES } from '../../clauses/index.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { bareProblem, editJson, headerOf, pathOf, problemCode } from './helpers.js';
import { lenient, wire, type Defect } from './types.js';

const notFound = (a: ProxyAnswer): ProxyAnswer => ({
  status: 404,
  headers: [
    ['Content-Type', 'application/problem+json'],
    ['Cache-Control', 'no-store'],
    ...a.headers.filter(([k]) => k.toLowerCase() === 'x-request-id'),
  ],
  body: JSON.stringify({ type: 'about:blank', error: 'not_found', title: 'Not Found', status: 404 }),
});

const template = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);

const unserved = (id: string, clause: string, what: string, match: (r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${what} not served (404)`, (a, r) => (match(r) ? notFound(a) : a));

const OPERATION_DEFECTS: Defect[] = CLAUSES.flatMap((c) => {
  const m = /^(\w+) is (GET|POST|PATCH|DELETE|PUT) (\S+?):?\s/.exec(c.text);
  if (!c.id.startsWith('END-OPS-') || !m) return [];
  const [, op, method, path] = m;
  const re = template(path!);
  return [unserved(`routes.${op}-unserved`, c.id, `${method} ${path}`, (r) => r.method === method && re.test(pathOf(r)))];
});

const unauthenticatedRefused =
  (path: string) =>
  (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer =>
    pathOf(r) === path && !headerOf(r.headers, 'authorization')
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a;

export const ROUTES_DEFECTS: readonly Defect[] = [
  ...OPERATION_DEFECTS,
  unserved('routes.catalog-unserved', 'PUR-SERVE-1', 'the catalog reads', (r) => pathOf(r).startsWith('/v1/catalog/')),
  unserved('routes.cart-unserved', 'PUR-SERVE-2', 'the cart', (r) => pathOf(r).startsWith('/v1/cart')),
  unserved('routes.checkout-unserved', 'PUR-SERVE-3', 'checkout', (r) =>
    /^\/v1\/(checkouts|checkout-previews|me\/checkout-)/.test(pathOf(r)),
  ),
  unserved('routes.account-unserved', 'PUR-SERVE-4', 'the account data', (r) =>
    /^\/v1\/me\/(profile|addresses|orders|payment-methods)/.test(pathOf(r)),
  ),
  unserved('routes.ops-unserved', 'PUR-SERVE-5', 'the operator routes', (r) => pathOf(r).startsWith('/v1/ops/')),
  unserved('routes.health-unserved', 'PUR-SERVE-6', 'the health route', (r) => pathOf(r) === '/health'),
  wire('routes.openapi-needs-token', 'END-PUBLIC-2', '/openapi.json refused without a token', unauthenticatedRefused('/openapi.json')),
  wire(
    'routes.assistant-openapi-needs-token',
    'END-PUBLIC-4',
    '/assistant/openapi.json refused without a token',
    unauthenticatedRefused('/assistant/openapi.json'),
  ),
  wire('routes.cart-undocumented', 'PUR-RULE-5', 'the general description document omits the cart item routes', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? editJson(a, (b) => {
          const paths = b.paths as Record<string, unknown> | undefined;
          if (paths) for (const p of Object.keys(paths)) if (p.startsWith('/v1/cart/items')) delete paths[p];
        })
      : a,
  ),
  wire('events.webhook-accepted-202', 'EVT-WEBHOOK-1', 'a verified delivery answered 202 instead of 200', (a, r) =>
    pathOf(r) === '/webhooks/stripe' && a.status === 200 ? { ...a, status: 202 } : a,
  ),
  wire('events.webhook-missing-signature-as-invalid', 'EVT-WEBHOOK-4', 'a delivery without signature answered invalid_signature', (a) =>
    problemCode(a) === 'missing_signature'
      ? editJson(a, (b) => {
          b.error = 'invalid_signature';
          if (typeof b.type === 'string') b.type = b.type.replace(/missing_signature$/, 'invalid_signature');
        })
      : a,
  ),
  wire('events.webhook-invalid-signature-as-401', 'EVT-WEBHOOK-5', 'a delivery whose signature does not verify answered 401', (a) =>
    problemCode(a) === 'invalid_signature'
      ? editJson({ ...a, status: 401 }, (b) => {
          b.status = 401;
          b.title = 'Unauthorized';
        })
      : a,
  ),
  // A route table that kept one operation where an older version had it: listCollections at /catalog/collections, outside
  // /v1 (its /v1 path goes where no route is, and the server answers it as unmatched).
  lenient(
    'routes.operation-outside-v1',
    'VER-PREFIX-1',
    'listCollections is served at /catalog/collections instead of /v1/catalog/collections (the /v1 path is unmatched)',
    () => ({
      request(req: ProxyRequest): ProxyRequest {
        const [path, query] = [pathOf(req), req.path.slice(pathOf(req).length)];
        if (path === '/v1/catalog/collections') return { ...req, path: `/v1/catalog/collections-unrouted${query}` };
        if (path === '/catalog/collections') return { ...req, path: `/v1/catalog/collections${query}` };
        return req;
      },
    }),
  ),
];
