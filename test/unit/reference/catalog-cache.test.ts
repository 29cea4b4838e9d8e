// Catalog reads are kept until the catalog changes: a write on the same connection, a commit by another connection
// (another process sharing the file); writes to other tables keep them; never a read inside a transaction that may roll
// back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../reference/src/db/open.js';
import { loadSeed, readSeed } from '../../../reference/src/db/seed.js';
import { getProductByHandle, searchProducts } from '../../../reference/src/store/catalog.js';
import { FIXTURE_SEED } from '../../../reference/src/paths.js';

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-cache-'));
  const file = join(dir, 'shop.db');
  const a = openDatabase(file);
  loadSeed(a, readSeed(FIXTURE_SEED), new Date());
  const b = openDatabase(file);
  const product = a.prepare('SELECT p.handle, v.id AS variant FROM products p JOIN variants v ON v.product_id = p.id LIMIT 1').get() as {
    handle: string;
    variant: string;
  };
  return { a, b, ...product, close: () => (a.close(), b.close(), rmSync(dir, { recursive: true, force: true })) };
}

const stockOf = (p: ReturnType<typeof getProductByHandle>, variant: string) =>
  p!.variants.find((v) => v.id === variant)!.available_quantity;

test('a repeated read is the same frozen object until a write on the same connection', () => {
  const { a, handle, variant, close } = twoConnections();
  try {
    const first = getProductByHandle(a, handle);
    assert.equal(getProductByHandle(a, handle), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first!.variants[0]));
    a.prepare('UPDATE variants SET stock = 7 WHERE id = ?').run(variant);
    assert.equal(stockOf(getProductByHandle(a, handle), variant), 7);
  } finally {
    close();
  }
});

test("another connection's commit is seen by the next read", () => {
  const { a, b, handle, variant, close } = twoConnections();
  try {
    const before = searchProducts(a, { offset: 0, limit: 50 });
    getProductByHandle(a, handle);
    b.prepare('UPDATE variants SET stock = 3 WHERE id = ?').run(variant);
    assert.equal(stockOf(getProductByHandle(a, handle), variant), 3);
    assert.notEqual(searchProducts(a, { offset: 0, limit: 50 }), before);
  } finally {
    close();
  }
});

test('a read inside a transaction that rolls back is not kept', () => {
  const { a, handle, variant, close } = twoConnections();
  try {
    const stock = stockOf(getProductByHandle(a, handle), variant);
    assert.throws(() =>
      a.transaction(() => {
        a.prepare('UPDATE variants SET stock = 99 WHERE id = ?').run(variant);
        assert.equal(stockOf(getProductByHandle(a, handle), variant), 99);
        throw new Error('roll back');
      })(),
    );
    assert.equal(stockOf(getProductByHandle(a, handle), variant), stock);
  } finally {
    close();
  }
});

test('an in-memory database (no other connection) sees its own writes', () => {
  const db = openDatabase(':memory:');
  try {
    loadSeed(db, readSeed(FIXTURE_SEED), new Date());
    const { handle, variant } = db
      .prepare('SELECT p.handle, v.id AS variant FROM products p JOIN variants v ON v.product_id = p.id LIMIT 1')
      .get() as { handle: string; variant: string };
    const first = getProductByHandle(db, handle);
    assert.equal(getProductByHandle(db, handle), first);
    db.prepare('UPDATE variants SET stock = 5 WHERE id = ?').run(variant);
    assert.equal(stockOf(getProductByHandle(db, handle), variant), 5);
  } finally {
    db.close();
  }
});

test('writes outside the catalog (an audit line, a cart) keep the kept reads', () => {
  const { a, handle, close } = twoConnections();
  try {
    const first = getProductByHandle(a, handle);
    a.prepare("INSERT INTO audit_log (at, actor, action) VALUES ('2026-01-01T00:00:00Z', 'test', 'noted')").run();
    assert.equal(getProductByHandle(a, handle), first);
  } finally {
    close();
  }
});
