import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startReference } from '../helpers/reference.js';

test('customer token reaches /v1/me and the cart', async () => {
  const h = await startReference();
  try {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const me = await h.call('/v1/me', { headers: bearer(token) });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.caller_kind, 'customer');
    const add = await h.call('/v1/cart/items', { method: 'POST', headers: bearer(token), json: { variant_id: 'var_0101', quantity: 2 } });
    assert.equal(add.status, 201, add.text);
    const guest = await h.minter.guest();
    const g = await h.call('/v1/cart', { headers: bearer(guest) });
    assert.equal(g.status, 200, g.text);
    assert.deepEqual(g.body.lines, []);
    const p = await h.call('/v1/catalog/products?limit=2', { headers: bearer(guest) });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.items.length, 2);
    const etag = p.headers.get('etag')!;
    const p2 = await h.call('/v1/catalog/products?limit=2', { headers: { ...bearer(guest), 'if-none-match': etag } });
    assert.equal(p2.status, 304);
  } finally {
    await h.close();
  }
});
