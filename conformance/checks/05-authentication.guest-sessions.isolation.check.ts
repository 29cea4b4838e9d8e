// Spec part 5, Authentication > Guest sessions 7: the storefront token identifies the storefront, not the visitor, whose
// capability is its cart id: two guests, even with one storefront token, never see or change each other's carts.
//
// Cart writes use the reference's request body ({ variant_id, quantity }: the spec does not show payloads) and the seed's
// variant ids; cart records are "not shown", so spec-level checks observe a cart only through the variant ids its body
// names (an empty cart names none) or by comparing two reads, and leave member names (`lines`) to reference-level checks.
import { check, test } from '../engine/runner/check.js';
import { expectProblem, expectSuccess, fail } from '../lib/assert.js';
import { freshShopperIp } from '../lib/shopper.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import { expectNamesVariant, expectEmptyCart } from '../lib/expect/cart.js';
import { guestHeaders } from '../lib/callers.js';
import { OTHER_VARIANT, VARIANT } from './_shared/seed-data.js';
import { expectUnchanged, readBaseline } from '../lib/compare.js';

test(
  ...check(
    {
      id: 'authentication.guest.isolation',
      title: "two guests with one storefront token never see or change each other's carts",
      clauses: ['AUTH-GUEST-16', 'AUTH-GUEST-17'],
      requires: ['guests'],
      seed: true,
    },
    async (shop) => {
      const token = await shop.mint.guest();
      const ip = freshShopperIp();
      const as = (session: string) => ({ authorization: `Bearer ${token}`, 'shopper-ip': ip, 'guest-session': session });
      const a = shop.guestSession();
      const b = shop.guestSession();
      expectSuccess(await shop.http.post('/v1/cart/items', { headers: as(a), json: cartLine(VARIANT, 2) }), {
        what: 'A adds a line',
        clause: 'AUTH-GUEST-16',
      });
      const baseline = await readBaseline(() => shop.http.get('/v1/cart', { headers: as(a) }));
      const before = baseline.first;
      expectNamesVariant(before, VARIANT, { what: 'A reads its cart', clause: 'AUTH-GUEST-16' });

      // With the same storefront token, B's session is its own cart (AUTH-GUEST-16): seeing A's line breaks both.
      const readB = await shop.http.get('/v1/cart', { headers: as(b) });
      expectSuccess(readB, { what: 'B reads its cart', clause: 'AUTH-GUEST-17' });
      if (readB.text.includes(VARIANT))
        fail(`B reads its cart: the cart names no ${VARIANT}`, 'no such variant in the body', readB.text.slice(0, 300), {
          clause: ['AUTH-GUEST-16', 'AUTH-GUEST-17'],
        });
      await shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: as(b), json: cartQuantity(1) });
      await shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: as(b) });
      expectSuccess(await shop.http.post('/v1/cart/items', { headers: as(b), json: cartLine(OTHER_VARIANT) }), {
        what: 'B adds another variant',
        clause: 'AUTH-GUEST-16',
      });

      const after = await shop.http.get('/v1/cart', { headers: as(a) });
      expectSuccess(after, { what: 'A reads its cart again', clause: 'AUTH-GUEST-17' });
      expectUnchanged(baseline, after, { what: "A's cart after B's update, remove and add", clause: 'AUTH-GUEST-17' });
      expectNamesVariant(await shop.http.get('/v1/cart', { headers: as(b) }), OTHER_VARIANT, {
        what: 'B reads its own line',
        clause: 'AUTH-GUEST-16',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.guest.isolation.reference',
      title: "another guest's line is 404 not_found to update or remove",
      clauses: ['AUTH-GUEST-17'],
      level: 'reference',
      requires: ['guests'],
      seed: true,
    },
    async (shop) => {
      const a = shop.guestSession();
      const b = shop.guestSession();
      expectSuccess(await shop.http.post('/v1/cart/items', { headers: await guestHeaders(shop, a), json: cartLine() }), {
        what: 'A adds a line',
        clause: 'AUTH-GUEST-17',
      });
      const readB = await shop.http.get('/v1/cart', { headers: await guestHeaders(shop, b) });
      expectEmptyCart(readB, { what: 'B\'s cart "lines"', clause: 'AUTH-GUEST-17' });
      expectProblem(await shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: await guestHeaders(shop, b), json: cartQuantity(1) }), {
        status: 404,
        error: 'not_found',
        docsUrl: shop.docsUrl,
        clause: 'AUTH-GUEST-17',
      });
      expectProblem(await shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: await guestHeaders(shop, b) }), {
        status: 404,
        error: 'not_found',
        docsUrl: shop.docsUrl,
        clause: 'AUTH-GUEST-17',
      });
    },
  ),
);
