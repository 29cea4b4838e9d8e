// The cart over HTTP against the reference (spec, Endpoints > Conventions and Operations; Request processing order; Errors;
// Limits): add, update, remove; validation; stock; body decoding and size before authentication; the account cart of customers
// and delegated callers; caller kinds and scopes; response headers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectChallenge, expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { seedSchema } from '../../contract/seed.js';
import { LIMITS } from '../../contract/limits.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';

type Res = Awaited<ReturnType<Harness['call']>>;
interface Line {
  variant_id: string;
  quantity: number;
  unit_price_cents: number;
  line_total_cents: number;
}

const seed = seedSchema.parse(JSON.parse(readFileSync(new URL('../../fixtures/seed.json', import.meta.url), 'utf8')));
const variants = new Map(seed.products.flatMap((p) => p.variants.map((v) => [v.id, { ...v, handle: p.handle }] as const)));
const price = (id: string) => {
  const v = variants.get(id);
  assert.ok(v, `seed variant ${id}`);
  return v.priceCents;
};
const stock = (id: string) => variants.get(id)!.stock;

const freshSub = () => `cust_test_${randomUUID()}`;

function expectIssueAt(doc: Record<string, unknown>, fragment: string): void {
  const issues = doc.issues as { path: unknown }[] | undefined;
  assert.ok(Array.isArray(issues) && issues.length > 0, 'issues are listed');
  assert.ok(
    issues.some((i) => String(Array.isArray(i.path) ? i.path.join('.') : i.path).includes(fragment)),
    `an issue whose path mentions ${fragment}: ${JSON.stringify(issues)}`,
  );
}

function lineOf(res: Res, variantId: string): Line | undefined {
  return (res.body.lines as Line[]).find((l) => l.variant_id === variantId);
}

/** The cart body is consistent: totals are the sums of its lines, each line total is price × quantity (seed prices). */
function expectConsistentCart(res: Res): void {
  const lines = res.body.lines as Line[];
  assert.ok(Array.isArray(lines));
  for (const l of lines) {
    assert.equal(l.unit_price_cents, price(l.variant_id), `unit price of ${l.variant_id}`);
    assert.equal(l.line_total_cents, l.unit_price_cents * l.quantity, `line total of ${l.variant_id}`);
  }
  assert.equal(
    res.body.item_count,
    lines.reduce((n, l) => n + l.quantity, 0),
  );
  assert.equal(
    res.body.subtotal_cents,
    lines.reduce((n, l) => n + l.line_total_cents, 0),
  );
}

describe('cart over HTTP', () => {
  let h: Harness;
  before(async () => {
    h = await startReference();
  });
  after(async () => {
    await h.close();
  });

  const customer = async (sub = freshSub(), scope?: string | string[]) =>
    bearer(await h.minter.customer({ sub, ...(scope !== undefined ? { scope } : {}) }));
  const add = (headers: Record<string, string>, body: unknown) => h.call('/v1/cart/items', { method: 'POST', headers, json: body });
  const update = (headers: Record<string, string>, variantId: string, body: unknown) =>
    h.call(`/v1/cart/items/${variantId}`, { method: 'PATCH', headers, json: body });
  const remove = (headers: Record<string, string>, variantId: string) =>
    h.call(`/v1/cart/items/${variantId}`, { method: 'DELETE', headers });
  const read = (headers: Record<string, string>) => h.call('/v1/cart', { headers });
  const problem = (res: Res, status: number, error: string, extra: { scope?: string } = {}) => {
    const doc = expectProblem(res, { status, error, docsUrl: h.profile.docsUrl, ...extra });
    expectNoStore(res);
    return doc;
  };

  describe('add, update, remove', () => {
    test("a new customer's cart is empty", async () => {
      const res = await read(await customer());
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.lines, []);
      assert.equal(res.body.item_count, 0);
      assert.equal(res.body.subtotal_cents, 0);
      expectNoStore(res);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    });

    test('add answers 201 with the cart holding the line; totals are price × quantity', async () => {
      const auth = await customer();
      const res = await add(auth, { variant_id: 'var_0201', quantity: 2 });
      assert.equal(res.status, 201, res.text);
      expectNoStore(res);
      assert.equal(res.body.lines.length, 1);
      const line = lineOf(res, 'var_0201');
      assert.ok(line);
      assert.equal(line.quantity, 2);
      assert.equal(line.unit_price_cents, price('var_0201'));
      assert.equal(line.line_total_cents, price('var_0201') * 2);
      assert.equal(res.body.item_count, 2);
      assert.equal(res.body.subtotal_cents, price('var_0201') * 2);
      expectConsistentCart(res);
      // What GET returns is what the add answered.
      const again = await read(auth);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, res.body);
    });

    test('adding the same variant again accumulates; another variant adds a line', async () => {
      const auth = await customer();
      assert.equal((await add(auth, { variant_id: 'var_0101', quantity: 2 })).status, 201);
      const second = await add(auth, { variant_id: 'var_0101', quantity: 3 });
      assert.equal(second.status, 201, second.text);
      assert.equal(second.body.lines.length, 1);
      assert.equal(lineOf(second, 'var_0101')?.quantity, 5);
      const third = await add(auth, { variant_id: 'var_1201', quantity: 1 });
      assert.equal(third.status, 201, third.text);
      assert.equal(third.body.lines.length, 2);
      assert.equal(third.body.item_count, 6);
      assert.equal(third.body.subtotal_cents, price('var_0101') * 5 + price('var_1201'));
      expectConsistentCart(third);
    });

    test("quantity defaults to 1 when omitted (reference's choice)", async () => {
      const res = await add(await customer(), { variant_id: 'var_0801' });
      assert.equal(res.status, 201, res.text);
      assert.equal(lineOf(res, 'var_0801')?.quantity, 1);
    });

    test('update sets the quantity (200); remove answers 204 with an empty body; remove again is 404', async () => {
      const auth = await customer();
      assert.equal((await add(auth, { variant_id: 'var_0401', quantity: 1 })).status, 201);
      assert.equal((await add(auth, { variant_id: 'var_0501', quantity: 1 })).status, 201);

      const up = await update(auth, 'var_0401', { quantity: 4 });
      assert.equal(up.status, 200, up.text);
      expectNoStore(up);
      assert.equal(lineOf(up, 'var_0401')?.quantity, 4, 'set, not added');
      assert.equal(up.body.item_count, 5);
      expectConsistentCart(up);

      const down = await update(auth, 'var_0401', { quantity: 1 });
      assert.equal(down.status, 200, down.text);
      assert.equal(lineOf(down, 'var_0401')?.quantity, 1);

      const del = await remove(auth, 'var_0401');
      assert.equal(del.status, 204, del.text);
      assert.equal(del.text, '');
      expectNoStore(del);
      assert.ok(del.headers.get('x-request-id'));

      const after = await read(auth);
      assert.deepEqual(
        (after.body.lines as Line[]).map((l) => l.variant_id),
        ['var_0501'],
      );
      expectConsistentCart(after);

      problem(await remove(auth, 'var_0401'), 404, 'not_found');
    });

    test('update or remove of a line the cart does not have is 404 not_found', async () => {
      const auth = await customer();
      // No cart at all yet.
      problem(await update(auth, 'var_0101', { quantity: 1 }), 404, 'not_found');
      problem(await remove(auth, 'var_0101'), 404, 'not_found');
      // A cart, but not this line.
      assert.equal((await add(auth, { variant_id: 'var_0102', quantity: 1 })).status, 201);
      problem(await update(auth, 'var_0101', { quantity: 1 }), 404, 'not_found');
      problem(await remove(auth, 'var_0101'), 404, 'not_found');
      // Nor a well-formed variant that does not exist.
      problem(await update(auth, 'var_zzzz9999', { quantity: 1 }), 404, 'not_found');
    });
  });

  describe('validation', () => {
    test('an unknown (well-formed) variant id is 422 unknown_variant', async () => {
      const auth = await customer();
      problem(await add(auth, { variant_id: 'var_zzzz9999', quantity: 1 }), 422, 'unknown_variant');
      assert.deepEqual((await read(auth)).body.lines, []);
    });

    test('a malformed variant id is 400 invalid_request with an issue at variant_id', async () => {
      const auth = await customer();
      for (const variant_id of ['VAR_0101', 'var-0101', 'var_', '', 101, null]) {
        const doc = problem(await add(auth, { variant_id, quantity: 1 }), 400, 'invalid_request');
        expectIssueAt(doc, 'variant_id');
      }
    });

    test('a malformed variant id in the path is 400 invalid_request with an issue at variant_id', async () => {
      const auth = await customer();
      expectIssueAt(problem(await update(auth, 'Not_A_Variant', { quantity: 1 }), 400, 'invalid_request'), 'variant_id');
      expectIssueAt(problem(await remove(auth, 'Not_A_Variant'), 400, 'invalid_request'), 'variant_id');
    });

    for (const quantity of [0, -1, 100, 1.5, '2', null, true]) {
      test(`quantity ${JSON.stringify(quantity)} is 400 invalid_request on add and update`, async () => {
        const auth = await customer();
        expectIssueAt(problem(await add(auth, { variant_id: 'var_0101', quantity }), 400, 'invalid_request'), 'quantity');
        assert.equal((await add(auth, { variant_id: 'var_0101', quantity: 1 })).status, 201);
        expectIssueAt(problem(await update(auth, 'var_0101', { quantity }), 400, 'invalid_request'), 'quantity');
        const cart = await read(auth);
        assert.equal(lineOf(cart, 'var_0101')?.quantity, 1, 'nothing changed');
      });
    }

    test('quantity 99 passes validation (and then meets the stock check), 100 does not', async () => {
      const auth = await customer();
      assert.ok(stock('var_1701') < 99);
      problem(await add(auth, { variant_id: 'var_1701', quantity: 99 }), 409, 'insufficient_stock');
      problem(await add(auth, { variant_id: 'var_1701', quantity: 100 }), 400, 'invalid_request');
      const one = await add(auth, { variant_id: 'var_1701', quantity: 1 });
      assert.equal(one.status, 201, one.text);
      const up = await update(auth, 'var_1701', { quantity: stock('var_1701') });
      assert.equal(up.status, 200, up.text);
      assert.equal(lineOf(up, 'var_1701')?.quantity, stock('var_1701'));
    });

    test('an accumulated line over 99 units is 400 invalid_request and nothing is written', async () => {
      const auth = await customer();
      assert.equal((await add(auth, { variant_id: 'var_1701', quantity: 60 })).status, 201);
      expectIssueAt(problem(await add(auth, { variant_id: 'var_1701', quantity: 60 }), 400, 'invalid_request'), 'quantity');
      assert.equal(lineOf(await read(auth), 'var_1701')?.quantity, 60);
    });

    test('an extra body field is 400 invalid_request', async () => {
      const auth = await customer();
      problem(await add(auth, { variant_id: 'var_0101', quantity: 1, price_cents: 1 }), 400, 'invalid_request');
      assert.equal((await add(auth, { variant_id: 'var_0101', quantity: 1 })).status, 201);
      problem(await update(auth, 'var_0101', { quantity: 2, variant_id: 'var_0101' }), 400, 'invalid_request');
      assert.deepEqual(
        (await read(auth)).body.lines.map((l: Line) => l.quantity),
        [1],
      );
    });

    test('a body that is not an object is 400 invalid_request', async () => {
      const auth = await customer();
      for (const body of [[], 'var_0101', 3, null]) {
        problem(await add(auth, body), 400, 'invalid_request');
      }
    });

    test('several problems are all reported, at most 20 issues', async () => {
      const auth = await customer();
      const doc = problem(await add(auth, { variant_id: 'bad', quantity: 0, a: 1, b: 2 }), 400, 'invalid_request');
      const issues = doc.issues as unknown[];
      assert.ok(issues.length >= 2 && issues.length <= LIMITS.validationIssues, JSON.stringify(issues));
      expectIssueAt(doc, 'variant_id');
      expectIssueAt(doc, 'quantity');
    });
  });

  describe('stock', () => {
    test(`adding more of var_0302 than its stock (${stock('var_0302')}) is 409 insufficient_stock and nothing is written`, async () => {
      assert.equal(stock('var_0302'), 3);
      const auth = await customer();
      problem(await add(auth, { variant_id: 'var_0302', quantity: 4 }), 409, 'insufficient_stock');
      const empty = await read(auth);
      assert.deepEqual(empty.body.lines, []);
      assert.equal(empty.body.item_count, 0);

      // Exactly the stock is fine; growing past it is refused and leaves the line as it was.
      assert.equal((await add(auth, { variant_id: 'var_0302', quantity: 2 })).status, 201);
      problem(await add(auth, { variant_id: 'var_0302', quantity: 2 }), 409, 'insufficient_stock');
      assert.equal(lineOf(await read(auth), 'var_0302')?.quantity, 2);
      const full = await add(auth, { variant_id: 'var_0302', quantity: 1 });
      assert.equal(full.status, 201, full.text);
      assert.equal(lineOf(full, 'var_0302')?.quantity, 3);

      problem(await update(auth, 'var_0302', { quantity: 4 }), 409, 'insufficient_stock');
      assert.equal(lineOf(await read(auth), 'var_0302')?.quantity, 3);
    });

    test('out-of-stock variants (var_0104, var_2203) are 409 insufficient_stock', async () => {
      assert.equal(stock('var_0104'), 0);
      assert.equal(stock('var_2203'), 0);
      const auth = await customer();
      problem(await add(auth, { variant_id: 'var_0104', quantity: 1 }), 409, 'insufficient_stock');
      problem(await add(auth, { variant_id: 'var_2203', quantity: 1 }), 409, 'insufficient_stock');
      assert.deepEqual((await read(auth)).body.lines, []);
    });

    test('carts do not reserve stock: two customers can each hold the whole stock', async () => {
      const a = await add(await customer(), { variant_id: 'var_0302', quantity: 3 });
      const b = await add(await customer(), { variant_id: 'var_0302', quantity: 3 });
      assert.equal(a.status, 201, a.text);
      assert.equal(b.status, 201, b.text);
    });
  });

  describe('body decoding (before authentication)', () => {
    const raw = (headers: Record<string, string>, body: string | Uint8Array) =>
      h.call('/v1/cart/items', { method: 'POST', headers, body: body as BodyInit });

    test('a body without Content-Type is 415 unsupported_media_type', async () => {
      const auth = await customer();
      const res = await raw(auth, new TextEncoder().encode(JSON.stringify({ variant_id: 'var_0101', quantity: 1 })));
      problem(res, 415, 'unsupported_media_type');
      assert.deepEqual((await read(auth)).body.lines, []);
    });

    test('a body with Content-Type text/plain is 415 unsupported_media_type', async () => {
      const res = await raw(
        { ...(await customer()), 'content-type': 'text/plain' },
        JSON.stringify({ variant_id: 'var_0101', quantity: 1 }),
      );
      problem(res, 415, 'unsupported_media_type');
    });

    test('Content-Type application/json; charset=utf-8 is accepted', async () => {
      const res = await raw(
        { ...(await customer()), 'content-type': 'application/json; charset=utf-8' },
        JSON.stringify({ variant_id: 'var_0101', quantity: 1 }),
      );
      assert.equal(res.status, 201, res.text);
    });

    test('a body without Content-Type and without a token is 415, not 401 (decoding precedes authentication)', async () => {
      problem(await raw({ 'content-type': 'text/plain' }, '{}'), 415, 'unsupported_media_type');
    });

    test('malformed JSON is 400 invalid_json', async () => {
      const res = await raw({ ...(await customer()), 'content-type': 'application/json' }, '{"variant_id": "var_0101", "quantity": ');
      const doc = problem(res, 400, 'invalid_json');
      assert.equal('issues' in doc, false);
    });

    test('malformed JSON with no token at all is still 400 invalid_json, not 401', async () => {
      const res = await raw({ 'content-type': 'application/json' }, '{not json');
      problem(res, 400, 'invalid_json');
      assert.equal(res.headers.get('www-authenticate'), null);
    });

    test('malformed JSON with a bad token is 400 invalid_json, not 401', async () => {
      const res = await raw({ ...bearer('not.a.token'), 'content-type': 'application/json' }, '[1,');
      problem(res, 400, 'invalid_json');
    });

    test('a body over 256 KiB is 413 payload_too_large, with or without a token', async () => {
      const body = JSON.stringify({ variant_id: 'var_0101', quantity: 1, pad: 'x'.repeat(LIMITS.requestBodyBytes) });
      problem(await raw({ ...(await customer()), 'content-type': 'application/json' }, body), 413, 'payload_too_large');
      problem(await raw({ 'content-type': 'application/json' }, body), 413, 'payload_too_large');
    });

    test('exactly 256 KiB is accepted, one byte more is 413', async () => {
      const json = JSON.stringify({ variant_id: 'var_0101', quantity: 1 });
      const exact = json + ' '.repeat(LIMITS.requestBodyBytes - json.length);
      assert.equal(Buffer.byteLength(exact), LIMITS.requestBodyBytes);
      const auth = { ...(await customer()), 'content-type': 'application/json' };
      const ok = await raw(auth, exact);
      assert.equal(ok.status, 201, ok.text);
      problem(await raw(auth, exact + ' '), 413, 'payload_too_large');
    });
  });

  describe('authentication, callers and scopes', () => {
    test('no token is 401 invalid_token with a Bearer and a DPoP challenge', async () => {
      for (const res of [await h.call('/v1/cart'), await add({}, { variant_id: 'var_0101', quantity: 1 })]) {
        problem(res, 401, 'invalid_token');
        expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
        expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token' });
      }
    });

    test('a bad token with an invalid body is 401, not 400 (authentication before validation)', async () => {
      const expired = await h.minter.customer({ sub: freshSub(), expiresIn: -60 });
      for (const token of ['garbage', expired]) {
        const res = await add(bearer(token), { variant_id: 'not a variant', quantity: 'lots', extra: 1 });
        problem(res, 401, 'invalid_token');
        expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
      }
    });

    test("a customer's cart is the same across two tokens of the same sub and isolated from another sub", async () => {
      const sub = freshSub();
      const first = await customer(sub);
      const second = await customer(sub);
      assert.notDeepEqual(first, second, 'two distinct tokens');
      assert.equal((await add(first, { variant_id: 'var_0601', quantity: 2 })).status, 201);
      const viaSecond = await read(second);
      assert.equal(viaSecond.status, 200, viaSecond.text);
      assert.equal(lineOf(viaSecond, 'var_0601')?.quantity, 2);
      // The second token writes to the same cart.
      const more = await add(second, { variant_id: 'var_0601', quantity: 1 });
      assert.equal(lineOf(more, 'var_0601')?.quantity, 3);

      const other = await read(await customer());
      assert.equal(other.status, 200, other.text);
      assert.deepEqual(other.body.lines, []);
      problem(await remove(await customer(), 'var_0601'), 404, 'not_found');
      assert.equal(lineOf(await read(first), 'var_0601')?.quantity, 3);
    });

    for (const channel of ['openapi', 'mcp'] as const) {
      test(`a delegated (${channel}) token uses the account cart of its sub`, async () => {
        const sub = freshSub();
        const cust = await customer(sub);
        const deleg = bearer(await h.minter.delegated({ sub, channel }));
        assert.equal((await add(cust, { variant_id: 'var_0701', quantity: 1 })).status, 201);
        const seen = await read(deleg);
        assert.equal(seen.status, 200, seen.text);
        assert.equal(lineOf(seen, 'var_0701')?.quantity, 1);

        const added = await add(deleg, { variant_id: 'var_0702', quantity: 2 });
        assert.equal(added.status, 201, added.text);
        const up = await update(deleg, 'var_0701', { quantity: 3 });
        assert.equal(up.status, 200, up.text);
        const back = await read(cust);
        assert.equal(lineOf(back, 'var_0701')?.quantity, 3);
        assert.equal(lineOf(back, 'var_0702')?.quantity, 2);
        assert.equal((await remove(deleg, 'var_0702')).status, 204);
        assert.equal(lineOf(await read(cust), 'var_0702'), undefined);

        // Another sub's delegated token sees nothing of it.
        const stranger = await read(bearer(await h.minter.delegated({ sub: freshSub(), channel })));
        assert.deepEqual(stranger.body.lines, []);
      });
    }

    test('an operator token on cart routes is 403 caller_not_allowed', async () => {
      const auth = { ...bearer(await h.minter.operator()), operator: 'op_test' };
      problem(await read(auth), 403, 'caller_not_allowed');
      problem(await add(auth, { variant_id: 'var_0101', quantity: 1 }), 403, 'caller_not_allowed');
      problem(await update(auth, 'var_0101', { quantity: 1 }), 403, 'caller_not_allowed');
      problem(await remove(auth, 'var_0101'), 403, 'caller_not_allowed');
      // The caller is refused before its body is validated.
      problem(await add(auth, { nonsense: true }), 403, 'caller_not_allowed');
    });

    test('a customer token without cart:write is 403 insufficient_scope (scope cart:write) on every write', async () => {
      const sub = freshSub();
      const auth = await customer(sub, ['catalog:read', 'cart:read']);
      assert.equal((await read(auth)).status, 200);
      problem(await add(auth, { variant_id: 'var_0101', quantity: 1 }), 403, 'insufficient_scope', { scope: 'cart:write' });
      problem(await update(auth, 'var_0101', { quantity: 1 }), 403, 'insufficient_scope', { scope: 'cart:write' });
      problem(await remove(auth, 'var_0101'), 403, 'insufficient_scope', { scope: 'cart:write' });
      // Refused before validation too.
      problem(await add(auth, { variant_id: 'bad', quantity: 0 }), 403, 'insufficient_scope', { scope: 'cart:write' });
      assert.deepEqual((await read(await customer(sub))).body.lines, []);
    });

    test('a customer token without cart:read is 403 insufficient_scope (scope cart:read) on getCart', async () => {
      problem(await read(await customer(freshSub(), ['catalog:read', 'cart:write'])), 403, 'insufficient_scope', { scope: 'cart:read' });
    });

    test('a guest token without cart:write is 403 insufficient_scope', async () => {
      const guest = bearer(await h.minter.guest({ scope: 'catalog:read cart:read' }));
      const session = newGuestSession(h.profile.secrets.guestSessionKey);
      problem(await add({ ...guest, 'guest-session': session }, { variant_id: 'var_0101', quantity: 1 }), 403, 'insufficient_scope', {
        scope: 'cart:write',
      });
    });

    for (const sub of ['cust_deleting', 'cust_deleted', 'cust_transition']) {
      test(`an ended account (${sub}) is 401 account_access_ended on cart routes`, async () => {
        const auth = await customer(sub);
        for (const res of [await read(auth), await add(auth, { variant_id: 'var_0101', quantity: 1 })]) {
          problem(res, 401, 'account_access_ended');
          expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
        }
      });
    }

    test('a seeded active account (cust_ben) has a working cart', async () => {
      const auth = await customer('cust_ben');
      const res = await read(auth);
      assert.equal(res.status, 200, res.text);
      expectConsistentCart(res);
    });
  });

  describe('response headers', () => {
    test('every cart response carries Cache-Control: no-store and X-Request-Id, success and failure alike', async () => {
      const auth = await customer();
      const responses = [
        await read(auth),
        await add(auth, { variant_id: 'var_0101', quantity: 1 }),
        await update(auth, 'var_0101', { quantity: 2 }),
        await remove(auth, 'var_0101'),
        await remove(auth, 'var_0101'),
        await add(auth, { variant_id: 'var_0104', quantity: 1 }),
        await add(auth, { variant_id: 'bad', quantity: 1 }),
        await h.call('/v1/cart'),
      ];
      assert.deepEqual(
        responses.map((r) => r.status),
        [200, 201, 200, 204, 404, 409, 400, 401],
      );
      for (const res of responses) {
        expectNoStore(res);
        assert.ok(res.headers.get('x-request-id'), `X-Request-Id on ${res.status}`);
        assert.equal(res.headers.get('etag'), null, `no ETag on cart responses (${res.status})`);
      }
      const ids = new Set(responses.map((r) => r.headers.get('x-request-id')));
      assert.equal(ids.size, responses.length, 'a fresh request id per request');
    });

    test('a well-formed incoming X-Request-Id is echoed and becomes the problem instance', async () => {
      const id = `test-${randomUUID()}`;
      const auth = await customer();
      const ok = await h.call('/v1/cart', { headers: { ...auth, 'x-request-id': id } });
      assert.equal(ok.headers.get('x-request-id'), id);
      const bad = await h.call('/v1/cart/items/var_0101', { method: 'DELETE', headers: { ...auth, 'x-request-id': id } });
      expectProblem(bad, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl, requestId: id });
    });

    test('a create answers 201 without Location (a cart line has no GET URL of its own)', async () => {
      const res = await add(await customer(), { variant_id: 'var_0101', quantity: 1 });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.get('location'), null);
    });

    test('Idempotency-Key is accepted and ignored: a retried add adds again', async () => {
      const auth = { ...(await customer()), 'idempotency-key': randomUUID() };
      assert.equal((await add(auth, { variant_id: 'var_0101', quantity: 1 })).status, 201);
      const again = await add(auth, { variant_id: 'var_0101', quantity: 1 });
      assert.equal(again.status, 201, again.text);
      assert.equal(lineOf(again, 'var_0101')?.quantity, 2);
    });
  });
});
