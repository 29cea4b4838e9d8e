// Catalog reads from SQLite, mapped to the published record shapes.
import type { z } from 'zod';
import type { Db } from '../db/open.js';
import { keptRead } from './kept-reads.js';
import type { collectionSchema, productSchema } from '../schemas/catalog.js';

type Product = z.infer<typeof productSchema>;
type Collection = z.infer<typeof collectionSchema>;

interface ProductRow {
  id: string;
  handle: string;
  title: string;
  description: string;
  vendor: string;
  tags: string;
}
interface VariantRow {
  id: string;
  product_id: string;
  sku: string;
  title: string;
  price_cents: number;
  currency: string;
  stock: number;
}

function hydrate(db: Db, rows: ProductRow[]): Product[] {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const marks = ids.map(() => '?').join(',');
  const variants = db
    .prepare(
      `SELECT id, product_id, sku, title, price_cents, currency, stock FROM variants WHERE product_id IN (${marks}) ORDER BY position`,
    )
    .all(...ids) as VariantRow[];
  const cols = db
    .prepare(
      `SELECT pc.product_id, c.handle FROM product_collections pc JOIN collections c ON c.id = pc.collection_id
    WHERE pc.product_id IN (${marks}) ORDER BY c.position`,
    )
    .all(...ids) as { product_id: string; handle: string }[];
  return rows.map((r) => ({
    id: r.id,
    handle: r.handle,
    title: r.title,
    description: r.description,
    vendor: r.vendor,
    tags: JSON.parse(r.tags) as string[],
    collections: cols.filter((c) => c.product_id === r.id).map((c) => c.handle),
    variants: variants
      .filter((v) => v.product_id === r.id)
      .map((v) => ({
        id: v.id,
        sku: v.sku,
        title: v.title,
        price_cents: v.price_cents,
        currency: v.currency,
        available_quantity: v.stock,
        available: v.stock > 0,
      })),
  }));
}

// Catalog reads are most of a store's traffic and change rarely: kept while the catalog is unchanged (store/kept-reads.ts).
export function searchProducts(
  db: Db,
  q: { text?: string; collection?: string; offset: number; limit: number },
): { items: Product[]; more: boolean } {
  return keptRead(db, 'catalog', `search\0${q.text ?? ''}\0${q.collection ?? ''}\0${q.offset}\0${q.limit}`, () => readProducts(db, q));
}

function readProducts(
  db: Db,
  q: { text?: string; collection?: string; offset: number; limit: number },
): { items: Product[]; more: boolean } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.collection) {
    where.push(
      'p.id IN (SELECT pc.product_id FROM product_collections pc JOIN collections c ON c.id = pc.collection_id WHERE c.handle = ?)',
    );
    args.push(q.collection);
  }
  for (const word of (q.text ?? '').toLowerCase().split(/\s+/).filter(Boolean).slice(0, 10)) {
    // LIKE with ESCAPE: a shopper's `%` or `_` is a literal character.
    const like = `%${word.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    where.push(
      `(lower(p.title) LIKE ? ESCAPE '\\' OR lower(p.description) LIKE ? ESCAPE '\\' OR lower(p.vendor) LIKE ? ESCAPE '\\' OR lower(p.tags) LIKE ? ESCAPE '\\')`,
    );
    args.push(like, like, like, like);
  }
  const sql = `SELECT p.id, p.handle, p.title, p.description, p.vendor, p.tags FROM products p
    ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY p.position, p.id LIMIT ? OFFSET ?`;
  const rows = db.prepare(sql).all(...args, q.limit + 1, q.offset) as ProductRow[];
  return { items: hydrate(db, rows.slice(0, q.limit)), more: rows.length > q.limit };
}

export function getProductByHandle(db: Db, handle: string): Product | undefined {
  return keptRead(db, 'catalog', `product\0${handle}`, () => readProduct(db, handle));
}

function readProduct(db: Db, handle: string): Product | undefined {
  const row = db.prepare('SELECT id, handle, title, description, vendor, tags FROM products WHERE handle = ?').get(handle) as
    ProductRow | undefined;
  return row ? hydrate(db, [row])[0] : undefined;
}

export function listCollections(db: Db): Collection[] {
  return db
    .prepare(
      `SELECT c.id, c.handle, c.title, c.description, (SELECT count(*) FROM product_collections pc WHERE pc.collection_id = c.id) AS product_count
    FROM collections c ORDER BY c.position, c.id`,
    )
    .all() as Collection[];
}

export interface VariantInfo {
  id: string;
  stock: number;
  price_cents: number;
  currency: string;
  product_handle: string;
  title: string;
}

export function findVariant(db: Db, id: string): VariantInfo | undefined {
  return db
    .prepare(
      `SELECT v.id, v.stock, v.price_cents, v.currency, p.handle AS product_handle, p.title || ' — ' || v.title AS title
    FROM variants v JOIN products p ON p.id = v.product_id WHERE v.id = ?`,
    )
    .get(id) as VariantInfo | undefined;
}
