// Cart lines as the checks of several parts make them: the addCartItem and updateCartItem bodies are the target's own,
// learned from its description documents (the members marked `x-shop-role` variant and quantity;
// conformance/engine/transport/target.ts), since the spec shows no payloads. What a cart read shows of its lines is judged
// by conformance/lib/expect/cart.ts.
import { learned, type Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { expectSuccess, is4xx } from '../../lib/assert.js';
import { namesVariant } from '../../lib/expect/cart.js';
import { knownVariantIds, VARIANT } from './seed-data.js';

/** An addCartItem body, as the target describes it, for `quantity` units of `variant`. */
export const cartLine = (variant: string = VARIANT, quantity = 1): unknown => learned().body('addCartItem', { variant, quantity });

/** An updateCartItem body, as the target describes it, setting the line's quantity. */
export const cartQuantity = (quantity: number): unknown => learned().body('updateCartItem', { quantity });

export interface Line {
  variant_id: string;
  quantity: number;
}

/** The line of `variant` in a cart record of the reference's shape (`lines`). */
export const lineOf = (res: ShopResponse, variant: string): Line | undefined =>
  Array.isArray(res.body?.lines) ? (res.body.lines as Line[]).find((l) => l.variant_id === variant) : undefined;

/** Adds a line with the target's own body; a refusal of the body its documents describe fails the operation's clause. */
export async function addLine(
  shop: Shop,
  token: string,
  { clause, variant = VARIANT, quantity = 1 }: { clause: string; variant?: string; quantity?: number },
): Promise<ShopResponse> {
  const json = cartLine(variant, quantity);
  const res = await shop.http.post('/v1/cart/items', { token, json });
  if (is4xx(res)) learned().refusedAnswer('addCartItem', res, 'END-OPS-ADDCARTITEM-1');
  expectSuccess(res, { what: 'addCartItem status with a valid body', clause });
  return res;
}

/**
 * Removes every line of the cart: each known variant (knownVariantIds: the only ones a check adds) its text names; a line
 * already gone is no failure.
 */
export async function emptyCart(shop: Shop, token: string): Promise<void> {
  const cart = await shop.http.get('/v1/cart', { token });
  for (const id of knownVariantIds().filter((v) => namesVariant(cart.text, v)))
    await shop.http.delete(`/v1/cart/items/${encodeURIComponent(id)}`, { token });
}
