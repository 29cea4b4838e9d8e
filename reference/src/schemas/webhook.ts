// The payment webhook's records (spec, Events; Resources > Payment webhook success body). The success body is the spec's;
// the event shapes are Stripe's (https://docs.stripe.com/api/events/object), reduced to the members the reference reads:
// the webhook event types it processes are "not shown" by the spec, so these are the reference's choice (docs/webhook.md).
import { z } from 'zod';

/** Spec, Resources: `{ received: true }`, `received` a boolean. */
export const webhookReceivedSchema = z
  .object({ received: z.literal(true) })
  .strict()
  .describe('The delivery was accepted (and processed, or acknowledged without effect).');

/** The envelope of every delivery: a Stripe event. Unknown members are kept out of the reference's way, not refused. */
export const stripeEventSchema = z
  .object({
    id: z.string().min(1).max(255).describe('Event id (`evt_…`): deliveries are idempotent by it.'),
    object: z.literal('event').optional(),
    type: z
      .string()
      .min(1)
      .max(255)
      .describe('Event type, e.g. `payment_intent.succeeded`. Types the reference does not process are acknowledged and ignored.'),
    created: z.number().int().optional(),
    livemode: z.boolean().optional(),
    data: z.object({ object: z.record(z.string(), z.unknown()) }).describe('`data.object` is the resource the event is about.'),
  })
  .describe("A payment-provider event (Stripe's event object); the reference reads `id`, `type` and `data.object`.");

export type StripeEvent = z.infer<typeof stripeEventSchema>;

const providerId = z.string().min(1).max(255);

/** `data.object` of `payment_intent.succeeded` and `payment_intent.payment_failed`: a PaymentIntent. */
export const paymentIntentObjectSchema = z.object({
  id: providerId.describe('PaymentIntent id: the provider reference of a payment (`pi_…`).'),
  object: z.literal('payment_intent').optional(),
  // The order id checkout put on the PaymentIntent: names the checkout attempt of a payment the service has no row for.
  metadata: z
    .object({ order_id: z.string().max(64).optional() })
    .loose()
    .optional(),
});

/** `data.object` of `charge.refunded`: a Charge of a PaymentIntent. `amount_refunded` is cumulative (all refunds so far). */
export const chargeObjectSchema = z.object({
  id: providerId,
  object: z.literal('charge').optional(),
  payment_intent: providerId
    .nullable()
    .optional()
    .describe("The PaymentIntent the charge belongs to; a charge without one is not the shop's."),
  amount_refunded: z.number().int().min(0).describe('Total refunded so far, in minor units.'),
});

/** The card details the reference reads, in Stripe's PaymentMethod `card` shape (`brand` as Stripe names it: `visa`, `amex`…). */
export const cardDetailsSchema = z.object({
  brand: z.string().regex(/^[a-z][a-z_]{1,31}$/),
  last4: z.string().regex(/^\d{4}$/),
  exp_month: z.number().int().min(1).max(12),
  exp_year: z.number().int().min(2000).max(2100),
});

/**
 * `data.object` of `setup_intent.succeeded`: a SetupIntent. Its card comes from `payment_method` when that is an expanded
 * PaymentMethod (`{ id, card: {…} }`), else from `payment_method_details.card` beside a `payment_method` id.
 */
export const setupIntentObjectSchema = z.object({
  id: z.string().min(1).max(255).describe('SetupIntent id (`seti_…`): the card setup the storefront admitted.'),
  object: z.literal('setup_intent').optional(),
  // Card details are checked against cardDetailsSchema only when an admitted setup completes: a setup the shop never
  // admitted is ignored whatever its card.
  payment_method: z
    .union([providerId, z.object({ id: providerId, card: z.unknown().optional() })])
    .nullable()
    .optional(),
  payment_method_details: z.object({ card: z.unknown().optional() }).nullable().optional(),
});

export type CardDetails = z.infer<typeof cardDetailsSchema>;
