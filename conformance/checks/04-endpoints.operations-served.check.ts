// Spec part 4, Endpoints > Operations, for the catalog and the cart: each operation is served at its one route. A
// customer (in the storefront list of every one of them) sends each a request it must accept: the declared product and
// variant, the bodies the target's own description documents give. The caller-kind checks (04-endpoints.cart) cannot say
// this: for them a member's 404 is a later stage's answer, so a route that is not served at all passes their guard test.
// And for the checkout reads, which no caller is sure to be answered 2xx by (their scopes and shapes are not shown).
import { CALLER_LISTS } from '../../contract/callers.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { credentialsOfClaimedKinds } from '../lib/callers.js';
import { check, notApplicable, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectSuccess, fail } from '../lib/assert.js';
import { answersAsNoRoute, noRouteAnswers } from './_shared/probe-routes.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import { customerToken } from '../lib/callers.js';
import { PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';

/** The clause of an operation's row (END-OPS-<ID>-1) and the part-1 clause that names it among what the service serves. */
const judged = (operationId: string, serves: 'PUR-SERVE-1' | 'PUR-SERVE-2'): string[] => [`END-OPS-${operationId.toUpperCase()}-1`, serves];

// Killed by a target that does not serve one of these routes (self-test defects routes.<operationId>-unserved).
test(
  ...check(
    {
      id: 'endpoints.operations.served',
      title: 'each catalog and cart operation is served at its route: a customer is answered 2xx by all seven',
      clauses: [
        'PUR-SERVE-1',
        'PUR-SERVE-2',
        ...['searchProducts', 'getProduct', 'listCollections'].map((o) => judged(o, 'PUR-SERVE-1')[0]!),
        ...['getCart', 'addCartItem', 'updateCartItem', 'removeCartItem'].map((o) => judged(o, 'PUR-SERVE-2')[0]!),
      ],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Each operation is a case. The catalog reads go at once; the customer's cart is read, added to, updated and emptied
      // in that order (one lane).
      type Operation = [operationId: string, serves: 'PUR-SERVE-1' | 'PUR-SERVE-2', what: string, send: () => Promise<ShopResponse>];
      const operations: Operation[] = [
        ['searchProducts', 'PUR-SERVE-1', 'GET /v1/catalog/products', () => shop.http.get('/v1/catalog/products', { token })],
        [
          'getProduct',
          'PUR-SERVE-1',
          `GET /v1/catalog/products/${PRODUCT_HANDLE}`,
          () => shop.http.get(`/v1/catalog/products/${encodeURIComponent(PRODUCT_HANDLE)}`, { token }),
        ],
        ['listCollections', 'PUR-SERVE-1', 'GET /v1/catalog/collections', () => shop.http.get('/v1/catalog/collections', { token })],
        ['getCart', 'PUR-SERVE-2', 'GET /v1/cart', () => shop.http.get('/v1/cart', { token })],
        [
          'addCartItem',
          'PUR-SERVE-2',
          'POST /v1/cart/items with the documented body',
          () => shop.http.post('/v1/cart/items', { token, json: cartLine(VARIANT, 1) }),
        ],
        [
          'updateCartItem',
          'PUR-SERVE-2',
          `PATCH /v1/cart/items/${VARIANT} on a line of the cart`,
          () => shop.http.patch(`/v1/cart/items/${encodeURIComponent(VARIANT)}`, { token, json: cartQuantity(2) }),
        ],
        [
          'removeCartItem',
          'PUR-SERVE-2',
          `DELETE /v1/cart/items/${VARIANT} on a line of the cart`,
          () => shop.http.delete(`/v1/cart/items/${encodeURIComponent(VARIANT)}`, { token }),
        ],
      ];
      await judgeCases(
        operations,
        async ([operationId, serves, what, send]) =>
          expectSuccess(await send(), { what: `${operationId} (${what}) for a customer`, clause: judged(operationId, serves) }),
        { lane: ([operationId, serves]) => (serves === 'PUR-SERVE-2' ? 'cart' : operationId) },
      );
    },
  ),
);

// The checkout reads. A member may rightly get a 4xx (a scope the spec does not show, an account with no checkout address),
// but a served route refuses the kinds outside the checkout list with 403 caller_not_allowed: when every claimed kind,
// members and others, gets the answer of no route (the target's own, probed with the same credentials), the operation is not
// served. Killed by a target that does not serve one of them (self-test defects routes.<operationId>-unserved).
const CHECKOUT_READS = [
  ['getIdentity', 'PUR-SERVE-4'],
  ['getCheckoutAddress', 'PUR-SERVE-3'],
  ['getCheckoutMethods', 'PUR-SERVE-3'],
] as const;

test(
  ...check(
    {
      id: 'endpoints.operations.served.checkout-reads',
      title:
        'each checkout read (getIdentity, getCheckoutAddress, getCheckoutMethods) is served at its route: not every caller kind is answered as on a path no service has',
      clauses: [...CHECKOUT_READS.map(([op]) => `END-OPS-${op.toUpperCase()}-1`), 'PUR-SERVE-3', 'PUR-SERVE-4'],
    },
    async (shop) => {
      const kinds = await credentialsOfClaimedKinds(shop);
      const members: readonly string[] = CALLER_LISTS.checkout.members;
      if (kinds.every(([kind]) => members.includes(kind)))
        notApplicable('the profile claims no caller kind outside the checkout list (delegated, guests, operators)');
      // Each read is its own route, a case: each asks the kinds in turn (and stops at the first kind not answered as on no
      // route).
      await judgeCases(CHECKOUT_READS, async ([operationId, serves]) => {
        const { method, path } = OPERATIONS_BY_ID.get(operationId)!;
        const answers: [string, ShopResponse][] = [];
        for (const [kind, who] of kinds) {
          const res = await shop.http.request(method, path, who);
          if (!(await answersAsNoRoute(shop, res, { method, path, who }))) return;
          answers.push([kind, res]);
        }
        fail(
          `${operationId} (${method} ${path}) is a route of the service`,
          'a refusal of the kinds outside the checkout list (403 caller_not_allowed), not the answer of no route to every kind',
          noRouteAnswers(answers),
          { clause: [`END-OPS-${operationId.toUpperCase()}-1`, serves] },
        );
      });
    },
  ),
);
