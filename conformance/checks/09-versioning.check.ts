// Spec part 9, Versioning: customer operations under /v1, the description documents outside it (two of them), and no old
// or aliased paths. "Answers" means any 2xx or 3xx: the suite follows no redirect, so a redirect to a current route counts.
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { answers, expectProblem, expectStatus, fail, is2xx, is4xx, expectNoAnswer } from '../lib/assert.js';
import { freshShopperIp } from '../lib/shopper.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import {
  CATALOG_AND_CART,
  DESCRIPTION_PATHS,
  describedOperations,
  judgeEachDocument,
  normalizePath,
  SHOWN,
} from './_shared/describe-operations.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import { customerToken } from '../lib/callers.js';
import { ADA, ORDERS, PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';
import { describeUnmatched, looksUnmatched, probeUnmatched } from '../lib/routes.js';

test(
  ...check(
    {
      id: 'versioning.operations-under-v1',
      title: 'every served customer operation has a /v1 path that an authorized customer reaches (no 404)',
      clauses: ['VER-PREFIX-1'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // A line first, so that updateCartItem and removeCartItem address something that exists (a 404 for a missing line
      // would be indistinguishable from a missing route). Payload shapes are not shown by the spec: if the service refuses the
      // reference's body, those two operations are left out (noted) rather than judged.
      let haveLine = false;
      const cases = CATALOG_AND_CART.map((operationId) => {
        const op = OPERATIONS_BY_ID.get(operationId);
        if (!op) throw new Error(`contract has no operation ${operationId}`);
        const path = op.path.replace('{handle}', PRODUCT_HANDLE).replace('{variant_id}', VARIANT);
        const json = op.method === 'POST' ? cartLine() : op.method === 'PATCH' ? cartQuantity(2) : undefined;
        const send = (to: string) => shop.http.request(op.method, to, { token, ...(json !== undefined ? { json } : {}) });
        return { operationId, op, path, send };
      });
      // At once: the two documents, the probes of a path no service has (one per operation: they reach no route, so they
      // change nothing), and the reads, which all come before the first write (they see the cart as they would in turn).
      // The writes follow one after another, each on the line the one before it left.
      const [[general], unmatched, reads] = await Promise.all([
        describedOperations(shop),
        mapCases(cases, ({ path, send }) => probeUnmatched(send, path, shop.subject())),
        mapCases(cases, async ({ op, path, send }) => (op.method === 'GET' ? send(path) : undefined)),
      ]);
      // Every operation the spec shows is described under /v1 by the deployment's own document; the catalog and cart
      // operations are also reached (the others' routes are reached by their own checks, with the data they need).
      for (const operationId of SHOWN) {
        const op = OPERATIONS_BY_ID.get(operationId)!;
        if (!general?.described.get(normalizePath(op.path))?.has(op.method))
          fail(`/openapi.json declares ${op.method} ${op.path} (${operationId}) under /v1`, 'declared', 'absent', {
            clause: 'VER-PREFIX-1',
          });
      }
      for (const [i, { operationId, op, path, send }] of cases.entries()) {
        if (!op.path.startsWith('/v1/')) fail(`contract path of ${operationId}`, '/v1/...', op.path, { clause: 'VER-PREFIX-1' });
        if ((operationId === 'updateCartItem' || operationId === 'removeCartItem') && !haveLine) {
          shop.info.annotations.push({
            type: 'note',
            description: `${operationId} not tried: the service did not take the reference's addCartItem body`,
          });
          continue;
        }
        const res = reads[i] ?? (await send(path));
        if (looksUnmatched(res, unmatched[i]!))
          fail(
            `${op.method} ${path} (${operationId}) by a customer`,
            `a route (not an unmatched-route answer: ${describeUnmatched(unmatched[i]!)})`,
            res.status,
            { clause: 'VER-PREFIX-1' },
          );
        if (operationId === 'addCartItem') {
          haveLine = is2xx(res);
          if (!haveLine && !is4xx(res)) fail('addCartItem with a valid body', '2xx', res.status, { clause: 'VER-PREFIX-1' });
        }
      }
    },
  ),
);

const ALIASED = ['PUR-RULE-1', 'VER-ROUTES-3'];

test(
  ...check(
    {
      id: 'versioning.no-unversioned-aliases',
      title: 'the served operations have no unversioned or re-prefixed alias (/cart, /api/v1/cart, ...)',
      clauses: ['VER-PREFIX-1', 'VER-ROUTES-3', 'PUR-RULE-1'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      const aliases = [
        '/cart',
        '/catalog/products',
        '/catalog/collections',
        `/catalog/products/${PRODUCT_HANDLE}`,
        '/api/v1/cart',
        '/api/v1/catalog/products',
        '/api/cart',
        '/v1.0/cart',
      ];
      // Not probed here: other spellings of the same path (/V1/cart, /v1/CART, /v1/cart/). Whether a case-insensitive or
      // slash-tolerant router makes "a second URL" in the sense of PUR-RULE-1 is open (docs/ambiguities.md, 20): the
      // reference's strict routing is judged at its level (versioning.one-url-per-operation.reference).

      // Only the status is judged, so the probes are cases of no shared state (the add alias too: a cart it may fill is never
      // read). An answering alias is a second URL of the operation and an old path aliased to a current route.
      const cases: { what: string; send: () => Promise<ShopResponse> }[] = [
        ...aliases.map((path) => ({ what: `GET ${path} (an alias of a /v1 operation)`, send: () => shop.http.get(path, { token }) })),
        { what: 'POST /cart/items (an alias of addCartItem)', send: () => shop.http.post('/cart/items', { token, json: cartLine() }) },
      ];
      await judgeCases(cases, async ({ what, send }) => expectNoAnswer(await send(), { what, clause: ALIASED }));
    },
  ),
);

test(
  ...check(
    {
      id: 'versioning.description-documents-outside-v1',
      title: 'the description documents live outside /v1: served at /openapi.json and /assistant/openapi.json, not under /v1',
      clauses: ['VER-PREFIX-2'],
    },
    async (shop) => {
      // Four reads, the cases: the documents where they live, then where they do not.
      const outside = DESCRIPTION_PATHS;
      const under = ['/v1/openapi.json', '/v1/assistant/openapi.json'];
      const cases = [...outside.map((path) => ({ path, served: true })), ...under.map((path) => ({ path, served: false }))];
      await judgeCases(cases, async ({ path, served }) => {
        const res = await shop.http.get(path);
        if (served) return expectStatus(res, 200, { clause: 'VER-PREFIX-2' });
        if (answers(res))
          fail(`GET ${path}`, 'no answer (not 2xx/3xx): the documents live outside /v1', res.status, { clause: 'VER-PREFIX-2' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'versioning.two-description-documents',
      title: 'two description documents exist: the general one and the assistant one, each a JSON object',
      clauses: ['VER-DOCS-1'],
    },
    async (shop) => {
      await judgeEachDocument(shop, 'VER-DOCS-1', (path, res) => {
        if (typeof res.body !== 'object' || res.body === null || Array.isArray(res.body))
          fail(`${path} body`, 'a JSON object', res.text.slice(0, 200), { clause: 'VER-DOCS-1' });
      });
    },
  ),
);

/** Plausible earlier website-prefixed spellings of the checkout reads (getCheckoutAddress, getCheckoutMethods, getIdentity). */
const OLD_CHECKOUT_READ_PATHS = [
  '/website/v1/me/checkout-address',
  '/website/v1/me/checkout-methods',
  '/website/v1/me/identity',
  '/v1/website/checkout-address',
  '/v1/website/checkout-methods',
  '/v1/website/identity',
  '/v1/website/me/checkout-address',
  '/v1/website/me/checkout-methods',
  '/v1/me/website/checkout-address',
  '/api/website/checkout-address',
  '/api/website/checkout-methods',
  '/website/checkout-address',
  '/website/checkout-methods',
  '/storefront/v1/me/checkout-address',
  '/v1/storefront/checkout-address',
] as const;

async function judgeOldPaths(shop: Shop, judge: (path: string, res: ShopResponse) => void): Promise<void> {
  // Read-only probes with a seeded account that has an address and cards, so that a surviving alias has data to answer with.
  const token = await customerToken(shop, ADA.sub);
  // Reads only: one case per path.
  await judgeCases(OLD_CHECKOUT_READ_PATHS, async (path) => judge(path, await shop.http.get(path, { token })));
}

test(
  ...check(
    {
      id: 'versioning.old-checkout-read-paths',
      title: 'earlier website-prefixed paths of the checkout reads do not exist (no 2xx, no redirect)',
      clauses: ['VER-ROUTES-2', 'VER-ROUTES-3', 'PUR-RULE-6'],
      seed: true,
    },
    async (shop) => {
      // An earlier path that answers still exists, and aliases the current checkout read.
      await judgeOldPaths(shop, (path, res) => expectNoAnswer(res, { what: `GET ${path}`, clause: ['VER-ROUTES-2', 'VER-ROUTES-3'] }));
    },
  ),
);

test(
  ...check(
    {
      id: 'versioning.old-checkout-read-paths.reference',
      title: 'earlier website-prefixed paths of the checkout reads are 404 not_found',
      clauses: ['VER-ROUTES-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      await judgeOldPaths(shop, (_path, res) =>
        expectProblem(res, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'VER-ROUTES-2' }),
      );
    },
  ),
);

// The reference's strict, case-sensitive routing without a trailing slash (docs/reference-choices.md). The spec's "exactly
// one URL" is about caller-specific prefixes and aliases (PUR-RULE-1): a router that matches another letter case or a
// trailing slash (ASP.NET Core, Express, Spring 5) is a reading the spec leaves open, so these spellings are judged at the
// reference level only; true aliases are judged at the spec level (versioning.no-unversioned-aliases, .every-read below).
test(
  ...check(
    {
      id: 'versioning.one-url-per-operation.reference',
      title: 'case-folded and trailing-slash spellings of an operation URL are not routes (no 2xx, no redirect)',
      clauses: ['PUR-RULE-1', 'VER-ROUTES-3'],
      level: 'reference',
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest();
      const headers = { 'shopper-ip': freshShopperIp() };
      // Not '//' spellings: reverse proxies commonly merge slashes before the service sees the path.
      const spellings = ['/v1/catalog/collections/', '/V1/catalog/collections', '/v1/Catalog/Collections'];
      // Reads: the canonical URL and the spellings at once, judged in turn.
      const [good, got] = await Promise.all([
        shop.http.get('/v1/catalog/collections', { token, headers }),
        mapCases(spellings, (path) => shop.http.get(path, { token, headers })),
      ]);
      if (good.status !== 200) fail('the canonical URL answers', 200, good.status, { clause: 'PUR-RULE-1' });
      for (const [i, path] of spellings.entries()) {
        const res = got[i]!;
        if (res.status < 400)
          fail(`${path} must not answer as a second URL of listCollections`, '>= 400', res.status, { clause: 'PUR-RULE-1' });
      }
    },
  ),
);

/** A GET route of the spec with its parameters filled with rows `ADA` reads (seed data). */
const fillForAda = (path: string): string =>
  path
    .replace('{handle}', PRODUCT_HANDLE)
    .replace('{id}', ORDERS.adaDelivered.id)
    .replace(/\{[^}]+\}/g, 'x');

/** The spellings of a path with one of its inner segments dropped (`/v1/catalog/products` → `/v1/products`). */
function droppedSegments(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const out: string[] = [];
  for (let i = 1; i < parts.length - 1; i++) out.push(`/${[...parts.slice(0, i), ...parts.slice(i + 1)].join('/')}`);
  return out;
}

test(
  ...check(
    {
      id: 'versioning.one-url-per-operation.every-read',
      title:
        'every read of the operations table answers at its one URL only: the path with an inner segment dropped (/v1/products, /v1/profile, /v1/orders/{id}) is not a second URL',
      clauses: ['PUR-RULE-1'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop, ADA.sub);
      // Reads only: one case per operation, and the shortened URLs of each go at once; judged in the operations' order.
      const reads = SHOWN.filter((id) => OPERATIONS_BY_ID.get(id)!.method === 'GET');
      await judgeCases(reads, async (id) => {
        const op = OPERATIONS_BY_ID.get(id)!;
        const canonical = fillForAda(op.path);
        const own = await shop.http.get(canonical, { token });
        if (!is2xx(own)) return;
        const paths = droppedSegments(canonical).filter(
          (path) => !SHOWN.some((other) => fillForAda(OPERATIONS_BY_ID.get(other)!.path) === path),
        );
        const answers = await Promise.all(paths.map((path) => shop.http.get(path, { token })));
        paths.forEach((path, i) => {
          const res = answers[i]!;
          // A redirect, or the operation's own answer: the operation reached at a second URL (another route of the
          // deployment's own may answer there otherwise).
          const alias = (res.status >= 300 && res.status < 400) || (is2xx(res) && res.text === own.text);
          if (alias) fail(`GET ${path}: a second URL of ${id} (${op.path})`, 'not the operation', res.status, { clause: 'PUR-RULE-1' });
        });
      });
    },
  ),
);
