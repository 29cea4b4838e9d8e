// Account data over HTTP against the reference (spec, What the service does: account data and identity; Endpoints >
// Conventions, Operations, caller lists and "every row is scoped by ownership"; Authentication: scopes, active accounts;
// docs/account.md for the shapes and transitions, which the spec does not show). Each describe block starts its own
// in-memory reference from the seed, so seed orders may be changed here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PaymentProvider, RefundResult } from '../../reference/src/payments/port.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { expectChallenge, expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { fixtureProfile, startReference, testClock, type Harness, type TestClock } from '../helpers/reference.js';

type Res = { status: number; headers: Headers; body: any; text: string };
type Headers_ = Record<string, string>;

type AccountHarness = Harness & { refunds: { ref: string; amount: number }[] };

/**
 * The shared harness (test/helpers/reference.ts) with a payment provider these tests control: refunds are recorded, and
 * a refund may be made to fail, throw or wait.
 */
async function startAccount(
  o: { refund?: (ref: string, amount: number) => Promise<RefundResult>; clock?: TestClock } = {},
): Promise<AccountHarness> {
  const refunds: { ref: string; amount: number }[] = [];
  const payments: PaymentProvider = {
    name: 'simulated',
    charge: async () => ({ status: 'succeeded', providerRef: `pi_test_${randomUUID()}` }),
    findCharge: async () => undefined,
    refund: async (ref, amount) => {
      refunds.push({ ref, amount });
      return o.refund ? o.refund(ref, amount) : { status: 'succeeded', providerRef: `re_test_${randomUUID()}` };
    },
  };
  const h = await startReference({ clock: o.clock, payments });
  return Object.assign(h, { refunds });
}

const freshSub = () => `cust_test_${randomUUID()}`;
const auth = (token: string): Headers_ => ({ authorization: `Bearer ${token}` });

const ADDRESS = { name: 'Grace Hopper', line1: '1 Compiler Court', city: 'Arlington', region: 'VA', postal_code: '22201', country: 'US' };

/** The seed's orders per account, newest first (docs/seed.md). */
const SEED_ORDERS: Record<string, string[]> = {
  cust_ada: ['ord_1013', 'ord_1009', 'ord_1004', 'ord_1001'],
  cust_ben: ['ord_1011', 'ord_1008', 'ord_1006', 'ord_1002'],
};

function expectIssueAt(doc: Record<string, unknown>, fragment: string, code?: string): void {
  const issues = doc.issues as { path: string; code: string }[] | undefined;
  assert.ok(Array.isArray(issues) && issues.length > 0, 'issues are listed');
  assert.ok(
    issues.some((i) => i.path.includes(fragment) && (code === undefined || i.code === code)),
    `an issue at ${fragment}${code ? ` with code ${code}` : ''}: ${JSON.stringify(issues)}`,
  );
}

/** Requests of each operation, with the path ids of cust_ada's seed rows and minimal valid bodies. */
const REQUESTS: Record<string, { method: string; path: string; json?: unknown }> = {
  getProfile: { method: 'GET', path: '/v1/me/profile' },
  listAddresses: { method: 'GET', path: '/v1/me/addresses' },
  addAddress: { method: 'POST', path: '/v1/me/addresses', json: ADDRESS },
  deleteAddress: { method: 'DELETE', path: '/v1/me/addresses/addr_nothere01' },
  listPaymentMethods: { method: 'GET', path: '/v1/me/payment-methods' },
  listOrders: { method: 'GET', path: '/v1/me/orders' },
  getOrder: { method: 'GET', path: '/v1/me/orders/ord_1001' },
  cancelOrder: { method: 'POST', path: '/v1/me/orders/ord_1001/cancellation', json: {} },
  requestReturn: { method: 'POST', path: '/v1/me/orders/ord_1009/returns', json: { reason: 'guard test' } },
  getIdentity: { method: 'GET', path: '/v1/me/identity' },
  getCheckoutAddress: { method: 'GET', path: '/v1/me/checkout-address' },
  getCheckoutMethods: { method: 'GET', path: '/v1/me/checkout-methods' },
};
const ACCOUNT_OPS = [
  'getProfile',
  'listAddresses',
  'addAddress',
  'deleteAddress',
  'listPaymentMethods',
  'listOrders',
  'getOrder',
  'cancelOrder',
  'requestReturn',
];
const CHECKOUT_READS = ['getIdentity', 'getCheckoutAddress', 'getCheckoutMethods'];

describe('account over HTTP', () => {
  let h: AccountHarness;
  before(async () => {
    h = await startAccount();
  });
  after(async () => {
    await h.close();
  });

  const customer = async (sub = freshSub(), scope?: string | string[], claims?: Record<string, string>) =>
    auth(await h.minter.customer({ sub, ...(scope !== undefined ? { scope } : {}), ...(claims ? { claims } : {}) }));
  const get = (headers: Headers_, path: string) => h.call(path, { headers });
  const post = (headers: Headers_, path: string, json?: unknown) =>
    h.call(path, { method: 'POST', headers, ...(json !== undefined ? { json } : {}) });
  const del = (headers: Headers_, path: string) => h.call(path, { method: 'DELETE', headers });
  const addAddress = (headers: Headers_, body: unknown) => post(headers, '/v1/me/addresses', body);
  const problem = (res: Res, status: number, error: string, extra: { scope?: string } = {}) => {
    const doc = expectProblem(res, { status, error, docsUrl: fixtureProfile.docsUrl, ...extra });
    expectNoStore(res);
    return doc;
  };
  const orderRow = (id: string) =>
    h.db.prepare('SELECT status, updated_at FROM orders WHERE id = ?').get(id) as { status: string; updated_at: string };
  const paymentRows = (orderId: string) =>
    h.db.prepare('SELECT status, amount_cents, refunded_cents, provider_ref FROM payments WHERE order_id = ?').all(orderId) as {
      status: string;
      amount_cents: number;
      refunded_cents: number;
      provider_ref: string;
    }[];
  const auditRows = (target: string) =>
    h.db.prepare('SELECT actor, action, target, details FROM audit_log WHERE target = ? ORDER BY id').all(target) as {
      actor: string;
      action: string;
      target: string;
      details: string;
    }[];

  describe('profile and identity', () => {
    test("getProfile answers the account's sub, email, display name and creation time", async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/profile');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'display_name', 'email', 'sub']);
      assert.equal(res.body.sub, 'cust_ada');
      assert.equal(res.body.email, 'ada.lovelace@example.com');
      assert.equal(res.body.display_name, 'Ada Lovelace');
      assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
    });

    test('a fresh subject is provisioned from its token: name and email claims, else "Customer" and null', async () => {
      const named = await get(
        await customer(freshSub(), undefined, { name: 'Grace Hopper', email: 'grace@example.org' }),
        '/v1/me/profile',
      );
      assert.equal(named.status, 200, named.text);
      assert.equal(named.body.display_name, 'Grace Hopper');
      assert.equal(named.body.email, 'grace@example.org');
      const plain = await get(await customer(), '/v1/me/profile');
      assert.equal(plain.body.display_name, 'Customer');
      assert.equal(plain.body.email, null);
    });

    test('getIdentity answers only the display name and the self-service boolean, never the email', async () => {
      for (const [sub, name, eligible] of [
        ['cust_ada', 'Ada Lovelace', true],
        ['cust_chloe', 'Chloé Martin', false],
      ] as const) {
        const res = await get(await customer(sub), '/v1/me/identity');
        assert.equal(res.status, 200, res.text);
        expectNoStore(res);
        assert.deepEqual(res.body, { display_name: name, self_service_eligible: eligible });
        assert.ok(!res.text.includes('@'), res.text);
        assert.ok(!res.text.includes(sub), 'not even the sub');
      }
    });

    test('getIdentity of a fresh subject with an email claim still carries no email', async () => {
      const res = await get(await customer(freshSub(), undefined, { name: 'Ivy', email: 'ivy@example.org' }), '/v1/me/identity');
      assert.deepEqual(res.body, { display_name: 'Ivy', self_service_eligible: false });
    });
  });

  describe('addresses', () => {
    test("listAddresses answers the account's addresses, newest first (the seed's in reverse insertion order)", async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/addresses');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      assert.deepEqual(
        res.body.items.map((a: { id: string }) => a.id),
        ['addr_ada02', 'addr_ada01'],
      );
      const first = res.body.items[1];
      assert.deepEqual(
        { ...first, created_at: undefined },
        {
          id: 'addr_ada01',
          name: 'Ada Lovelace',
          line1: '12 Analytical Way',
          line2: 'Apt 4B',
          city: 'Brooklyn',
          region: 'NY',
          postal_code: '11201',
          country: 'US',
          phone: '+1 718 555 0101',
          created_at: undefined,
        },
      );
    });

    test('a fresh account has no address and no checkout address', async () => {
      const a = await customer();
      assert.deepEqual((await get(a, '/v1/me/addresses')).body, { items: [] });
      const checkout = await get(a, '/v1/me/checkout-address');
      assert.equal(checkout.status, 200, checkout.text);
      assert.deepEqual(checkout.body, { address: null });
    });

    test('addAddress answers 201 with the address and no Location (no GET URL for one address); it is listed and becomes the checkout address', async () => {
      const a = await customer();
      const res = await addAddress(a, { ...ADDRESS, line2: 'Suite 9', phone: '+1 (703) 555-0100' });
      assert.equal(res.status, 201, res.text);
      expectNoStore(res);
      assert.match(res.body.id, /^addr_[a-z0-9]+$/);
      assert.equal(res.headers.get('location'), null, 'Location only where a GET URL exists');
      assert.deepEqual(
        { ...res.body, id: undefined, created_at: undefined },
        {
          ...ADDRESS,
          line2: 'Suite 9',
          phone: '+1 (703) 555-0100',
          id: undefined,
          created_at: undefined,
        },
      );
      const list = await get(a, '/v1/me/addresses');
      assert.deepEqual(list.body.items, [res.body]);
      assert.deepEqual((await get(a, '/v1/me/checkout-address')).body, { address: res.body });
    });

    test('optional members default to null; strings are trimmed', async () => {
      const res = await addAddress(await customer(), { ...ADDRESS, region: undefined, name: '  Grace Hopper  ' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.line2, null);
      assert.equal(res.body.region, null);
      assert.equal(res.body.phone, null);
      assert.equal(res.body.name, 'Grace Hopper');
    });

    test('the checkout address is the most recently added one; deleting it falls back to the previous one', async () => {
      const a = await customer();
      const first = (await addAddress(a, ADDRESS)).body;
      h.clock.advance(1000);
      const second = (await addAddress(a, { ...ADDRESS, line1: '2 Second Street' })).body;
      assert.equal((await get(a, '/v1/me/checkout-address')).body.address.id, second.id);
      assert.deepEqual(
        (await get(a, '/v1/me/addresses')).body.items.map((x: { id: string }) => x.id),
        [second.id, first.id],
      );
      assert.equal((await del(a, `/v1/me/addresses/${second.id}`)).status, 204);
      assert.equal((await get(a, '/v1/me/checkout-address')).body.address.id, first.id);
    });

    test('deleteAddress answers 204 with no body; the address is gone; deleting it again is 404 not_found', async () => {
      const a = await customer();
      const { id } = (await addAddress(a, ADDRESS)).body;
      const res = await del(a, `/v1/me/addresses/${id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      expectNoStore(res);
      assert.deepEqual((await get(a, '/v1/me/addresses')).body.items, []);
      problem(await del(a, `/v1/me/addresses/${id}`), 404, 'not_found');
    });

    test('the address URL takes DELETE only; GET on it is 405 with Allow: DELETE, which is why a create names no Location', async () => {
      const a = await customer();
      const created = await addAddress(a, ADDRESS);
      const res = await get(a, `/v1/me/addresses/${created.body.id}`);
      problem(res, 405, 'method_not_allowed');
      assert.equal(res.headers.get('allow'), 'DELETE');
    });

    const INVALID: [string, Record<string, unknown>, string, string?][] = [
      ['a country that is not ISO 3166-1 alpha-2 (XX)', { ...ADDRESS, country: 'XX' }, 'body.country'],
      ['a withdrawn or reserved code (UK)', { ...ADDRESS, country: 'UK' }, 'body.country'],
      ['a lowercase country', { ...ADDRESS, country: 'us' }, 'body.country'],
      ['an alpha-3 country', { ...ADDRESS, country: 'USA' }, 'body.country'],
      ['a name over 100 characters', { ...ADDRESS, name: 'n'.repeat(101) }, 'body.name', 'too_big'],
      ['a line1 over 200 characters', { ...ADDRESS, line1: 'l'.repeat(201) }, 'body.line1', 'too_big'],
      ['a postal code over 20 characters', { ...ADDRESS, postal_code: '1'.repeat(21) }, 'body.postal_code', 'too_big'],
      ['a blank city', { ...ADDRESS, city: '   ' }, 'body.city', 'too_small'],
      ['a missing line1', { ...ADDRESS, line1: undefined }, 'body.line1'],
      ['a phone with letters', { ...ADDRESS, phone: 'call me' }, 'body.phone'],
      ['an unknown member', { ...ADDRESS, is_default: true }, 'body', 'unrecognized_keys'],
      ['a number for a string', { ...ADDRESS, postal_code: 22201 }, 'body.postal_code', 'invalid_type'],
      ['null for an optional member', { ...ADDRESS, line2: null }, 'body.line2', 'invalid_type'],
    ];
    for (const [what, body, path, code] of INVALID) {
      test(`addAddress with ${what} is 400 invalid_request naming ${path}; nothing is saved`, async () => {
        const a = await customer();
        const doc = problem(await addAddress(a, body), 400, 'invalid_request');
        expectIssueAt(doc, path, code);
        assert.deepEqual((await get(a, '/v1/me/addresses')).body.items, []);
      });
    }

    test('addAddress with a non-object body is 400 invalid_request', async () => {
      for (const body of [[], 'address', 42]) problem(await addAddress(await customer(), body), 400, 'invalid_request');
    });

    test('deleteAddress with an id that is not an address id is 400 invalid_request naming params.id', async () => {
      const a = await customer();
      for (const id of ['nope', 'addr_', 'addr_UPPER', 'ord_1001', `addr_${'a'.repeat(65)}`]) {
        expectIssueAt(problem(await del(a, `/v1/me/addresses/${id}`), 400, 'invalid_request'), 'params.id');
      }
    });

    test(`an account holds at most 50 addresses: the 51st is 400 invalid_request (too_many_addresses)`, async () => {
      const a = await customer();
      for (let i = 0; i < 50; i++) assert.equal((await addAddress(a, { ...ADDRESS, line1: `${i} Main Street` })).status, 201);
      expectIssueAt(problem(await addAddress(a, ADDRESS), 400, 'invalid_request'), 'body', 'too_many_addresses');
      assert.equal((await get(a, '/v1/me/addresses')).body.items.length, 50);
    });
  });

  describe('ownership of addresses', () => {
    test("B cannot delete A's address: 404 not_found exactly as an unknown id, and A still has it", async () => {
      const a = await customer();
      const b = await customer();
      const created = (await addAddress(a, ADDRESS)).body;
      const foreign = problem(await del(b, `/v1/me/addresses/${created.id}`), 404, 'not_found');
      const unknown = problem(await del(b, '/v1/me/addresses/addr_doesnotexist'), 404, 'not_found');
      assert.equal(foreign.detail, unknown.detail);
      assert.deepEqual((await get(a, '/v1/me/addresses')).body.items, [created]);
      assert.deepEqual((await get(b, '/v1/me/addresses')).body.items, []);
    });

    test("a fresh account cannot delete a seed address of cust_ada; Ada's list is unchanged", async () => {
      const ada = await customer('cust_ada');
      const before_ = (await get(ada, '/v1/me/addresses')).body;
      problem(await del(await customer(), '/v1/me/addresses/addr_ada01'), 404, 'not_found');
      assert.deepEqual((await get(ada, '/v1/me/addresses')).body, before_);
    });

    test('each account lists only its own addresses and cards', async () => {
      const ben = await get(await customer('cust_ben'), '/v1/me/addresses');
      assert.deepEqual(ben.body.items.map((x: { id: string }) => x.id).sort(), ['addr_ben01', 'addr_ben02', 'addr_ben03']);
      const cards = await get(await customer('cust_ben'), '/v1/me/payment-methods');
      assert.deepEqual(cards.body.items.map((x: { id: string }) => x.id).sort(), ['pm_ben01', 'pm_ben02']);
    });
  });

  describe('payment methods and checkout methods', () => {
    test('listPaymentMethods answers id, brand, last4, expiry and expired; never the provider reference', async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/payment-methods');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      const byId = new Map(res.body.items.map((c: { id: string }) => [c.id, c]));
      assert.deepEqual(byId.get('pm_ada01'), {
        id: 'pm_ada01',
        brand: 'visa',
        last4: '4242',
        exp_month: 8,
        exp_year: 2028,
        expired: false,
      });
      assert.deepEqual(byId.get('pm_ada02'), {
        id: 'pm_ada02',
        brand: 'amex',
        last4: '8431',
        exp_month: 3,
        exp_year: 2030,
        expired: false,
      });
      assert.ok(!res.text.includes('pm_card_'), 'no provider reference');
      assert.ok(!res.text.includes('provider'), res.text);
    });

    test('getCheckoutMethods lists the unexpired cards without the expired flag; an account without cards gets []', async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/checkout-methods');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      assert.deepEqual(res.body.items.map((c: { id: string }) => c.id).sort(), ['pm_ada01', 'pm_ada02']);
      for (const c of res.body.items) assert.deepEqual(Object.keys(c).sort(), ['brand', 'exp_month', 'exp_year', 'id', 'last4']);
      assert.ok(!res.text.includes('pm_card_'));
      assert.deepEqual((await get(await customer('cust_eve'), '/v1/me/checkout-methods')).body, { items: [] });
    });
  });

  describe('orders: list and read', () => {
    test("listOrders answers the account's orders newest first, with summaries", async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/orders');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      assert.deepEqual(
        res.body.items.map((o: { id: string }) => o.id),
        SEED_ORDERS.cust_ada,
      );
      assert.equal(res.body.next_cursor, null);
      const o1001 = res.body.items.find((o: { id: string }) => o.id === 'ord_1001');
      assert.deepEqual(o1001, {
        id: 'ord_1001',
        number: '#1001',
        status: 'delivered',
        placed_at: '2026-01-08T14:22:05Z',
        currency: 'USD',
        total_cents: 10584,
        item_count: 3,
      });
    });

    for (const sub of ['cust_ada', 'cust_ben'] as const) {
      for (const limit of [1, 2, 3]) {
        test(`paging through all of ${sub}'s orders with limit ${limit} visits each once, in order`, async () => {
          const a = await customer(sub);
          const seen: string[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const res = await get(a, `/v1/me/orders?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
            assert.equal(res.status, 200, res.text);
            assert.ok(res.body.items.length <= limit);
            seen.push(...res.body.items.map((o: { id: string }) => o.id));
            cursor = res.body.next_cursor;
            pages++;
          } while (cursor !== null && pages < 10);
          assert.deepEqual(seen, SEED_ORDERS[sub]);
          assert.equal(pages, Math.ceil(SEED_ORDERS[sub]!.length / limit));
        });
      }
    }

    test('status filters the list; a fresh account has no orders', async () => {
      const ben = await customer('cust_ben');
      assert.deepEqual(
        (await get(ben, '/v1/me/orders?status=cancelled')).body.items.map((o: { id: string }) => o.id),
        ['ord_1008'],
      );
      assert.deepEqual((await get(ben, '/v1/me/orders?status=refunded')).body, { items: [], next_cursor: null });
      assert.deepEqual((await get(await customer(), '/v1/me/orders')).body, { items: [], next_cursor: null });
    });

    test('bad limits, statuses and cursors are 400 invalid_request naming the parameter', async () => {
      const a = await customer('cust_ada');
      for (const [query, path] of [
        ['limit=0', 'query.limit'],
        ['limit=101', 'query.limit'],
        ['limit=two', 'query.limit'],
        ['status=lost', 'query.status'],
        ['cursor=%24%24', 'query.cursor'],
      ]) {
        expectIssueAt(problem(await get(a, `/v1/me/orders?${query}`), 400, 'invalid_request'), path!);
      }
      const forged = Buffer.from('x:5').toString('base64url');
      expectIssueAt(problem(await get(a, `/v1/me/orders?cursor=${forged}`), 400, 'invalid_request'), 'query.cursor', 'invalid_cursor');
    });

    test('getOrder answers lines, totals, status, payment and returns; totals add up', async () => {
      const res = await get(await customer('cust_ada'), '/v1/me/orders/ord_1001');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      const o = res.body;
      assert.equal(o.id, 'ord_1001');
      assert.equal(o.status, 'delivered');
      assert.deepEqual(o.lines, [
        { variant_id: 'var_0102', title: 'Organic Cotton Tee — Medium', quantity: 2, unit_price_cents: 2800, line_total_cents: 5600 },
        { variant_id: 'var_0801', title: o.lines[1].title, quantity: 1, unit_price_cents: 4200, line_total_cents: 4200 },
      ]);
      assert.equal(o.subtotal_cents, 9800);
      assert.equal(o.total_cents, o.subtotal_cents + o.shipping_cents + o.tax_cents);
      assert.equal(o.item_count, 3);
      assert.equal(o.payment_status, 'succeeded');
      assert.deepEqual(o.returns, []);
      assert.equal(o.address_id, 'addr_ada01');
      assert.equal(o.payment_method_id, 'pm_ada01');
      assert.equal(o.cancellable, false);
      assert.equal(o.returnable, true);
      assert.ok(!res.text.includes('pi_seed_'), 'no provider reference');
    });

    test('the refunded seed order shows its payment refunded', async () => {
      const o = (await get(await customer('cust_ada'), '/v1/me/orders/ord_1004')).body;
      assert.equal(o.status, 'refunded');
      assert.equal(o.payment_status, 'refunded');
      assert.equal(o.cancellable, false);
      assert.equal(o.returnable, false);
    });

    test("another account's order is 404 not_found exactly as a nonexistent one", async () => {
      const a = await customer('cust_ada');
      const foreign = problem(await get(a, '/v1/me/orders/ord_1002'), 404, 'not_found');
      const unknown = problem(await get(a, '/v1/me/orders/ord_9999'), 404, 'not_found');
      assert.equal(foreign.detail, unknown.detail);
      assert.ok(!(await get(a, '/v1/me/orders')).text.includes('ord_1002'));
    });

    test('an id that is not an order id is 400 invalid_request naming params.id', async () => {
      const a = await customer('cust_ada');
      for (const id of ['1001', 'ord_', 'addr_ada01', 'ord_10%2001']) {
        expectIssueAt(problem(await get(a, `/v1/me/orders/${id}`), 400, 'invalid_request'), 'params.id');
      }
    });
  });

  describe('cancelOrder', () => {
    test('a pending_payment order is cancelled: 200 with the order, the pending payment voided, no refund, an audit row', async () => {
      const ada = await customer('cust_ada');
      const res = await post(ada, '/v1/me/orders/ord_1013/cancellation');
      assert.equal(res.status, 200, res.text);
      expectNoStore(res);
      assert.equal(res.body.id, 'ord_1013');
      assert.equal(res.body.status, 'cancelled');
      assert.equal(res.body.cancellable, false);
      assert.equal(res.body.payment_status, 'failed');
      assert.equal(h.refunds.filter((r) => r.ref === 'pi_seed_ord_1013').length, 0);
      assert.deepEqual((await get(ada, '/v1/me/orders/ord_1013')).body, res.body);
      const rows = auditRows('ord_1013');
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.action, 'order.cancelled');
      assert.equal(rows[0]!.actor, 'customer:cust_ada');
      assert.deepEqual(JSON.parse(rows[0]!.details), { from: 'pending_payment', reason: null, refunded_cents: 0, refunded_payments: [] });
    });

    test('a paid order is refunded in full through the provider, then cancelled; the payment row is refunded', async () => {
      const ben = await customer('cust_ben');
      const total = (await get(ben, '/v1/me/orders/ord_1011')).body.total_cents as number;
      const res = await post(ben, '/v1/me/orders/ord_1011/cancellation', { reason: 'Ordered the wrong size' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'cancelled');
      assert.equal(res.body.payment_status, 'refunded');
      assert.deepEqual(
        h.refunds.filter((r) => r.ref === 'pi_seed_ord_1011'),
        [{ ref: 'pi_seed_ord_1011', amount: total }],
      );
      assert.deepEqual(
        paymentRows('ord_1011').map((p) => [p.status, p.refunded_cents]),
        [['refunded', total]],
      );
      const details = JSON.parse(auditRows('ord_1011')[0]!.details);
      assert.equal(details.reason, 'Ordered the wrong size');
      assert.equal(details.refunded_cents, total);
    });

    test('a delegated caller may cancel (the account list admits it); the audit names the caller kind', async () => {
      const token = auth(await h.minter.delegated({ sub: 'cust_chloe', channel: 'openapi' }));
      const res = await post(token, '/v1/me/orders/ord_1012/cancellation', {});
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'cancelled');
      assert.equal(auditRows('ord_1012')[0]!.actor, 'delegated:cust_chloe');
    });

    test('cancelling again is 409 order_not_cancellable; no second refund', async () => {
      const ben = await customer('cust_ben');
      const refunds = h.refunds.length;
      problem(await post(ben, '/v1/me/orders/ord_1011/cancellation'), 409, 'order_not_cancellable');
      assert.equal(h.refunds.length, refunds);
    });

    for (const [sub, id, status] of [
      ['cust_ada', 'ord_1009', 'fulfilled'],
      ['cust_ada', 'ord_1001', 'delivered'],
      ['cust_ben', 'ord_1008', 'cancelled'],
      ['cust_ada', 'ord_1004', 'refunded'],
      ['cust_ben', 'ord_1006', 'return_requested'],
    ] as const) {
      test(`an order in ${status} (${id}) cannot be cancelled: 409 order_not_cancellable, the order unchanged`, async () => {
        const before_ = orderRow(id);
        const payments = paymentRows(id);
        const doc = problem(await post(await customer(sub), `/v1/me/orders/${id}/cancellation`), 409, 'order_not_cancellable');
        assert.match(String(doc.detail), new RegExp(status));
        assert.deepEqual(orderRow(id), before_);
        assert.deepEqual(paymentRows(id), payments);
      });
    }

    test("cancelling another account's order is 404 not_found; it stays as it was and nothing is refunded", async () => {
      const before_ = orderRow('ord_1003');
      const refunds = h.refunds.length;
      problem(await post(await customer('cust_ada'), '/v1/me/orders/ord_1003/cancellation'), 404, 'not_found');
      problem(await post(await customer(), '/v1/me/orders/ord_1003/cancellation'), 404, 'not_found');
      assert.deepEqual(orderRow('ord_1003'), before_);
      assert.equal(h.refunds.length, refunds);
      assert.deepEqual(auditRows('ord_1003'), []);
    });

    test('the body is strict: an unknown member or a reason over 500 characters is 400 invalid_request', async () => {
      const dev = await customer('cust_dev');
      expectIssueAt(
        problem(await post(dev, '/v1/me/orders/ord_1010/cancellation', { reason: 'x', refund: false }), 400, 'invalid_request'),
        'body',
        'unrecognized_keys',
      );
      expectIssueAt(
        problem(await post(dev, '/v1/me/orders/ord_1010/cancellation', { reason: 'r'.repeat(501) }), 400, 'invalid_request'),
        'body.reason',
        'too_big',
      );
      expectIssueAt(problem(await post(dev, '/v1/me/orders/ord_1010/cancellation', null), 400, 'invalid_request'), 'body');
    });
  });

  describe('requestReturn', () => {
    test('a delivered order: 201, Location /v1/me/orders/<id>, the order return_requested with its return; an audit row', async () => {
      const ada = await customer('cust_ada');
      const res = await post(ada, '/v1/me/orders/ord_1001/returns', { reason: 'Too small' });
      assert.equal(res.status, 201, res.text);
      expectNoStore(res);
      assert.equal(res.headers.get('location'), '/v1/me/orders/ord_1001');
      assert.equal(res.body.status, 'return_requested');
      assert.equal(res.body.returnable, false);
      assert.equal(res.body.returns.length, 1);
      assert.match(res.body.returns[0].id, /^ret_[a-z0-9]+$/);
      assert.equal(res.body.returns[0].status, 'requested');
      assert.equal(res.body.returns[0].reason, 'Too small');
      assert.deepEqual((await get(ada, res.headers.get('location')!)).body, res.body);
      const row = auditRows('ord_1001')[0]!;
      assert.equal(row.action, 'order.return_requested');
      assert.deepEqual(JSON.parse(row.details).lines, [
        { variant_id: 'var_0102', quantity: 2 },
        { variant_id: 'var_0801', quantity: 1 },
      ]);
    });

    test('only once: a second request is 409 order_not_returnable and adds no return', async () => {
      const ada = await customer('cust_ada');
      problem(await post(ada, '/v1/me/orders/ord_1001/returns', { reason: 'Again' }), 409, 'order_not_returnable');
      assert.equal((await get(ada, '/v1/me/orders/ord_1001')).body.returns.length, 1);
    });

    test('named lines are recorded; they must be lines of the order, once each, within the ordered quantity', async () => {
      const chloe = await customer('cust_chloe');
      const bad: [unknown, string, string][] = [
        [[{ variant_id: 'var_0101', quantity: 1 }], 'body.lines.0.variant_id', 'not_in_order'],
        [[{ variant_id: 'var_0501', quantity: 2 }], 'body.lines.0.quantity', 'too_big'],
        [
          [
            { variant_id: 'var_0501', quantity: 1 },
            { variant_id: 'var_0501', quantity: 1 },
          ],
          'body.lines.1.variant_id',
          'duplicate',
        ],
        [[], 'body.lines', 'too_small'],
        [[{ variant_id: 'var_0501', quantity: 0 }], 'body.lines.0.quantity', 'too_small'],
        [[{ variant_id: 'var_0501', quantity: 1, note: 'x' }], 'body.lines.0', 'unrecognized_keys'],
        [[{ variant_id: 'sku-1', quantity: 1 }], 'body.lines.0.variant_id', 'invalid_format'],
      ];
      for (const [lines, path, code] of bad) {
        expectIssueAt(
          problem(await post(chloe, '/v1/me/orders/ord_1003/returns', { reason: 'Faulty', lines }), 400, 'invalid_request'),
          path,
          code,
        );
        assert.equal(orderRow('ord_1003').status, 'delivered');
      }
      const res = await post(chloe, '/v1/me/orders/ord_1003/returns', {
        reason: 'Faulty',
        lines: [{ variant_id: 'var_0501', quantity: 1 }],
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(JSON.parse(auditRows('ord_1003').at(-1)!.details).lines, [{ variant_id: 'var_0501', quantity: 1 }]);
    });

    test('the body is strict and needs a reason of 1 to 500 characters', async () => {
      const dev = await customer('cust_dev');
      for (const [body, path] of [
        [{}, 'body.reason'],
        [{ reason: '  ' }, 'body.reason'],
        [{ reason: 'r'.repeat(501) }, 'body.reason'],
        [{ reason: 'x', refund: true }, 'body'],
      ] as const) {
        expectIssueAt(problem(await post(dev, '/v1/me/orders/ord_1005/returns', body), 400, 'invalid_request'), path);
      }
      problem(await post(dev, '/v1/me/orders/ord_1005/returns'), 400, 'invalid_request');
      assert.equal(orderRow('ord_1005').status, 'delivered');
    });

    for (const [sub, id, status] of [
      ['cust_ada', 'ord_1009', 'fulfilled'],
      ['cust_ada', 'ord_1004', 'refunded'],
      ['cust_ben', 'ord_1006', 'return_requested'],
      ['cust_ben', 'ord_1008', 'cancelled'],
      ['cust_dev', 'ord_1010', 'fulfilled'],
    ] as const) {
      test(`an order in ${status} (${id}) cannot be returned: 409 order_not_returnable, the order unchanged`, async () => {
        const before_ = orderRow(id);
        problem(await post(await customer(sub), `/v1/me/orders/${id}/returns`, { reason: 'Changed my mind' }), 409, 'order_not_returnable');
        assert.deepEqual(orderRow(id), before_);
      });
    }

    test("returning another account's order is 404 not_found; it stays delivered with no return", async () => {
      problem(await post(await customer('cust_ada'), '/v1/me/orders/ord_1002/returns', { reason: 'Not mine' }), 404, 'not_found');
      problem(await post(await customer(), '/v1/me/orders/ord_1002/returns', { reason: 'Not mine' }), 404, 'not_found');
      assert.equal(orderRow('ord_1002').status, 'delivered');
      assert.equal((await get(await customer('cust_ben'), '/v1/me/orders/ord_1002')).body.returns.length, 0);
    });
  });

  describe('callers, scopes and account lifecycle', () => {
    const call = (headers: Headers_, op: string) => {
      const r = REQUESTS[op]!;
      return h.call(r.path, { method: r.method, headers, ...(r.json !== undefined ? { json: r.json } : {}) });
    };

    test('the request table covers the twelve operations of the contract', () => {
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) {
        const o = OPERATIONS_BY_ID.get(op);
        assert.ok(o, op);
        assert.equal(o.method, REQUESTS[op]!.method, op);
        assert.equal(o.callers, ACCOUNT_OPS.includes(op) ? 'account' : 'checkout', op);
      }
    });

    test('a guest is 403 caller_not_allowed on every account route and checkout read, with or without a session', async () => {
      const token = await h.minter.guest();
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) {
        for (const extra of [{}, { 'guest-session': newGuestSession(fixtureProfile.secrets.guestSessionKey) }] as Headers_[]) {
          const res = await call({ ...auth(token), ...extra }, op);
          problem(res, 403, 'caller_not_allowed');
          assert.equal(res.headers.get('www-authenticate'), null, op);
        }
      }
    });

    test('an operator is 403 caller_not_allowed on every account route and checkout read', async () => {
      const headers = { ...auth(await h.minter.operator()), operator: 'ops@shop.test' };
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) problem(await call(headers, op), 403, 'caller_not_allowed');
    });

    test('a delegated caller passes the guard of the account routes and is 403 caller_not_allowed on the checkout reads', async () => {
      for (const channel of ['openapi', 'mcp'] as const) {
        const headers = auth(await h.minter.delegated({ sub: freshSub(), channel }));
        for (const op of ACCOUNT_OPS) {
          const res = await call(headers, op);
          assert.ok(![401, 403].includes(res.status), `${channel} ${op}: ${res.status} ${res.text}`);
        }
        for (const op of CHECKOUT_READS) problem(await call(headers, op), 403, 'caller_not_allowed');
      }
    });

    test('a delegated caller reads its account: profile, addresses, orders', async () => {
      const headers = auth(await h.minter.delegated({ sub: 'cust_dev', channel: 'mcp' }));
      assert.equal((await get(headers, '/v1/me/profile')).body.sub, 'cust_dev');
      assert.equal((await get(headers, '/v1/me/addresses')).body.items.length, 2);
      assert.deepEqual(
        (await get(headers, '/v1/me/orders?status=delivered')).body.items.map((o: { id: string }) => o.id),
        ['ord_1005'],
      );
    });

    test('a customer passes the guard of all twelve operations', async () => {
      const headers = await customer();
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) {
        const res = await call(headers, op);
        assert.ok(![401, 403].includes(res.status), `${op}: ${res.status} ${res.text}`);
      }
    });

    const SCOPES: [string, string, string][] = [
      ['getProfile', 'account:read', 'catalog:read cart:read account:write payment_methods:read orders:read orders:write'],
      ['listAddresses', 'account:read', 'account:write'],
      ['addAddress', 'account:write', 'account:read'],
      ['deleteAddress', 'account:write', 'account:read'],
      ['listPaymentMethods', 'payment_methods:read', 'account:read orders:read'],
      ['listOrders', 'orders:read', 'account:read orders:write'],
      ['getOrder', 'orders:read', 'orders:write'],
      ['cancelOrder', 'orders:write', 'orders:read'],
      ['requestReturn', 'orders:write', 'orders:read account:write'],
      ['getIdentity', 'account:read', 'payment_methods:read'],
      ['getCheckoutAddress', 'account:read', 'account:write'],
      ['getCheckoutMethods', 'payment_methods:read', 'account:read'],
    ];
    for (const [op, missing, granted] of SCOPES) {
      test(`${op} without ${missing} is 403 insufficient_scope (scope ${missing})`, async () => {
        problem(await call(await customer(freshSub(), granted), op), 403, 'insufficient_scope', { scope: missing });
      });
    }

    test('a delegated caller with only the base scopes is 403 insufficient_scope on account reads and writes', async () => {
      const headers = auth(await h.minter.delegated({ sub: freshSub(), channel: 'openapi', scope: 'catalog:read cart:read cart:write' }));
      problem(await call(headers, 'listOrders'), 403, 'insufficient_scope', { scope: 'orders:read' });
      problem(await call(headers, 'addAddress'), 403, 'insufficient_scope', { scope: 'account:write' });
    });

    test('refusals for scope come before validation and write nothing', async () => {
      const a = freshSub();
      problem(await addAddress(await customer(a, 'account:read'), { nonsense: true }), 403, 'insufficient_scope', {
        scope: 'account:write',
      });
      const before_ = orderRow('ord_1005');
      problem(
        await post(await customer('cust_dev', 'orders:read'), '/v1/me/orders/ord_1005/returns', { reason: 'x' }),
        403,
        'insufficient_scope',
        { scope: 'orders:write' },
      );
      assert.deepEqual(orderRow('ord_1005'), before_);
      assert.deepEqual((await get(await customer(a), '/v1/me/addresses')).body.items, []);
    });

    for (const sub of ['cust_deleting', 'cust_deleted', 'cust_transition']) {
      test(`an ended account (${sub}) is 401 account_access_ended on every route, customer and delegated alike`, async () => {
        for (const headers of [await customer(sub), auth(await h.minter.delegated({ sub, channel: 'openapi' }))]) {
          for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) {
            const res = await call(headers, op);
            problem(res, 401, 'account_access_ended');
            expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
          }
        }
      });
    }

    test("cust_transition's address stays in place (the refused delete wrote nothing)", () => {
      assert.equal(h.db.prepare('SELECT count(*) FROM addresses WHERE account_sub = ?').pluck().get('cust_transition'), 1);
    });

    test('no token is 401 invalid_token', async () => {
      for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) problem(await call({}, op), 401, 'invalid_token');
    });
  });

  describe('description document', () => {
    test('/openapi.json publishes the account records as components and the strict request bodies', async () => {
      const doc = (await h.call('/openapi.json')).body;
      for (const id of [
        'Profile',
        'Identity',
        'Address',
        'AddressList',
        'PaymentMethod',
        'PaymentMethodList',
        'CheckoutMethod',
        'CheckoutMethodList',
        'CheckoutAddress',
        'OrderDetail',
        'OrderDetailLine',
        'OrderSummary',
        'OrderPage',
        'Return',
      ]) {
        assert.ok(doc.components.schemas[id], id);
      }
      for (const [path, method] of [
        ['/v1/me/orders/{id}', 'get'],
        ['/v1/me/orders/{id}/cancellation', 'post'],
        ['/v1/me/orders/{id}/returns', 'post'],
      ] as const) {
        const ok = doc.paths[path][method].responses[method === 'get' ? '200' : path.endsWith('returns') ? '201' : '200'];
        assert.equal(ok.content['application/json'].schema.$ref, '#/components/schemas/OrderDetail', path);
      }
      assert.ok(doc.components.schemas.OrderDetail.properties.returns);
      assert.deepEqual(Object.keys(doc.components.schemas.Identity.properties).sort(), ['display_name', 'self_service_eligible']);
      assert.equal(doc.components.schemas.Identity.additionalProperties, false);
      const add = doc.paths['/v1/me/addresses'].post;
      assert.equal(add.requestBody.content['application/json'].schema.additionalProperties, false);
      assert.equal(add.requestBody.content['application/json'].schema.properties.name.maxLength, 100);
      assert.equal(add.responses['201'].content['application/json'].schema.$ref, '#/components/schemas/Address');
      assert.match(doc.paths['/v1/me/orders/{id}/cancellation'].post.responses['409'].description, /order_not_cancellable/);
      assert.match(doc.paths['/v1/me/orders/{id}/returns'].post.responses['409'].description, /order_not_returnable/);
      const list = doc.paths['/v1/me/orders'].get.parameters.map((p: { name: string }) => p.name).sort();
      assert.deepEqual(list, ['cursor', 'limit', 'status']);
    });
  });
});

describe('account over HTTP: card expiry follows the clock', () => {
  let h: AccountHarness;
  before(async () => {
    // pm_ada01 expires 08/2028: valid through 31 August 2028, expired from 1 September.
    h = await startAccount({ clock: testClock(new Date('2028-08-31T23:59:00Z')) });
  });
  after(async () => {
    await h.close();
  });

  test('a card is usable through its expiry month and excluded from checkout methods afterwards', async () => {
    const ada = auth(await h.minter.customer({ sub: 'cust_ada' }));
    const ids = async () =>
      ((await h.call('/v1/me/checkout-methods', { headers: ada })).body.items as { id: string }[]).map((c) => c.id).sort();
    assert.deepEqual(await ids(), ['pm_ada01', 'pm_ada02']);
    h.clock.set(new Date('2028-09-01T00:00:01Z'));
    const token = auth(await h.minter.customer({ sub: 'cust_ada' }));
    const checkout = await h.call('/v1/me/checkout-methods', { headers: token });
    assert.deepEqual(
      checkout.body.items.map((c: { id: string }) => c.id),
      ['pm_ada02'],
    );
    const all = await h.call('/v1/me/payment-methods', { headers: token });
    assert.deepEqual(all.body.items.map((c: { id: string; expired: boolean }) => [c.id, c.expired]).sort(), [
      ['pm_ada01', true],
      ['pm_ada02', false],
    ]);
  });
});

describe('account over HTTP: refunds at the provider', () => {
  test('a failed refund answers 500 internal_error without detail; the order stays paid and its payment succeeded', async () => {
    const h = await startAccount({ refund: async () => ({ status: 'failed', providerRef: 're_x' }) });
    try {
      const ben = auth(await h.minter.customer({ sub: 'cust_ben' }));
      const res = await h.call('/v1/me/orders/ord_1011/cancellation', { method: 'POST', headers: ben });
      const doc = expectProblem(res, { status: 500, error: 'internal_error', docsUrl: fixtureProfile.docsUrl });
      assert.equal('detail' in doc, false);
      assert.equal((await h.call('/v1/me/orders/ord_1011', { headers: ben })).body.status, 'paid');
      assert.equal(h.db.prepare('SELECT status FROM payments WHERE order_id = ?').pluck().get('ord_1011'), 'succeeded');
      assert.equal(h.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 0);
      assert.ok(
        h.logs.some((l) => l.event === 'api_error'),
        JSON.stringify(h.logs),
      );
    } finally {
      await h.close();
    }
  });

  test('a refund that throws is the same: 500, nothing written', async () => {
    const h = await startAccount({
      refund: async () => {
        throw new Error('provider down');
      },
    });
    try {
      const chloe = auth(await h.minter.customer({ sub: 'cust_chloe' }));
      expectProblem(await h.call('/v1/me/orders/ord_1012/cancellation', { method: 'POST', headers: chloe }), {
        status: 500,
        error: 'internal_error',
        docsUrl: fixtureProfile.docsUrl,
      });
      assert.equal(h.db.prepare('SELECT status FROM orders WHERE id = ?').pluck().get('ord_1012'), 'paid');
      assert.ok(h.logs.some((l) => l.event === 'refund_failed'));
    } finally {
      await h.close();
    }
  });

  test('two cancellations at once: one cancels and refunds once, the other is 409 order_not_cancellable', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = await startAccount({
      refund: async () => {
        await gate;
        return { status: 'succeeded', providerRef: 're_y' };
      },
    });
    try {
      const ben = auth(await h.minter.customer({ sub: 'cust_ben' }));
      const first = h.call('/v1/me/orders/ord_1011/cancellation', { method: 'POST', headers: ben });
      // Wait until the first one is at the provider.
      for (let i = 0; i < 100 && h.refunds.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(h.refunds.length, 1);
      const second = await h.call('/v1/me/orders/ord_1011/cancellation', { method: 'POST', headers: ben });
      expectProblem(second, { status: 409, error: 'order_not_cancellable', docsUrl: fixtureProfile.docsUrl });
      release();
      const done = await first;
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'cancelled');
      assert.equal(h.refunds.length, 1);
    } finally {
      await h.close();
    }
  });
});
