// The operations of the service (customer, agent, guest and operator traffic): declaration and handlers.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { Caller, CallerKind } from './auth.js';
import { HttpError } from './http.js';
import * as S from './schemas.js';
import { totals, type Account, type Address, type Cart, type Order, type Store } from './store.js';

export type Group = 'catalog' | 'cart' | 'checkout' | 'account' | 'diagnostic' | 'ops';

export interface OpInput {
  caller: Caller;
  account: Account | null;
  cartKey: string | null;
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
  req: IncomingMessage;
  store: Store;
}

export interface OpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** catalog reads: weak ETag and private, no-cache */
  cacheable?: boolean;
}

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  group: Group;
  callers: CallerKind[];
  apiScopes: string[];
  agentScopes: string[];
  summary: string;
  params: z.ZodType;
  query: z.ZodType;
  body?: z.ZodType;
  bodyRequired?: boolean;
  bodyExample?: Record<string, unknown>;
  roles?: Record<string, string>;
  success: { status: number; schema: string | null; location?: boolean };
  errors: number[];
  tools?: string[];
  guestSession?: 'read' | 'write';
  handler: (input: OpInput) => OpResult;
}

export const STOREFRONT: CallerKind[] = ['customer', 'delegated', 'guest', 'invited-agent', 'assistant'];
export const ACCOUNT: CallerKind[] = ['customer', 'delegated', 'invited-agent', 'assistant'];
export const CHECKOUT: CallerKind[] = ['customer', 'invited-agent', 'assistant'];
export const AGENT_CHECKOUT: CallerKind[] = ['delegated', 'invited-agent', 'assistant'];
export const OPERATOR: CallerKind[] = ['operator'];
export const DIAGNOSTIC: CallerKind[] = ['customer', 'delegated', 'guest', 'invited-agent', 'operator', 'assistant'];
export const PREVIEW: CallerKind[] = ['customer', 'delegated', 'invited-agent', 'assistant'];

/** Permissions of agents and the API scopes each unlocks. */
export const BASE_API_SCOPES = ['catalog:read', 'cart:read', 'cart:write'];
export const PERMISSION_SCOPES: Record<string, string[]> = {
  'assistant:read': ['account:read', 'payment_methods:read', 'orders:read'],
  'assistant:write': ['account:write', 'orders:write'],
  checkout: ['checkout'],
};

// ---------- representations ----------

function variantRepr(v: { id: string; sku: string; title: string; priceCents: number; currency: string; stock: number }) {
  return {
    id: v.id,
    sku: v.sku,
    title: v.title,
    price_cents: v.priceCents,
    currency: v.currency,
    available_quantity: v.stock,
    available: v.stock > 0,
  };
}

function productRepr(store: Store, p: Store['products'][number]) {
  return {
    id: p.id,
    handle: p.handle,
    title: p.title,
    description: p.description,
    vendor: p.vendor,
    tags: [...p.tags],
    collections: p.collections.map((c) => store.collections.find((x) => x.id === c || x.handle === c)?.handle ?? c),
    variants: p.variants.map(variantRepr),
  };
}

function cartLines(store: Store, cart: Cart | undefined) {
  return (cart?.lines ?? []).map((l) => {
    const v = store.variants.get(l.variantId)!;
    const p = store.products.find((x) => x.id === v.productId)!;
    return {
      variant_id: v.id,
      product_id: p.id,
      product_handle: p.handle,
      product_title: p.title,
      variant_title: v.title,
      sku: v.sku,
      quantity: l.quantity,
      unit_price_cents: v.priceCents,
      line_total_cents: v.priceCents * l.quantity,
      currency: v.currency,
    };
  });
}

function cartRepr(store: Store, cart: Cart | undefined, id: string | null) {
  const lines = cartLines(store, cart);
  return {
    id,
    lines,
    item_count: lines.reduce((s, l) => s + l.quantity, 0),
    subtotal_cents: lines.reduce((s, l) => s + l.line_total_cents, 0),
    currency: 'USD',
  };
}

export function addressRepr(a: Address) {
  return {
    id: a.id,
    name: a.name,
    line1: a.line1,
    line2: a.line2,
    city: a.city,
    region: a.region,
    postal_code: a.postalCode,
    country: a.country,
    phone: a.phone,
  };
}

function pmRepr(pm: Account['paymentMethods'][number]) {
  return { id: pm.id, brand: pm.brand, last4: pm.last4, exp_month: pm.expMonth, exp_year: pm.expYear };
}

export function orderRepr(store: Store, o: Order) {
  const t = totals(o.lines);
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    placed_at: o.placedAt,
    currency: o.currency,
    lines: o.lines.map((l) => {
      const v = store.variants.get(l.variantId);
      const p = v ? store.products.find((x) => x.id === v.productId) : undefined;
      return {
        variant_id: l.variantId,
        title: p && v ? `${p.title} (${v.title})` : l.variantId,
        quantity: l.quantity,
        unit_price_cents: l.unitPriceCents,
        line_total_cents: l.unitPriceCents * l.quantity,
      };
    }),
    subtotal_cents: t.subtotalCents,
    shipping_cents: o.shippingCents,
    tax_cents: o.taxCents,
    total_cents: t.subtotalCents + o.shippingCents + o.taxCents,
    address_id: o.addressId,
    payment_method_id: o.paymentMethodId,
    cancelled_at: o.cancelledAt,
    cancellation_reason: o.cancellationReason,
    returns: o.returns.map((r) => ({
      id: r.id,
      order_id: o.id,
      reason: r.reason,
      status: 'requested',
      requested_at: r.requestedAt,
    })),
  };
}

function newestAddresses(account: Account): Address[] {
  return [...account.addresses].sort((a, b) => b.createdSeq - a.createdSeq);
}

// ---------- helpers ----------

function requireAccount(input: OpInput): Account {
  if (!input.account) throw new HttpError(500, 'internal_error');
  return input.account;
}

function ownOrder(input: OpInput): Order {
  const account = requireAccount(input);
  const order = input.store.orders.get(String(input.params.id));
  if (!order || order.accountSub !== account.sub) throw new HttpError(404, 'not_found', 'No such order.');
  return order;
}

function insufficientStock(variantId: string, available: number): HttpError {
  return new HttpError(409, 'insufficient_stock', `Variant ${variantId} has ${available} unit(s) available.`);
}

function unknownVariant(variantId: string): HttpError {
  return new HttpError(422, 'unknown_variant', `No variant ${variantId} exists.`);
}

function cartFor(input: OpInput): { cart: Cart | undefined; id: string | null } {
  if (!input.cartKey) return { cart: undefined, id: null };
  const cart = input.store.cart(input.cartKey);
  const id = input.caller.kind === 'guest' ? (input.caller.guestCartId ?? null) : (cart?.id ?? null);
  return { cart, id };
}

function writableCart(input: OpInput): Cart {
  const cart = input.store.cartForWrite(input.cartKey!);
  if (input.caller.kind === 'guest' && input.caller.guestCartId) cart.id = input.caller.guestCartId;
  cart.updatedAt = new Date().toISOString();
  return cart;
}

function cartResult(input: OpInput, status: number): OpResult {
  const { cart, id } = cartFor(input);
  return { status, body: cartRepr(input.store, cart, id) };
}

// ---------- operations ----------

const noParams = S.emptyParams;
const noQuery = S.emptyQuery;

export const operations: Operation[] = [
  {
    id: 'searchProducts',
    method: 'GET',
    path: '/v1/catalog/products',
    group: 'catalog',
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    agentScopes: [],
    summary: 'Search the catalog: text query, collection filter, offset cursor.',
    params: noParams,
    query: S.searchQuery,
    success: { status: 200, schema: 'ProductPage' },
    errors: [400, 401, 403, 429],
    tools: ['mcp', 'webmcp'],
    handler: ({ store, query }) => {
      let list = store.products;
      if (query.collection) {
        const col = store.collections.find((c) => c.handle === query.collection || c.id === query.collection);
        list = col ? list.filter((p) => p.collections.includes(col.id) || p.collections.includes(col.handle)) : [];
      }
      if (query.q) {
        const words = String(query.q).toLowerCase().split(/\s+/).filter(Boolean);
        list = list.filter((p) => {
          const text = [p.title, p.description, p.vendor, p.handle, ...p.tags].join(' ').toLowerCase();
          return words.every((w) => text.includes(w));
        });
      }
      const limit = (query.limit as number | undefined) ?? 20;
      const offset = (query.cursor as number | undefined) ?? 0;
      const page = list.slice(offset, offset + limit);
      const next = offset + limit < list.length ? String(offset + limit) : null;
      return {
        status: 200,
        cacheable: true,
        body: { products: page.map((p) => productRepr(store, p)), total: list.length, next_cursor: next },
      };
    },
  },
  {
    id: 'getProduct',
    method: 'GET',
    path: '/v1/catalog/products/{handle}',
    group: 'catalog',
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    agentScopes: [],
    summary: 'Read one product by its handle, with its variants and their stock.',
    params: S.handleParams,
    query: noQuery,
    success: { status: 200, schema: 'Product' },
    errors: [400, 401, 403, 404, 429],
    tools: ['mcp', 'webmcp'],
    handler: ({ store, params }) => {
      const p = store.productsByHandle.get(String(params.handle));
      if (!p) throw new HttpError(404, 'not_found', 'No product has this handle.');
      return { status: 200, cacheable: true, body: productRepr(store, p) };
    },
  },
  {
    id: 'listCollections',
    method: 'GET',
    path: '/v1/catalog/collections',
    group: 'catalog',
    callers: STOREFRONT,
    apiScopes: ['catalog:read'],
    agentScopes: [],
    summary: 'List the collections of the catalog.',
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'CollectionList' },
    errors: [400, 401, 403, 429],
    tools: ['mcp', 'webmcp'],
    handler: ({ store }) => ({
      status: 200,
      cacheable: true,
      body: {
        collections: store.collections.map((c) => ({
          id: c.id,
          handle: c.handle,
          title: c.title,
          description: c.description,
          product_count: store.products.filter((p) => p.collections.includes(c.id) || p.collections.includes(c.handle)).length,
        })),
      },
    }),
  },
  {
    id: 'getCart',
    method: 'GET',
    path: '/v1/cart',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:read'],
    agentScopes: [],
    summary: "Read the caller's cart (a guest without a session sees an empty cart).",
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'Cart' },
    errors: [400, 401, 403, 429],
    tools: ['mcp', 'webmcp'],
    guestSession: 'read',
    handler: (input) => cartResult(input, 200),
  },
  {
    id: 'addCartItem',
    method: 'POST',
    path: '/v1/cart/items',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    agentScopes: [],
    summary: 'Add units of a variant to the cart (adds to an existing line).',
    params: noParams,
    query: noQuery,
    body: S.addCartItemBody,
    bodyRequired: true,
    bodyExample: { variant_id: 'var_0101', quantity: 1 },
    roles: { variant_id: 'variant', quantity: 'quantity' },
    success: { status: 201, schema: 'Cart' },
    errors: [400, 401, 403, 409, 422, 429],
    tools: ['mcp', 'webmcp'],
    guestSession: 'write',
    handler: (input) => {
      const { store, body } = input;
      const v = store.variants.get(body.variant_id);
      if (!v) throw unknownVariant(body.variant_id);
      const existing = store.cart(input.cartKey!)?.lines.find((l) => l.variantId === v.id);
      const wanted = (existing?.quantity ?? 0) + (body.quantity as number);
      if (wanted > v.stock) throw insufficientStock(v.id, v.stock);
      const cart = writableCart(input);
      const line = cart.lines.find((l) => l.variantId === v.id);
      if (line) line.quantity = wanted;
      else cart.lines.push({ variantId: v.id, quantity: wanted });
      return cartResult(input, 201);
    },
  },
  {
    id: 'updateCartItem',
    method: 'PATCH',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    agentScopes: [],
    summary: 'Set the quantity of a cart line (0 removes the line).',
    params: S.variantParams,
    query: noQuery,
    body: S.updateCartItemBody,
    bodyRequired: true,
    bodyExample: { quantity: 2 },
    roles: { quantity: 'quantity' },
    success: { status: 200, schema: 'Cart' },
    errors: [400, 401, 403, 404, 409, 429],
    tools: ['mcp', 'webmcp'],
    guestSession: 'write',
    handler: (input) => {
      const { store, body, params } = input;
      const line = store.cart(input.cartKey!)?.lines.find((l) => l.variantId === params.variant_id);
      if (!line) throw new HttpError(404, 'not_found', 'The cart has no line for this variant.');
      const v = store.variants.get(line.variantId)!;
      const quantity = body.quantity as number;
      if (quantity > v.stock) throw insufficientStock(v.id, v.stock);
      const cart = writableCart(input);
      if (quantity === 0) cart.lines = cart.lines.filter((l) => l !== line);
      else line.quantity = quantity;
      return cartResult(input, 200);
    },
  },
  {
    id: 'removeCartItem',
    method: 'DELETE',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    callers: STOREFRONT,
    apiScopes: ['cart:write'],
    agentScopes: [],
    summary: 'Remove a line from the cart.',
    params: S.variantParams,
    query: noQuery,
    success: { status: 204, schema: null },
    errors: [400, 401, 403, 404, 429],
    tools: ['mcp', 'webmcp'],
    guestSession: 'write',
    handler: (input) => {
      const cart = input.store.cart(input.cartKey!);
      const line = cart?.lines.find((l) => l.variantId === input.params.variant_id);
      if (!cart || !line) throw new HttpError(404, 'not_found', 'The cart has no line for this variant.');
      cart.lines = cart.lines.filter((l) => l !== line);
      cart.updatedAt = new Date().toISOString();
      return { status: 204 };
    },
  },
  {
    id: 'checkoutSavedCard',
    method: 'POST',
    path: '/v1/checkouts/saved-card',
    group: 'checkout',
    callers: AGENT_CHECKOUT,
    apiScopes: ['checkout'],
    agentScopes: ['checkout'],
    summary: "Place an order for the account cart, paid with one of the account's saved cards.",
    params: noParams,
    query: noQuery,
    body: S.checkoutBody,
    bodyRequired: true,
    bodyExample: { payment_method_id: 'pm_chk1', address_id: 'addr_chk1' },
    roles: { payment_method_id: 'payment-method', address_id: 'address' },
    success: { status: 201, schema: 'Order', location: true },
    errors: [400, 401, 402, 403, 409, 422, 429],
    tools: ['mcp'],
    handler: (input) => {
      const { store, body } = input;
      const account = requireAccount(input);
      const cart = store.cart(input.cartKey!);
      if (!cart || cart.lines.length === 0) throw new HttpError(422, 'cart_empty', 'The cart has no lines.');
      const pm = account.paymentMethods.find((p) => p.id === body.payment_method_id);
      if (!pm) throw new HttpError(422, 'unknown_payment_method', 'The account has no such saved card.');
      let address: Address | undefined;
      if (body.address_id) {
        address = account.addresses.find((a) => a.id === body.address_id);
        if (!address) throw new HttpError(422, 'unknown_address', 'The account has no such address.');
      } else {
        address = newestAddresses(account)[0];
        if (!address) throw new HttpError(422, 'address_required', 'The account has no address to ship to.');
      }
      for (const l of cart.lines) {
        const v = store.variants.get(l.variantId)!;
        if (l.quantity > v.stock) throw insufficientStock(v.id, v.stock);
      }
      if (pm.providerRef.includes('decline')) {
        throw new HttpError(402, 'payment_declined', 'The payment provider declined the card.');
      }
      const lines = cart.lines.map((l) => ({
        variantId: l.variantId,
        quantity: l.quantity,
        unitPriceCents: store.variants.get(l.variantId)!.priceCents,
      }));
      const t = totals(lines);
      const pending = pm.providerRef.includes('async');
      const order: Order = {
        id: store.newOrderId(),
        number: store.newOrderNumber(),
        accountSub: account.sub,
        status: pending ? 'pending_payment' : 'paid',
        placedAt: new Date().toISOString(),
        currency: 'USD',
        lines,
        shippingCents: t.shippingCents,
        taxCents: t.taxCents,
        addressId: address.id,
        paymentMethodId: pm.id,
        cancellationReason: null,
        cancelledAt: null,
        returns: [],
        channel: input.caller.kind,
      };
      for (const l of lines) store.variants.get(l.variantId)!.stock -= l.quantity;
      store.orders.set(order.id, order);
      const ref = `pi_${randomBytes(12).toString('hex')}`;
      store.payments.set(ref, { providerRef: ref, orderId: order.id, status: pending ? 'pending' : 'succeeded' });
      cart.lines = [];
      cart.updatedAt = new Date().toISOString();
      return {
        status: 201,
        body: orderRepr(store, order),
        headers: { Location: `/v1/me/orders/${encodeURIComponent(order.id)}` },
      };
    },
  },
  {
    id: 'getProfile',
    method: 'GET',
    path: '/v1/me/profile',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    summary: "Read the account's profile.",
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'Profile' },
    errors: [400, 401, 403, 429],
    tools: ['mcp'],
    handler: (input) => {
      const a = requireAccount(input);
      return { status: 200, body: { sub: a.sub, display_name: a.displayName, email: a.email, state: a.state } };
    },
  },
  {
    id: 'listAddresses',
    method: 'GET',
    path: '/v1/me/addresses',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    summary: "List the account's addresses, newest first.",
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'AddressList' },
    errors: [400, 401, 403, 429],
    tools: ['mcp'],
    handler: (input) => ({
      status: 200,
      body: { addresses: newestAddresses(requireAccount(input)).map(addressRepr) },
    }),
  },
  {
    id: 'addAddress',
    method: 'POST',
    path: '/v1/me/addresses',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:write'],
    agentScopes: ['assistant:write'],
    summary: 'Add an address to the account.',
    params: noParams,
    query: noQuery,
    body: S.addAddressBody,
    bodyRequired: true,
    bodyExample: {
      name: 'Grace Hopper',
      line1: '1 Compiler Court',
      city: 'Arlington',
      region: 'VA',
      postal_code: '22201',
      country: 'US',
    },
    success: { status: 201, schema: 'Address' },
    errors: [400, 401, 403, 409, 429],
    tools: ['mcp'],
    handler: (input) => {
      const account = requireAccount(input);
      if (account.addresses.length >= 100) {
        throw new HttpError(409, 'address_limit_reached', 'An account holds at most 100 addresses.');
      }
      const b = input.body;
      const address: Address = {
        id: input.store.newId('addr'),
        name: b.name,
        line1: b.line1,
        line2: b.line2 ?? null,
        city: b.city,
        region: b.region ?? null,
        postalCode: b.postal_code,
        country: b.country,
        phone: b.phone ?? null,
        createdSeq: input.store.nextSeq(),
      };
      account.addresses.push(address);
      return { status: 201, body: addressRepr(address) };
    },
  },
  {
    id: 'deleteAddress',
    method: 'DELETE',
    path: '/v1/me/addresses/{id}',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['account:write'],
    agentScopes: ['assistant:write'],
    summary: 'Delete one of the account addresses.',
    params: S.idParams,
    query: noQuery,
    success: { status: 204, schema: null },
    errors: [400, 401, 403, 404, 429],
    tools: ['mcp'],
    handler: (input) => {
      const account = requireAccount(input);
      const idx = account.addresses.findIndex((a) => a.id === input.params.id);
      if (idx < 0) throw new HttpError(404, 'not_found', 'No such address.');
      account.addresses.splice(idx, 1);
      return { status: 204 };
    },
  },
  {
    id: 'listPaymentMethods',
    method: 'GET',
    path: '/v1/me/payment-methods',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['payment_methods:read'],
    agentScopes: ['assistant:read'],
    summary: "List the account's saved payment methods (never the provider reference).",
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'PaymentMethodList' },
    errors: [400, 401, 403, 429],
    tools: ['mcp'],
    handler: (input) => ({
      status: 200,
      body: { payment_methods: requireAccount(input).paymentMethods.map(pmRepr) },
    }),
  },
  {
    id: 'listOrders',
    method: 'GET',
    path: '/v1/me/orders',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:read'],
    agentScopes: ['assistant:read'],
    summary: "List the account's orders, newest first.",
    params: noParams,
    query: S.ordersQuery,
    success: { status: 200, schema: 'OrderList' },
    errors: [400, 401, 403, 429],
    tools: ['mcp', 'webmcp'],
    handler: (input) => {
      const account = requireAccount(input);
      let list = input.store.ordersOf(account.sub);
      if (input.query.status) list = list.filter((o) => o.status === input.query.status);
      list = list.slice(0, (input.query.limit as number | undefined) ?? 50);
      return { status: 200, body: { orders: list.map((o) => orderRepr(input.store, o)) } };
    },
  },
  {
    id: 'getOrder',
    method: 'GET',
    path: '/v1/me/orders/{id}',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:read'],
    agentScopes: ['assistant:read'],
    summary: 'Read one order of the account.',
    params: S.idParams,
    query: noQuery,
    success: { status: 200, schema: 'Order' },
    errors: [400, 401, 403, 404, 429],
    tools: ['mcp', 'webmcp'],
    handler: (input) => ({ status: 200, body: orderRepr(input.store, ownOrder(input)) }),
  },
  {
    id: 'cancelOrder',
    method: 'POST',
    path: '/v1/me/orders/{id}/cancellation',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:write'],
    agentScopes: ['assistant:write'],
    summary: 'Cancel an order that is pending payment or paid (not yet fulfilled).',
    params: S.idParams,
    query: noQuery,
    body: S.cancelBody,
    bodyRequired: false,
    bodyExample: { reason: 'Ordered by mistake' },
    roles: { reason: 'reason' },
    success: { status: 200, schema: 'Order' },
    errors: [400, 401, 403, 404, 409, 429],
    tools: ['mcp'],
    handler: (input) => {
      const order = ownOrder(input);
      if (order.status !== 'paid' && order.status !== 'pending_payment') {
        throw new HttpError(409, 'order_not_cancellable', `An order in status ${order.status} cannot be cancelled.`);
      }
      for (const p of input.store.payments.values()) {
        if (p.orderId === order.id) p.status = p.status === 'succeeded' ? 'refunded' : 'cancelled';
      }
      for (const l of order.lines) {
        const v = input.store.variants.get(l.variantId);
        if (v) v.stock += l.quantity;
      }
      order.status = 'cancelled';
      order.cancelledAt = new Date().toISOString();
      order.cancellationReason = (input.body?.reason as string | undefined) ?? null;
      return { status: 200, body: orderRepr(input.store, order) };
    },
  },
  {
    id: 'requestReturn',
    method: 'POST',
    path: '/v1/me/orders/{id}/returns',
    group: 'account',
    callers: ACCOUNT,
    apiScopes: ['orders:write'],
    agentScopes: ['assistant:write'],
    summary: 'Request the return of a delivered order.',
    params: S.idParams,
    query: noQuery,
    body: S.returnBody,
    bodyRequired: true,
    bodyExample: { reason: 'Does not fit' },
    roles: { reason: 'reason' },
    success: { status: 201, schema: 'Return' },
    errors: [400, 401, 403, 404, 409, 429],
    tools: ['mcp'],
    handler: (input) => {
      const order = ownOrder(input);
      if (order.status !== 'delivered') {
        throw new HttpError(409, 'order_not_returnable', `An order in status ${order.status} cannot be returned.`);
      }
      const ret = { id: input.store.newId('ret'), reason: input.body.reason as string, requestedAt: new Date().toISOString() };
      order.returns.push(ret);
      order.status = 'return_requested';
      return {
        status: 201,
        body: { id: ret.id, order_id: order.id, reason: ret.reason, status: 'requested', requested_at: ret.requestedAt },
      };
    },
  },
  {
    id: 'getIdentity',
    method: 'GET',
    path: '/v1/me/identity',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: [],
    agentScopes: [],
    summary: 'Identity for a banner: the display name only (never the email), and self-service eligibility.',
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'Identity' },
    errors: [400, 401, 403, 429],
    handler: (input) => {
      const a = requireAccount(input);
      return {
        status: 200,
        body: {
          display_name: a.displayName,
          self_service_eligible: a.selfServiceEligible,
          caller_kind: input.caller.kind,
          agent_id: input.caller.agentId ?? null,
        },
      };
    },
  },
  {
    id: 'getCheckoutAddress',
    method: 'GET',
    path: '/v1/me/checkout-address',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: ['account:read'],
    agentScopes: ['assistant:read'],
    summary: 'The address a checkout ships to by default (the newest address), or null.',
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'CheckoutAddress' },
    errors: [400, 401, 403, 429],
    handler: (input) => {
      const a = newestAddresses(requireAccount(input))[0];
      return { status: 200, body: { address: a ? addressRepr(a) : null } };
    },
  },
  {
    id: 'getCheckoutMethods',
    method: 'GET',
    path: '/v1/me/checkout-methods',
    group: 'checkout',
    callers: CHECKOUT,
    apiScopes: ['payment_methods:read'],
    agentScopes: ['assistant:read'],
    summary: 'The saved cards a checkout can use.',
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'CheckoutMethods' },
    errors: [400, 401, 403, 429],
    handler: (input) => {
      const pms = requireAccount(input).paymentMethods.map(pmRepr);
      return { status: 200, body: { payment_methods: pms, saved_card_checkout: pms.length > 0 } };
    },
  },
  {
    id: 'createCheckoutPreview',
    method: 'POST',
    path: '/v1/checkout-previews',
    group: 'checkout',
    callers: PREVIEW,
    apiScopes: ['cart:read'],
    agentScopes: [],
    summary: 'Price the account cart (subtotal, shipping, tax, total) without placing an order; nothing is stored.',
    params: noParams,
    query: noQuery,
    body: S.previewBody,
    bodyRequired: false,
    bodyExample: { payment_method_id: 'pm_chk1', address_id: 'addr_chk1' },
    roles: { payment_method_id: 'payment-method', address_id: 'address' },
    success: { status: 201, schema: 'CheckoutPreview' },
    errors: [400, 401, 403, 422, 429],
    handler: (input) => {
      const { store } = input;
      const account = requireAccount(input);
      const body = (input.body ?? {}) as { payment_method_id?: string; address_id?: string };
      const cart = store.cart(input.cartKey!);
      if (!cart || cart.lines.length === 0) throw new HttpError(422, 'cart_empty', 'The cart has no lines.');
      let pmId: string | null;
      if (body.payment_method_id) {
        if (!account.paymentMethods.some((p) => p.id === body.payment_method_id)) {
          throw new HttpError(422, 'unknown_payment_method', 'The account has no such saved card.');
        }
        pmId = body.payment_method_id;
      } else pmId = account.paymentMethods[0]?.id ?? null;
      let addrId: string | null;
      if (body.address_id) {
        if (!account.addresses.some((a) => a.id === body.address_id)) {
          throw new HttpError(422, 'unknown_address', 'The account has no such address.');
        }
        addrId = body.address_id;
      } else addrId = newestAddresses(account)[0]?.id ?? null;
      const lines = cartLines(store, cart);
      const t = totals(lines.map((l) => ({ variantId: l.variant_id, quantity: l.quantity, unitPriceCents: l.unit_price_cents })));
      const inStock = cart.lines.every((l) => l.quantity <= store.variants.get(l.variantId)!.stock);
      return {
        status: 201,
        body: {
          lines,
          currency: 'USD',
          subtotal_cents: t.subtotalCents,
          shipping_cents: t.shippingCents,
          tax_cents: t.taxCents,
          total_cents: t.totalCents,
          address_id: addrId,
          payment_method_id: pmId,
          ready: inStock && pmId !== null && addrId !== null,
        },
      };
    },
  },
  {
    id: 'getMe',
    method: 'GET',
    path: '/v1/me',
    group: 'diagnostic',
    callers: DIAGNOSTIC,
    apiScopes: [],
    agentScopes: [],
    summary: 'Diagnostic: how the service classified the caller.',
    params: noParams,
    query: noQuery,
    success: { status: 200, schema: 'Me' },
    errors: [400, 401, 403, 429],
    handler: (input) => {
      const c = input.caller;
      return {
        status: 200,
        body: {
          caller_kind: c.kind,
          client_id: c.clientId,
          subject: c.sub,
          channel: c.channel,
          origin: c.kind === 'delegated' || c.kind === 'invited-agent' ? 'oauth' : null,
          agent_id: c.agentId ?? (c.kind === 'delegated' ? (c.actChain[c.actChain.length - 1] ?? null) : null),
          operator_id: c.operatorId ?? null,
          scopes: c.kind === 'invited-agent' ? [...(c.permissions ?? [])] : [...c.scopes].sort(),
          account_state: input.account?.state ?? null,
        },
      };
    },
  },
  // ---------- operator operations (/v1/ops/*) ----------
  {
    id: 'opsListOrders',
    method: 'GET',
    path: '/v1/ops/orders',
    group: 'ops',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    agentScopes: [],
    summary: 'Operator: list orders of every account, newest first, filtered by status or account.',
    params: noParams,
    query: S.opsOrdersQuery,
    success: { status: 200, schema: 'OpsOrderList' },
    errors: [400, 401, 403],
    handler: ({ store, query }) => {
      let list = [...store.orders.values()].sort((a, b) => (a.placedAt < b.placedAt ? 1 : a.placedAt > b.placedAt ? -1 : 0));
      if (query.status) list = list.filter((o) => o.status === query.status);
      if (query.account) list = list.filter((o) => o.accountSub === query.account);
      list = list.slice(0, (query.limit as number | undefined) ?? 50);
      return { status: 200, body: { orders: list.map((o) => ({ ...orderRepr(store, o), account_sub: o.accountSub })) } };
    },
  },
  {
    id: 'opsGetOrder',
    method: 'GET',
    path: '/v1/ops/orders/{id}',
    group: 'ops',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    agentScopes: [],
    summary: 'Operator: read any order.',
    params: S.idParams,
    query: noQuery,
    success: { status: 200, schema: 'OpsOrder' },
    errors: [400, 401, 403, 404],
    handler: ({ store, params }) => {
      const o = store.orders.get(String(params.id));
      if (!o) throw new HttpError(404, 'not_found', 'No such order.');
      return { status: 200, body: { ...orderRepr(store, o), account_sub: o.accountSub } };
    },
  },
  {
    id: 'opsRefundOrder',
    method: 'POST',
    path: '/v1/ops/orders/{id}/refund',
    group: 'ops',
    callers: OPERATOR,
    apiScopes: ['ops:write'],
    agentScopes: [],
    summary: 'Operator: refund a paid, fulfilled, delivered or return-requested order.',
    params: S.idParams,
    query: noQuery,
    body: S.refundBody,
    bodyRequired: false,
    bodyExample: { reason: 'Goodwill refund' },
    roles: { reason: 'reason' },
    success: { status: 200, schema: 'OpsOrder' },
    errors: [400, 401, 403, 404, 409],
    handler: ({ store, params }) => {
      const o = store.orders.get(String(params.id));
      if (!o) throw new HttpError(404, 'not_found', 'No such order.');
      if (!['paid', 'fulfilled', 'delivered', 'return_requested'].includes(o.status)) {
        throw new HttpError(409, 'order_not_refundable', `An order in status ${o.status} cannot be refunded.`);
      }
      o.status = 'refunded';
      for (const p of store.payments.values()) if (p.orderId === o.id) p.status = 'refunded';
      return { status: 200, body: { ...orderRepr(store, o), account_sub: o.accountSub } };
    },
  },
  {
    id: 'opsGetAccount',
    method: 'GET',
    path: '/v1/ops/accounts/{sub}',
    group: 'ops',
    callers: OPERATOR,
    apiScopes: ['ops:read'],
    agentScopes: [],
    summary: 'Operator: read an account summary and its lifecycle state.',
    params: S.subParams,
    query: noQuery,
    success: { status: 200, schema: 'OpsAccount' },
    errors: [400, 401, 403, 404],
    handler: ({ store, params }) => {
      const a = store.accounts.get(String(params.sub));
      if (!a) throw new HttpError(404, 'not_found', 'No such account.');
      return {
        status: 200,
        body: {
          sub: a.sub,
          display_name: a.displayName,
          email: a.email,
          state: a.state,
          address_count: a.addresses.length,
          payment_method_count: a.paymentMethods.length,
          order_count: store.ordersOf(a.sub).length,
        },
      };
    },
  },
  {
    id: 'opsAdjustStock',
    method: 'POST',
    path: '/v1/ops/stock-adjustments',
    group: 'ops',
    callers: OPERATOR,
    apiScopes: ['ops:write'],
    agentScopes: [],
    summary: 'Operator: adjust the stock of a variant by a signed delta (stock never goes below zero).',
    params: noParams,
    query: noQuery,
    body: S.stockAdjustmentBody,
    bodyRequired: true,
    bodyExample: { variant_id: 'var_0101', delta: 1, note: 'Recount' },
    roles: { variant_id: 'variant', delta: 'stock-delta', note: 'reason' },
    success: { status: 201, schema: 'StockAdjustment' },
    errors: [400, 401, 403, 409, 422],
    handler: ({ store, body, caller }) => {
      const v = store.variants.get(body.variant_id);
      if (!v) throw unknownVariant(body.variant_id);
      if (v.stock + (body.delta as number) < 0) throw insufficientStock(v.id, v.stock);
      v.stock += body.delta as number;
      const adj = {
        id: store.newId('adj'),
        variantId: v.id,
        delta: body.delta as number,
        operator: caller.operatorId ?? '',
        note: (body.note as string | undefined) ?? null,
        at: new Date().toISOString(),
      };
      store.stockAdjustments.push(adj);
      return {
        status: 201,
        body: {
          id: adj.id,
          variant_id: v.id,
          delta: adj.delta,
          available_quantity: v.stock,
          operator: adj.operator,
          note: adj.note,
          created_at: adj.at,
        },
      };
    },
  },
];

export function weakEtag(text: string): string {
  return `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
}
