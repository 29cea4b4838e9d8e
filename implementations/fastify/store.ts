import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

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
  createdSeq: number;
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
  status: string;
  placedAt: string;
  currency: string;
  lines: OrderLine[];
  shippingCents: number;
  taxCents: number;
  addressId: string;
  paymentMethodId: string;
  accountSub: string;
  paymentRef: string;
  cancelledAt: string | null;
  returns: ReturnRecord[];
}
export type AccountState = 'active' | 'deleting' | 'deleted' | 'contact_transition';
export interface Account {
  sub: string;
  email: string | null;
  displayName: string;
  phone: string | null;
  state: AccountState;
  selfServiceEligible: boolean;
  addresses: Address[];
  paymentMethods: PaymentMethod[];
  createdAt: string;
}
export interface RecoveryOperation {
  operationId: string;
  subject: string;
  purpose: 'email' | 'delete';
  phase: string;
  pendingEmail: string | null;
}
export interface CartLine {
  variantId: string;
  quantity: number;
}
export interface AssistantSession {
  id: string;
  state: 'signed_in' | 'signed_out';
  accountSub: string | null;
  agentId: string | null;
  clientId: string;
  scopes: string[];
}
export interface AgentAuthorization {
  subject: string;
  agentId: string;
  permissions: string[];
  decision: 'granted' | 'revoked';
}
export interface ConversationEvent {
  seq: number;
  kind: 'message' | 'status';
  at: string;
  messageId?: string;
  author?: string;
  text?: string;
  turnId?: string;
  status?: string;
}
export interface Conversation {
  id: string;
  sessionId: string;
  accountSub: string;
  mode: 'direct' | 'handoff';
  status: 'open' | 'closed' | 'timed_out';
  topic: string | null;
  handoffId: string | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  events: ConversationEvent[];
  turnIds: Set<string>;
}
export interface SecurityIntent {
  freshIntentId: string;
  subject: string;
  purpose: string;
  receivedAt: string;
}

let seqCounter = 0;
export const nextSeq = (): number => ++seqCounter;
export const hexId = (prefix: string, bytes = 8): string => `${prefix}${randomBytes(bytes).toString('hex')}`;

interface SeedAddress {
  id: string;
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string;
  country: string;
  phone: string | null;
}
interface SeedFile {
  collections: Collection[];
  products: (Omit<Product, 'variants'> & { variants: Omit<Variant, 'productId'>[] })[];
  accounts: {
    sub: string;
    email: string | null;
    displayName: string;
    phone?: string | null;
    state: AccountState;
    selfServiceEligible: boolean;
    addresses: SeedAddress[];
    paymentMethods: Omit<PaymentMethod, 'createdSeq'>[];
    orders: Omit<Order, 'accountSub' | 'paymentRef' | 'cancelledAt' | 'returns'>[];
  }[];
  recoveryOperations: RecoveryOperation[];
  cardSetups: { id: string; accountSub: string }[];
}

export class Store {
  collections: Collection[] = [];
  products: Product[] = [];
  productsByHandle = new Map<string, Product>();
  variants = new Map<string, Variant>();
  accounts = new Map<string, Account>();
  orders = new Map<string, Order>();
  recovery = new Map<string, RecoveryOperation>();
  cardSetups = new Map<string, { id: string; accountSub: string; completed: boolean }>();
  carts = new Map<string, CartLine[]>();
  sessions = new Map<string, AssistantSession>();
  authorizations = new Map<string, AgentAuthorization>();
  conversations = new Map<string, Conversation>();
  securityIntents = new Map<string, SecurityIntent>();
  dpopProofs = new Map<string, number>();
  orderNumber = 1013;
  catalogVersion = 1;
  listeners = new Map<string, Set<() => void>>();

  constructor(seedPath: string) {
    const seed = JSON.parse(readFileSync(seedPath, 'utf8')) as SeedFile;
    this.collections = seed.collections;
    for (const p of seed.products) {
      const product: Product = { ...p, variants: p.variants.map((v) => ({ ...v, productId: p.id })) };
      this.products.push(product);
      this.productsByHandle.set(product.handle, product);
      for (const v of product.variants) this.variants.set(v.id, v);
    }
    const created = new Date('2025-01-01T00:00:00Z').getTime();
    seed.accounts.forEach((a, i) => {
      const addresses = a.addresses.map((ad) => ({ ...ad, createdSeq: nextSeq() }));
      const paymentMethods = a.paymentMethods.map((pm) => ({ ...pm, createdSeq: nextSeq() }));
      const phone = a.phone ?? a.addresses.find((ad) => ad.phone)?.phone ?? null;
      this.accounts.set(a.sub, {
        sub: a.sub,
        email: a.email,
        displayName: a.displayName,
        phone,
        state: a.state,
        selfServiceEligible: a.selfServiceEligible,
        addresses,
        paymentMethods,
        createdAt: new Date(created + i * 86_400_000).toISOString(),
      });
      for (const o of a.orders) {
        this.orders.set(o.id, {
          ...o,
          accountSub: a.sub,
          paymentRef: `pi_seed_${o.id}`,
          cancelledAt: null,
          returns: [],
        });
        const n = Number(o.number.replace(/\D/g, ''));
        if (Number.isFinite(n) && n > this.orderNumber) this.orderNumber = n;
      }
    });
    for (const r of seed.recoveryOperations) this.recovery.set(r.operationId, { ...r });
    for (const c of seed.cardSetups) this.cardSetups.set(c.id, { ...c, completed: false });
  }

  /** Unknown subjects are provisioned as active accounts on first sight. */
  account(sub: string, claims: { name?: unknown; email?: unknown }): Account {
    let a = this.accounts.get(sub);
    if (!a) {
      a = {
        sub,
        email: typeof claims.email === 'string' ? claims.email : null,
        displayName: typeof claims.name === 'string' && claims.name ? claims.name : 'Customer',
        phone: null,
        state: 'active',
        selfServiceEligible: false,
        addresses: [],
        paymentMethods: [],
        createdAt: new Date().toISOString(),
      };
      this.accounts.set(sub, a);
    }
    return a;
  }

  cart(key: string): CartLine[] {
    let c = this.carts.get(key);
    if (!c) {
      c = [];
      this.carts.set(key, c);
    }
    return c;
  }

  nextOrderNumber(): string {
    this.orderNumber += 1;
    return `#${this.orderNumber}`;
  }

  notify(conversationId: string): void {
    for (const l of this.listeners.get(conversationId) ?? []) l();
  }

  subscribe(conversationId: string, fn: () => void): () => void {
    let set = this.listeners.get(conversationId);
    if (!set) {
      set = new Set();
      this.listeners.set(conversationId, set);
    }
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(conversationId);
    };
  }

  /** The job `clean_dpop_proofs`: forget proofs whose iat window has passed. */
  cleanDpopProofs(nowSec: number): number {
    let n = 0;
    for (const [k, exp] of this.dpopProofs) {
      if (exp <= nowSec) {
        this.dpopProofs.delete(k);
        n++;
      }
    }
    return n;
  }
}
