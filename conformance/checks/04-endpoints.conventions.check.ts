// Spec part 4, Endpoints > Conventions: creates answer 201 and deletes 204, request bodies are JSON with
// `Content-Type: application/json`, catalog GETs carry a weak ETag and `Cache-Control: private, no-cache` and answer 304 to
// a matching If-None-Match, and every other response defaults to `Cache-Control: no-store`.
//
// Levels. The spec shows no payload shapes ("Payload shapes of every operation ... not shown"): the body
// `{ "variant_id", "quantity" }` and every response member are the reference's. A spec-level check that needs a cart line
// therefore sends the reference's body and, when the service refuses that body with a 4xx, is skipped as not applicable
// (the service may well name its members otherwise); it fails only on what the spec itself says.
import { randomUUID } from 'node:crypto';
import { check, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import {
  expectCacheControl,
  expectNoHeader,
  expectNoStore,
  expectProblem,
  expectStatus,
  expectWeakEtag,
  fail,
  inCase,
  parseCacheControl,
} from '../lib/assert.js';
import { addLine, cartLine, cartQuantity } from './_shared/cart-lines.js';
import { expectEmptyCart } from '../lib/expect/cart.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import { ADA, ORDERS, PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

// --- conventions: catalog validators, no-store --------------------------------------------------------------------------

const CATALOG_READS = [
  { operationId: 'searchProducts', path: '/v1/catalog/products', seed: false },
  { operationId: 'getProduct', path: `/v1/catalog/products/${PRODUCT_HANDLE}`, seed: true },
  { operationId: 'listCollections', path: '/v1/catalog/collections', seed: false },
] as const;

for (const read of CATALOG_READS) {
  test(
    ...check(
      {
        id: `endpoints.conventions.catalog-validators.${read.operationId}`,
        title: `${read.operationId}: weak ETag, Cache-Control: private, no-cache, and 304 with no body on a matching If-None-Match`,
        clauses: ['END-CONV-6', 'END-CONV-7', 'END-CONV-8', 'PUR-SERVE-1'],
        seed: read.seed,
      },
      async (shop) => {
        const token = await customerToken(shop);
        // Only a matching tag makes the answer 304 (RFC 9110 13.1.2): a tag the server never issued gets the full answer. That
        // read needs no tag of the first one, so the two go at once; the stranger's answer is judged last, as before.
        const stranger = `W/"shop-conformance-${randomUUID()}"`;
        const [res, other] = await Promise.all([
          shop.http.get(read.path, { token }),
          shop.http.get(read.path, { token, headers: { 'if-none-match': stranger } }),
        ]);
        expectStatus(res, 200, { clause: 'PUR-SERVE-1' });
        const etag = expectWeakEtag(res, { clause: 'END-CONV-6' });
        expectCacheControl(res, ['private', 'no-cache'], { clause: 'END-CONV-7' });
        const cc = parseCacheControl(res.headers.get('cache-control'));
        for (const d of ['no-store', 'public'])
          if (cc.has(d))
            fail(`Cache-Control directive ${d} on a catalog GET`, 'private, no-cache', res.headers.get('cache-control'), {
              clause: 'END-CONV-7',
            });

        // Other checks may change the catalog meanwhile (stock moves with every checkout): a 200 with another ETag is the
        // resource changing, not a missed match, so the conditional GET is repeated with the new tag (at most 3 times).
        let tag = etag;
        for (let attempt = 1; ; attempt += 1) {
          const again = await shop.http.get(read.path, { token, headers: { 'if-none-match': tag } });
          const changed = again.status === 200 && again.headers.get('etag') !== null && again.headers.get('etag') !== tag;
          if (changed && attempt < 3) {
            tag = again.headers.get('etag')!;
            continue;
          }
          expectStatus(again, 304, { clause: 'END-CONV-8' });
          if (again.text !== '') fail('body of a 304', 'empty', again.text.slice(0, 200), { clause: 'END-CONV-8' });
          break;
        }
        expectStatus(other, 200, { what: `status of a GET with If-None-Match: ${stranger} (a tag never issued)`, clause: 'END-CONV-8' });
      },
    ),
  );
}

test(
  ...check(
    {
      id: 'endpoints.conventions.catalog-validators.reference',
      title: 'catalog validators: exactly "private, no-cache"; a 304 repeats the ETag; list, strong-form and * match; another tag does not',
      clauses: ['END-CONV-6', 'END-CONV-7', 'END-CONV-8'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Reads only: each resource is a case; its conditional reads, which need its tag, go at once after its first read and
      // are judged in their order.
      await judgeCases(CATALOG_READS, async (read) => {
        const res = await shop.http.get(read.path, { token });
        expectStatus(res, 200);
        expectCacheControl(res, ['private', 'no-cache'], { clause: 'END-CONV-7', exact: true });
        const etag = expectWeakEtag(res, { clause: 'END-CONV-6' });
        const matching = [etag, `W/"nope-1", ${etag}`, etag.replace(/^W\//, ''), '*'];
        const [other, ...answers] = await mapCases(['W/"not-the-tag"', ...matching], (inm) =>
          shop.http.get(read.path, { token, headers: { 'if-none-match': inm } }),
        );
        for (const [i, inm] of matching.entries()) {
          const r = answers[i]!;
          expectStatus(r, 304, { clause: 'END-CONV-8' });
          if (r.text !== '') fail('body of a 304', 'empty', r.text.slice(0, 200), { clause: 'END-CONV-8' });
          if (r.headers.get('etag') !== etag)
            fail(`ETag of the 304 (If-None-Match: ${inm})`, etag, r.headers.get('etag'), { clause: 'END-CONV-8' });
        }
        expectStatus(other!, 200, { clause: 'END-CONV-8' });
        if (other!.headers.get('etag') !== etag)
          fail('ETag of an unchanged resource', etag, other!.headers.get('etag'), { clause: 'END-CONV-6' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conventions.no-store',
      title:
        'every response but catalog GETs and description documents carries Cache-Control: no-store: health, the diagnostic read, each cart, account and checkout read and write',
      clauses: ['END-CONV-9'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const ada = await customerToken(shop, ADA.sub);
      // Whatever their status, these are not catalog GETs: the default applies. The diagnostic read exists in the spec
      // ("GET /v1/me is a diagnostic read"). The fresh customer's cart is read, added to, updated and emptied in that order
      // (one lane); everything else is a read (Ada's account and checkout reads, as an account that has data: docs/seed.md)
      // and goes at once beside it. Each request is a case, judged in the order of this list.
      const adaReads = [
        ['getProfile', '/v1/me/profile'],
        ['listAddresses', '/v1/me/addresses'],
        ['listPaymentMethods', '/v1/me/payment-methods'],
        ['listOrders', '/v1/me/orders'],
        ['getOrder', `/v1/me/orders/${ORDERS.adaDelivered.id}`],
        ['getIdentity', '/v1/me/identity'],
        ['getCheckoutAddress', '/v1/me/checkout-address'],
        ['getCheckoutMethods', '/v1/me/checkout-methods'],
      ] as const;
      const cases: { what: string; send: () => Promise<ShopResponse>; lane?: 'cart' }[] = [
        { what: `GET ${SPECIAL_PATHS.getHealth}`, send: () => shop.http.get(SPECIAL_PATHS.getHealth) },
        { what: 'getCart', send: () => shop.http.get('/v1/cart', { token }), lane: 'cart' },
        { what: 'GET /v1/me', send: () => shop.http.get('/v1/me', { token }) },
        { what: 'addCartItem', send: () => shop.http.post('/v1/cart/items', { token, json: cartLine() }), lane: 'cart' },
        {
          what: 'updateCartItem',
          send: () => shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: cartQuantity(2) }),
          lane: 'cart',
        },
        { what: 'removeCartItem', send: () => shop.http.delete(`/v1/cart/items/${VARIANT}`, { token }), lane: 'cart' },
        ...adaReads.map(([what, path]) => ({ what, send: () => shop.http.get(path, { token: ada }) })),
      ];
      await judgeCases(
        cases,
        async ({ what, send }) => {
          const res = await send();
          inCase(what, () => expectNoStore(res, { clause: 'END-CONV-9' }));
        },
        { lane: (c, i) => c.lane ?? `read ${i}` },
      );
    },
  ),
);

// --- conventions: 201 / 204 ----------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.conventions.delete-204',
      title: 'removeCartItem of an existing line answers 204 with no body and Cache-Control: no-store',
      clauses: ['END-CONV-3', 'END-CONV-9', 'PUR-SERVE-2'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const add = await addLine(shop, token, { clause: 'PUR-SERVE-2' });
      expectNoStore(add, { clause: 'END-CONV-9' });
      const del = await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token });
      expectStatus(del, 204, { clause: 'END-CONV-3' });
      if (del.text !== '') fail('body of the 204', 'empty', del.text.slice(0, 200), { clause: 'END-CONV-3' });
      expectNoStore(del, { clause: 'END-CONV-9' });
    },
  ),
);

// END-CONV-1 says creates answer 201 (its example is addAddress), with Location where a GET URL exists (END-CONV-2). Whether
// addCartItem is a "create" is a reading, not a statement of the spec: the first add of a variant creates a cart line, a
// second one grows that line, and the spec shows no response shape; a cart line has no GET URL, so Location does not apply.
// An implementation that answers 200 with the cart meets the spec as written. 201 (every add, no Location) is therefore the
// reference's reading and is checked at level reference only; a target whose own documents declare addCartItem a create
// (201 its one success) is held to it at the spec level (04-endpoints.conventions.creates).
test(
  ...check(
    {
      id: 'endpoints.conventions.add-201.reference',
      title: 'addCartItem answers 201 without Location, for a new line and for a grown one',
      clauses: ['END-CONV-1', 'END-CONV-9'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      for (const step of ['new line', 'grown line']) {
        const res = await shop.http.post('/v1/cart/items', { token, json: cartLine() });
        expectStatus(res, 201, { clause: 'END-CONV-1' });
        expectNoHeader(res, 'location', { what: `Location on addCartItem (${step}): a line has no GET URL`, clause: 'END-CONV-1' });
        expectNoStore(res, { clause: 'END-CONV-9' });
      }
    },
  ),
);

// --- conventions: JSON request bodies -------------------------------------------------------------------------------------

const jsonBytes = () => new TextEncoder().encode(JSON.stringify(cartLine()));
const NON_JSON_TYPES: readonly (string | undefined)[] = [undefined, 'text/plain', 'application/x-www-form-urlencoded'];

test(
  ...check(
    {
      id: 'endpoints.conventions.json-content-type',
      title: 'a request body without Content-Type: application/json is refused with a problem document',
      clauses: ['END-CONV-5', 'ERR-PROBLEM-1'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Each body is refused for its type, whatever the cart holds: each type is a case.
      // A Uint8Array body makes fetch send no Content-Type of its own.
      await judgeCases(NON_JSON_TYPES, async (type) => {
        const res = await shop.http.post('/v1/cart/items', { token, body: jsonBytes(), headers: { 'content-type': type } });
        expectRefusal(shop, res, { clause: 'END-CONV-5' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conventions.json-content-type.reference',
      title:
        'a body without a JSON Content-Type is 415 unsupported_media_type and writes nothing; application/json; charset=utf-8 is taken',
      clauses: ['END-CONV-5'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Refused for their type, the three are cases; the cart is read after all of them.
      await judgeCases(NON_JSON_TYPES, async (type) => {
        const res = await shop.http.post('/v1/cart/items', { token, body: jsonBytes(), headers: { 'content-type': type } });
        expectProblem(res, { status: 415, error: 'unsupported_media_type', docsUrl: shop.docsUrl, clause: 'END-CONV-5' });
      });
      const cart = await shop.http.get('/v1/cart', { token });
      expectEmptyCart(cart, { what: 'cart lines after refused writes', clause: 'END-CONV-5' });
      const ok = await shop.http.post('/v1/cart/items', {
        token,
        body: jsonBytes(),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expectStatus(ok, 201, { clause: 'END-CONV-5' });
    },
  ),
);
