// Catalog reads over HTTP against the reference (spec, Endpoints > Conventions and Operations; Errors): paging and filters of
// searchProducts, getProduct, listCollections; weak ETags, `Cache-Control: private, no-cache` and 304s on If-None-Match;
// no validators on errors; which callers may read the catalog.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectCacheControl, expectNoStore, expectProblem, expectWeakEtag } from '../../conformance/lib/assert.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { seedSchema } from '../../contract/seed.js';

type Res = Awaited<ReturnType<Harness['call']>>;
interface Product {
  handle: string;
  collections: string[];
  variants: { id: string; price_cents: number; available_quantity: number; available: boolean }[];
}

const seed = seedSchema.parse(JSON.parse(readFileSync(new URL('../../fixtures/seed.json', import.meta.url), 'utf8')));
const seedHandles = seed.products.map((p) => p.handle);
const inCollection = (c: string) => seed.products.filter((p) => p.collections.includes(c)).map((p) => p.handle);

function expectIssueAt(doc: Record<string, unknown>, fragment: string): void {
  const issues = doc.issues as { path: unknown }[] | undefined;
  assert.ok(Array.isArray(issues) && issues.length > 0, 'issues are listed');
  assert.ok(
    issues.some((i) => String(Array.isArray(i.path) ? i.path.join('.') : i.path).includes(fragment)),
    `an issue whose path mentions ${fragment}: ${JSON.stringify(issues)}`,
  );
}

/** A successful catalog read: 200, JSON, a weak ETag and exactly `Cache-Control: private, no-cache`. Returns the tag. */
function expectCatalogOk(res: Res): string {
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  expectCacheControl(res, ['private', 'no-cache'], { exact: true });
  assert.ok(res.headers.get('x-request-id'));
  return expectWeakEtag(res);
}

describe('catalog over HTTP', () => {
  let h: Harness;
  let auth: Record<string, string>;
  before(async () => {
    h = await startReference();
    auth = bearer(await h.minter.customer({ sub: 'cust_ada' }));
  });
  after(async () => {
    await h.close();
  });
  const get = (path: string, headers: Record<string, string> = auth) => h.call(path, { headers });
  const problem = (res: Res, status: number, error: string, extra: { scope?: string } = {}) => {
    const doc = expectProblem(res, { status, error, docsUrl: h.profile.docsUrl, ...extra });
    expectNoStore(res);
    assert.equal(res.headers.get('etag'), null, `no ETag on a ${status}`);
    return doc;
  };

  async function pageThrough(query: string, limit: number): Promise<{ handles: string[]; pages: number }> {
    const handles: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs = new URLSearchParams(query);
      qs.set('limit', String(limit));
      if (cursor !== null) qs.set('cursor', cursor);
      const res = await get(`/v1/catalog/products?${qs}`);
      expectCatalogOk(res);
      const items = res.body.items as Product[];
      assert.ok(items.length <= limit, `page of at most ${limit}`);
      cursor = res.body.next_cursor as string | null;
      if (cursor !== null) assert.equal(items.length, limit, 'only the last page is short');
      handles.push(...items.map((p) => p.handle));
      pages += 1;
      assert.ok(pages <= 100, 'paging terminates');
    } while (cursor !== null);
    return { handles, pages };
  }

  describe('searchProducts', () => {
    test('paging with limit and next_cursor visits every seeded product exactly once', async () => {
      const { handles, pages } = await pageThrough('', 5);
      assert.equal(handles.length, seed.products.length);
      assert.equal(new Set(handles).size, handles.length, 'no product twice');
      assert.deepEqual([...handles].sort(), [...seedHandles].sort());
      assert.equal(pages, Math.ceil(seed.products.length / 5));
    });

    test('paging is stable: the order is the seed order, whatever the page size', async () => {
      const byThree = await pageThrough('', 3);
      const byTen = await pageThrough('', 10);
      assert.deepEqual(byThree.handles, byTen.handles);
      assert.deepEqual(byTen.handles, seedHandles);
    });

    test('the default page is 20 products with a next_cursor; limit 100 gets them all with next_cursor null', async () => {
      const first = await get('/v1/catalog/products');
      expectCatalogOk(first);
      assert.equal(first.body.items.length, Math.min(20, seed.products.length));
      assert.equal(typeof first.body.next_cursor, seed.products.length > 20 ? 'string' : 'object');
      const all = await get('/v1/catalog/products?limit=100');
      expectCatalogOk(all);
      assert.equal(all.body.items.length, seed.products.length);
      assert.equal(all.body.next_cursor, null);
    });

    test('limit 1 and limit equal to the product count (bounds)', async () => {
      const one = await get('/v1/catalog/products?limit=1');
      expectCatalogOk(one);
      assert.equal(one.body.items.length, 1);
      assert.equal(one.body.items[0].handle, seedHandles[0]);
      const exact = await get(`/v1/catalog/products?limit=${seed.products.length}`);
      expectCatalogOk(exact);
      assert.equal(exact.body.items.length, seed.products.length);
      assert.equal(exact.body.next_cursor, null, 'no empty trailing page');
    });

    test('q finds a known product, case-insensitively, by title, tag and vendor words', async () => {
      for (const q of ['skillet', 'SKILLET', 'Cast Iron']) {
        const res = await get(`/v1/catalog/products?q=${encodeURIComponent(q)}`);
        expectCatalogOk(res);
        assert.ok(
          (res.body.items as Product[]).some((p) => p.handle === 'cast-iron-skillet'),
          `q=${q}: ${res.text.slice(0, 200)}`,
        );
      }
      const jacket = await get('/v1/catalog/products?q=waxed%20canvas');
      expectCatalogOk(jacket);
      assert.deepEqual(
        (jacket.body.items as Product[]).map((p) => p.handle),
        ['waxed-canvas-field-jacket'],
      );
      const merino = await get('/v1/catalog/products?q=merino');
      assert.ok((merino.body.items as Product[]).some((p) => p.handle === 'merino-crew-sweater'));
      const vendor = await get(`/v1/catalog/products?q=${encodeURIComponent('Northwind')}`);
      assert.ok((vendor.body.items as Product[]).some((p) => p.handle === 'organic-cotton-tee'));
    });

    test('q matching nothing is an empty page with next_cursor null', async () => {
      const res = await get(`/v1/catalog/products?q=${randomUUID()}`);
      expectCatalogOk(res);
      assert.deepEqual(res.body.items, []);
      assert.equal(res.body.next_cursor, null);
    });

    test('q wildcard characters are literal', async () => {
      for (const q of ['%', '_']) {
        const res = await get(`/v1/catalog/products?q=${encodeURIComponent(q)}`);
        expectCatalogOk(res);
        assert.ok(res.body.items.length < seed.products.length, `q=${q} is not a wildcard`);
      }
    });

    test("collection filters to the collection's products, also across pages", async () => {
      for (const c of seed.collections.map((x) => x.handle)) {
        const res = await get(`/v1/catalog/products?collection=${c}&limit=100`);
        expectCatalogOk(res);
        const handles = (res.body.items as Product[]).map((p) => p.handle);
        assert.deepEqual([...handles].sort(), inCollection(c).sort(), `collection ${c}`);
        for (const p of res.body.items as Product[]) assert.ok(p.collections.includes(c));
      }
      const paged = await pageThrough('collection=home', 2);
      assert.deepEqual([...paged.handles].sort(), inCollection('home').sort());
    });

    test('collection and q combine', async () => {
      const res = await get('/v1/catalog/products?collection=outdoor&q=skillet');
      expectCatalogOk(res);
      assert.deepEqual(
        (res.body.items as Product[]).map((p) => p.handle),
        ['cast-iron-skillet'],
      );
      const none = await get('/v1/catalog/products?collection=accessories&q=skillet');
      expectCatalogOk(none);
      assert.deepEqual(none.body.items, []);
    });

    test('an unknown (well-formed) collection is an empty page', async () => {
      const res = await get('/v1/catalog/products?collection=no-such-collection');
      expectCatalogOk(res);
      assert.deepEqual(res.body.items, []);
    });

    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      test(`limit=${JSON.stringify(limit)} is 400 invalid_request with an issue at limit`, async () => {
        expectIssueAt(problem(await get(`/v1/catalog/products?limit=${encodeURIComponent(limit)}`), 400, 'invalid_request'), 'limit');
      });
    }

    for (const cursor of ['bogus', 'AAAA', Buffer.from('o:abc').toString('base64url'), '!!!', 'x'.repeat(65)]) {
      test(`cursor ${JSON.stringify(cursor.length > 20 ? cursor.slice(0, 8) + '…' : cursor)} is 400 invalid_request with an issue at cursor`, async () => {
        expectIssueAt(problem(await get(`/v1/catalog/products?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request'), 'cursor');
      });
    }

    test('a malformed collection handle is 400 invalid_request', async () => {
      expectIssueAt(problem(await get('/v1/catalog/products?collection=Bad_Handle!'), 400, 'invalid_request'), 'collection');
    });
  });

  describe('getProduct', () => {
    test('a known handle answers 200 with its variants', async () => {
      const res = await get('/v1/catalog/products/waxed-canvas-field-jacket');
      expectCatalogOk(res);
      const p = res.body as Product;
      assert.equal(p.handle, 'waxed-canvas-field-jacket');
      const seeded = seed.products.find((x) => x.handle === 'waxed-canvas-field-jacket')!;
      assert.deepEqual(
        p.variants.map((v) => v.id),
        seeded.variants.map((v) => v.id),
      );
      const v302 = p.variants.find((v) => v.id === 'var_0302');
      assert.ok(v302);
      assert.equal(v302.available_quantity, 3);
      assert.equal(v302.available, true);
      assert.equal(v302.price_cents, seeded.variants.find((v) => v.id === 'var_0302')!.priceCents);
      assert.deepEqual([...p.collections].sort(), [...seeded.collections].sort());
    });

    test('an out-of-stock variant is listed as not available', async () => {
      const res = await get('/v1/catalog/products/organic-cotton-tee');
      expectCatalogOk(res);
      const v = (res.body as Product).variants.find((x) => x.id === 'var_0104');
      assert.ok(v);
      assert.equal(v.available, false);
      assert.equal(v.available_quantity, 0);
    });

    test('every product of the listing can be read by its handle, with the same record', async () => {
      const all = await get('/v1/catalog/products?limit=100');
      for (const listed of all.body.items as Product[]) {
        const one = await get(`/v1/catalog/products/${listed.handle}`);
        expectCatalogOk(one);
        assert.deepEqual(one.body, listed);
      }
    });

    test('an unknown handle is 404 not_found (no-store, no ETag)', async () => {
      problem(await get('/v1/catalog/products/no-such-product'), 404, 'not_found');
    });

    test('a malformed handle (Bad_Handle!) is 400 invalid_request', async () => {
      expectIssueAt(problem(await get('/v1/catalog/products/Bad_Handle!'), 400, 'invalid_request'), 'handle');
      problem(await get('/v1/catalog/products/UPPER'), 400, 'invalid_request');
      problem(await get(`/v1/catalog/products/${'a'.repeat(121)}`), 400, 'invalid_request');
    });
  });

  describe('listCollections', () => {
    test('lists every seeded collection with its product count', async () => {
      const res = await get('/v1/catalog/collections');
      expectCatalogOk(res);
      const items = res.body.items as { handle: string; product_count: number }[];
      assert.deepEqual(
        items.map((c) => c.handle),
        seed.collections.map((c) => c.handle),
      );
      for (const c of items) assert.equal(c.product_count, inCollection(c.handle).length, `product_count of ${c.handle}`);
    });
  });

  describe('validators: weak ETag and If-None-Match', () => {
    const reads = ['/v1/catalog/products?limit=3', '/v1/catalog/products/waxed-canvas-field-jacket', '/v1/catalog/collections'];

    for (const path of reads) {
      describe(path, () => {
        let etag: string;
        before(async () => {
          const res = await get(path);
          etag = expectCatalogOk(res);
        });

        test('the ETag is weak and stable across requests', async () => {
          assert.match(etag, /^W\/"/);
          const again = await get(path);
          assert.equal(expectCatalogOk(again), etag);
        });

        const expect304 = async (ifNoneMatch: string) => {
          const res = await get(path, { ...auth, 'if-none-match': ifNoneMatch });
          assert.equal(res.status, 304, `If-None-Match ${ifNoneMatch}: ${res.status} ${res.text.slice(0, 200)}`);
          assert.equal(res.text, '', 'a 304 has no body');
          assert.equal(res.headers.get('etag'), etag, 'a 304 repeats the ETag');
          expectCacheControl(res, ['private', 'no-cache'], { exact: true });
          assert.ok(res.headers.get('x-request-id'));
        };

        test('the same tag is 304 with no body', async () => {
          await expect304(etag);
        });
        test('the tag listed among others is 304', async () => {
          await expect304(`W/"nope-1", ${etag}, "nope-2"`);
          await expect304(`W/"nope-1",${etag}`);
        });
        test('the tag in strong form is 304 (weak comparison)', async () => {
          await expect304(etag.replace(/^W\//, ''));
        });
        test('* is 304', async () => {
          await expect304('*');
        });
        test('a different tag is 200 with the body', async () => {
          for (const other of ['W/"something-else"', '"something-else"', `W/"${etag.slice(3, -1)}x"`]) {
            const res = await get(path, { ...auth, 'if-none-match': other });
            assert.equal(expectCatalogOk(res), etag);
            assert.ok(res.text.length > 0);
          }
        });
      });
    }

    test('different representations have different tags', async () => {
      const tags = new Set<string>();
      for (const path of [...reads, '/v1/catalog/products?limit=4', '/v1/catalog/products/organic-cotton-tee'])
        tags.add(expectCatalogOk(await get(path)));
      assert.equal(tags.size, 5);
    });

    test('the tag of one representation does not validate another', async () => {
      const tag = expectCatalogOk(await get('/v1/catalog/products/organic-cotton-tee'));
      const other = await get('/v1/catalog/products/waxed-canvas-field-jacket', { ...auth, 'if-none-match': tag });
      expectCatalogOk(other);
    });

    test('a page answered from what was rendered of an unchanged catalog changes, tag and all, when the catalog does', async () => {
      const path = '/v1/catalog/products?limit=2';
      const first = await get(path);
      const tag = expectCatalogOk(first);
      const again = await get(path);
      assert.equal(again.text, first.text);
      assert.equal(expectCatalogOk(again), tag);
      const [product] = first.body.items as Product[];
      const variant = product!.variants[0]!;
      h.db.prepare('UPDATE variants SET stock = stock + 1 WHERE id = ?').run(variant.id);
      try {
        const changed = await get(path, { ...auth, 'if-none-match': tag });
        assert.notEqual(expectCatalogOk(changed), tag);
        const read = (changed.body.items as Product[])[0]!.variants.find((v) => v.id === variant.id)!;
        assert.equal(read.available_quantity, variant.available_quantity + 1);
        assert.equal(changed.body.next_cursor, first.body.next_cursor, 'the same page, the same cursor');
      } finally {
        h.db.prepare('UPDATE variants SET stock = stock - 1 WHERE id = ?').run(variant.id);
      }
    });

    test("the ETag does not depend on the caller: a guest revalidates a customer's tag", async () => {
      const tag = expectCatalogOk(await get('/v1/catalog/collections'));
      const guest = await get('/v1/catalog/collections', { ...bearer(await h.minter.guest()), 'if-none-match': tag });
      assert.equal(guest.status, 304);
    });

    test('errors on catalog routes carry Cache-Control: no-store and no ETag, even with If-None-Match', async () => {
      for (const inm of [undefined, '*']) {
        const headers = inm ? { ...auth, 'if-none-match': inm } : auth;
        problem(await get('/v1/catalog/products/no-such-product', headers), 404, 'not_found');
        problem(await get('/v1/catalog/products?limit=0', headers), 400, 'invalid_request');
        problem(await get('/v1/catalog/products/Bad_Handle!', headers), 400, 'invalid_request');
        problem(await h.call('/v1/catalog/collections', { headers: inm ? { 'if-none-match': inm } : {} }), 401, 'invalid_token');
        problem(
          await get('/v1/catalog/collections', {
            ...bearer(await h.minter.operator()),
            operator: 'op_test',
            ...(inm ? { 'if-none-match': inm } : {}),
          }),
          403,
          'caller_not_allowed',
        );
      }
    });
  });

  describe('callers', () => {
    const paths = ['/v1/catalog/products?limit=2', '/v1/catalog/products/waxed-canvas-field-jacket', '/v1/catalog/collections'];

    test('a customer, a guest (with or without session), and delegated callers (openapi, mcp) can all read the catalog', async () => {
      const callers: [string, Record<string, string>][] = [
        ['customer', bearer(await h.minter.customer({ sub: `cust_test_${randomUUID()}` }))],
        ['guest', bearer(await h.minter.guest())],
        ['guest with session', { ...bearer(await h.minter.guest()), 'guest-session': newGuestSession(h.profile.secrets.guestSessionKey) }],
        ['guest with Shopper-IP', { ...bearer(await h.minter.guest()), 'shopper-ip': '203.0.113.5' }],
        ['delegated openapi', bearer(await h.minter.delegated({ sub: 'cust_ben', channel: 'openapi' }))],
        ['delegated mcp', bearer(await h.minter.delegated({ sub: 'cust_ben', channel: 'mcp' }))],
      ];
      const bodies = new Map<string, string>();
      for (const [who, headers] of callers) {
        for (const path of paths) {
          const res = await get(path, headers);
          assert.equal(res.status, 200, `${who} ${path}: ${res.text}`);
          expectCatalogOk(res);
          const seen = bodies.get(path);
          if (seen === undefined) bodies.set(path, res.text);
          else assert.equal(res.text, seen, `${who} sees the same catalog`);
        }
      }
    });

    test('an operator gets 403 caller_not_allowed', async () => {
      const headers = { ...bearer(await h.minter.operator()), operator: 'op_test' };
      for (const path of paths) problem(await get(path, headers), 403, 'caller_not_allowed');
    });

    test('a guest token with scope cart:read only gets 403 insufficient_scope (scope catalog:read)', async () => {
      const headers = bearer(await h.minter.guest({ scope: 'cart:read' }));
      for (const path of paths) problem(await get(path, headers), 403, 'insufficient_scope', { scope: 'catalog:read' });
    });

    test('a customer token without catalog:read gets 403 insufficient_scope (scope catalog:read)', async () => {
      const headers = bearer(await h.minter.customer({ sub: `cust_test_${randomUUID()}`, scope: 'cart:read cart:write' }));
      for (const path of paths) problem(await get(path, headers), 403, 'insufficient_scope', { scope: 'catalog:read' });
    });

    test('no token is 401 invalid_token; an ended account is 401 account_access_ended', async () => {
      problem(await h.call('/v1/catalog/products'), 401, 'invalid_token');
      problem(await get('/v1/catalog/products', bearer(await h.minter.customer({ sub: 'cust_deleted' }))), 401, 'account_access_ended');
    });
  });
});
