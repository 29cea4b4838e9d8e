// Operator records and inputs (spec: "the operations under /v1/ops/*: not shown" — the reference's choice, published in
// /openapi.json). Bodies are strict: an unknown member is 400 invalid_request.
import { z } from 'zod';
import { ORDER_STATUSES } from '../../../contract/seed.js';
import { variantIdSchema } from './catalog.js';

export const MAX_STOCK_DELTA = 10_000;

const orderIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/)
  .describe('Order id (`ord_…`).');
const reasonSchema = z.string().trim().min(1).max(500).describe('Why the operator acts; recorded in the audit log.');
const orderStatusSchema = z.enum(ORDER_STATUSES);
const paymentStatusSchema = z.enum(['pending', 'succeeded', 'failed', 'refunded']);
const timestamp = z.string().describe('ISO 8601 instant.');

export const opsOrderSummarySchema = z
  .object({
    id: z.string(),
    number: z.string().describe('Order number as customers see it, e.g. `#1013`.'),
    account: z.string().describe('The owning account (token `sub`).'),
    status: orderStatusSchema,
    payment_status: paymentStatusSchema.nullable().describe("Status of the order's latest payment; null when it has none."),
    item_count: z.number().int().min(0),
    currency: z.string().length(3),
    total_cents: z.number().int().min(0),
    placed_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'OpsOrderSummary' });

export const opsOrderPageSchema = z
  .object({
    items: z.array(opsOrderSummarySchema),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })
  .meta({ id: 'OpsOrderPage' });

export const opsPaymentSchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    provider_ref: z.string().describe("The provider's payment id (e.g. a PaymentIntent `pi_…`)."),
    status: paymentStatusSchema,
    amount_cents: z.number().int().min(0),
    refunded_cents: z.number().int().min(0),
    refundable_cents: z
      .number()
      .int()
      .min(0)
      .describe('What a refund may still return: amount less refunds, for a captured payment; else 0.'),
    currency: z.string().length(3),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'OpsPayment' });

export const opsOrderSchema = z
  .object({
    id: z.string(),
    number: z.string(),
    account: z.string(),
    status: orderStatusSchema,
    currency: z.string().length(3),
    subtotal_cents: z.number().int().min(0),
    shipping_cents: z.number().int().min(0),
    tax_cents: z.number().int().min(0),
    total_cents: z.number().int().min(0),
    address_id: z.string().nullable(),
    payment_method_id: z.string().nullable(),
    placed_at: timestamp,
    updated_at: timestamp,
    lines: z.array(
      z.object({
        variant_id: z.string(),
        title: z.string(),
        quantity: z.number().int().positive(),
        unit_price_cents: z.number().int().min(0),
        line_total_cents: z.number().int().min(0),
      }),
    ),
    payments: z.array(opsPaymentSchema),
    returns: z.array(z.object({ id: z.string(), reason: z.string(), status: z.string(), created_at: timestamp })),
  })
  .meta({ id: 'OpsOrder' });

export const searchOpsOrdersQuery = z.object({
  status: orderStatusSchema.optional().describe('Only orders in this status.'),
  account: z.string().min(1).max(256).optional().describe('Only orders of this account (token `sub`).'),
  q: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^#?[0-9A-Za-z-]+$/)
    .optional()
    .describe('Order number, with or without `#`: orders whose number contains it.'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .describe('Opaque cursor from `next_cursor`.'),
});

export const opsOrderParams = z.object({ id: orderIdSchema });
export const opsVariantParams = z.object({ id: variantIdSchema });

export const cancelOpsOrderBody = z
  .object({ reason: reasonSchema.meta({ 'x-shop-role': 'reason' }) })
  .strict()
  .meta({ examples: [{ reason: 'Customer asked by phone.' }] });

export const refundOpsOrderBody = z
  .object({
    amount_cents: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Part of the captured amount to refund; all that is refundable when absent.'),
    reason: reasonSchema.meta({ 'x-shop-role': 'reason' }),
  })
  .strict()
  .meta({ examples: [{ reason: 'Damaged in transit.' }] });

export const adjustStockBody = z
  .object({
    delta: z
      .number()
      .int()
      .min(-MAX_STOCK_DELTA)
      .max(MAX_STOCK_DELTA)
      .refine((n) => n !== 0, 'delta must not be 0')
      .describe(`Units to add (positive) or remove (negative); not 0, at most ${MAX_STOCK_DELTA} either way.`)
      .meta({ 'x-shop-role': 'stock-delta' }),
    reason: reasonSchema.meta({ 'x-shop-role': 'reason' }),
  })
  .strict()
  .meta({ examples: [{ delta: 5, reason: 'Stock count.' }] });

export const stockLevelSchema = z
  .object({
    variant_id: variantIdSchema,
    sku: z.string(),
    stock: z.number().int().min(0).describe('Units in stock after the adjustment.'),
    delta: z.number().int(),
  })
  .meta({ id: 'StockLevel' });
