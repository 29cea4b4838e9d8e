// Shape of fixtures/seed.json: the data the reference loads at start and the checks that need data rely on. Declarative.
import { z } from 'zod';
import { FILE_MEMBERS } from './profile.js';

export const ACCOUNT_STATES = ['active', 'deleting', 'deleted', 'contact_transition'] as const;
export const ORDER_STATUSES = ['pending_payment', 'paid', 'fulfilled', 'delivered', 'cancelled', 'return_requested', 'refunded'] as const;
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'] as const;
export const RECOVERY_PHASES = ['proof_pending', 'approved', 'provider_pending', 'complete', 'cancelled'] as const;

const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[a-z0-9]{4,32}$`));
const currency = z.enum(['USD', 'EUR']);

export const seedVariantSchema = z
  .object({
    id: id('var'),
    sku: z.string().min(1),
    title: z.string().min(1),
    priceCents: z.number().int().positive(),
    currency,
    stock: z.number().int().min(0),
  })
  .strict();

/** What every catalog entry (a product, a collection) has: an id of its kind, a URL handle, a title and a description. */
const catalogEntry = (prefix: string) => ({
  id: id(prefix),
  handle: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  title: z.string().min(1),
  description: z.string(),
});

export const seedProductSchema = z
  .object({
    ...catalogEntry('prod'),
    vendor: z.string().min(1),
    tags: z.array(z.string()),
    collections: z.array(z.string()),
    variants: z.array(seedVariantSchema).min(1),
  })
  .strict();

export const seedCollectionSchema = z.object(catalogEntry('col')).strict();

export const seedAddressSchema = z
  .object({
    id: id('addr'),
    name: z.string().min(1),
    line1: z.string().min(1),
    line2: z.string().nullable(),
    city: z.string().min(1),
    region: z.string().nullable(),
    postalCode: z.string().min(1),
    country: z.string().length(2),
    phone: z.string().nullable(),
  })
  .strict();

export const seedPaymentMethodSchema = z
  .object({
    id: id('pm'),
    brand: z.enum(['visa', 'mastercard', 'amex']),
    last4: z.string().regex(/^\d{4}$/),
    expMonth: z.number().int().min(1).max(12),
    expYear: z.number().int().min(2000),
    providerRef: z.string().min(1),
  })
  .strict();

export const seedOrderSchema = z
  .object({
    id: id('ord'),
    number: z.string().min(1),
    status: z.enum(ORDER_STATUSES),
    placedAt: z.iso.datetime(),
    currency,
    lines: z
      .array(
        z.object({ variantId: id('var'), quantity: z.number().int().positive(), unitPriceCents: z.number().int().positive() }).strict(),
      )
      .min(1),
    shippingCents: z.number().int().min(0),
    taxCents: z.number().int().min(0),
    addressId: id('addr'),
    paymentMethodId: id('pm'),
  })
  .strict();

export const seedAccountSchema = z
  .object({
    sub: z.string().min(1).describe('The token `sub` that owns the account.'),
    email: z.email(),
    displayName: z.string().min(1),
    state: z.enum(ACCOUNT_STATES),
    selfServiceEligible: z.boolean(),
    addresses: z.array(seedAddressSchema),
    paymentMethods: z.array(seedPaymentMethodSchema),
    orders: z.array(seedOrderSchema),
  })
  .strict();

export const seedRecoverySchema = z
  .object({
    operationId: z.string().min(1).max(128),
    subject: z.string().min(1).max(256),
    purpose: z.enum(['email', 'delete']),
    phase: z.enum(RECOVERY_PHASES),
    pendingEmail: z.email().nullable(),
  })
  .strict();

export const seedCardSetupSchema = z
  .object({
    id: z
      .string()
      .regex(/^seti_[A-Za-z0-9]{4,40}$/)
      .describe("The payment provider's setup id."),
    accountSub: z.string().min(1),
  })
  .strict()
  .describe('A card setup the storefront admitted; the payment webhook completes it into a saved card.');

export const seedSchema = z
  .object({
    ...FILE_MEMBERS,
    collections: z.array(seedCollectionSchema).min(3),
    products: z.array(seedProductSchema).min(20),
    accounts: z.array(seedAccountSchema).min(5),
    recoveryOperations: z.array(seedRecoverySchema),
    cardSetups: z.array(seedCardSetupSchema).default([]),
  })
  .strict();

export type Seed = z.infer<typeof seedSchema>;
