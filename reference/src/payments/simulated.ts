// The simulated payment provider: offline and deterministic. A card reference containing `decline` is declined, one
// containing `async` stays pending until the payment webhook settles it; every other card is charged at once.
// Given the database, it keeps its books there (tables simulated_charges, simulated_refunds, each write committed on its
// own as a remote provider's would be), so a charge outlives a crash of the service and findCharge can report it.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open.js';
import type { ChargeResult, PaymentProvider } from './port.js';

const id = (prefix: string) => `${prefix}_sim_${randomBytes(12).toString('hex')}`;

interface Books {
  chargeOf(orderId: string): ChargeResult | undefined;
  recordCharge(orderId: string, amountCents: number, result: ChargeResult): ChargeResult;
  refundOf(key: string): string | undefined;
  recordRefund(chargeRef: string, amountCents: number, key: string | undefined): string;
}

function memoryBooks(): Books {
  const charges = new Map<string, ChargeResult>();
  const refunds = new Map<string, string>();
  return {
    chargeOf: (orderId) => charges.get(orderId),
    recordCharge: (orderId, _amount, result) => (charges.set(orderId, result), result),
    refundOf: (key) => refunds.get(key),
    recordRefund: (_ref, _amount, key) => {
      const ref = id('re');
      if (key !== undefined) refunds.set(key, ref);
      return ref;
    },
  };
}

function databaseBooks(db: Db): Books {
  return {
    chargeOf(orderId) {
      const row = db.prepare('SELECT id, status FROM simulated_charges WHERE order_id = ?').get(orderId) as
        { id: string; status: ChargeResult['status'] } | undefined;
      return row && { status: row.status, providerRef: row.id, ...(row.status === 'failed' ? { declineCode: 'card_declined' } : {}) };
    },
    recordCharge(orderId, amountCents, result) {
      // INSERT OR IGNORE and read back: the first charge of an order id wins, as with a provider's idempotency key.
      db.prepare('INSERT OR IGNORE INTO simulated_charges (id, order_id, status, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)').run(
        result.providerRef,
        orderId,
        result.status,
        amountCents,
        new Date().toISOString(),
      );
      return this.chargeOf(orderId)!;
    },
    refundOf(key) {
      return db.prepare('SELECT id FROM simulated_refunds WHERE idempotency_key = ?').pluck().get(key) as string | undefined;
    },
    recordRefund(chargeRef, amountCents, key) {
      const ref = id('re');
      db.transaction(() => {
        db.prepare('INSERT INTO simulated_refunds (id, charge_id, idempotency_key, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)').run(
          ref,
          chargeRef,
          key ?? null,
          amountCents,
          new Date().toISOString(),
        );
        db.prepare('UPDATE simulated_charges SET refunded_cents = refunded_cents + ? WHERE id = ?').run(amountCents, chargeRef);
      }).immediate();
      return ref;
    },
  };
}

export function createSimulatedProvider(db?: Db): PaymentProvider {
  const books = db ? databaseBooks(db) : memoryBooks();
  return {
    name: 'simulated',
    async charge(r) {
      const earlier = books.chargeOf(r.orderId);
      if (earlier) return earlier;
      if (r.paymentMethodRef.includes('decline'))
        return books.recordCharge(r.orderId, r.amountCents, { status: 'failed', providerRef: id('pi'), declineCode: 'card_declined' });
      if (r.paymentMethodRef.includes('async'))
        return books.recordCharge(r.orderId, r.amountCents, { status: 'pending', providerRef: id('pi') });
      return books.recordCharge(r.orderId, r.amountCents, { status: 'succeeded', providerRef: id('pi') });
    },
    async findCharge(orderId) {
      return books.chargeOf(orderId);
    },
    async refund(ref, amountCents, o = {}) {
      const earlier = o.idempotencyKey === undefined ? undefined : books.refundOf(o.idempotencyKey);
      return { status: 'succeeded', providerRef: earlier ?? books.recordRefund(ref, amountCents, o.idempotencyKey) };
    },
  };
}
