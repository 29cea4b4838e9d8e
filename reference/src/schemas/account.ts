// Account records: profile, addresses, saved cards, orders and returns, identity, and the checkout reads. The spec shows the
// fields of none of them: the reference's choice, published in /openapi.json (docs/account.md).
import { z } from 'zod';
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../../../contract/seed.js';

// --- ids --------------------------------------------------------------------------------------------------------------

/** Address ids: `addr_` and lowercase letters or digits (seed ids like `addr_ada01`, new ids `addr_<16 random>`). */
export const addressIdSchema = z
  .string()
  .regex(/^addr_[a-z0-9]{1,64}$/)
  .describe('Address id.');
/** Order ids: `ord_` then letters, digits, `_` or `-` (checkout may mint longer ids than the seed's `ord_1001`). */
export const orderIdSchema = z
  .string()
  .regex(/^ord_[A-Za-z0-9_-]{1,64}$/)
  .describe('Order id.');
const variantRefSchema = z
  .string()
  .regex(/^var_[a-z0-9]{4,32}$/)
  .describe('Variant id.');

export const MAX_ADDRESSES = 50;
export const MAX_REASON_CHARS = 500;
export const MAX_RETURN_LINES = 50;

/** ISO 3166-1 alpha-2: the 249 officially assigned codes (no reserved or withdrawn ones such as UK, EU, XK). */
export const ISO_COUNTRIES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF ' +
    'CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH ' +
    'GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW ' +
    'KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG ' +
    'NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN ' +
    'SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ' +
    'ZA ZM ZW'
  ).split(' '),
);

const countrySchema = z
  .string()
  .regex(/^[A-Z]{2}$/, 'Two uppercase letters (ISO 3166-1 alpha-2).')
  .refine((c) => ISO_COUNTRIES.has(c), { message: 'Not an assigned ISO 3166-1 alpha-2 country code.' })
  .describe('ISO 3166-1 alpha-2 country code, uppercase (e.g. `US`, `FR`).');

const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .describe('ISO 4217 currency code.');
const timestampSchema = z.iso.datetime().describe('ISO 8601 instant (UTC).');

// --- profile and identity --------------------------------------------------------------------------------------------

export const profileSchema = z
  .object({
    sub: z.string().describe('The account: the token `sub` that owns it.'),
    email: z.string().nullable().describe('Contact email; null when the identity provider gave none.'),
    display_name: z.string(),
    created_at: timestampSchema,
  })
  .meta({ id: 'Profile' });

// Spec, What the service does 5: an identity read for an agent banner carries the display name and no other personal data.
export const identitySchema = z
  .object({
    display_name: z.string(),
    self_service_eligible: z
      .boolean()
      .describe("Whether the canonical database identity is eligible for the identity provider's self-service account feature."),
  })
  .strict()
  .meta({ id: 'Identity' });

// --- addresses -------------------------------------------------------------------------------------------------------

export const addressSchema = z
  .object({
    id: addressIdSchema,
    name: z.string(),
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    region: z.string().nullable().describe('State, province or county; null where the country has none.'),
    postal_code: z.string(),
    country: z.string().length(2),
    phone: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'Address' });

export const addressListSchema = z
  .object({
    items: z.array(addressSchema).describe(`Newest first; at most ${MAX_ADDRESSES}.`),
  })
  .meta({ id: 'AddressList' });

const text = (max: number) => z.string().trim().min(1).max(max);

export const addAddressBody = z
  .object({
    name: text(100).describe('Recipient.'),
    line1: text(200),
    line2: text(200).optional(),
    city: text(100),
    region: text(100).optional(),
    postal_code: text(20),
    country: countrySchema,
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9][0-9 ().-]{2,31}$/, 'Digits, spaces, ( ) . - and an optional leading +; 3 to 32 characters.')
      .optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Ada Lovelace', line1: '12 St James Square', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' }] });

export const addressParams = z.object({ id: addressIdSchema });

// --- payment methods -------------------------------------------------------------------------------------------------

export const paymentMethodSchema = z
  .object({
    id: z.string().describe("Saved card id (`pm_…`); never the payment provider's reference."),
    brand: z.string().describe('Card brand, e.g. `visa`, `mastercard`, `amex`.'),
    last4: z.string().regex(/^\d{4}$/),
    exp_month: z.number().int().min(1).max(12),
    exp_year: z.number().int(),
    expired: z.boolean().describe('True after the last day of the expiry month (UTC); expired cards are not offered at checkout.'),
  })
  .meta({ id: 'PaymentMethod' });

export const paymentMethodListSchema = z.object({ items: z.array(paymentMethodSchema) }).meta({ id: 'PaymentMethodList' });

export const checkoutMethodSchema = z
  .object({
    id: z.string().describe('Saved card id, as `checkoutSavedCard` takes it.'),
    brand: z.string(),
    last4: z.string().regex(/^\d{4}$/),
    exp_month: z.number().int().min(1).max(12),
    exp_year: z.number().int(),
  })
  .meta({ id: 'CheckoutMethod' });

export const checkoutMethodListSchema = z
  .object({
    items: z.array(checkoutMethodSchema).describe('Saved cards usable at checkout: expired cards are left out. Newest first.'),
  })
  .meta({ id: 'CheckoutMethodList' });

export const checkoutAddressSchema = z
  .object({
    address: addressSchema
      .nullable()
      .describe('The default shipping address (the most recently added one), or null when the account has none.'),
  })
  .meta({ id: 'CheckoutAddress' });

// --- orders and returns ----------------------------------------------------------------------------------------------

export const orderStatusSchema = z.enum(ORDER_STATUSES);

// The order as the account reads it. Its members include every member of the `Order` that checkoutSavedCard answers
// (schemas/checkout.ts), with the same meaning, plus what the account routes add: `updated_at`, `returns`, `cancellable`
// and `returnable`. Its own component names keep the two from overwriting each other in /openapi.json.
export const orderLineSchema = z
  .object({
    variant_id: z.string(),
    title: z.string().describe('"Product — Variant" as it was when the order was placed.'),
    quantity: z.number().int().positive(),
    unit_price_cents: z.number().int().min(0),
    line_total_cents: z.number().int().min(0),
  })
  .meta({ id: 'OrderDetailLine' });

export const returnSchema = z
  .object({
    id: z.string().describe('Return id (`ret_…`).'),
    status: z.string().describe('`requested` when created; the back office moves it on.'),
    reason: z.string(),
    created_at: timestampSchema,
  })
  .meta({ id: 'Return' });

export const orderSchema = z
  .object({
    id: z.string(),
    number: z.string().describe('Human order number, e.g. `#1001`.'),
    status: orderStatusSchema,
    placed_at: timestampSchema,
    updated_at: timestampSchema,
    currency: currencySchema,
    lines: z.array(orderLineSchema),
    item_count: z.number().int().min(0).describe('Sum of the line quantities.'),
    subtotal_cents: z.number().int().min(0),
    shipping_cents: z.number().int().min(0),
    tax_cents: z.number().int().min(0),
    total_cents: z.number().int().min(0).describe('subtotal + shipping + tax.'),
    address_id: z.string().nullable().describe('The shipping address the order was placed with (it may have been deleted since).'),
    payment_method_id: z.string().nullable().describe('The saved card the order was paid with.'),
    payment_status: z
      .enum(PAYMENT_STATUSES)
      .nullable()
      .describe("State of the order's latest payment (`refunded`: in full); null for an order without one."),
    returns: z.array(returnSchema).describe('Return requests, oldest first.'),
    cancellable: z.boolean().describe('Whether cancelOrder would accept the order now (`pending_payment` or `paid`).'),
    returnable: z.boolean().describe('Whether requestReturn would accept the order now (`delivered`, no return yet).'),
  })
  .meta({ id: 'OrderDetail' });

export const orderSummarySchema = z
  .object({
    id: z.string(),
    number: z.string(),
    status: orderStatusSchema,
    placed_at: timestampSchema,
    currency: currencySchema,
    total_cents: z.number().int().min(0),
    item_count: z.number().int().min(0).describe('Sum of the line quantities.'),
  })
  .meta({ id: 'OrderSummary' });

export const orderPageSchema = z
  .object({
    items: z.array(orderSummarySchema).describe('Newest first.'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })
  .meta({ id: 'OrderPage' });

export const listOrdersQuery = z.object({
  status: orderStatusSchema.optional().describe('Only orders in this status.'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .describe('Opaque cursor from `next_cursor`.'),
});

export const orderParams = z.object({ id: orderIdSchema });

const reasonSchema = text(MAX_REASON_CHARS);

/** The body is optional: a POST without one cancels without a reason. */
export const cancelOrderBody = z
  .object({ reason: reasonSchema.optional().meta({ 'x-shop-role': 'reason' }) })
  .strict()
  .meta({ examples: [{ reason: 'Ordered by mistake.' }] })
  .optional();

export const requestReturnBody = z
  .object({
    reason: reasonSchema.meta({ 'x-shop-role': 'reason' }),
    lines: z
      .array(
        z
          .object({
            variant_id: variantRefSchema,
            quantity: z.number().int().min(1).max(99),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_RETURN_LINES)
      .optional()
      .describe('Lines to return; every line of the order, in full, when absent.'),
  })
  .strict()
  .meta({ examples: [{ reason: 'Wrong size.' }] });
