// Account data from SQLite, mapped to the published records. Every read and write takes the owning account's `sub` and
// filters on it: another account's row is indistinguishable from a missing one ([END-ME-1], [END-ME-2]: every row under
// /v1/me/* is scoped by ownership of the token sub).
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../db/open.js';
import { CANCELLABLE } from './orders.js';
import type * as Row from './rows.js';
import type { OrderStatus } from './rows.js';
import type {
  addAddressBody,
  addressSchema,
  checkoutMethodSchema,
  identitySchema,
  orderLineSchema,
  orderSchema,
  orderSummarySchema,
  paymentMethodSchema,
  profileSchema,
  returnSchema,
} from '../schemas/account.js';

export type Profile = z.infer<typeof profileSchema>;
export type Identity = z.infer<typeof identitySchema>;
export type Address = z.infer<typeof addressSchema>;
export type NewAddress = z.infer<typeof addAddressBody>;
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;
export type CheckoutMethod = z.infer<typeof checkoutMethodSchema>;
export type Order = z.infer<typeof orderSchema>;
export type OrderSummary = z.infer<typeof orderSummarySchema>;
type OrderLine = z.infer<typeof orderLineSchema>;
type Return = z.infer<typeof returnSchema>;

/** Order states cancelOrder accepts; requestReturn accepts only `delivered`, once. */
export const RETURNABLE = 'delivered';

/** `<prefix>_` and 16 lowercase hex characters (64 random bits). */
export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

// --- profile and identity --------------------------------------------------------------------------------------------

export function readProfile(db: Db, sub: string): Profile | undefined {
  return db.prepare('SELECT sub, email, display_name, created_at FROM accounts WHERE sub = ?').get(sub) as Profile | undefined;
}

// [PUR-BANNER-1] [PUR-BANNER-2] [END-IDENT-1] the identity read: the display name and the eligibility boolean, never the email.
/** Only the display name and the eligibility boolean: no email or other personal data is even selected. */
export function readIdentity(db: Db, sub: string): Identity | undefined {
  const row = db.prepare('SELECT display_name, self_service_eligible FROM accounts WHERE sub = ?').get(sub) as
    { display_name: string; self_service_eligible: number } | undefined;
  return row ? { display_name: row.display_name, self_service_eligible: row.self_service_eligible === 1 } : undefined;
}

// --- addresses -------------------------------------------------------------------------------------------------------

const ADDRESS_COLUMNS = 'id, name, line1, line2, city, region, postal_code, country, phone, created_at';

/** Newest first (rowid breaks ties between rows written in the same millisecond, such as the seed's). */
export function listAddresses(db: Db, sub: string): Address[] {
  return db
    .prepare(`SELECT ${ADDRESS_COLUMNS} FROM addresses WHERE account_sub = ? ORDER BY created_at DESC, rowid DESC`)
    .all(sub) as Address[];
}

/** The checkout default: the most recently added address. */
export function defaultAddress(db: Db, sub: string): Address | undefined {
  return db
    .prepare(`SELECT ${ADDRESS_COLUMNS} FROM addresses WHERE account_sub = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`)
    .get(sub) as Address | undefined;
}

export function countAddresses(db: Db, sub: string): number {
  return db.prepare('SELECT count(*) FROM addresses WHERE account_sub = ?').pluck().get(sub) as number;
}

export function insertAddress(db: Db, sub: string, a: NewAddress, now: Date): Address {
  const row: Address = {
    id: newId('addr'),
    name: a.name,
    line1: a.line1,
    line2: a.line2 ?? null,
    city: a.city,
    region: a.region ?? null,
    postal_code: a.postal_code,
    country: a.country,
    phone: a.phone ?? null,
    created_at: now.toISOString(),
  };
  db.prepare(
    `INSERT INTO addresses (id, account_sub, name, line1, line2, city, region, postal_code, country, phone, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.id, sub, row.name, row.line1, row.line2, row.city, row.region, row.postal_code, row.country, row.phone, row.created_at);
  return row;
}

/** Deletes the account's own address; false when the account has no address with this id. */
export function deleteAddress(db: Db, sub: string, id: string): boolean {
  // [END-ME-2] another account's address is not deleted: the row is matched on its owner too.
  return db.prepare('DELETE FROM addresses WHERE id = ? AND account_sub = ?').run(id, sub).changes > 0;
}

// --- saved cards -----------------------------------------------------------------------------------------------------

interface CardRow {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(card: { exp_month: number; exp_year: number }, now: Date): boolean {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return card.exp_year < year || (card.exp_year === year && card.exp_month < month);
}

/** The provider reference is never selected: it does not leave the service. */
function cards(db: Db, sub: string): CardRow[] {
  return db
    .prepare('SELECT id, brand, last4, exp_month, exp_year FROM payment_methods WHERE account_sub = ? ORDER BY created_at DESC, rowid DESC')
    .all(sub) as CardRow[];
}

export function listPaymentMethods(db: Db, sub: string, now: Date): PaymentMethod[] {
  return cards(db, sub).map((c) => ({ ...c, expired: isExpired(c, now) }));
}

export function listCheckoutMethods(db: Db, sub: string, now: Date): CheckoutMethod[] {
  return cards(db, sub).filter((c) => !isExpired(c, now));
}

// --- orders ----------------------------------------------------------------------------------------------------------

/** An order as the account reads it (its owner is the query's). */
type OrderRow = Omit<Row.OrderRow, 'account_sub'>;

/** A payment as an order's page shows it. */
export type PaymentRow = Pick<Row.PaymentRow, 'id' | 'provider_ref' | 'status' | 'amount_cents' | 'refunded_cents' | 'currency'>;

/** Newest first; `more` tells whether a further page exists. */
export function listOrders(
  db: Db,
  sub: string,
  q: { status?: OrderStatus; offset: number; limit: number },
): { items: OrderSummary[]; more: boolean } {
  const rows = db
    .prepare(
      `SELECT o.id, o.number, o.status, o.placed_at, o.currency, o.total_cents,
      (SELECT coalesce(sum(l.quantity), 0) FROM order_lines l WHERE l.order_id = o.id) AS item_count
    FROM orders o WHERE o.account_sub = ? ${q.status ? 'AND o.status = ?' : ''}
    ORDER BY o.placed_at DESC, o.id DESC LIMIT ? OFFSET ?`,
    )
    .all(...[sub, ...(q.status ? [q.status] : []), q.limit + 1, q.offset]) as OrderSummary[];
  return { items: rows.slice(0, q.limit), more: rows.length > q.limit };
}

/** The order's status, if the account owns it: what the transitions decide on. */
export function orderStatus(db: Db, sub: string, id: string): OrderStatus | undefined {
  return (
    // [END-ME-2] transitions decide on the account's own order only.
    (db.prepare('SELECT status FROM orders WHERE id = ? AND account_sub = ?').pluck().get(id, sub) as OrderStatus | undefined) ?? undefined
  );
}

export function orderPayments(db: Db, orderId: string): PaymentRow[] {
  return db
    .prepare(
      'SELECT id, provider_ref, status, amount_cents, refunded_cents, currency FROM payments WHERE order_id = ? ORDER BY created_at, rowid',
    )
    .all(orderId) as PaymentRow[];
}

export function orderLines(db: Db, orderId: string): OrderLine[] {
  return db
    .prepare(
      `SELECT variant_id, title, quantity, unit_price_cents, quantity * unit_price_cents AS line_total_cents
    FROM order_lines WHERE order_id = ? ORDER BY rowid`,
    )
    .all(orderId) as OrderLine[];
}

export function orderReturns(db: Db, orderId: string): Return[] {
  return db
    .prepare('SELECT id, status, reason, created_at FROM returns WHERE order_id = ? ORDER BY created_at, rowid')
    .all(orderId) as Return[];
}

// [END-ME-1] an order is read only for the account that owns it.
export function readOrder(db: Db, sub: string, id: string): Order | undefined {
  const row = db
    .prepare(
      `SELECT id, number, status, placed_at, updated_at, currency, subtotal_cents, shipping_cents, tax_cents, total_cents,
      address_id, payment_method_id FROM orders WHERE id = ? AND account_sub = ?`,
    )
    .get(id, sub) as OrderRow | undefined;
  if (!row) return undefined;
  const lines = orderLines(db, row.id);
  const returns = orderReturns(db, row.id);
  return {
    ...row,
    lines,
    item_count: lines.reduce((n, l) => n + l.quantity, 0),
    payment_status: orderPayments(db, row.id).at(-1)?.status ?? null,
    returns,
    cancellable: CANCELLABLE.has(row.status),
    returnable: row.status === RETURNABLE && returns.length === 0,
  };
}

/**
 * Writes of a cancellation, inside the caller's transaction: the order becomes `cancelled`; the payments refunded at the
 * provider become `refunded` (in full); a payment still pending is voided (`failed`), as the seed records cancelled orders.
 */
export function writeCancellation(db: Db, orderId: string, refundedPaymentIds: readonly string[], now: Date): void {
  const at = now.toISOString();
  db.prepare("UPDATE orders SET status = 'cancelled', updated_at = ? WHERE id = ?").run(at, orderId);
  markRefunded(db, refundedPaymentIds, now);
  db.prepare("UPDATE payments SET status = 'failed', updated_at = ? WHERE order_id = ? AND status = 'pending'").run(at, orderId);
}

export function markRefunded(db: Db, paymentIds: readonly string[], now: Date): void {
  const update = db.prepare("UPDATE payments SET status = 'refunded', refunded_cents = amount_cents, updated_at = ? WHERE id = ?");
  for (const id of paymentIds) update.run(now.toISOString(), id);
}

/** Writes of a return request, inside the caller's transaction; answers the new return's id. */
export function writeReturn(db: Db, sub: string, orderId: string, reason: string, now: Date): string {
  const id = newId('ret');
  const at = now.toISOString();
  db.prepare("INSERT INTO returns (id, order_id, account_sub, reason, status, created_at) VALUES (?, ?, ?, ?, 'requested', ?)").run(
    id,
    orderId,
    sub,
    reason,
    at,
  );
  db.prepare("UPDATE orders SET status = 'return_requested', updated_at = ? WHERE id = ?").run(at, orderId);
  return id;
}
