// Spec part 4, Endpoints > Operations, for the catalog and the cart: each operation is served at its one route. A
// customer (in the storefront list of every one of them) sends each a request it must accept: the declared product and
// variant, the bodies the target's own description documents give. The caller-kind checks (04-endpoints.cart) cannot say
// this: for them a member's 404 is a later stage's answer, so a route that is not served at all passes their guard test.
import { check, test } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { expectSuccess } from '../lib/assert.js';
import { cartLine, cartQuantity } from './_shared/expect-cart.js';
import { customerToken } from './_shared/mint-callers.js';
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
      const served = (res: ShopResponse, operationId: string, serves: 'PUR-SERVE-1' | 'PUR-SERVE-2', what: string) =>
        expectSuccess(res, `${operationId} (${what}) for a customer`, judged(operationId, serves));

      served(await shop.http.get('/v1/catalog/products', { token }), 'searchProducts', 'PUR-SERVE-1', 'GET /v1/catalog/products');
      served(
        await shop.http.get(`/v1/catalog/products/${encodeURIComponent(PRODUCT_HANDLE)}`, { token }),
        'getProduct',
        'PUR-SERVE-1',
        `GET /v1/catalog/products/${PRODUCT_HANDLE}`,
      );
      served(await shop.http.get('/v1/catalog/collections', { token }), 'listCollections', 'PUR-SERVE-1', 'GET /v1/catalog/collections');
      served(await shop.http.get('/v1/cart', { token }), 'getCart', 'PUR-SERVE-2', 'GET /v1/cart');
      served(
        await shop.http.post('/v1/cart/items', { token, json: cartLine(VARIANT, 1) }),
        'addCartItem',
        'PUR-SERVE-2',
        'POST /v1/cart/items with the documented body',
      );
      served(
        await shop.http.patch(`/v1/cart/items/${encodeURIComponent(VARIANT)}`, { token, json: cartQuantity(2) }),
        'updateCartItem',
        'PUR-SERVE-2',
        `PATCH /v1/cart/items/${VARIANT} on a line of the cart`,
      );
      served(
        await shop.http.delete(`/v1/cart/items/${encodeURIComponent(VARIANT)}`, { token }),
        'removeCartItem',
        'PUR-SERVE-2',
        `DELETE /v1/cart/items/${VARIANT} on a line of the cart`,
      );
    },
  ),
);
