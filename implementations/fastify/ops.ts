import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import { type Store, type Account, type Order, type Product, type Conversation, type ConversationEvent, hexId } from './store.js';
import { ApiError, notFound } from './problems.js';
import type { Caller, CallerKind } from './auth.js';
import type { Actor, Ctx, Group, OpMeta } from './pipeline.js';

export interface HandlerArgs {
  req: FastifyRequest;
  reply: FastifyReply;
  ctx: Ctx;
  caller: Caller;
  actor: Actor;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  store: Store;
  cfg: Config;
}
export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  etag?: boolean;
}
export interface OpDef extends OpMeta {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  tools?: string[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodObject;
  bodyRequired?: boolean;
  example?: unknown;
  responses: Record<string, { description: string; schema?: unknown; stream?: boolean }>;
  stream?: boolean;
  handler: (a: HandlerArgs) => Promise<Result | null> | Result | null;
}

const STOREFRONT: CallerKind[] = ['customer', 'delegated', 'guest', 'invited-agent', 'assistant'];
const ACCOUNT: CallerKind[] = ['customer', 'delegated', 'invited-agent', 'assistant'];
const CHECKOUT: CallerKind[] = ['customer', 'invited-agent', 'assistant'];
const AGENT_CHECKOUT: CallerKind[] = ['delegated', 'invited-agent', 'assistant'];
const PREVIEW: CallerKind[] = ['customer', 'delegated', 'invited-agent', 'assistant'];
export const DIAGNOSTIC: CallerKind[] = ['customer', 'delegated', 'guest', 'invited-agent', 'operator', 'assistant'];
const OPERATOR: CallerKind[] = ['operator'];
const CONVERSATION: CallerKind[] = ['assistant'];

const idParam = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/);

// ------------------------------------------------------------------ views
const variantView = (store: Store, id: string): Record<string, unknown> => {
  const v = store.variants.get(id)!;
  return {
    id: v.id,
    sku: v.sku,
    title: v.title,
    price_cents: v.priceCents,
    currency: v.currency,
    available_quantity: v.stock,
    available: v.stock > 0,
  };
};
const productView = (store: Store, p: Product): Record<string, unknown> => {
  const prices = p.variants.map((v) => v.priceCents);
  return {
    id: p.id,
    handle: p.handle,
    title: p.title,
    description: p.description,
    vendor: p.vendor,
    tags: p.tags,
    collections: p.collections,
    price_range: { min_cents: Math.min(...prices), max_cents: Math.max(...prices), currency: p.variants[0]?.currency ?? 'USD' },
    available: p.variants.some((v) => v.stock > 0),
    variants: p.variants.map((v) => variantView(store, v.id)),
  };
};

function cartView(store: Store, key: string | null): Record<string, unknown> {
  const lines = key ? (store.carts.get(key) ?? []) : [];
  let subtotal = 0;
  const out = lines.map((l) => {
    const v = store.variants.get(l.variantId)!;
    const p = store.products.find((x) => x.id === v.productId)!;
    const total = v.priceCents * l.quantity;
    subtotal += total;
    return {
      variant_id: v.id,
      product_handle: p.handle,
      product_title: p.title,
      variant_title: v.title,
      quantity: l.quantity,
      unit_price_cents: v.priceCents,
      line_total_cents: total,
      currency: v.currency,
    };
  });
  return { lines: out, item_count: lines.reduce((n, l) => n + l.quantity, 0), subtotal_cents: subtotal, currency: 'USD' };
}

const addressView = (a: Account['addresses'][number]): Record<string, unknown> => ({
  id: a.id,
  name: a.name,
  line1: a.line1,
  line2: a.line2,
  city: a.city,
  region: a.region,
  postal_code: a.postalCode,
  country: a.country,
  phone: a.phone,
});
const pmView = (p: Account['paymentMethods'][number]): Record<string, unknown> => ({
  id: p.id,
  brand: p.brand,
  last4: p.last4,
  exp_month: p.expMonth,
  exp_year: p.expYear,
});

function totals(o: Pick<Order, 'lines' | 'shippingCents' | 'taxCents'>): { subtotal: number; total: number } {
  const subtotal = o.lines.reduce((n, l) => n + l.unitPriceCents * l.quantity, 0);
  return { subtotal, total: subtotal + o.shippingCents + o.taxCents };
}
export function orderSummary(o: Order): Record<string, unknown> {
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    placed_at: o.placedAt,
    currency: o.currency,
    item_count: o.lines.reduce((n, l) => n + l.quantity, 0),
    total_cents: totals(o).total,
  };
}
export function orderView(store: Store, o: Order): Record<string, unknown> {
  const acct = store.accounts.get(o.accountSub);
  const addr = acct?.addresses.find((a) => a.id === o.addressId);
  const pm = acct?.paymentMethods.find((p) => p.id === o.paymentMethodId);
  const t = totals(o);
  return {
    ...orderSummary(o),
    lines: o.lines.map((l) => {
      const v = store.variants.get(l.variantId);
      const p = v ? store.products.find((x) => x.id === v.productId) : undefined;
      return {
        variant_id: l.variantId,
        product_title: p?.title ?? null,
        variant_title: v?.title ?? null,
        quantity: l.quantity,
        unit_price_cents: l.unitPriceCents,
        line_total_cents: l.unitPriceCents * l.quantity,
      };
    }),
    subtotal_cents: t.subtotal,
    shipping_cents: o.shippingCents,
    tax_cents: o.taxCents,
    shipping_address: addr ? addressView(addr) : null,
    payment_method: pm ? { id: pm.id, brand: pm.brand, last4: pm.last4 } : null,
    cancelled_at: o.cancelledAt,
    returns: o.returns.map((r) => ({ id: r.id, reason: r.reason, requested_at: r.requestedAt })),
  };
}

const newestFirst = <T extends { createdSeq: number }>(xs: T[]): T[] => [...xs].sort((a, b) => b.createdSeq - a.createdSeq);
const ordersOf = (store: Store, sub: string): Order[] =>
  [...store.orders.values()]
    .filter((o) => o.accountSub === sub)
    .sort((a, b) => (a.placedAt < b.placedAt ? 1 : a.placedAt > b.placedAt ? -1 : b.number.localeCompare(a.number)));

function ownOrder(a: HandlerArgs): Order {
  const o = a.store.orders.get(a.params.id!);
  if (!o || o.accountSub !== a.actor.account!.sub) throw notFound('No such order on this account.');
  return o;
}

function requireCartKey(a: HandlerArgs): string {
  if (a.actor.cartKey) return a.actor.cartKey;
  if (a.caller.kind === 'guest') throw new ApiError(400, 'guest_session_required', 'A guest cart write needs a Guest-Session.');
  throw new ApiError(403, 'caller_not_allowed', 'This caller has no cart.');
}

function checkStock(store: Store, variantId: string, quantity: number): void {
  const v = store.variants.get(variantId)!;
  if (quantity > v.stock) throw new ApiError(409, 'insufficient_stock', `Only ${v.stock} unit(s) of ${variantId} are available.`);
}

function quote(
  store: Store,
  key: string,
  account: Account,
  addressId: string | undefined,
): { lines: Order['lines']; subtotal: number; shipping: number; tax: number; address: Account['addresses'][number] } {
  const cart = store.carts.get(key) ?? [];
  if (cart.length === 0) throw new ApiError(422, 'cart_empty', 'The cart has no lines.');
  const address = addressId ? account.addresses.find((x) => x.id === addressId) : newestFirst(account.addresses)[0];
  if (!address)
    throw new ApiError(
      422,
      addressId ? 'address_unknown' : 'address_required',
      addressId ? 'No such address on this account.' : 'The account has no address to ship to.',
    );
  const lines = cart.map((l) => ({
    variantId: l.variantId,
    quantity: l.quantity,
    unitPriceCents: store.variants.get(l.variantId)!.priceCents,
  }));
  const subtotal = lines.reduce((n, l) => n + l.quantity * l.unitPriceCents, 0);
  const shipping = subtotal >= 10000 ? 0 : 595;
  const tax = Math.round(subtotal * 0.08);
  return { lines, subtotal, shipping, tax, address };
}

// ------------------------------------------------------------------ conversations
export function conversationView(c: Conversation, withMessages = true): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: c.id,
    mode: c.mode,
    status: c.status,
    topic: c.topic,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    ended_at: c.endedAt,
  };
  const msgs = c.events.filter((e) => e.kind === 'message');
  if (withMessages) base.messages = msgs.map(messageView);
  else base.message_count = msgs.length;
  return base;
}
export const messageView = (e: ConversationEvent): Record<string, unknown> => ({
  id: e.messageId,
  seq: e.seq,
  author: e.author,
  text: e.text,
  sent_at: e.at,
});

export function appendEvent(store: Store, c: Conversation, e: Omit<ConversationEvent, 'seq' | 'at'>): ConversationEvent {
  const at = new Date().toISOString();
  const ev: ConversationEvent = { ...e, seq: c.events.length + 1, at };
  c.events.push(ev);
  c.updatedAt = at;
  store.notify(c.id);
  return ev;
}
export function endConversation(store: Store, c: Conversation, status: 'closed' | 'timed_out'): void {
  c.status = status;
  c.endedAt = new Date().toISOString();
  appendEvent(store, c, { kind: 'status', status });
}

function ownConversation(a: HandlerArgs): Conversation {
  const c = a.store.conversations.get(a.params.id!);
  if (!c || c.sessionId !== a.caller.sessionId || c.accountSub !== a.actor.account?.sub)
    throw notFound('No such conversation for this session.');
  return c;
}

function writeCap(a: HandlerArgs): void {
  const len = Number(a.req.headers['content-length'] ?? NaN);
  const size = Number.isFinite(len) ? len : Buffer.byteLength(JSON.stringify(a.body ?? {}));
  if (size > 65536) throw new ApiError(413, 'payload_too_large', 'Conversation writes are limited to 64 KiB.');
}

// ------------------------------------------------------------------ schemas (exported for the documents)
export const S = {
  addCartItem: z
    .object({
      variant_id: z.string().min(1).max(64).meta({ 'x-shop-role': 'variant', description: 'Variant to add.' }),
      quantity: z.number().int().min(1).max(99).meta({ 'x-shop-role': 'quantity', description: 'Units to add to the line.' }),
    })
    .strict(),
  updateCartItem: z
    .object({
      quantity: z.number().int().min(0).max(99).meta({ 'x-shop-role': 'quantity', description: 'New quantity of the line; 0 removes it.' }),
    })
    .strict(),
  checkout: z
    .object({
      payment_method_id: z.string().min(1).max(64).meta({ 'x-shop-role': 'payment-method', description: 'A saved card of the account.' }),
      address_id: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .meta({ 'x-shop-role': 'address', description: 'Shipping address; default: the newest address.' }),
    })
    .strict(),
  preview: z.object({ address_id: z.string().min(1).max(64).optional().meta({ 'x-shop-role': 'address' }) }).strict(),
  addAddress: z
    .object({
      name: z.string().min(1).max(120),
      line1: z.string().min(1).max(200),
      line2: z.string().max(200).nullable().optional(),
      city: z.string().min(1).max(100),
      region: z.string().max(100).nullable().optional(),
      postal_code: z.string().min(1).max(20),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/)
        .meta({ description: 'ISO 3166-1 alpha-2' }),
      phone: z.string().max(40).nullable().optional(),
    })
    .strict(),
  cancel: z.object({ reason: z.string().min(1).max(500).optional().meta({ 'x-shop-role': 'reason' }) }).strict(),
  returns: z
    .object({ reason: z.string().min(1).max(500).meta({ 'x-shop-role': 'reason', description: 'Why the order is returned.' }) })
    .strict(),
  stock: z
    .object({
      delta: z
        .number()
        .int()
        .min(-100000)
        .max(100000)
        .refine((n) => n !== 0, 'delta must not be 0')
        .meta({ 'x-shop-role': 'stock-delta', description: 'Units to add (positive) or remove (negative).' }),
      note: z.string().max(500).optional(),
    })
    .strict(),
  openConv: z.object({ mode: z.enum(['direct', 'handoff']), topic: z.string().min(1).max(200).optional() }).strict(),
  message: z.object({ text: z.string().min(1).max(16000).meta({ 'x-shop-role': 'message-text' }) }).strict(),
};

const obj = (props: Record<string, unknown>, required: string[] = []): unknown => ({ type: 'object', properties: props, required });
const R = {
  product: obj(
    {
      id: { type: 'string' },
      handle: { type: 'string' },
      title: { type: 'string' },
      variants: {
        type: 'array',
        items: obj({
          id: { type: 'string' },
          price_cents: { type: 'integer' },
          available_quantity: { type: 'integer' },
          available: { type: 'boolean' },
        }),
      },
    },
    ['id', 'handle', 'variants'],
  ),
  cart: obj(
    {
      lines: {
        type: 'array',
        items: obj({ variant_id: { type: 'string' }, quantity: { type: 'integer' }, unit_price_cents: { type: 'integer' } }),
      },
      item_count: { type: 'integer' },
      subtotal_cents: { type: 'integer' },
      currency: { type: 'string' },
    },
    ['lines', 'item_count', 'subtotal_cents'],
  ),
  order: obj(
    {
      id: { type: 'string' },
      number: { type: 'string' },
      status: {
        type: 'string',
        enum: ['pending_payment', 'paid', 'fulfilled', 'delivered', 'cancelled', 'return_requested', 'refunded', 'payment_failed'],
      },
      total_cents: { type: 'integer' },
    },
    ['id', 'number', 'status'],
  ),
  address: obj(
    {
      id: { type: 'string' },
      name: { type: 'string' },
      line1: { type: 'string' },
      city: { type: 'string' },
      postal_code: { type: 'string' },
      country: { type: 'string' },
    },
    ['id'],
  ),
  conversation: obj(
    {
      id: { type: 'string' },
      mode: { type: 'string', enum: ['direct', 'handoff'] },
      status: { type: 'string', enum: ['open', 'closed', 'timed_out'] },
      topic: { type: ['string', 'null'] },
      messages: { type: 'array' },
    },
    ['id', 'mode', 'status'],
  ),
  message: obj(
    {
      id: { type: 'string' },
      seq: { type: 'integer' },
      author: { type: 'string' },
      text: { type: 'string' },
      sent_at: { type: 'string', format: 'date-time' },
    },
    ['id', 'seq', 'author', 'text'],
  ),
};
const ok = (description: string, schema?: unknown): OpDef['responses'] => ({ '200': { description, schema } });

function op(def: Omit<OpDef, 'agentScopes' | 'apiScopes'> & { apiScopes?: string[]; agentScopes?: string[] }): OpDef {
  return { apiScopes: [], agentScopes: [], ...def };
}
const g = (group: Group): Group => group;

// ------------------------------------------------------------------ the operations
export const OPERATIONS: OpDef[] = [
  op({
    id: 'searchProducts',
    method: 'GET',
    path: '/v1/catalog/products',
    group: g('catalog'),
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'Search the catalog',
    query: z.object({
      q: z.string().max(200).optional(),
      collection: z.string().max(64).optional(),
      limit: z.coerce.number().int().min(1).max(100).optional(),
      offset: z.coerce.number().int().min(0).max(100000).optional(),
    }),
    responses: ok(
      'Matching products',
      obj({ products: { type: 'array', items: R.product }, total: { type: 'integer' }, next_offset: { type: ['integer', 'null'] } }, [
        'products',
      ]),
    ),
    handler: ({ store, query }) => {
      const q = typeof query.q === 'string' ? query.q.toLowerCase().trim() : '';
      const col = typeof query.collection === 'string' ? query.collection : undefined;
      const all = store.products.filter(
        (p) =>
          (!col || p.collections.includes(col) || p.collections.includes(col.replace(/^col_/, ''))) &&
          (!q || `${p.title} ${p.description} ${p.tags.join(' ')} ${p.vendor}`.toLowerCase().includes(q)),
      );
      const limit = (query.limit as number | undefined) ?? 50;
      const offset = (query.offset as number | undefined) ?? 0;
      const page = all.slice(offset, offset + limit);
      return {
        status: 200,
        etag: true,
        body: {
          products: page.map((p) => productView(store, p)),
          total: all.length,
          next_offset: offset + limit < all.length ? offset + limit : null,
        },
      };
    },
  }),
  op({
    id: 'getProduct',
    method: 'GET',
    path: '/v1/catalog/products/{handle}',
    group: 'catalog',
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'Read one product by handle',
    params: z.object({
      handle: z
        .string()
        .min(1)
        .max(128)
        .regex(/^[a-z0-9-]+$/),
    }),
    responses: ok('The product', R.product),
    handler: ({ store, params }) => {
      const p = store.productsByHandle.get(params.handle!);
      if (!p) throw notFound('No product has this handle.');
      return { status: 200, etag: true, body: productView(store, p) };
    },
  }),
  op({
    id: 'listCollections',
    method: 'GET',
    path: '/v1/catalog/collections',
    group: 'catalog',
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'List collections',
    responses: ok(
      'Collections',
      obj(
        {
          collections: {
            type: 'array',
            items: obj({
              id: { type: 'string' },
              handle: { type: 'string' },
              title: { type: 'string' },
              product_count: { type: 'integer' },
            }),
          },
        },
        ['collections'],
      ),
    ),
    handler: ({ store }) => ({
      status: 200,
      etag: true,
      body: {
        collections: store.collections.map((c) => ({
          id: c.id,
          handle: c.handle,
          title: c.title,
          description: c.description,
          product_count: store.products.filter((p) => p.collections.includes(c.handle) || p.collections.includes(c.id)).length,
        })),
      },
    }),
  }),
  op({
    id: 'getCart',
    method: 'GET',
    path: '/v1/cart',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'Read the caller’s cart (guests without a session see an empty cart)',
    responses: ok('The cart', R.cart),
    handler: ({ store, actor }) => ({ status: 200, body: cartView(store, actor.cartKey) }),
  }),
  op({
    id: 'addCartItem',
    method: 'POST',
    path: '/v1/cart/items',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    tools: ['mcp', 'webmcp'],
    summary: 'Add units of a variant to the cart',
    body: S.addCartItem,
    bodyRequired: true,
    example: { variant_id: 'var_0701', quantity: 1 },
    responses: { '201': { description: 'The cart after the addition; Location names the cart.', schema: R.cart } },
    handler: (a) => {
      const key = requireCartKey(a);
      const variantId = a.body.variant_id as string;
      if (!a.store.variants.has(variantId)) throw new ApiError(422, 'unknown_variant', 'No variant has this id.');
      const cart = a.store.cart(key);
      const line = cart.find((l) => l.variantId === variantId);
      const qty = (line?.quantity ?? 0) + (a.body.quantity as number);
      checkStock(a.store, variantId, qty);
      if (line) line.quantity = qty;
      else cart.push({ variantId, quantity: qty });
      return { status: 201, body: cartView(a.store, key), headers: { Location: '/v1/cart' } };
    },
  }),
  op({
    id: 'updateCartItem',
    method: 'PATCH',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    tools: ['mcp', 'webmcp'],
    summary: 'Set the quantity of a cart line',
    params: z.object({ variant_id: idParam }),
    body: S.updateCartItem,
    bodyRequired: true,
    example: { quantity: 2 },
    responses: ok('The cart', R.cart),
    handler: (a) => {
      const key = requireCartKey(a);
      const cart = a.store.cart(key);
      const i = cart.findIndex((l) => l.variantId === a.params.variant_id);
      if (i < 0) throw notFound('This variant is not in the cart.');
      const qty = a.body.quantity as number;
      if (qty === 0) cart.splice(i, 1);
      else {
        checkStock(a.store, a.params.variant_id!, qty);
        cart[i]!.quantity = qty;
      }
      return { status: 200, body: cartView(a.store, key) };
    },
  }),
  op({
    id: 'removeCartItem',
    method: 'DELETE',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    tools: ['mcp', 'webmcp'],
    summary: 'Remove a cart line',
    params: z.object({ variant_id: idParam }),
    responses: { '204': { description: 'Removed' } },
    handler: (a) => {
      const key = requireCartKey(a);
      const cart = a.store.cart(key);
      const i = cart.findIndex((l) => l.variantId === a.params.variant_id);
      if (i < 0) throw notFound('This variant is not in the cart.');
      cart.splice(i, 1);
      return { status: 204 };
    },
  }),
  op({
    id: 'checkoutSavedCard',
    method: 'POST',
    path: '/v1/checkouts/saved-card',
    group: 'checkout',
    callers: AGENT_CHECKOUT,
    apiScopes: ['checkout'],
    agentScopes: ['checkout'],
    tools: ['mcp'],
    summary: 'Place an order for the cart with a saved card',
    body: S.checkout,
    bodyRequired: true,
    example: { payment_method_id: 'pm_chk1', address_id: 'addr_chk1' },
    responses: { '201': { description: 'The order placed (paid, or pending_payment until the provider settles it)', schema: R.order } },
    handler: (a) => {
      const account = a.actor.account!;
      const key = a.actor.cartKey!;
      const q = quote(a.store, key, account, a.body.address_id as string | undefined);
      const pm = account.paymentMethods.find((p) => p.id === a.body.payment_method_id);
      if (!pm) throw new ApiError(422, 'payment_method_unknown', 'No saved card with this id on the account.');
      for (const l of q.lines) checkStock(a.store, l.variantId, l.quantity);
      if (pm.providerRef.includes('decline')) throw new ApiError(402, 'payment_declined', 'The card was declined.');
      for (const l of q.lines) a.store.variants.get(l.variantId)!.stock -= l.quantity;
      const order: Order = {
        id: hexId('ord_'),
        number: a.store.nextOrderNumber(),
        status: pm.providerRef.includes('async') ? 'pending_payment' : 'paid',
        placedAt: new Date().toISOString(),
        currency: 'USD',
        lines: q.lines,
        shippingCents: q.shipping,
        taxCents: q.tax,
        addressId: q.address.id,
        paymentMethodId: pm.id,
        accountSub: account.sub,
        paymentRef: hexId('pi_', 12),
        cancelledAt: null,
        returns: [],
      };
      a.store.orders.set(order.id, order);
      a.store.carts.set(key, []);
      a.store.catalogVersion++;
      return { status: 201, body: orderView(a.store, order), headers: { Location: `/v1/me/orders/${order.id}` } };
    },
  }),
  op({
    id: 'getProfile',
    method: 'GET',
    path: '/v1/me/profile',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    tools: ['mcp'],
    summary: 'Read the account profile',
    responses: ok(
      'The profile',
      obj(
        {
          sub: { type: 'string' },
          display_name: { type: 'string' },
          email: { type: ['string', 'null'] },
          phone: { type: ['string', 'null'] },
        },
        ['sub', 'display_name'],
      ),
    ),
    handler: ({ actor }) => {
      const a = actor.account!;
      return { status: 200, body: { sub: a.sub, display_name: a.displayName, email: a.email, phone: a.phone, created_at: a.createdAt } };
    },
  }),
  op({
    id: 'listAddresses',
    method: 'GET',
    path: '/v1/me/addresses',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    tools: ['mcp'],
    summary: 'List the account’s addresses, newest first',
    responses: ok('Addresses', obj({ addresses: { type: 'array', items: R.address } }, ['addresses'])),
    handler: ({ actor }) => ({ status: 200, body: { addresses: newestFirst(actor.account!.addresses).map(addressView) } }),
  }),
  op({
    id: 'addAddress',
    method: 'POST',
    path: '/v1/me/addresses',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:write'],
    agentScopes: ['assistant:write'],
    tools: ['mcp'],
    summary: 'Add an address',
    body: S.addAddress,
    bodyRequired: true,
    example: { name: 'Sam Doe', line1: '1 Test Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
    responses: { '201': { description: 'The address; Location names the address list that holds it', schema: R.address } },
    handler: ({ actor, body }) => {
      const acct = actor.account!;
      if (acct.addresses.length >= 50) throw new ApiError(409, 'address_limit_reached', 'An account holds at most 50 addresses.');
      const ad = {
        id: hexId('addr_'),
        name: body.name as string,
        line1: body.line1 as string,
        line2: (body.line2 as string | null | undefined) ?? null,
        city: body.city as string,
        region: (body.region as string | null | undefined) ?? null,
        postalCode: body.postal_code as string,
        country: body.country as string,
        phone: (body.phone as string | null | undefined) ?? null,
        createdSeq: Date.now() * 1000 + acct.addresses.length,
      };
      acct.addresses.push(ad);
      return { status: 201, body: addressView(ad), headers: { Location: '/v1/me/addresses' } };
    },
  }),
  op({
    id: 'deleteAddress',
    method: 'DELETE',
    path: '/v1/me/addresses/{id}',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:write'],
    agentScopes: ['assistant:write'],
    tools: ['mcp'],
    summary: 'Delete an address',
    params: z.object({ id: idParam }),
    responses: { '204': { description: 'Deleted' } },
    handler: ({ actor, params }) => {
      const acct = actor.account!;
      const i = acct.addresses.findIndex((x) => x.id === params.id);
      if (i < 0) throw notFound('No such address on this account.');
      acct.addresses.splice(i, 1);
      return { status: 204 };
    },
  }),
  op({
    id: 'listPaymentMethods',
    method: 'GET',
    path: '/v1/me/payment-methods',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['payment_methods:read'],
    agentScopes: ['assistant:read'],
    tools: ['mcp'],
    summary: 'List saved cards',
    responses: ok(
      'Saved cards',
      obj(
        {
          payment_methods: { type: 'array', items: obj({ id: { type: 'string' }, brand: { type: 'string' }, last4: { type: 'string' } }) },
        },
        ['payment_methods'],
      ),
    ),
    handler: ({ actor }) => ({ status: 200, body: { payment_methods: newestFirst(actor.account!.paymentMethods).map(pmView) } }),
  }),
  op({
    id: 'listOrders',
    method: 'GET',
    path: '/v1/me/orders',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:read'],
    agentScopes: ['assistant:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'List the account’s orders, newest first',
    query: z.object({ status: z.string().max(32).optional() }),
    responses: ok('Orders', obj({ orders: { type: 'array', items: R.order } }, ['orders'])),
    handler: ({ actor, store, query }) => ({
      status: 200,
      body: {
        orders: ordersOf(store, actor.account!.sub)
          .filter((o) => !query.status || o.status === query.status)
          .map(orderSummary),
      },
    }),
  }),
  op({
    id: 'getOrder',
    method: 'GET',
    path: '/v1/me/orders/{id}',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:read'],
    agentScopes: ['assistant:read'],
    tools: ['mcp', 'webmcp'],
    summary: 'Read one order',
    params: z.object({ id: idParam }),
    responses: ok('The order', R.order),
    handler: (a) => ({ status: 200, body: orderView(a.store, ownOrder(a)) }),
  }),
  op({
    id: 'cancelOrder',
    method: 'POST',
    path: '/v1/me/orders/{id}/cancellation',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:write'],
    agentScopes: ['assistant:write'],
    tools: ['mcp'],
    summary: 'Cancel an order that has not shipped',
    params: z.object({ id: idParam }),
    body: S.cancel,
    example: { reason: 'Ordered by mistake' },
    responses: { '201': { description: 'The cancelled order; Location names the order', schema: R.order } },
    handler: (a) => {
      const o = ownOrder(a);
      if (o.status !== 'paid' && o.status !== 'pending_payment')
        throw new ApiError(409, 'order_not_cancellable', `An order in status ${o.status} cannot be cancelled.`);
      o.status = 'cancelled';
      o.cancelledAt = new Date().toISOString();
      for (const l of o.lines) {
        const v = a.store.variants.get(l.variantId);
        if (v) v.stock += l.quantity;
      }
      return { status: 201, body: orderView(a.store, o), headers: { Location: `/v1/me/orders/${o.id}` } };
    },
  }),
  op({
    id: 'requestReturn',
    method: 'POST',
    path: '/v1/me/orders/{id}/returns',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:write'],
    agentScopes: ['assistant:write'],
    tools: ['mcp'],
    summary: 'Request a return of a delivered order',
    params: z.object({ id: idParam }),
    body: S.returns,
    bodyRequired: true,
    example: { reason: 'Does not fit' },
    responses: { '201': { description: 'The order, now return_requested; Location names the order', schema: R.order } },
    handler: (a) => {
      const o = ownOrder(a);
      if (o.status !== 'delivered') throw new ApiError(409, 'order_not_returnable', `An order in status ${o.status} cannot be returned.`);
      o.status = 'return_requested';
      o.returns.push({ id: hexId('ret_'), reason: a.body.reason as string, requestedAt: new Date().toISOString() });
      return { status: 201, body: orderView(a.store, o), headers: { Location: `/v1/me/orders/${o.id}` } };
    },
  }),
  op({
    id: 'getIdentity',
    method: 'GET',
    path: '/v1/me/identity',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    summary: 'Identity for an agent banner: display name only, never the email',
    responses: ok(
      'Identity',
      obj({ display_name: { type: 'string' }, self_service_eligible: { type: 'boolean' } }, ['display_name', 'self_service_eligible']),
    ),
    handler: ({ actor }) => ({
      status: 200,
      body: { display_name: actor.account!.displayName, self_service_eligible: actor.account!.selfServiceEligible },
    }),
  }),
  op({
    id: 'getCheckoutAddress',
    method: 'GET',
    path: '/v1/me/checkout-address',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    summary: 'The address a checkout ships to by default',
    responses: ok('Default shipping address', obj({ address: { oneOf: [R.address, { type: 'null' }] } }, ['address'])),
    handler: ({ actor }) => {
      const ad = newestFirst(actor.account!.addresses)[0];
      return { status: 200, body: { address: ad ? addressView(ad) : null } };
    },
  }),
  op({
    id: 'getCheckoutMethods',
    method: 'GET',
    path: '/v1/me/checkout-methods',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: ['payment_methods:read'],
    agentScopes: ['assistant:read'],
    summary: 'Ways the account can pay at checkout',
    responses: ok(
      'Checkout methods',
      obj({ saved_cards: { type: 'array' }, can_checkout: { type: 'boolean' } }, ['saved_cards', 'can_checkout']),
    ),
    handler: ({ actor }) => {
      const cards = newestFirst(actor.account!.paymentMethods).map(pmView);
      return { status: 200, body: { saved_cards: cards, can_checkout: cards.length > 0 && actor.account!.addresses.length > 0 } };
    },
  }),
  op({
    id: 'createCheckoutPreview',
    method: 'POST',
    path: '/v1/checkout-previews',
    group: 'checkout',
    callers: PREVIEW,
    apiScopes: ['cart:read'],
    summary: 'Price the cart for checkout without placing an order',
    body: S.preview,
    example: {},
    responses: {
      '201': {
        description: 'The preview (not stored: no Location)',
        schema: obj(
          {
            lines: { type: 'array' },
            subtotal_cents: { type: 'integer' },
            shipping_cents: { type: 'integer' },
            tax_cents: { type: 'integer' },
            total_cents: { type: 'integer' },
          },
          ['total_cents'],
        ),
      },
    },
    handler: (a) => {
      const q = quote(a.store, a.actor.cartKey!, a.actor.account!, a.body.address_id as string | undefined);
      return {
        status: 201,
        body: {
          lines: q.lines.map((l) => ({
            variant_id: l.variantId,
            quantity: l.quantity,
            unit_price_cents: l.unitPriceCents,
            line_total_cents: l.quantity * l.unitPriceCents,
          })),
          subtotal_cents: q.subtotal,
          shipping_cents: q.shipping,
          tax_cents: q.tax,
          total_cents: q.subtotal + q.shipping + q.tax,
          currency: 'USD',
          shipping_address: addressView(q.address),
        },
      };
    },
  }),
  op({
    id: 'getMe',
    method: 'GET',
    path: '/v1/me',
    group: 'diagnostic',
    callers: DIAGNOSTIC,
    summary: 'Diagnostic: who the service thinks the caller is',
    responses: ok(
      'The resolved actor',
      obj(
        {
          kind: { type: 'string' },
          origin: { type: ['string', 'null'] },
          channel: { type: 'string' },
          account: { type: ['string', 'null'] },
          signed_in: { type: 'boolean' },
        },
        ['kind'],
      ),
    ),
    handler: ({ caller, actor }) => ({
      status: 200,
      body: {
        kind: actor.kind,
        origin: actor.origin,
        channel: actor.channel,
        account: actor.account?.sub ?? null,
        signed_in: actor.account !== null,
        scopes: actor.scopes,
        permissions: actor.permissions,
        actor_chain: actor.actorChain,
        agent_id: caller.agentId ?? null,
        session_id: caller.sessionId ?? null,
        operator: caller.operatorId ?? null,
        has_cart: actor.cartKey !== null,
      },
    }),
  }),
  // ---------------------------------------------------------------- operator
  op({
    id: 'opsListOrders',
    method: 'GET',
    path: '/v1/ops/orders',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    summary: 'Operator: list orders of every account',
    query: z.object({
      status: z.string().max(32).optional(),
      account: z.string().max(256).optional(),
      limit: z.coerce.number().int().min(1).max(200).optional(),
    }),
    responses: ok('Orders', obj({ orders: { type: 'array', items: R.order } }, ['orders'])),
    handler: ({ store, query }) => {
      const all = [...store.orders.values()]
        .filter((o) => (!query.status || o.status === query.status) && (!query.account || o.accountSub === query.account))
        .sort((a, b) => (a.placedAt < b.placedAt ? 1 : -1))
        .slice(0, (query.limit as number | undefined) ?? 100);
      return { status: 200, body: { orders: all.map((o) => ({ ...orderSummary(o), account: o.accountSub })) } };
    },
  }),
  op({
    id: 'opsGetOrder',
    method: 'GET',
    path: '/v1/ops/orders/{id}',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    summary: 'Operator: read any order',
    params: z.object({ id: idParam }),
    responses: ok('The order', R.order),
    handler: ({ store, params }) => {
      const o = store.orders.get(params.id!);
      if (!o) throw notFound('No such order.');
      return { status: 200, body: { ...orderView(store, o), account: o.accountSub, payment_ref: o.paymentRef } };
    },
  }),
  op({
    id: 'opsRefundOrder',
    method: 'POST',
    path: '/v1/ops/orders/{id}/refund',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:write'],
    summary: 'Operator: refund an order that was paid',
    params: z.object({ id: idParam }),
    body: z.object({ reason: z.string().min(1).max(500).optional().meta({ 'x-shop-role': 'reason' }) }).strict(),
    example: { reason: 'Goodwill' },
    responses: ok('The refunded order', R.order),
    handler: ({ store, params }) => {
      const o = store.orders.get(params.id!);
      if (!o) throw notFound('No such order.');
      if (!['paid', 'fulfilled', 'delivered', 'return_requested'].includes(o.status))
        throw new ApiError(409, 'order_not_refundable', `An order in status ${o.status} cannot be refunded.`);
      o.status = 'refunded';
      return { status: 200, body: orderView(store, o) };
    },
  }),
  op({
    id: 'opsGetAccount',
    method: 'GET',
    path: '/v1/ops/accounts/{sub}',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    summary: 'Operator: an account’s state and counts',
    params: z.object({ sub: z.string().min(1).max(256) }),
    responses: ok('The account', obj({ sub: { type: 'string' }, state: { type: 'string' } }, ['sub', 'state'])),
    handler: ({ store, params }) => {
      const a = store.accounts.get(params.sub!);
      if (!a) throw notFound('No such account.');
      return {
        status: 200,
        body: {
          sub: a.sub,
          display_name: a.displayName,
          email: a.email,
          state: a.state,
          address_count: a.addresses.length,
          payment_method_count: a.paymentMethods.length,
          order_count: [...store.orders.values()].filter((o) => o.accountSub === a.sub).length,
        },
      };
    },
  }),
  op({
    id: 'opsGetStock',
    method: 'GET',
    path: '/v1/ops/inventory/{variant_id}',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    summary: 'Operator: stock of a variant',
    params: z.object({ variant_id: idParam }),
    responses: ok('Stock', obj({ variant_id: { type: 'string' }, stock: { type: 'integer' } }, ['variant_id', 'stock'])),
    handler: ({ store, params }) => {
      const v = store.variants.get(params.variant_id!);
      if (!v) throw notFound('No such variant.');
      return { status: 200, body: { variant_id: v.id, product_id: v.productId, stock: v.stock } };
    },
  }),
  op({
    id: 'opsAdjustStock',
    method: 'PATCH',
    path: '/v1/ops/inventory/{variant_id}',
    group: 'operator',
    callers: OPERATOR,
    apiScopes: ['ops:write'],
    summary: 'Operator: adjust the stock of a variant by a delta',
    params: z.object({ variant_id: idParam }),
    body: S.stock,
    bodyRequired: true,
    example: { delta: 1 },
    responses: ok(
      'Stock after the adjustment',
      obj({ variant_id: { type: 'string' }, stock: { type: 'integer' } }, ['variant_id', 'stock']),
    ),
    handler: ({ store, params, body }) => {
      const v = store.variants.get(params.variant_id!);
      if (!v) throw notFound('No such variant.');
      const next = v.stock + (body.delta as number);
      if (next < 0) throw new ApiError(409, 'stock_negative', 'Stock cannot go below zero.');
      v.stock = next;
      store.catalogVersion++;
      return { status: 200, body: { variant_id: v.id, product_id: v.productId, stock: v.stock } };
    },
  }),
  // ---------------------------------------------------------------- conversations
  op({
    id: 'listAssistantConversations',
    method: 'GET',
    path: '/assistant/conversations',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'Conversations of this assistant session, newest first',
    responses: ok('Conversations', obj({ conversations: { type: 'array' } }, ['conversations'])),
    handler: ({ store, caller, actor }) => ({
      status: 200,
      body: {
        conversations: [...store.conversations.values()]
          .filter((c) => c.sessionId === caller.sessionId && c.accountSub === actor.account?.sub)
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
          .map((c) => conversationView(c, false)),
      },
    }),
  }),
  op({
    id: 'startAssistantConversation',
    method: 'POST',
    path: '/assistant/conversations',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'Start a conversation (direct: at most one open per session; handoff: to a person)',
    body: S.openConv,
    bodyRequired: true,
    example: { mode: 'handoff', topic: 'Where is my order?' },
    responses: { '201': { description: 'The conversation; Location names it', schema: R.conversation } },
    handler: (a) => {
      writeCap(a);
      const mode = a.body.mode as 'direct' | 'handoff';
      if (mode === 'direct') {
        const open = [...a.store.conversations.values()].find(
          (c) => c.sessionId === a.caller.sessionId && c.accountSub === a.actor.account!.sub && c.mode === 'direct' && c.status === 'open',
        );
        if (open)
          throw new ApiError(409, 'direct_conversation_open', 'This session already has an open direct conversation.', {
            conversationId: open.id,
          });
      }
      const now = new Date().toISOString();
      const c: Conversation = {
        id: hexId('cv_', 16),
        sessionId: a.caller.sessionId!,
        accountSub: a.actor.account!.sub,
        mode,
        status: 'open',
        topic: (a.body.topic as string | undefined) ?? null,
        handoffId: mode === 'handoff' ? hexId('ho_') : null,
        createdAt: now,
        updatedAt: now,
        endedAt: null,
        events: [],
        turnIds: new Set(),
      };
      a.store.conversations.set(c.id, c);
      return { status: 201, body: conversationView(c), headers: { Location: `/assistant/conversations/${c.id}` } };
    },
  }),
  op({
    id: 'readAssistantConversation',
    method: 'GET',
    path: '/assistant/conversations/{id}',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'Read a conversation with its messages',
    params: z.object({ id: idParam }),
    responses: ok('The conversation', R.conversation),
    handler: (a) => ({ status: 200, body: conversationView(ownConversation(a)) }),
  }),
  op({
    id: 'sendAssistantMessage',
    method: 'POST',
    path: '/assistant/conversations/{id}/messages',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'Write a message to an open conversation',
    params: z.object({ id: idParam }),
    body: S.message,
    bodyRequired: true,
    example: { text: 'Hello, I need help with my order.' },
    responses: { '201': { description: 'The message (read with its conversation: no Location)', schema: R.message } },
    handler: (a) => {
      writeCap(a);
      const c = ownConversation(a);
      if (c.status !== 'open') throw new ApiError(409, 'conversation_ended', `The conversation is ${c.status}.`);
      const ev = appendEvent(a.store, c, { kind: 'message', messageId: hexId('msg_'), author: 'assistant', text: a.body.text as string });
      return { status: 201, body: messageView(ev) };
    },
  }),
  op({
    id: 'followAssistantConversation',
    method: 'GET',
    path: '/assistant/conversations/{id}/events',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'Event stream of a conversation (text/event-stream; keep-alive comment at least every 15 s)',
    params: z.object({ id: idParam }),
    stream: true,
    responses: {
      '200': {
        description: 'Server-sent events: `message` and `status`; `id` is the event sequence number (Last-Event-ID resumes).',
        stream: true,
      },
    },
    handler: () => null,
  }),
  op({
    id: 'endAssistantConversation',
    method: 'POST',
    path: '/assistant/conversations/{id}/end',
    group: 'conversation',
    callers: CONVERSATION,
    summary: 'End a conversation (idempotent)',
    params: z.object({ id: idParam }),
    responses: ok('The conversation, ended', R.conversation),
    handler: (a) => {
      writeCap(a);
      const c = ownConversation(a);
      if (c.status === 'open') endConversation(a.store, c, 'closed');
      return { status: 200, body: conversationView(c) };
    },
  }),
];

export const ownConversationFor = ownConversation;
export const cartOf = cartView;
