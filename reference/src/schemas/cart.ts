// Cart records (fields not shown by the spec: the reference's choice).
import { z } from 'zod';
import { variantIdSchema } from './catalog.js';

export const MAX_LINE_QUANTITY = 99;

export const cartLineSchema = z
  .object({
    variant_id: variantIdSchema,
    product_handle: z.string(),
    title: z.string(),
    quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY),
    unit_price_cents: z.number().int().positive(),
    line_total_cents: z.number().int().positive(),
  })
  .meta({ id: 'CartLine' });

export const cartSchema = z
  .object({
    id: z
      .string()
      .nullable()
      .describe('Cart id; null while no cart exists (a guest without a session, an account that never wrote to its cart).'),
    lines: z.array(cartLineSchema),
    item_count: z.number().int().min(0),
    currency: z.string().length(3),
    subtotal_cents: z.number().int().min(0),
  })
  .meta({ id: 'Cart' });

export const quantitySchema = z.number().int().min(1).max(MAX_LINE_QUANTITY);

// `x-shop-role` names what a member means, so that a client (the conformance suite) can fill in a body it did not design.
export const addCartItemBody = z
  .object({
    variant_id: variantIdSchema.meta({ 'x-shop-role': 'variant' }),
    quantity: quantitySchema.default(1).meta({ 'x-shop-role': 'quantity' }),
  })
  .strict()
  .meta({ examples: [{ variant_id: 'var_0101', quantity: 1 }] });
export const updateCartItemBody = z
  .object({ quantity: quantitySchema.meta({ 'x-shop-role': 'quantity' }) })
  .strict()
  .meta({ examples: [{ quantity: 2 }] });
export const cartItemParams = z.object({ variant_id: variantIdSchema });
