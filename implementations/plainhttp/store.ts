// In-memory data of the store: catalog, accounts, carts, orders, payments, recovery operations, agent authorizations.
// Loaded from the fixture seed at start; every server instance has its own copy.
import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';

export type AccountState = 'active' | 'deleting' | 'deleted' | 'contact_transition';
export type OrderStatus = 'pending_payment' | 'paid' | 'fulfilled' | 'delivered' | 'cancelled' | 'return_requested' | 'refunded';

export interface Variant {
  id: string;
  sku: string;
  title: string;
  priceCents: number;
  currency: string;
  stock: number;
  productId: string;
}
export interface Product {
  id: string;
  handle: string;
  title: string;
  description: string;
  vendor: string;
  tags: string[];
  collections: string[];
  variants: Variant[];
}
export interface Collection {
  id: string;
  handle: string;
  title: string;
  description: string;
}
export interface Address {
  id: string;
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string;
  country: string;
  phone: string | null;
  createdSeq: number;
}
export interface PaymentMethod {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  providerRef: string;
}
export interface OrderLine {
  variantId: string;
  quantity: number;
  unitPriceCents: number;
}
export interface ReturnRecord {
  id: string;
  reason: string;
  requestedAt: string;
}
export interface Order {
  id: string;
  number: string;
  accountSub: string;
  status: OrderStatus;
  placedAt: string;
  currency: string;
  lines: OrderLine[];
  shippingCents: number;
  taxCents: number;
  addressId: string | null;
  paymentMethodId: string | null;
  cancellationReason: string | null;
  cancelledAt: string | null;
  returns: ReturnRecord[];
  channel: string;
}
export interface Account {
  sub: string;
  email: string | null;
  displayName: string;
  state: AccountState;
  selfServiceEligible: boolean;
  addresses: Address[];
  paymentMethods: PaymentMethod[];
}
export interface Payment {
  providerRef: string;
  orderId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'refunded' | 'cancelled';
}
export interface RecoveryOperation {
  operationId: string;
  subject: string;
  purpose: 'email' | 'delete';
  phase: 'proof_pending' | 'approved' | 'provider_pending' | 'complete' | 'cancelled';
  pendingEmail: string | null;
}
export interface CartLine {
  variantId: string;
  quantity: number;
}
export interface Cart {
  id: string;
  lines: CartLine[];
  updatedAt: string;
}
export interface AgentAuthorization {
  subject: string;
  agentId: string;
  permissions: string[];
  decision: 'granted' | 'revoked';
  at: string;
}
export interface SecurityIntent {
  freshIntentId: string;
  subject: string;
  purpose: string;
  operationId: string | null;
  recordedAt: string;
}
export interface StockAdjustment {
  id: string;
  variantId: string;
  delta: number;
  operator: string;
  note: string | null;
  at: string;
}

interface SeedFile {
  collections: { id: string; handle: string; title: string; description: string }[];
  products: {
    id: string;
    handle: string;
    title: string;
    description: string;
    vendor: string;
    tags: string[];
    collections: string[];
    variants: { id: string; sku: string; title: string; priceCents: number; currency: string; stock: number }[];
  }[];
  accounts: {
    sub: string;
    email: string | null;
    displayName: string;
    state: AccountState;
    selfServiceEligible: boolean;
    addresses: Omit<Address, 'createdSeq'>[];
    paymentMethods: PaymentMethod[];
    orders: Omit<Order, 'accountSub' | 'cancellationReason' | 'cancelledAt' | 'returns' | 'channel'>[];
  }[];
  recoveryOperations: RecoveryOperation[];
  cardSetups: { id: string; accountSub: string }[];
}

export const FREE_SHIPPING_THRESHOLD_CENTS = 7500;
export const SHIPPING_CENTS = 595;
export const TAX_RATE_PERCENT = 8;

export class Store {
  collections: Collection[] = [];
  products: Product[] = [];
  productsByHandle = new Map<string, Product>();
  variants = new Map<string, Variant>();
  accounts = new Map<string, Account>();
  orders = new Map<string, Order>();
  payments = new Map<string, Payment>();
  recovery = new Map<string, RecoveryOperation>();
  cardSetups = new Map<string, { id: string; accountSub: string; completed: boolean }>();
  carts = new Map<string, Cart>();
  authorizations = new Map<string, AgentAuthorization>();
  assistantSessions = new Map<string, Record<string, unknown>>();
  securityIntents = new Map<string, SecurityIntent>();
  stockAdjustments: StockAdjustment[] = [];
  processedEvents = new Set<string>();
  private seq = 0;
  private nextOrderNumber = 1001;

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  loadSeed(path: string): void {
    const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedFile;
    this.collections = seed.collections.map((c) => ({ ...c }));
    for (const p of seed.products) {
      const product: Product = {
        id: p.id,
        handle: p.handle,
        title: p.title,
        description: p.description,
        vendor: p.vendor,
        tags: [...p.tags],
        collections: [...p.collections],
        variants: p.variants.map((v) => ({ ...v, productId: p.id })),
      };
      this.products.push(product);
      this.productsByHandle.set(product.handle, product);
      for (const v of product.variants) this.variants.set(v.id, v);
    }
    let maxNumber = 1000;
    for (const a of seed.accounts) {
      this.accounts.set(a.sub, {
        sub: a.sub,
        email: a.email,
        displayName: a.displayName,
        state: a.state,
        selfServiceEligible: a.selfServiceEligible,
        addresses: a.addresses.map((addr) => ({ ...addr, createdSeq: this.nextSeq() })),
        paymentMethods: a.paymentMethods.map((pm) => ({ ...pm })),
      });
      for (const o of a.orders ?? []) {
        const order: Order = {
          ...o,
          lines: o.lines.map((l) => ({ ...l })),
          accountSub: a.sub,
          cancellationReason: null,
          cancelledAt: null,
          returns: [],
          channel: 'seed',
        };
        this.orders.set(order.id, order);
        const n = Number(order.number.replace(/\D/g, ''));
        if (Number.isFinite(n) && n > maxNumber) maxNumber = n;
        const ref = `pi_seed_${order.id}`;
        this.payments.set(ref, { providerRef: ref, orderId: order.id, status: paymentStatusFor(order.status) });
      }
    }
    this.nextOrderNumber = maxNumber + 1;
    for (const r of seed.recoveryOperations ?? []) this.recovery.set(r.operationId, { ...r });
    for (const s of seed.cardSetups ?? []) this.cardSetups.set(s.id, { ...s, completed: false });
  }

  /** The account of a subject; an unknown subject is provisioned as an active account (the IdP decides who exists). */
  accountFor(sub: string, claims: Record<string, unknown>): Account {
    const existing = this.accounts.get(sub);
    if (existing) return existing;
    const account: Account = {
      sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      displayName: typeof claims.name === 'string' && claims.name.trim() ? claims.name : 'Customer',
      state: 'active',
      selfServiceEligible: false,
      addresses: [],
      paymentMethods: [],
    };
    this.accounts.set(sub, account);
    return account;
  }

  cart(ownerKey: string): Cart | undefined {
    return this.carts.get(ownerKey);
  }

  cartForWrite(ownerKey: string): Cart {
    let cart = this.carts.get(ownerKey);
    if (!cart) {
      cart = { id: `cart_${randomBytes(8).toString('hex')}`, lines: [], updatedAt: new Date().toISOString() };
      this.carts.set(ownerKey, cart);
    }
    return cart;
  }

  ordersOf(sub: string): Order[] {
    return [...this.orders.values()]
      .filter((o) => o.accountSub === sub)
      .sort((a, b) => (a.placedAt < b.placedAt ? 1 : a.placedAt > b.placedAt ? -1 : b.number.localeCompare(a.number)));
  }

  newOrderNumber(): string {
    const n = this.nextOrderNumber;
    this.nextOrderNumber += 1;
    return `#${n}`;
  }

  newOrderId(): string {
    return `ord_${randomBytes(8).toString('hex')}`;
  }

  authorizationKey(subject: string, agentId: string): string {
    return `${subject}\u0000${agentId}`;
  }

  newId(prefix: string): string {
    return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  }
}

function paymentStatusFor(status: OrderStatus): Payment['status'] {
  switch (status) {
    case 'pending_payment':
      return 'pending';
    case 'refunded':
      return 'refunded';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'succeeded';
  }
}

export function totals(lines: OrderLine[]): {
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
} {
  const subtotalCents = lines.reduce((s, l) => s + l.unitPriceCents * l.quantity, 0);
  const shippingCents = subtotalCents === 0 || subtotalCents >= FREE_SHIPPING_THRESHOLD_CENTS ? 0 : SHIPPING_CENTS;
  const taxCents = Math.round((subtotalCents * TAX_RATE_PERCENT) / 100);
  return { subtotalCents, shippingCents, taxCents, totalCents: subtotalCents + shippingCents + taxCents };
}
