// Orders, payments and stock as operators see them (any account), the state rules of cancellation and refunds shared with
// the payment webhook, and the audit log of operator writes. Synchronous SQLite: callers wrap writes in one transaction.
import type { Db } from '../db/open.js';
import type { OrderRow, OrderStatus, PaymentRow, PaymentStatus } from './rows.js';

export type { OrderRow, OrderStatus, PaymentRow, PaymentStatus } from './rows.js';

/** Orders a cancellation may still stop: nothing has left the warehouse (the same rule as the customer's cancellation). */
/** Orders that become `refunded` once their payment is refunded in full; a cancelled order stays cancelled. */
const REFUND_MOVES: ReadonlySet<OrderStatus> = new Set(['paid', 'fulfilled', 'delivered', 'return_requested']);

const ORDER_COLUMNS = `id, account_sub, number, status, placed_at, updated_at, currency, subtotal_cents, shipping_cents, tax_cents, total_cents,
  address_id, payment_method_id`;
const PAYMENT_COLUMNS = 'id, order_id, provider, provider_ref, status, amount_cents, refunded_cents, currency, created_at, updated_at';

export function findOrder(db: Db, id: string): OrderRow | undefined {
  return db.prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`).get(id) as OrderRow | undefined;
}

export function orderPayments(db: Db, orderId: string): PaymentRow[] {
  return db.prepare(`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE order_id = ? ORDER BY created_at, id`).all(orderId) as PaymentRow[];
}

export function findPayment(db: Db, id: string): PaymentRow | undefined {
  return db.prepare(`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = ?`).get(id) as PaymentRow | undefined;
}

export function findPaymentByRef(db: Db, providerRef: string): PaymentRow | undefined {
  return db.prepare(`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE provider_ref = ?`).get(providerRef) as PaymentRow | undefined;
}

const refundable = (p: PaymentRow) => (p.status === 'succeeded' ? Math.max(0, p.amount_cents - p.refunded_cents) : 0);

/** The captured payment of an order with money left to refund (the latest, when an order has several). */
export function refundablePayment(db: Db, orderId: string): { payment: PaymentRow; refundableCents: number } | undefined {
  const payment = orderPayments(db, orderId)
    .filter((p) => refundable(p) > 0)
    .at(-1);
  return payment ? { payment, refundableCents: refundable(payment) } : undefined;
}

export function setOrderStatus(db: Db, orderId: string, status: OrderStatus, now: Date): void {
  db.prepare('UPDATE orders SET status = ?, updated_at = ? WHERE id = ?').run(status, now.toISOString(), orderId);
}

export function setPaymentStatus(db: Db, paymentId: string, status: PaymentStatus, now: Date): void {
  db.prepare('UPDATE payments SET status = ?, updated_at = ? WHERE id = ?').run(status, now.toISOString(), paymentId);
}

/**
 * Records that `totalRefundedCents` of a payment is refunded so far (a total, never an increment: a provider's report and
 * the operator's own refund of the same money agree). The total only grows and is capped at the amount. A payment refunded
 * in full becomes `refunded`, and its order `refunded` when no captured payment is left and the order had been paid.
 * Returns the refunded total now recorded.
 */
export function recordRefundTotal(db: Db, paymentId: string, totalRefundedCents: number, now: Date): number {
  const p = findPayment(db, paymentId);
  if (!p) throw new Error(`payment ${paymentId} vanished`);
  if (p.status !== 'succeeded' && p.status !== 'refunded') return p.refunded_cents;
  const total = Math.min(p.amount_cents, Math.max(p.refunded_cents, totalRefundedCents));
  const status: PaymentStatus = total >= p.amount_cents ? 'refunded' : 'succeeded';
  db.prepare('UPDATE payments SET refunded_cents = ?, status = ?, updated_at = ? WHERE id = ?').run(total, status, now.toISOString(), p.id);
  if (status === 'refunded') {
    const order = findOrder(db, p.order_id);
    const stillCaptured = orderPayments(db, p.order_id).some((x) => x.status === 'succeeded');
    if (order && !stillCaptured && REFUND_MOVES.has(order.status)) setOrderStatus(db, order.id, 'refunded', now);
  }
  return total;
}

// ------------------------------------------------------------------------------------------------------------ search

export interface OrderSearch {
  status?: OrderStatus;
  account?: string;
  /** An order number, with or without its `#`: the orders whose number contains it. */
  number?: string;
  offset: number;
  limit: number;
}

export interface OrderSummaryRow extends OrderRow {
  payment_status: PaymentStatus | null;
  item_count: number;
}

export function searchOrders(db: Db, q: OrderSearch): { items: OrderSummaryRow[]; more: boolean } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.status) {
    where.push('o.status = ?');
    args.push(q.status);
  }
  if (q.account) {
    where.push('o.account_sub = ?');
    args.push(q.account);
  }
  if (q.number) {
    const digits = q.number.replace(/^#/, '');
    where.push(`o.number LIKE ? ESCAPE '\\'`);
    args.push(`%${digits.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
  }
  const sql = `SELECT ${ORDER_COLUMNS.split(',')
    .map((c) => `o.${c.trim()}`)
    .join(', ')},
      (SELECT p.status FROM payments p WHERE p.order_id = o.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS payment_status,
      (SELECT coalesce(sum(l.quantity), 0) FROM order_lines l WHERE l.order_id = o.id) AS item_count
    FROM orders o ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
    ORDER BY o.placed_at DESC, o.id DESC LIMIT ? OFFSET ?`;
  const rows = db.prepare(sql).all(...args, q.limit + 1, q.offset) as OrderSummaryRow[];
  return { items: rows.slice(0, q.limit), more: rows.length > q.limit };
}

export interface OrderLineRow {
  variant_id: string;
  title: string;
  quantity: number;
  unit_price_cents: number;
}
export interface ReturnRow {
  id: string;
  reason: string;
  status: string;
  created_at: string;
}

export function orderLines(db: Db, orderId: string): OrderLineRow[] {
  return db
    .prepare('SELECT variant_id, title, quantity, unit_price_cents FROM order_lines WHERE order_id = ? ORDER BY rowid')
    .all(orderId) as OrderLineRow[];
}

export function orderReturns(db: Db, orderId: string): ReturnRow[] {
  return db
    .prepare('SELECT id, reason, status, created_at FROM returns WHERE order_id = ? ORDER BY created_at, id')
    .all(orderId) as ReturnRow[];
}

// ------------------------------------------------------------------------------------------------------------- stock

export interface StockRow {
  id: string;
  sku: string;
  stock: number;
}

export function findStock(db: Db, variantId: string): StockRow | undefined {
  return db.prepare('SELECT id, sku, stock FROM variants WHERE id = ?').get(variantId) as StockRow | undefined;
}

/** Adds `delta` to the stock when the result stays at or above zero; returns the new stock, or undefined when it would not. */
export function addStock(db: Db, variantId: string, delta: number): number | undefined {
  const changed = db.prepare('UPDATE variants SET stock = stock + ? WHERE id = ? AND stock + ? >= 0').run(delta, variantId, delta).changes;
  return changed === 1 ? findStock(db, variantId)!.stock : undefined;
}

// ------------------------------------------------------------------------------------------------------------- audit
