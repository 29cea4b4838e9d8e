// Spec part 1, What the service does, rule 7: there is no RPC protocol, no request batching and no CORS support.
import { check, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { expectProblem, fail, is2xx } from '../lib/assert.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectEmptyCart } from '../lib/expect/cart.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

test(
  ...check(
    {
      id: 'purpose.no-rpc',
      title: 'no JSON-RPC endpoint: a JSON-RPC call gets no successful answer at plausible paths',
      clauses: ['PUR-PROTO-1'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      const paths = ['/', '/v1', '/rpc', '/jsonrpc', '/json-rpc', '/v1/rpc', '/v1/jsonrpc', '/api/rpc'];
      // The calls only read a cart (were one served), and only their statuses are judged: each path a case of its own.
      await judgeCases(paths, async (path) => {
        const res = await shop.http.post(path, { token, json: { jsonrpc: '2.0', id: 1, method: 'getCart', params: {} } });
        if (is2xx(res)) fail(`POST ${path} with a JSON-RPC call`, 'not 2xx', res.status, { clause: 'PUR-PROTO-1' });
      });
    },
  ),
);

// A JSON array of request envelopes is what batching means; an array of add bodies is not used at spec level, since the
// shape of the add body is not shown (a multi-line add taking a list would be one operation, not a batch).
test(
  ...check(
    {
      id: 'purpose.no-batching',
      title: 'no request batching: a JSON array of requests is refused with a problem, and no batch endpoint answers',
      clauses: ['PUR-PROTO-2'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      const requests = [
        { method: 'POST', path: '/v1/cart/items', headers: { 'content-type': 'application/json' }, body: cartLine() },
        { method: 'GET', path: '/v1/cart' },
      ];
      const batches = [
        '/batch',
        '/v1/batch',
        '/v1/$batch',
        '/v1/bulk',
        '/v1/cart/items/batch',
        '/v1/cart/items:batch',
        '/v1/cart/batch',
      ].flatMap((path) => [requests, { requests }].map((json) => [path, json] as const));
      // Only statuses are judged (no answer's body, no cart read), so the array and every batch are sent as cases of their
      // own; their answers judged in turn.
      const [array, ...answers] = await mapCases([['/v1/cart/items', requests] as const, ...batches], ([path, json]) =>
        shop.http.post(path, { token, json }),
      );
      expectRefusal(shop, array!, { clause: 'PUR-PROTO-2' });
      for (const [i, [path]] of batches.entries()) {
        const res = answers[i]!;
        if (is2xx(res)) fail(`POST ${path} with a batch of requests`, 'not 2xx', res.status, { clause: 'PUR-PROTO-2' });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.no-batching.reference',
      title: 'a JSON array of add bodies is 400 invalid_request and adds nothing',
      clauses: ['PUR-PROTO-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      expectProblem(await shop.http.post('/v1/cart/items', { token, json: [cartLine(), cartLine()] }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: shop.docsUrl,
        clause: 'PUR-PROTO-2',
      });
      const cart = await shop.http.get('/v1/cart', { token });
      expectEmptyCart(cart, { what: 'cart lines after the refused array', clause: 'PUR-PROTO-2' });
    },
  ),
);

const ORIGIN = 'https://cross-origin.example';

// The request headers Chromium adds to a page's cross-origin fetch (and to its preflight), besides Origin: a server or CDN
// that grants CORS to browsers alone answers these, so the checks send them without needing a browser.
const BROWSER_FETCH = { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'empty' };
/** Each request is sent as a plain HTTP client with Origin sends it, and as a browser's fetch does. */
const SHAPES: readonly [string, Record<string, string>][] = [
  ['Origin only', {}],
  ['as a browser fetch', BROWSER_FETCH],
];

function expectNoCors(res: ShopResponse, what: string): void {
  const cors = [...res.headers.keys()].filter((name) => name.toLowerCase().startsWith('access-control-'));
  if (cors.length > 0)
    fail(`CORS headers on ${what}`, 'none', Object.fromEntries(cors.map((n) => [n, res.headers.get(n)])), { clause: 'PUR-PROTO-3' });
}

test(
  ...check(
    {
      id: 'purpose.no-cors.preflight',
      title: 'an OPTIONS preflight with Origin gets no Access-Control-* headers',
      clauses: ['PUR-PROTO-3'],
    },
    async (shop) => {
      const preflights = (
        [
          ['/v1/cart/items', 'POST'],
          ['/v1/cart', 'GET'],
          ['/v1/catalog/products', 'GET'],
          [SPECIAL_PATHS.getDescription, 'GET'],
          [SPECIAL_PATHS.getHealth, 'GET'],
        ] as const
      ).flatMap(([path, method]) => SHAPES.map(([shape, extra]) => ({ path, method, shape, extra })));
      // Preflights change nothing: each a case of its own.
      await judgeCases(preflights, async ({ path, method, shape, extra }) => {
        const res = await shop.http.request('OPTIONS', path, {
          headers: {
            origin: ORIGIN,
            ...extra,
            'access-control-request-method': method,
            'access-control-request-headers': 'authorization, content-type',
          },
        });
        expectNoCors(res, `OPTIONS ${path} (${shape})`);
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.no-cors.requests',
      title: 'requests carrying Origin get no Access-Control-* headers, on success and on failure',
      clauses: ['PUR-PROTO-3'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Only the answers' headers are judged (not a cart's contents), so every request is a case of its own.
      const requests = SHAPES.flatMap(([shape, extra]): [string, () => Promise<ShopResponse>][] => {
        const headers = { origin: ORIGIN, ...extra };
        const on = (what: string) => `${what} (${shape})`;
        return [
          [on('GET /v1/catalog/products'), () => shop.http.get('/v1/catalog/products', { token, headers })],
          [on('GET /v1/cart'), () => shop.http.get('/v1/cart', { token, headers })],
          [on('GET /v1/cart without a token'), () => shop.http.get('/v1/cart', { headers })],
          [on('POST /v1/cart/items'), () => shop.http.post('/v1/cart/items', { token, headers, json: cartLine() })],
          [on(`GET ${SPECIAL_PATHS.getHealth}`), () => shop.http.get(SPECIAL_PATHS.getHealth, { headers })],
          [on(`GET ${SPECIAL_PATHS.getDescription}`), () => shop.http.get(SPECIAL_PATHS.getDescription, { headers })],
        ];
      });
      await judgeCases(requests, async ([what, send]) => expectNoCors(await send(), what));
    },
  ),
);
