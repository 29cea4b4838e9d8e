// Orders placed through the two checkout operations. The spec shows no payloads: the bodies are the target's own, learned
// from its description documents (the members marked `x-shop-role` payment-method and address).
import { learned, type Shop } from '../../engine/runner/check.js';
import type { RequestOptions, ShopResponse } from '../../engine/transport/http.js';
import { checkoutAccountOfCard, type CheckoutAccount } from './seed-data.js';

/** createCheckoutPreview. */
export const PREVIEW = '/v1/checkout-previews';
/** checkoutSavedCard. */
export const CHECKOUT = '/v1/checkouts/saved-card';

/**
 * A checkoutSavedCard body, as the target describes it, paying with the saved card `card` (and, given, to `address`). Where
 * the body declares an `address` role and none is given, the address of the card's own checkout account goes there (else
 * `owner`'s): never the document example's, which may be another account's.
 */
export const checkoutBody = (card: string, address?: string, owner?: CheckoutAccount): unknown =>
  learned().body(
    'checkoutSavedCard',
    { 'payment-method': card, ...(address !== undefined ? { address } : {}) },
    { address: checkoutAccountOfCard(card)?.address ?? owner?.address },
  );

/**
 * A checkout request whose refusal is the point (an empty cart, a card the account does not hold): any answer is returned.
 * Which of the cart and the card a server looks at first, and whether it refuses an unknown card's id as invalid (400),
 * unknown (404, 422) or not the account's (403), are its choices.
 */
export const attemptCheckout = (shop: Shop, token: string, body: unknown, headers: RequestOptions['headers'] = {}): Promise<ShopResponse> =>
  shop.http.post(CHECKOUT, { token, json: body, headers });

/** A checkout request; a 400 is the service refusing the body its own document describes: checkoutSavedCard's clause fails. */
export async function checkout(shop: Shop, token: string, body: unknown, headers: RequestOptions['headers'] = {}): Promise<ShopResponse> {
  const res = await attemptCheckout(shop, token, body, headers);
  if (res.status === 400) learned().refusedAnswer('checkoutSavedCard', res, 'END-OPS-CHECKOUTSAVEDCARD-1');
  return res;
}

/** The order id at the end of an order's Location. */
export const orderIdOf = (location: string) => new URL(location, 'http://base.invalid').pathname.split('/').pop() ?? '';
