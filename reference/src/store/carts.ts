// Carts: one per owner (`guest:<uuid>` or `account:<sub>`). Writes run in one transaction each.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../db/open.js';
import type { cartSchema } from '../schemas/cart.js';

export type Cart = z.infer<typeof cartSchema>;
const STORE_CURRENCY = 'USD';

export function emptyCart(id: string | null): Cart {
  return { id, lines: [], item_count: 0, currency: STORE_CURRENCY, subtotal_cents: 0 };
}

export function findCartId(db: Db, owner: string): string | undefined {
  return (db.prepare('SELECT id FROM carts WHERE owner = ?').pluck().get(owner) as string | undefined) ?? undefined;
}

/** The cart of an owner, created on first write. A guest cart's id is the uuid of its session. */
export function ensureCart(db: Db, owner: string, now: Date): string {
  const found = findCartId(db, owner);
  if (found) return found;
  // [AUTH-GUEST-16] [AUTH-GUEST-17] a guest cart is the one of its session (its id is the session uuid).
  const id = owner.startsWith('guest:') ? owner.slice('guest:'.length) : randomUUID();
  db.prepare('INSERT INTO carts (id, owner, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
    id,
    owner,
    now.toISOString(),
    now.toISOString(),
  );
  return id;
}

export function readCart(db: Db, owner: string | null): Cart {
  // [AUTH-GUEST-3] a guest cart read without a session sees an empty cart.
  if (owner === null) return emptyCart(null);
  const id = findCartId(db, owner);
  if (!id) return emptyCart(owner.startsWith('guest:') ? owner.slice('guest:'.length) : null);
  const lines = db
    .prepare(
      `SELECT l.variant_id, p.handle AS product_handle, p.title || ' — ' || v.title AS title, l.quantity,
      v.price_cents AS unit_price_cents, v.price_cents * l.quantity AS line_total_cents
    FROM cart_lines l JOIN variants v ON v.id = l.variant_id JOIN products p ON p.id = v.product_id
    WHERE l.cart_id = ? ORDER BY l.added_at, l.variant_id`,
    )
    .all(id) as Cart['lines'];
  return {
    id,
    lines,
    item_count: lines.reduce((n, l) => n + l.quantity, 0),
    currency: STORE_CURRENCY,
    subtotal_cents: lines.reduce((n, l) => n + l.line_total_cents, 0),
  };
}

export function lineQuantity(db: Db, cartId: string, variantId: string): number | undefined {
  return (
    (db.prepare('SELECT quantity FROM cart_lines WHERE cart_id = ? AND variant_id = ?').pluck().get(cartId, variantId) as
      number | undefined) ?? undefined
  );
}

export function setLine(db: Db, cartId: string, variantId: string, quantity: number, now: Date): void {
  db.prepare(
    `INSERT INTO cart_lines (cart_id, variant_id, quantity, added_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (cart_id, variant_id) DO UPDATE SET quantity = excluded.quantity`,
  ).run(cartId, variantId, quantity, now.toISOString());
  db.prepare('UPDATE carts SET updated_at = ? WHERE id = ?').run(now.toISOString(), cartId);
}

export function deleteLine(db: Db, cartId: string, variantId: string, now: Date): boolean {
  const gone = db.prepare('DELETE FROM cart_lines WHERE cart_id = ? AND variant_id = ?').run(cartId, variantId).changes > 0;
  if (gone) db.prepare('UPDATE carts SET updated_at = ? WHERE id = ?').run(now.toISOString(), cartId);
  return gone;
}
