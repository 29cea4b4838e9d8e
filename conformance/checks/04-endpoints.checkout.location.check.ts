// Spec part 4, Endpoints > Conventions, for the one create of a resource with a GET URL that every deployment serves to
// agents: "creates answer 201 with a Location header where a GET URL exists". An order placed with a saved card can be
// read at getOrder's URL, so a 201 from checkoutSavedCard must carry a Location that reads that order. (Whether the
// checkout answers 201 at all is the deployment's choice at this level: a 200 is not a create and is not judged here.)
//
// Defect it kills: a server that answers the checkout 201 without Location, or with a Location that does not read the
// order it placed.
//
// Data. Its own checkout account of the seed (CHECKOUT_ACCOUNTS[7]): the cart is emptied first and left empty.
import { check, test } from '../engine/runner/check.js';
import { expectStatus, fail, expectSuccess } from '../lib/assert.js';
import { cartLine, emptyCart } from './_shared/cart-lines.js';
import { delegatedToken } from '../lib/callers.js';
import { locationOf } from './_shared/location.js';
import { CHECKOUT, checkout, checkoutBody } from './_shared/place-order.js';
import { expectPlaced } from '../lib/expect/orders.js';
import { CHECKOUT_ACCOUNTS, CHECKOUT_VARIANTS } from './_shared/seed-data.js';

test(
  ...check(
    {
      id: 'endpoints.checkout.created-location',
      title: 'a checkout answered 201 carries a Location that reads the order it placed',
      clauses: ['END-CONV-2'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const account = CHECKOUT_ACCOUNTS[7];
      const token = await delegatedToken(shop, account.sub);
      await emptyCart(shop, token);
      const added = await shop.http.post('/v1/cart/items', { token, json: cartLine(CHECKOUT_VARIANTS.beanie, 1) });
      expectSuccess(added, { what: 'addCartItem before the checkout', clause: 'END-CONV-2' });
      const res = await checkout(shop, token, checkoutBody(account.card));
      expectPlaced(res, { what: 'checkoutSavedCard', clause: 'END-CONV-2' });
      if (res.status !== 201) return;
      const location = locationOf(shop, res, CHECKOUT);
      if (!location)
        fail('Location of a 201 checkout (the order has a GET URL)', 'a URI reference', res.headers.get('location'), {
          clause: 'END-CONV-2',
        });
      // Resolved against the request's URL once: behind a path prefix an absolute path already carries the prefix.
      const read = await shop.http.get(location.url.href, { token });
      expectStatus(read, 200, { clause: 'END-CONV-2' });
      const id = typeof res.body?.id === 'string' ? res.body.id : undefined;
      if (id !== undefined && read.body?.id !== id)
        fail(`GET ${location.value}: the order placed`, id, read.body?.id, { clause: 'END-CONV-2' });
      await emptyCart(shop, token);
    },
  ),
);
