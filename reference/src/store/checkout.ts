// Checkout's rows: the account's saved cards and addresses as checkout reads them, and the one transaction that turns a
// charged cart into an order (order, lines, payment, stock, cart, audit), read back as the `Order` record.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../db/open.js';
import type { orderSchema } from '../schemas/checkout.js';
import type { Cart } from './carts.js';
import type * as Row from './rows.js';
import { findCartId } from './carts.js';
import { ProblemError } from '../problem.js';
import type { Totals } from '../pricing.js';

/** `ord_…`, `pay_…`: random, lowercase, within the seed's id pattern (prefix + 4-32 of [a-z0-9]). */
export const newId = (prefix: 'ord' | 'pay') => `${prefix}_${randomBytes(10).toString('hex')}`;

export interface SavedCard {
  id: string;
  provider_ref: string;
}
export interface ShippingAddress {
  id: string;
  country: string;
}

export function findPaymentMethod(db: Db, accountSub: string, id: string): SavedCard | undefined {
  return db.prepare('SELECT id, provider_ref FROM payment_methods WHERE id = ? AND account_sub = ?').get(id, accountSub) as
    SavedCard | undefined;
}

export function findAddress(db: Db, accountSub: string, id: string): ShippingAddress | undefined {
  return db.prepare('SELECT id, country FROM addresses WHERE id = ? AND account_sub = ?').get(id, accountSub) as
    ShippingAddress | undefined;
}

/** The account's newest address (latest `created_at`; among equals, the last inserted). */
export function newestAddress(db: Db, accountSub: string): ShippingAddress | undefined {
  return db
    .prepare('SELECT id, country FROM addresses WHERE account_sub = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
    .get(accountSub) as ShippingAddress | undefined;
}

export type Order = z.infer<typeof orderSchema>;

/** An order as the checkout reads it back. */
type OrderRow = Omit<Row.OrderRow, 'account_sub' | 'updated_at'>;

/** One order of the account as `Order`, or undefined (another account's order reads as absent). */
export function readOrder(db: Db, accountSub: string, id: string): Order | undefined {
  const row = db
    .prepare(
      `SELECT id, number, status, placed_at, currency, subtotal_cents, shipping_cents, tax_cents, total_cents, address_id,
      payment_method_id FROM orders WHERE id = ? AND account_sub = ?`,
    )
    .get(id, accountSub) as OrderRow | undefined;
  if (!row) return undefined;
  const lines = db
    .prepare(
      `SELECT variant_id, title, quantity, unit_price_cents, quantity * unit_price_cents AS line_total_cents
    FROM order_lines WHERE order_id = ? ORDER BY rowid`,
    )
    .all(id) as Order['lines'];
  const payment = db
    .prepare('SELECT status FROM payments WHERE order_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
    .pluck()
    .get(id) as Order['payment_status'] | undefined;
  return { ...row, lines, item_count: lines.reduce((n, l) => n + l.quantity, 0), payment_status: payment ?? null };
}

export interface PlaceOrder {
  orderId: string;
  accountSub: string;
  cartOwner: string;
  /** The cart as it was read, priced and charged: the order is exactly these lines. */
  charged: Cart;
  totals: Totals;
  addressId: string;
  paymentMethodId: string;
  payment: { provider: string; providerRef: string; status: 'succeeded' | 'pending' };
  idempotencyKey: string | null;
  audit: { actor: string; channel: string | null };
  now: Date;
}

/**
 * Writes the order of a charge that went through, in ONE immediate transaction (a write lock from the first statement,
 * so no other connection or process changes the cart or the stock between the re-read and the writes):
 * re-reads the cart, checks that it still holds every charged line (another checkout of the same cart, or a cart edit
 * made while the provider was charging, may have taken them), decrements the stock of each line only if enough is left,
 * then writes the order, its lines, the payment, the audit row, and takes the charged quantities out of the cart.
 * Throws a ProblemError, having written nothing, when the cart or the stock no longer allows the order: the caller then
 * refunds the charge. Lines added to the cart while the charge ran are not part of the order and stay in the cart.
 */
export function placeOrder(db: Db, p: PlaceOrder): void {
  db.transaction(() => {
    const cartId = findCartId(db, p.cartOwner);
    const current = new Map<string, { quantity: number; price: number }>(
      cartId === undefined
        ? []
        : (
            db
              .prepare(
                `SELECT l.variant_id, l.quantity, v.price_cents FROM cart_lines l JOIN variants v ON v.id = l.variant_id
        WHERE l.cart_id = ?`,
              )
              .all(cartId) as { variant_id: string; quantity: number; price_cents: number }[]
          ).map((r) => [r.variant_id, { quantity: r.quantity, price: r.price_cents }]),
    );
    // [PUR-IDEM-4] [ERR-TABLE-14] a cart emptied by the order placed first: 422 cart_empty.
    if (cartId === undefined || current.size === 0) {
      throw new ProblemError('cart_empty', {
        detail: 'The cart was emptied while the payment was being taken (another checkout placed its order); the charge was refunded.',
      });
    }
    for (const line of p.charged.lines) {
      const now = current.get(line.variant_id);
      if (!now || now.quantity < line.quantity || now.price !== line.unit_price_cents) {
        // No code says "the cart changed" (see docs/checkout.md): 409, like a stock conflict, means "read again and retry".
        throw new ProblemError('cart_changed', {
          detail: `The cart changed while the payment was being taken (${line.variant_id}); the charge was refunded. Read the cart and check out again.`,
        });
      }
    }
    const decrement = db.prepare('UPDATE variants SET stock = stock - ? WHERE id = ? AND stock >= ?');
    for (const line of p.charged.lines) {
      if (decrement.run(line.quantity, line.variant_id, line.quantity).changes !== 1) {
        throw new ProblemError('insufficient_stock', {
          detail: `${line.variant_id} sold out while the payment was being taken; the charge was refunded.`,
        });
      }
    }

    const at = p.now.toISOString();
    const number = `#${db.prepare(`SELECT COALESCE(MAX(CAST(substr(number, 2) AS INTEGER)), 1000) + 1 FROM orders WHERE number GLOB '#[0-9]*'`).pluck().get() as number}`;
    const status = p.payment.status === 'succeeded' ? 'paid' : 'pending_payment';
    db.prepare(
      `INSERT INTO orders (id, account_sub, number, status, placed_at, currency, subtotal_cents, shipping_cents, tax_cents, total_cents,
        address_id, payment_method_id, updated_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      p.orderId,
      p.accountSub,
      number,
      status,
      at,
      p.charged.currency,
      p.totals.subtotalCents,
      p.totals.shippingCents,
      p.totals.taxCents,
      p.totals.totalCents,
      p.addressId,
      p.paymentMethodId,
      at,
      p.idempotencyKey,
    );
    const orderLine = db.prepare(
      'INSERT INTO order_lines (order_id, variant_id, title, quantity, unit_price_cents) VALUES (?, ?, ?, ?, ?)',
    );
    for (const l of p.charged.lines) orderLine.run(p.orderId, l.variant_id, l.title, l.quantity, l.unit_price_cents);
    db.prepare(
      `INSERT INTO payments (id, order_id, provider, provider_ref, status, amount_cents, refunded_cents, currency, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    ).run(
      newId('pay'),
      p.orderId,
      p.payment.provider,
      p.payment.providerRef,
      p.payment.status,
      p.totals.totalCents,
      p.charged.currency,
      at,
      at,
    );

    // Take the charged quantities out of the cart: a line ordered whole goes, a line grown meanwhile keeps the extra.
    // (A line never reaches quantity 0: the table refuses it, so an exhausted line is deleted instead.)
    const shrink = db.prepare('UPDATE cart_lines SET quantity = quantity - ? WHERE cart_id = ? AND variant_id = ?');
    const drop = db.prepare('DELETE FROM cart_lines WHERE cart_id = ? AND variant_id = ?');
    for (const l of p.charged.lines) {
      if (current.get(l.variant_id)!.quantity === l.quantity) drop.run(cartId, l.variant_id);
      else shrink.run(l.quantity, cartId, l.variant_id);
    }
    db.prepare('UPDATE carts SET updated_at = ? WHERE id = ?').run(at, cartId);

    // [PUR-IDEM-2] the Idempotency-Key is kept for audit only: nothing ever looks an order up by it.
    db.prepare('INSERT INTO audit_log (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)').run(
      at,
      p.audit.actor,
      'order.placed',
      p.orderId,
      JSON.stringify({
        number,
        status,
        total_cents: p.totals.totalCents,
        provider: p.payment.provider,
        payment_status: p.payment.status,
        channel: p.audit.channel,
        idempotency_key: p.idempotencyKey,
      }),
    );
  }).immediate();
}
