// Guest traffic over HTTP against the reference (spec, Authentication > Guest sessions; Errors; Limits): sessions are verified
// on cart routes only, forgeries are 401 with a Bearer challenge, the previous key verifies only before its deadline, guests
// never see each other's carts, guest headers are refused on other credentials, and guests are rate limited per operation id.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { bearer, startReference, testClock, type Harness } from '../helpers/reference.js';
import {
  forgeGuestSession,
  GUEST_SESSION_FORGERIES,
  GUEST_SESSION_FORMAT,
  newGuestSession,
  signGuestSession,
} from '../../conformance/lib/guest-session.js';
import { expectCacheControl, expectChallenge, expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { parseChallenges } from '../../conformance/lib/www-authenticate.js';

type Res = Awaited<ReturnType<Harness['call']>>;

/** 401 invalid_guest_session with exactly one challenge, `Bearer error="invalid_token"` (never DPoP). */
function expectInvalidGuestSession(h: Harness, res: Res): void {
  expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: h.profile.docsUrl });
  expectNoStore(res);
  expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
  const challenges = parseChallenges(res.headers.get('www-authenticate') ?? '');
  assert.equal(challenges.length, 1, `exactly one challenge, got ${res.headers.get('www-authenticate')}`);
  assert.equal(challenges[0]?.scheme, 'Bearer');
}

function expectIssueAt(doc: Record<string, unknown>, fragment: string): void {
  const issues = doc.issues as { path: unknown }[] | undefined;
  assert.ok(Array.isArray(issues) && issues.length > 0, 'issues are listed');
  assert.ok(
    issues.some((i) =>
      String(Array.isArray(i.path) ? i.path.join('.') : i.path)
        .toLowerCase()
        .includes(fragment.toLowerCase()),
    ),
    `an issue whose path mentions ${fragment}: ${JSON.stringify(issues)}`,
  );
}

describe('guest sessions over HTTP', () => {
  let h: Harness;
  let key: string;
  let previousKey: string;
  const guestHeaders = async (session?: string, extra: Record<string, string> = {}) => ({
    ...bearer(await h.minter.guest()),
    ...(session !== undefined ? { 'guest-session': session } : {}),
    ...extra,
  });
  const addItem = async (
    session: string | undefined,
    body: unknown = { variant_id: 'var_0101', quantity: 1 },
    extra: Record<string, string> = {},
  ) => h.call('/v1/cart/items', { method: 'POST', headers: await guestHeaders(session, extra), json: body });
  const getCart = async (session?: string, extra: Record<string, string> = {}) =>
    h.call('/v1/cart', { headers: await guestHeaders(session, extra) });

  before(async () => {
    h = await startReference();
    key = h.profile.secrets.guestSessionKey;
    const prev = h.profile.secrets.guestSessionKeyPrevious;
    assert.ok(prev, 'the fixture profile configures a previous guest key');
    previousKey = prev;
    assert.ok(h.profile.secrets.guestSessionKeyPreviousUntil, 'the fixture profile configures the previous key deadline');
  });
  after(async () => {
    await h.close();
  });

  describe('without a session', () => {
    test('a guest read without a session sees an empty cart (200)', async () => {
      const res = await getCart();
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.lines, []);
      assert.equal(res.body.item_count, 0);
      assert.equal(res.body.subtotal_cents, 0);
      expectNoStore(res);
      assert.ok(res.headers.get('x-request-id'));
    });

    test('a guest write without a session is 400 guest_session_required', async () => {
      const res = await addItem(undefined);
      expectProblem(res, { status: 400, error: 'guest_session_required', docsUrl: h.profile.docsUrl });
      expectNoStore(res);
      assert.equal(res.headers.get('www-authenticate'), null);
    });

    test('update and remove without a session are 400 guest_session_required too', async () => {
      const patch = await h.call('/v1/cart/items/var_0101', { method: 'PATCH', headers: await guestHeaders(), json: { quantity: 2 } });
      expectProblem(patch, { status: 400, error: 'guest_session_required', docsUrl: h.profile.docsUrl });
      const del = await h.call('/v1/cart/items/var_0101', { method: 'DELETE', headers: await guestHeaders() });
      expectProblem(del, { status: 400, error: 'guest_session_required', docsUrl: h.profile.docsUrl });
    });

    test('writes by session-less guests leave the session-less read empty', async () => {
      await addItem(undefined);
      const res = await getCart();
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.lines, []);
    });
  });

  describe('forged, malformed and retired sessions', () => {
    for (const forgery of GUEST_SESSION_FORGERIES) {
      test(`forgery "${forgery}" on a cart read is 401 invalid_guest_session, Bearer challenge`, async () => {
        const res = await getCart(forgeGuestSession(forgery, key));
        expectInvalidGuestSession(h, res);
      });
      test(`forgery "${forgery}" on a cart write is 401 invalid_guest_session, Bearer challenge, nothing written`, async () => {
        const uuid = randomUUID();
        const res = await addItem(forgeGuestSession(forgery, key, uuid));
        expectInvalidGuestSession(h, res);
        // The genuine session of the same uuid still has an empty cart.
        const genuine = await getCart(signGuestSession(uuid, key));
        assert.equal(genuine.status, 200, genuine.text);
        assert.deepEqual(genuine.body.lines, []);
      });
    }

    test('forgeries on update and remove are 401 too', async () => {
      const forged = forgeGuestSession('bad-signature', key);
      const patch = await h.call('/v1/cart/items/var_0101', {
        method: 'PATCH',
        headers: await guestHeaders(forged),
        json: { quantity: 2 },
      });
      expectInvalidGuestSession(h, patch);
      const del = await h.call('/v1/cart/items/var_0101', { method: 'DELETE', headers: await guestHeaders(forged) });
      expectInvalidGuestSession(h, del);
    });

    test('a session signed with a random key is 401 on read and write', async () => {
      const session = newGuestSession(randomBytes(32).toString('base64url'));
      assert.match(session, GUEST_SESSION_FORMAT);
      expectInvalidGuestSession(h, await getCart(session));
      expectInvalidGuestSession(h, await addItem(session));
    });

    test('an empty or garbage Guest-Session value is 401', async () => {
      expectInvalidGuestSession(h, await getCart('garbage'));
      expectInvalidGuestSession(h, await getCart(' '));
    });

    test('a forged session with an invalid body is 401, not 400 (the session is checked before validation)', async () => {
      const res = await addItem(forgeGuestSession('wrong-key', key), { variant_id: 'nope', quantity: -1, extra: true });
      expectInvalidGuestSession(h, res);
    });

    test('a stray DPoP header does not change the challenge: still exactly Bearer', async () => {
      const res = await h.call('/v1/cart', {
        headers: { ...(await guestHeaders(forgeGuestSession('padded-signature', key))), dpop: 'not-a-proof' },
      });
      expectInvalidGuestSession(h, res);
    });
  });

  describe('valid sessions', () => {
    test('a valid session reads its (empty) cart, then writes and reads it back', async () => {
      const uuid = randomUUID();
      const session = signGuestSession(uuid, key);
      const empty = await getCart(session);
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body.lines, []);

      const add = await addItem(session, { variant_id: 'var_0101', quantity: 2 });
      assert.equal(add.status, 201, add.text);
      expectNoStore(add);
      assert.equal(add.body.id, uuid, 'the guest cart id is the session uuid');
      assert.equal(add.body.lines.length, 1);
      assert.equal(add.body.lines[0].variant_id, 'var_0101');
      assert.equal(add.body.lines[0].quantity, 2);

      // Another storefront token (the visitor is the session, not the token) sees the same cart.
      const again = await getCart(session);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, add.body);

      const patch = await h.call('/v1/cart/items/var_0101', {
        method: 'PATCH',
        headers: await guestHeaders(session),
        json: { quantity: 3 },
      });
      assert.equal(patch.status, 200, patch.text);
      assert.equal(patch.body.lines[0].quantity, 3);

      const del = await h.call('/v1/cart/items/var_0101', { method: 'DELETE', headers: await guestHeaders(session) });
      assert.equal(del.status, 204, del.text);
      assert.equal(del.text, '');
      const after = await getCart(session);
      assert.deepEqual(after.body.lines, []);
    });

    test('a session signed with the previous key works before GUEST_SESSION_KEY_PREVIOUS_UNTIL', async () => {
      const session = signGuestSession(randomUUID(), previousKey);
      const add = await addItem(session);
      assert.equal(add.status, 201, add.text);
      const read = await getCart(session);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.lines.length, 1);
    });

    test('the previous key and the current key address the same cart (the uuid is the capability)', async () => {
      const uuid = randomUUID();
      const add = await addItem(signGuestSession(uuid, previousKey), { variant_id: 'var_0201', quantity: 1 });
      assert.equal(add.status, 201, add.text);
      const read = await getCart(signGuestSession(uuid, key));
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(
        read.body.lines.map((l: { variant_id: string }) => l.variant_id),
        ['var_0201'],
      );
    });
  });

  describe('isolation between guests', () => {
    test("two guests never see each other's carts", async () => {
      const a = newGuestSession(key);
      const b = newGuestSession(key);
      const addA = await addItem(a, { variant_id: 'var_0102', quantity: 2 });
      assert.equal(addA.status, 201, addA.text);

      const readB = await getCart(b);
      assert.equal(readB.status, 200, readB.text);
      assert.deepEqual(readB.body.lines, []);
      assert.equal(readB.body.item_count, 0);

      const noSession = await getCart();
      assert.deepEqual(noSession.body.lines, []);

      const patchB = await h.call('/v1/cart/items/var_0102', { method: 'PATCH', headers: await guestHeaders(b), json: { quantity: 1 } });
      expectProblem(patchB, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
      const delB = await h.call('/v1/cart/items/var_0102', { method: 'DELETE', headers: await guestHeaders(b) });
      expectProblem(delB, { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });

      const readA = await getCart(a);
      assert.equal(readA.status, 200, readA.text);
      assert.equal(readA.body.lines.length, 1);
      assert.equal(readA.body.lines[0].quantity, 2, "B's attempts left A's line alone");
    });

    test("B's write does not land in A's cart", async () => {
      const a = newGuestSession(key);
      const b = newGuestSession(key);
      assert.equal((await addItem(a, { variant_id: 'var_0101', quantity: 1 })).status, 201);
      assert.equal((await addItem(b, { variant_id: 'var_0801', quantity: 1 })).status, 201);
      const readA = await getCart(a);
      assert.deepEqual(
        readA.body.lines.map((l: { variant_id: string }) => l.variant_id),
        ['var_0101'],
      );
      const readB = await getCart(b);
      assert.deepEqual(
        readB.body.lines.map((l: { variant_id: string }) => l.variant_id),
        ['var_0801'],
      );
      assert.notEqual(readA.body.id, readB.body.id);
    });

    test('a guest cart and a customer cart are separate', async () => {
      const session = newGuestSession(key);
      assert.equal((await addItem(session, { variant_id: 'var_0101', quantity: 1 })).status, 201);
      const customer = await h.minter.customer({ sub: `cust_test_${randomUUID()}` });
      const res = await h.call('/v1/cart', { headers: bearer(customer) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.lines, []);
    });
  });

  describe('guest sessions are verified on cart routes only', () => {
    for (const forgery of GUEST_SESSION_FORGERIES) {
      test(`forgery "${forgery}" on searchProducts still gets 200`, async () => {
        const res = await h.call('/v1/catalog/products?limit=1', { headers: await guestHeaders(forgeGuestSession(forgery, key)) });
        assert.equal(res.status, 200, res.text);
        expectCacheControl(res, ['private', 'no-cache']);
      });
    }

    test('a forged session on getProduct and listCollections still gets 200', async () => {
      const forged = forgeGuestSession('wrong-key', key);
      const p = await h.call('/v1/catalog/products/waxed-canvas-field-jacket', { headers: await guestHeaders(forged) });
      assert.equal(p.status, 200, p.text);
      const c = await h.call('/v1/catalog/collections', { headers: await guestHeaders(forged) });
      assert.equal(c.status, 200, c.text);
    });
  });

  describe('Shopper-IP', () => {
    test('64 characters are accepted on cart and catalog routes', async () => {
      const ip = 'a'.repeat(64);
      const cart = await getCart(undefined, { 'shopper-ip': ip });
      assert.equal(cart.status, 200, cart.text);
      const catalog = await h.call('/v1/catalog/collections', { headers: await guestHeaders(undefined, { 'shopper-ip': ip }) });
      assert.equal(catalog.status, 200, catalog.text);
      const write = await addItem(newGuestSession(key), undefined, { 'shopper-ip': ip });
      assert.equal(write.status, 201, write.text);
    });

    test('ordinary IPv4 and IPv6 values are accepted', async () => {
      for (const ip of ['203.0.113.7', '2001:db8::1', '::ffff:198.51.100.4']) {
        const res = await getCart(undefined, { 'shopper-ip': ip });
        assert.equal(res.status, 200, `${ip}: ${res.text}`);
      }
    });

    test('65 characters are 400 invalid_request with an issue naming the header', async () => {
      const ip = 'a'.repeat(65);
      for (const res of [
        await getCart(undefined, { 'shopper-ip': ip }),
        await addItem(newGuestSession(key), undefined, { 'shopper-ip': ip }),
        await h.call('/v1/catalog/products', { headers: await guestHeaders(undefined, { 'shopper-ip': ip }) }),
      ]) {
        const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
        expectNoStore(res);
        expectIssueAt(doc, 'shopper-ip');
      }
    });
  });

  describe('guest headers on other credentials', () => {
    for (const header of ['Guest-Session', 'Shopper-IP'] as const) {
      const value = () => (header === 'Guest-Session' ? newGuestSession(key) : '203.0.113.9');

      test(`${header} with a customer (website) token is 400 invalid_request on cart read, cart write and catalog`, async () => {
        const token = await h.minter.customer({ sub: `cust_test_${randomUUID()}` });
        const headers = { ...bearer(token), [header.toLowerCase()]: value() };
        const read = await h.call('/v1/cart', { headers });
        expectIssueAt(expectProblem(read, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl }), header);
        const write = await h.call('/v1/cart/items', { method: 'POST', headers, json: { variant_id: 'var_0101', quantity: 1 } });
        expectProblem(write, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
        const catalog = await h.call('/v1/catalog/collections', { headers });
        expectProblem(catalog, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
        // Nothing was written to the customer's cart.
        const clean = await h.call('/v1/cart', { headers: bearer(token) });
        assert.equal(clean.status, 200, clean.text);
        assert.deepEqual(clean.body.lines, []);
      });

      test(`${header} with an operator token is 400 invalid_request`, async () => {
        const token = await h.minter.operator();
        const headers = { ...bearer(token), operator: 'op_test', [header.toLowerCase()]: value() };
        const read = await h.call('/v1/cart', { headers });
        expectIssueAt(expectProblem(read, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl }), header);
        const catalog = await h.call('/v1/catalog/products', { headers });
        expectProblem(catalog, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      });
    }

    test('a customer token without guest headers is fine (control)', async () => {
      const token = await h.minter.customer({ sub: `cust_test_${randomUUID()}` });
      const res = await h.call('/v1/cart', { headers: bearer(token) });
      assert.equal(res.status, 200, res.text);
    });
  });
});

describe('previous guest key deadline (GUEST_SESSION_KEY_PREVIOUS_UNTIL)', () => {
  test('the fixture deadline: 200 one millisecond before, 401 at the deadline and after', async () => {
    const clock = testClock(new Date('2030-01-01T00:00:00.000Z'));
    const h = await startReference({ clock });
    try {
      const until = new Date(h.profile.secrets.guestSessionKeyPreviousUntil!);
      const prev = h.profile.secrets.guestSessionKeyPrevious!;
      const session = signGuestSession(randomUUID(), prev);
      const current = newGuestSession(h.profile.secrets.guestSessionKey);
      const read = async (s: string) => h.call('/v1/cart', { headers: { ...bearer(await h.minter.guest()), 'guest-session': s } });

      clock.set(new Date(until.getTime() - 1));
      assert.equal((await read(session)).status, 200);

      clock.set(until);
      expectInvalidGuestSession(h, await read(session));

      clock.set(new Date(until.getTime() + 24 * 3600 * 1000));
      expectInvalidGuestSession(h, await read(session));
      const write = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: { ...bearer(await h.minter.guest()), 'guest-session': session },
        json: { variant_id: 'var_0101', quantity: 1 },
      });
      expectInvalidGuestSession(h, write);

      // The current key is unaffected by the deadline.
      assert.equal((await read(current)).status, 200);
    } finally {
      await h.close();
    }
  });

  test('an overridden deadline: the previous key verifies before it and is 401 after it', async () => {
    const start = new Date('2026-03-01T12:00:00.000Z');
    const clock = testClock(start);
    const until = new Date(start.getTime() + 30 * 24 * 3600 * 1000); // the documented 30-day rotation window
    const h = await startReference({ clock, overrides: { guestSessionKeyPreviousUntil: until.toISOString() } });
    try {
      const prev = h.profile.secrets.guestSessionKeyPrevious!;
      const uuid = randomUUID();
      const session = signGuestSession(uuid, prev);
      const headers = async () => ({ ...bearer(await h.minter.guest()), 'guest-session': session });

      const add = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: await headers(),
        json: { variant_id: 'var_0101', quantity: 1 },
      });
      assert.equal(add.status, 201, add.text);

      clock.advance(29 * 24 * 3600 * 1000);
      const stillOk = await h.call('/v1/cart', { headers: await headers() });
      assert.equal(stillOk.status, 200, stillOk.text);
      assert.equal(stillOk.body.lines.length, 1);

      clock.set(new Date(until.getTime() + 1000));
      expectInvalidGuestSession(h, await h.call('/v1/cart', { headers: await headers() }));

      // The cart is still reachable with a session for the same uuid signed with the current key.
      const migrated = await h.call('/v1/cart', {
        headers: { ...bearer(await h.minter.guest()), 'guest-session': signGuestSession(uuid, h.profile.secrets.guestSessionKey) },
      });
      assert.equal(migrated.status, 200, migrated.text);
      assert.equal(migrated.body.lines.length, 1);
    } finally {
      await h.close();
    }
  });

  test('with no previous key configured, a previous-key session is 401', async () => {
    const h = await startReference({ overrides: { guestSessionKeyPrevious: null, guestSessionKeyPreviousUntil: null } });
    try {
      const session = signGuestSession(randomUUID(), h.profile.secrets.guestSessionKeyPrevious!);
      const res = await h.call('/v1/cart', { headers: { ...bearer(await h.minter.guest()), 'guest-session': session } });
      expectInvalidGuestSession(h, res);
    } finally {
      await h.close();
    }
  });
});

describe('guest rate limits', () => {
  let h: Harness;
  before(async () => {
    h = await startReference({
      clock: testClock(new Date('2026-05-01T10:00:00.000Z')),
      overrides: { guestRateLimitBudget: 3, guestRateLimitWindowSeconds: 60 },
    });
  });
  after(async () => {
    await h.close();
  });
  const asGuest = async (ip: string, extra: Record<string, string> = {}) => ({
    ...bearer(await h.minter.guest()),
    'shopper-ip': ip,
    ...extra,
  });

  test('the 4th getCart from one Shopper-IP is 429; other operations, other IPs and the next window pass', async () => {
    const ip = '198.51.100.23';
    for (let i = 1; i <= 3; i++) {
      const res = await h.call('/v1/cart', { headers: await asGuest(ip) });
      assert.equal(res.status, 200, `request ${i}: ${res.text}`);
    }
    const limited = await h.call('/v1/cart', { headers: await asGuest(ip) });
    expectProblem(limited, { status: 429, error: 'rate_limited', docsUrl: h.profile.docsUrl });
    expectNoStore(limited);
    const retryAfter = limited.headers.get('retry-after');
    assert.ok(retryAfter !== null && /^\d+$/.test(retryAfter), `numeric Retry-After, got ${retryAfter}`);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After between 1 and 60, got ${retryAfter}`);

    // Counted per operation id: searchProducts from the same IP still passes.
    const search = await h.call('/v1/catalog/products?limit=1', { headers: await asGuest(ip) });
    assert.equal(search.status, 200, search.text);

    // Another shopper still passes.
    const other = await h.call('/v1/cart', { headers: await asGuest('198.51.100.24') });
    assert.equal(other.status, 200, other.text);

    // Still limited within the window, even with a session (the key is the shopper).
    h.clock.advance(30_000);
    const stillLimited = await h.call('/v1/cart', {
      headers: await asGuest(ip, { 'guest-session': newGuestSession(h.profile.secrets.guestSessionKey) }),
    });
    expectProblem(stillLimited, { status: 429, error: 'rate_limited', docsUrl: h.profile.docsUrl });
    const later = Number(stillLimited.headers.get('retry-after'));
    assert.ok(later >= 1 && later <= 30, `Retry-After shrinks with the window, got ${later}`);

    h.clock.advance(30_000);
    const next = await h.call('/v1/cart', { headers: await asGuest(ip) });
    assert.equal(next.status, 200, next.text);
  });

  test('writes are counted per operation id too: addCartItem is limited separately from getCart', async () => {
    const ip = '192.0.2.77';
    const session = newGuestSession(h.profile.secrets.guestSessionKey);
    for (let i = 1; i <= 3; i++) {
      const res = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: await asGuest(ip, { 'guest-session': session }),
        json: { variant_id: 'var_1101', quantity: 1 },
      });
      assert.equal(res.status, 201, `request ${i}: ${res.text}`);
    }
    const limited = await h.call('/v1/cart/items', {
      method: 'POST',
      headers: await asGuest(ip, { 'guest-session': session }),
      json: { variant_id: 'var_1101', quantity: 1 },
    });
    expectProblem(limited, { status: 429, error: 'rate_limited', docsUrl: h.profile.docsUrl });
    // The refused write wrote nothing.
    const read = await h.call('/v1/cart', { headers: await asGuest(ip, { 'guest-session': session }) });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.lines[0].quantity, 3);
  });

  test('the rate limit precedes input validation: an invalid body over budget is 429, not 400', async () => {
    const ip = '192.0.2.78';
    const session = newGuestSession(h.profile.secrets.guestSessionKey);
    const bad = async () =>
      h.call('/v1/cart/items', {
        method: 'POST',
        headers: await asGuest(ip, { 'guest-session': session }),
        json: { variant_id: 'nope', quantity: 0 },
      });
    for (let i = 1; i <= 3; i++) expectProblem(await bad(), { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    expectProblem(await bad(), { status: 429, error: 'rate_limited', docsUrl: h.profile.docsUrl });
  });

  test('requests refused before the rate-limit stage (forged session, missing scope) do not spend the budget', async () => {
    const ip = '192.0.2.79';
    const forged = forgeGuestSession('bad-signature', h.profile.secrets.guestSessionKey);
    for (let i = 1; i <= 5; i++) {
      expectProblem(await h.call('/v1/cart', { headers: await asGuest(ip, { 'guest-session': forged }) }), {
        status: 401,
        error: 'invalid_guest_session',
        docsUrl: h.profile.docsUrl,
      });
      const noScope = { ...bearer(await h.minter.guest({ scope: 'catalog:read' })), 'shopper-ip': ip };
      expectProblem(await h.call('/v1/cart', { headers: noScope }), {
        status: 403,
        error: 'insufficient_scope',
        docsUrl: h.profile.docsUrl,
        scope: 'cart:read',
      });
    }
    for (let i = 1; i <= 3; i++) {
      const res = await h.call('/v1/cart', { headers: await asGuest(ip) });
      assert.equal(res.status, 200, `request ${i}: ${res.text}`);
    }
  });

  test('Shopper-IP is normalised for counting: spellings of one address share a budget', async () => {
    for (const ip of ['2001:DB8:AA::1', '2001:db8:aa::1', '2001:db8:aa:0:0:0:0:1']) {
      const res = await h.call('/v1/catalog/collections', { headers: await asGuest(ip) });
      assert.equal(res.status, 200, `${ip}: ${res.text}`);
    }
    expectProblem(await h.call('/v1/catalog/collections', { headers: await asGuest('2001:0db8:00aa::1') }), {
      status: 429,
      error: 'rate_limited',
      docsUrl: h.profile.docsUrl,
    });

    for (const ip of ['198.51.100.40', '::ffff:198.51.100.40', '::FFFF:198.51.100.40']) {
      const res = await h.call('/v1/catalog/collections', { headers: await asGuest(ip) });
      assert.equal(res.status, 200, `${ip}: ${res.text}`);
    }
    expectProblem(await h.call('/v1/catalog/collections', { headers: await asGuest('198.51.100.40') }), {
      status: 429,
      error: 'rate_limited',
      docsUrl: h.profile.docsUrl,
    });
  });

  test('customers are not guest-limited', async () => {
    const token = await h.minter.customer({ sub: `cust_test_${randomUUID()}` });
    for (let i = 1; i <= 6; i++) {
      const res = await h.call('/v1/cart', { headers: bearer(token) });
      assert.equal(res.status, 200, `request ${i}: ${res.text}`);
    }
  });
});
