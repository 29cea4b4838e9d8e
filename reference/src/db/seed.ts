// Loads fixtures/seed.json (or another seed) in one transaction; rows already present are kept (INSERT OR IGNORE), so a
// restart on a persistent file neither duplicates nor resets data.
import { readFileSync } from 'node:fs';
import { seedSchema, type Seed } from '../../../contract/seed.js';
import type { Db } from './open.js';

export function readSeed(path: string): Seed {
  const parsed = seedSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`seed ${path}: ${first.path.join('.')}: ${first.message}`);
  }
  return parsed.data;
}

export function loadSeed(db: Db, seed: Seed, now: Date): void {
  const at = now.toISOString();
  const ins = (sql: string) => db.prepare(sql);
  const collection = ins('INSERT OR IGNORE INTO collections (id, handle, title, description, position) VALUES (?, ?, ?, ?, ?)');
  const product = ins(
    'INSERT OR IGNORE INTO products (id, handle, title, description, vendor, tags, position, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const productCollection = ins('INSERT OR IGNORE INTO product_collections (product_id, collection_id) VALUES (?, ?)');
  const variant = ins(
    'INSERT OR IGNORE INTO variants (id, product_id, sku, title, price_cents, currency, stock, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const account = ins(
    'INSERT OR IGNORE INTO accounts (sub, email, display_name, state, self_service_eligible, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const address = ins(
    'INSERT OR IGNORE INTO addresses (id, account_sub, name, line1, line2, city, region, postal_code, country, phone, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const pm = ins(
    'INSERT OR IGNORE INTO payment_methods (id, account_sub, brand, last4, exp_month, exp_year, provider_ref, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const order =
    ins(`INSERT OR IGNORE INTO orders (id, account_sub, number, status, placed_at, currency, subtotal_cents, shipping_cents, tax_cents,
    total_cents, address_id, payment_method_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const orderLine = ins(
    'INSERT OR IGNORE INTO order_lines (order_id, variant_id, title, quantity, unit_price_cents) VALUES (?, ?, ?, ?, ?)',
  );
  const cardSetup = ins(
    "INSERT OR IGNORE INTO card_setups (id, account_sub, status, payment_method_id, created_at, updated_at) VALUES (?, ?, 'admitted', NULL, ?, ?)",
  );
  const payment =
    ins(`INSERT OR IGNORE INTO payments (id, order_id, provider, provider_ref, status, amount_cents, refunded_cents, currency, created_at, updated_at)
    VALUES (?, ?, 'simulated', ?, ?, ?, ?, ?, ?, ?)`);
  const recovery = ins(
    'INSERT OR IGNORE INTO recovery_operations (operation_id, subject, purpose, phase, pending_email, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );

  db.transaction(() => {
    const collectionIds = new Map<string, string>();
    seed.collections.forEach((c, i) => {
      collection.run(c.id, c.handle, c.title, c.description, i);
      collectionIds.set(c.handle, c.id);
    });
    const variantTitles = new Map<string, string>();
    seed.products.forEach((p, i) => {
      product.run(p.id, p.handle, p.title, p.description, p.vendor, JSON.stringify(p.tags), i, at);
      for (const h of p.collections) {
        const cid = collectionIds.get(h);
        if (!cid) throw new Error(`seed: product ${p.handle} names unknown collection ${h}`);
        productCollection.run(p.id, cid);
      }
      p.variants.forEach((v, j) => {
        variant.run(v.id, p.id, v.sku, v.title, v.priceCents, v.currency, v.stock, j);
        variantTitles.set(v.id, `${p.title} — ${v.title}`);
      });
    });
    for (const a of seed.accounts) {
      account.run(a.sub, a.email, a.displayName, a.state, a.selfServiceEligible ? 1 : 0, at);
      for (const ad of a.addresses)
        address.run(ad.id, a.sub, ad.name, ad.line1, ad.line2, ad.city, ad.region, ad.postalCode, ad.country, ad.phone, at);
      for (const c of a.paymentMethods) pm.run(c.id, a.sub, c.brand, c.last4, c.expMonth, c.expYear, c.providerRef, at);
      for (const o of a.orders) {
        const subtotal = o.lines.reduce((s, l) => s + l.quantity * l.unitPriceCents, 0);
        order.run(
          o.id,
          a.sub,
          o.number,
          o.status,
          o.placedAt,
          o.currency,
          subtotal,
          o.shippingCents,
          o.taxCents,
          subtotal + o.shippingCents + o.taxCents,
          o.addressId,
          o.paymentMethodId,
          o.placedAt,
        );
        for (const l of o.lines)
          orderLine.run(o.id, l.variantId, variantTitles.get(l.variantId) ?? l.variantId, l.quantity, l.unitPriceCents);
        // Every seeded order has its payment: provider ref `pi_seed_<order id>`, in the state its order implies.
        const total = subtotal + o.shippingCents + o.taxCents;
        const paymentStatus =
          o.status === 'pending_payment'
            ? 'pending'
            : o.status === 'cancelled'
              ? 'failed'
              : o.status === 'refunded'
                ? 'refunded'
                : 'succeeded';
        payment.run(
          `pay_${o.id.slice(4)}`,
          o.id,
          `pi_seed_${o.id}`,
          paymentStatus,
          total,
          o.status === 'refunded' ? total : 0,
          o.currency,
          o.placedAt,
          o.placedAt,
        );
      }
    }
    for (const c of seed.cardSetups) cardSetup.run(c.id, c.accountSub, at, at);
    for (const r of seed.recoveryOperations) recovery.run(r.operationId, r.subject, r.purpose, r.phase, r.pendingEmail, at);
  }).immediate();
}
