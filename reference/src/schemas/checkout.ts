// Checkout records and bodies (fields not shown by the spec: the reference's choice). checkoutSavedCard answers `Order`;
// its Location, `GET /v1/me/orders/{id}`, reads the same order as `OrderDetail` (schemas/account.ts), which has every
// member of `Order` with the same meaning, plus the members of an order's later life (returns, cancellable, ...).
import { z } from 'zod';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../../../contract/seed.js';
import { cartLineSchema } from './cart.js';
import { variantIdSchema } from './catalog.js';

const cents = () => z.number().int().min(0);
/** Ids of the account's own rows; an id of no row of the account is a domain error (422), not a validation error. */
const rowId = z.string().min(1).max(64);

export const checkoutPreviewSchema = z
  .object({
    lines: z.array(cartLineSchema),
    item_count: z.number().int().min(1),
    currency: z.string().length(3),
    subtotal_cents: cents(),
    shipping_cents: cents(),
    tax_cents: cents().describe(
      '8 % of the subtotal for a US address; 0 elsewhere, and 0 while the account has no address (address_id null).',
    ),
    total_cents: cents(),
    address_id: z
      .string()
      .nullable()
      .describe("The address the totals were computed for: the one named, else the account's newest; null when it has none."),
    payment_method_id: z.string().nullable().describe("The saved card named, if any (checked to be the account's); null otherwise."),
  })
  .meta({ id: 'CheckoutPreview' });

export const orderLineSchema = z
  .object({
    variant_id: variantIdSchema,
    title: z.string().describe('"Product — Variant" as ordered.'),
    quantity: z.number().int().min(1),
    unit_price_cents: z.number().int().positive(),
    line_total_cents: z.number().int().positive(),
  })
  .meta({ id: 'OrderLine' });

export const orderSchema = z
  .object({
    id: z.string(),
    number: z.string().describe('Human order number, `#1001` onwards.'),
    status: z.enum(ORDER_STATUSES).describe('`paid`, or `pending_payment` while the provider settles the payment.'),
    placed_at: z.string().describe('ISO 8601 instant.'),
    currency: z.string().length(3),
    lines: z.array(orderLineSchema),
    item_count: z.number().int().min(0).describe('Sum of the line quantities.'),
    subtotal_cents: cents(),
    shipping_cents: cents(),
    tax_cents: cents(),
    total_cents: cents().describe('subtotal + shipping + tax.'),
    address_id: z.string().nullable().describe('The shipping address.'),
    payment_method_id: z.string().nullable().describe('The saved card charged.'),
    payment_status: z.enum(PAYMENT_STATUSES).nullable().describe("State of the order's latest payment; null for an order without one."),
  })
  .meta({ id: 'Order' });

export const createCheckoutPreviewBody = z
  .object({
    address_id: rowId.optional().meta({ 'x-shop-role': 'address' }),
    payment_method_id: rowId.optional().meta({ 'x-shop-role': 'payment-method' }),
  })
  .strict()
  .meta({ examples: [{}] });

export const checkoutSavedCardBody = z
  .object({
    payment_method_id: rowId.meta({ 'x-shop-role': 'payment-method' }),
    address_id: rowId.optional().meta({ 'x-shop-role': 'address' }),
  })
  .strict()
  .meta({ examples: [{ payment_method_id: 'pm_0001' }] });
