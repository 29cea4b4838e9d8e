// The cart of the caller [PUR-SERVE-2]: the account cart for account callers, the session's cart for guests (spec,
// Authentication > Guest sessions).
import { addCartItemBody, cartItemParams, cartSchema, MAX_LINE_QUANTITY, updateCartItemBody } from '../schemas/cart.js';
import { findVariant } from '../store/catalog.js';
import { deleteLine, ensureCart, findCartId, lineQuantity, readCart, setLine } from '../store/carts.js';
import { ProblemError } from '../problem.js';
import type { Actor } from '../pipeline/context.js';
import { defineRoute } from './define.js';

/** Every cart write needs an owner: a guest without a session gets 400 `guest_session_required`. */
function writableOwner(actor: Actor): string {
  // [AUTH-GUEST-4] [ERR-TABLE-7] a guest cart write without a Guest-Session: 400 guest_session_required.
  if (actor.cartOwner === null) {
    throw new ProblemError('guest_session_required', { detail: 'Guest cart writes need a Guest-Session header.' });
  }
  return actor.cartOwner;
}

function checkStock(variantId: string, stock: number, wanted: number): void {
  if (wanted > stock) throw new ProblemError('insufficient_stock', { detail: `Only ${stock} of ${variantId} are in stock.` });
}

export const cartRoutes = [
  defineRoute({
    // [END-OPS-GETCART-1] GET /v1/cart, the storefront list, cart:read (contract/operations.ts).
    operationId: 'getCart',
    summary: 'Read the cart',
    success: { status: 200, schema: cartSchema, description: 'The cart; empty for a guest without a session.' },
    // [AUTH-GUEST-3] [AUTH-GUEST-17] a guest without a session sees an empty cart; with one, its own cart only.
    handle: ({ domain, actor }) => ({ status: 200, body: readCart(domain.db, actor.cartOwner) }),
  }),
  defineRoute({
    // [END-OPS-ADDCARTITEM-1] POST /v1/cart/items, the storefront list, cart:write (contract/operations.ts).
    operationId: 'addCartItem',
    summary: 'Add a variant to the cart',
    body: addCartItemBody,
    success: {
      status: 201,
      schema: cartSchema,
      description: 'The cart with the new or grown line. No Location: a line has no URL of its own.',
    },
    errors: ['guest_session_required', 'unknown_variant', 'insufficient_stock'],
    handle: ({ domain, actor, input }) => {
      const owner = writableOwner(actor);
      const { db, clock } = domain;
      const variant = findVariant(db, input.body.variant_id);
      if (!variant) throw new ProblemError('unknown_variant', { detail: 'No variant has this id.' });
      db.transaction(() => {
        const now = clock();
        const cartId = ensureCart(db, owner, now);
        const quantity = (lineQuantity(db, cartId, variant.id) ?? 0) + input.body.quantity;
        if (quantity > MAX_LINE_QUANTITY)
          throw new ProblemError('invalid_request', {
            detail: `A line holds at most ${MAX_LINE_QUANTITY} units.`,
            issues: [
              { path: 'body.quantity', code: 'too_big', message: `The line would hold ${quantity} units; at most ${MAX_LINE_QUANTITY}.` },
            ],
          });
        checkStock(variant.id, variant.stock, quantity);
        setLine(db, cartId, variant.id, quantity, now);
      }).immediate();
      // [END-CONV-1] a create answers 201 (a line has no URL of its own: no Location).
      return { status: 201, body: readCart(db, owner) };
    },
  }),
  defineRoute({
    // [END-OPS-UPDATECARTITEM-1] PATCH /v1/cart/items/{variant_id}, the storefront list, cart:write (contract/operations.ts).
    operationId: 'updateCartItem',
    summary: 'Set the quantity of a cart line',
    params: cartItemParams,
    body: updateCartItemBody,
    success: { status: 200, schema: cartSchema, description: 'The updated cart.' },
    errors: ['guest_session_required', 'not_found', 'insufficient_stock'],
    handle: ({ domain, actor, input }) => {
      const owner = writableOwner(actor);
      const { db, clock } = domain;
      db.transaction(() => {
        const cartId = findCartId(db, owner);
        if (!cartId || lineQuantity(db, cartId, input.params.variant_id) === undefined) {
          throw new ProblemError('not_found', { detail: 'The cart has no line for this variant.' });
        }
        const variant = findVariant(db, input.params.variant_id)!;
        checkStock(variant.id, variant.stock, input.body.quantity);
        setLine(db, cartId, variant.id, input.body.quantity, clock());
      }).immediate();
      return { status: 200, body: readCart(db, owner) };
    },
  }),
  defineRoute({
    // [END-OPS-REMOVECARTITEM-1] DELETE /v1/cart/items/{variant_id}, the storefront list, cart:write (contract/operations.ts).
    operationId: 'removeCartItem',
    summary: 'Remove a cart line',
    params: cartItemParams,
    success: { status: 204, schema: null, description: 'The line is gone.' },
    errors: ['guest_session_required', 'not_found'],
    handle: ({ domain, actor, input }) => {
      const owner = writableOwner(actor);
      const cartId = findCartId(domain.db, owner);
      if (!cartId || !deleteLine(domain.db, cartId, input.params.variant_id, domain.clock())) {
        throw new ProblemError('not_found', { detail: 'The cart has no line for this variant.' });
      }
      // [END-CONV-3] a delete answers 204 with no body.
      return { status: 204 };
    },
  }),
];
