// Request schemas (zod, strict: unknown members are refused) and the JSON Schemas of the response bodies.
import { z } from 'zod';

const id = (max = 64) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'must be an identifier');

export const emptyParams = z.object({}).strict();
export const variantParams = z.object({ variant_id: id() }).strict();
export const idParams = z.object({ id: id(128) }).strict();
export const handleParams = z
  .object({
    handle: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[a-z0-9-]+$/, 'must be a handle'),
  })
  .strict();
export const subParams = z.object({ sub: z.string().min(1).max(256) }).strict();

const intString = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const searchQuery = z.object({
  q: z.string().min(1).max(200).optional(),
  collection: z.string().min(1).max(128).optional(),
  limit: intString(1, 100).optional(),
  cursor: intString(0, 1_000_000).optional(),
});

export const emptyQuery = z.object({});

export const ORDER_STATUSES = ['pending_payment', 'paid', 'fulfilled', 'delivered', 'cancelled', 'return_requested', 'refunded'] as const;

export const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  limit: intString(1, 100).optional(),
});

export const opsOrdersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  account: z.string().min(1).max(256).optional(),
  limit: intString(1, 200).optional(),
});

export const addCartItemBody = z
  .object({
    variant_id: id(),
    quantity: z.number().int().min(1).max(999),
  })
  .strict();

export const updateCartItemBody = z
  .object({
    quantity: z.number().int().min(0).max(999),
  })
  .strict();

export const checkoutBody = z
  .object({
    payment_method_id: id(),
    address_id: id().optional(),
  })
  .strict();

export const previewBody = z
  .object({
    payment_method_id: id().optional(),
    address_id: id().optional(),
  })
  .strict();

export const addAddressBody = z
  .object({
    name: z.string().min(1).max(200),
    line1: z.string().min(1).max(200),
    line2: z.string().max(200).nullable().optional(),
    city: z.string().min(1).max(100),
    region: z.string().max(100).nullable().optional(),
    postal_code: z.string().min(1).max(20),
    country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code'),
    phone: z.string().min(1).max(40).nullable().optional(),
  })
  .strict();

export const cancelBody = z
  .object({
    reason: z.string().min(1).max(500).optional(),
  })
  .strict();

export const returnBody = z
  .object({
    reason: z.string().min(1).max(500),
  })
  .strict();

export const stockAdjustmentBody = z
  .object({
    variant_id: id(),
    delta: z
      .number()
      .int()
      .min(-100_000)
      .max(100_000)
      .refine((n) => n !== 0, 'must not be zero'),
    note: z.string().min(1).max(500).optional(),
  })
  .strict();

export const refundBody = z
  .object({
    reason: z.string().min(1).max(500).optional(),
  })
  .strict();

export const recoveryBody = z
  .object({
    subject: z.string().min(1).max(256),
    operationId: z.string().min(1).max(128),
    purpose: z.enum(['email', 'delete']),
  })
  .strict();

export const securityIntentBody = z
  .object({
    freshIntentId: z.string().min(1).max(128),
    subject: z.string().min(1).max(256),
    purpose: z.enum(['email', 'delete']),
    operationId: z.string().min(1).max(128).optional(),
    verifiedAt: z.string().datetime().optional(),
  })
  .strict();

const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/, 'must be a scope token');

export const agentAuthorizationBody = z
  .object({
    subject: z.string().min(1).max(256),
    agent_id: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be printable ASCII'),
    permissions: z.array(scopeToken).max(32),
    decision: z.enum(['granted', 'revoked']),
  })
  .strict();

export const agentConnectedBody = z
  .object({
    subject: z.string().min(1).max(256),
    agent_id: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be printable ASCII'),
    client_id: z.string().min(1).max(256),
    permissions: z.array(scopeToken).max(32),
    session_id: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be printable ASCII'),
  })
  .strict();

export const sessionSignedOutBody = z
  .object({
    session_id: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be printable ASCII'),
    client_id: z.string().min(1).max(256),
    scopes: z.array(scopeToken).max(32),
  })
  .strict();

export const conversationIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be a conversation id') }).strict();

export const hubTurnBody = z
  .object({
    turn_id: z.string().min(1).max(128),
    author: z.enum(['agent', 'operator', 'system']),
    text: z.string().min(1).max(16_000),
    sent_at: z.string().datetime().optional(),
  })
  .strict();

export const hubTimeoutBody = z
  .object({
    handoff_id: z.string().min(1).max(128),
    timed_out_at: z.string().datetime(),
  })
  .strict();

export const openConversationBody = z
  .object({
    mode: z.enum(['direct', 'handoff']),
    topic: z.string().min(1).max(200).optional(),
  })
  .strict();

export const postMessageBody = z.object({ text: z.string().min(1).max(16_000) }).strict();

// ---- JSON Schemas of response bodies (description documents) ----

type S = Record<string, unknown>;
const str: S = { type: 'string' };
const int: S = { type: 'integer' };
const bool: S = { type: 'boolean' };
const nullable = (s: S): S => ({ anyOf: [s, { type: 'null' }] });
const obj = (properties: Record<string, S>, required = Object.keys(properties)): S => ({
  type: 'object',
  properties,
  required,
});
const arr = (items: S): S => ({ type: 'array', items });

export const ref = (name: string): S => ({ $ref: `#/components/schemas/${name}` });

export const responseSchemas: Record<string, S> = {
  Problem: obj(
    {
      type: { type: 'string', format: 'uri' },
      title: str,
      status: int,
      error: str,
      detail: str,
      instance: str,
      issues: {
        type: 'array',
        maxItems: 20,
        items: obj({ path: str, code: str, message: str }),
      },
      scope: str,
      conversation_id: str,
    },
    ['type', 'title', 'status', 'error', 'instance'],
  ),
  Variant: obj({
    id: str,
    sku: str,
    title: str,
    price_cents: int,
    currency: str,
    available_quantity: int,
    available: bool,
  }),
  Product: obj({
    id: str,
    handle: str,
    title: str,
    description: str,
    vendor: str,
    tags: arr(str),
    collections: arr(str),
    variants: arr(ref('Variant')),
  }),
  ProductPage: obj({ products: arr(ref('Product')), total: int, next_cursor: nullable(str) }),
  Collection: obj({ id: str, handle: str, title: str, description: str, product_count: int }),
  CollectionList: obj({ collections: arr(ref('Collection')) }),
  CartLine: obj({
    variant_id: str,
    product_id: str,
    product_handle: str,
    product_title: str,
    variant_title: str,
    sku: str,
    quantity: int,
    unit_price_cents: int,
    line_total_cents: int,
    currency: str,
  }),
  Cart: obj({
    id: nullable(str),
    lines: arr(ref('CartLine')),
    item_count: int,
    subtotal_cents: int,
    currency: str,
  }),
  Address: obj({
    id: str,
    name: str,
    line1: str,
    line2: nullable(str),
    city: str,
    region: nullable(str),
    postal_code: str,
    country: str,
    phone: nullable(str),
  }),
  AddressList: obj({ addresses: arr(ref('Address')) }),
  PaymentMethod: obj({ id: str, brand: str, last4: str, exp_month: int, exp_year: int }),
  PaymentMethodList: obj({ payment_methods: arr(ref('PaymentMethod')) }),
  OrderLine: obj({ variant_id: str, title: str, quantity: int, unit_price_cents: int, line_total_cents: int }),
  Return: obj({ id: str, order_id: str, reason: str, status: str, requested_at: str }),
  Order: obj({
    id: str,
    number: str,
    status: { type: 'string', enum: [...ORDER_STATUSES] },
    placed_at: str,
    currency: str,
    lines: arr(ref('OrderLine')),
    subtotal_cents: int,
    shipping_cents: int,
    tax_cents: int,
    total_cents: int,
    address_id: nullable(str),
    payment_method_id: nullable(str),
    cancelled_at: nullable(str),
    cancellation_reason: nullable(str),
    returns: arr(ref('Return')),
  }),
  OrderList: obj({ orders: arr(ref('Order')) }),
  Profile: obj({ sub: str, display_name: str, email: nullable(str), state: str }),
  Identity: obj({ display_name: str, self_service_eligible: bool, caller_kind: str, agent_id: nullable(str) }),
  CheckoutAddress: obj({ address: nullable(ref('Address')) }),
  CheckoutMethods: obj({ payment_methods: arr(ref('PaymentMethod')), saved_card_checkout: bool }),
  CheckoutPreview: obj({
    lines: arr(ref('CartLine')),
    currency: str,
    subtotal_cents: int,
    shipping_cents: int,
    tax_cents: int,
    total_cents: int,
    address_id: nullable(str),
    payment_method_id: nullable(str),
    ready: bool,
  }),
  Me: obj({
    caller_kind: str,
    client_id: str,
    subject: str,
    channel: str,
    origin: nullable(str),
    agent_id: nullable(str),
    operator_id: nullable(str),
    scopes: arr(str),
    account_state: nullable(str),
  }),
  OpsOrder: {
    allOf: [ref('Order'), obj({ account_sub: str })],
  },
  OpsOrderList: obj({ orders: arr(ref('OpsOrder')) }),
  OpsAccount: obj({
    sub: str,
    display_name: str,
    email: nullable(str),
    state: str,
    address_count: int,
    payment_method_count: int,
    order_count: int,
  }),
  StockAdjustment: obj({
    id: str,
    variant_id: str,
    delta: int,
    available_quantity: int,
    operator: str,
    note: nullable(str),
    created_at: str,
  }),
  Health: obj({ status: str }),
  RecoveryResult: obj({ status: { type: 'string', enum: ['complete', 'pending', 'cancelled'] }, operationId: str }),
  WebhookReceived: obj({ received: { type: 'boolean', const: true } }),
  Recorded: obj({ recorded: bool }),
  SecurityIntentRecorded: obj({ freshIntentId: str, recorded: bool }),
};
