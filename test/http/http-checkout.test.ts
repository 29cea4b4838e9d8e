// Checkout over HTTP against the reference (spec, What the service does 6; Errors `cart_empty`; docs/checkout.md): the
// pricing rule, previews, saved-card checkout with the simulated provider (paid, declined, pending), its refusals, the
// no-idempotency rule, and the race between the charge and the order transaction. The database is a temporary file, read
// through a second connection to see the rows a response does not show (payments, audit, Idempotency-Key).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { bearer, fixtureProfile, startReference, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { priceOrder } from '../../reference/src/pricing.js';
import { createSimulatedProvider } from '../../reference/src/payments/simulated.js';
import type { ChargeRequest, PaymentProvider } from '../../reference/src/payments/port.js';
import { ProblemError } from '../../reference/src/problem.js';
import { reconcileCheckouts } from '../../reference/src/jobs/reconcile-checkouts.js';
import type { Domain } from '../../reference/src/domain.js';

type Res = Awaited<ReturnType<Harness['call']>>;
type Hdrs = Record<string, string>;

const PREVIEW = '/v1/checkout-previews';
const CHECKOUT = '/v1/checkouts/saved-card';
const ORDER_LOCATION = /^\/v1\/me\/orders\/(ord_[a-z0-9]+)$/;

function tempDbPath(): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'shop-checkout-'));
  return { path: join(dir, 'shop.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('pricing rule (reference/src/pricing.ts)', () => {
  const line = (unitPriceCents: number, quantity = 1) => ({ unitPriceCents, quantity });
  test('shipping is 595 cents below a 7500-cent subtotal and free from 7500', () => {
    assert.equal(priceOrder([line(7499)], 'US').shippingCents, 595);
    assert.equal(priceOrder([line(7500)], 'US').shippingCents, 0);
    assert.equal(priceOrder([line(2500, 3)], 'FR').shippingCents, 0);
  });
  test('tax is 8 % of the subtotal for US addresses, rounded half up; 0 elsewhere and without an address', () => {
    assert.equal(priceOrder([line(2800)], 'US').taxCents, 224);
    assert.equal(priceOrder([line(1999)], 'US').taxCents, 160); // 159.92
    assert.equal(priceOrder([line(1006)], 'US').taxCents, 80); // 80.48
    assert.equal(priceOrder([line(1999)], 'us').taxCents, 160);
    assert.equal(priceOrder([line(1999)], 'FR').taxCents, 0);
    assert.equal(priceOrder([line(1999)], null).taxCents, 0);
  });
  test('total is subtotal + shipping + tax', () => {
    assert.deepEqual(priceOrder([line(2800, 2), line(4200)], 'US'), {
      subtotalCents: 9800,
      shippingCents: 0,
      taxCents: 784,
      totalCents: 10584,
    });
  });
});

describe('checkout over HTTP', () => {
  let h: Harness;
  let db: Database.Database;
  let cleanup: () => void;
  before(async () => {
    const tmp = tempDbPath();
    cleanup = tmp.cleanup;
    h = await startReference({ overrides: { databasePath: tmp.path } });
    db = new Database(tmp.path, { readonly: true });
  });
  after(async () => {
    db.close();
    await h.close();
    cleanup();
  });

  const delegated = async (sub: string, scope?: string) =>
    bearer(await h.minter.delegated({ sub, channel: 'openapi', ...(scope !== undefined ? { scope } : {}) }));
  const add = (headers: Hdrs, variant_id: string, quantity = 1) =>
    h.call('/v1/cart/items', { method: 'POST', headers, json: { variant_id, quantity } });
  const cart = (headers: Hdrs) => h.call('/v1/cart', { headers });
  const preview = (headers: Hdrs, body: unknown = {}) => h.call(PREVIEW, { method: 'POST', headers, json: body });
  const checkout = (headers: Hdrs, body: unknown, extra: Hdrs = {}) =>
    h.call(CHECKOUT, { method: 'POST', headers: { ...headers, ...extra }, json: body });
  const stockOf = async (handle: string, variantId: string) => {
    const res = await h.call(`/v1/catalog/products/${handle}`, { headers: await delegated(`cust_test_${randomUUID()}`) });
    return (res.body.variants as { id: string; available_quantity: number }[]).find((v) => v.id === variantId)!.available_quantity;
  };
  const ordersOf = (sub: string) =>
    db.prepare('SELECT id, status, idempotency_key FROM orders WHERE account_sub = ? ORDER BY placed_at, rowid').all(sub) as {
      id: string;
      status: string;
      idempotency_key: string | null;
    }[];
  const problem = (res: Res, status: number, error: string, extra: { scope?: string } = {}) => {
    const doc = expectProblem(res, { status, error, docsUrl: h.profile.docsUrl, ...extra });
    expectNoStore(res);
    return doc;
  };
  const expectCartLines = async (headers: Hdrs, want: [string, number][]) => {
    const res = await cart(headers);
    assert.deepEqual(
      (res.body.lines as { variant_id: string; quantity: number }[]).map((l) => [l.variant_id, l.quantity]),
      want,
    );
  };

  describe('createCheckoutPreview', () => {
    test('200 with the totals of the account cart for its newest address; not stored, no Location', async () => {
      const t = await delegated('cust_checkout_7');
      assert.equal((await add(t, 'var_0101', 2)).status, 201);
      assert.equal((await add(t, 'var_0801')).status, 201);
      const res = await preview(t);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('location'), null);
      expectNoStore(res);
      // 2 × 2800 + 4200 = 9800: free shipping, 8 % US tax.
      assert.deepEqual(
        { ...res.body, lines: res.body.lines.map((l: { variant_id: string }) => l.variant_id) },
        {
          lines: ['var_0101', 'var_0801'],
          item_count: 3,
          currency: 'USD',
          subtotal_cents: 9800,
          shipping_cents: 0,
          tax_cents: 784,
          total_cents: 10584,
          address_id: 'addr_chk7',
          payment_method_id: null,
        },
      );
      const named = await preview(t, { address_id: 'addr_chk7', payment_method_id: 'pm_chk7' });
      assert.equal(named.status, 200, named.text);
      assert.equal(named.body.payment_method_id, 'pm_chk7');
      assert.equal(ordersOf('cust_checkout_7').length, 0, 'a preview writes no order');
      await expectCartLines(t, [
        ['var_0101', 2],
        ['var_0801', 1],
      ]);
    });

    test('below 7500 cents shipping is charged; a non-US address pays no tax; an account with no address gets tax 0 and address_id null', async () => {
      const chloe = await delegated('cust_chloe');
      await add(chloe, 'var_0101');
      const fr = await preview(chloe);
      assert.equal(fr.status, 200, fr.text);
      assert.deepEqual(
        [fr.body.subtotal_cents, fr.body.shipping_cents, fr.body.tax_cents, fr.body.total_cents, fr.body.address_id],
        [2800, 595, 0, 3395, 'addr_chloe01'],
      );
      const fresh = await delegated(`cust_test_${randomUUID()}`);
      await add(fresh, 'var_0101');
      const none = await preview(fresh);
      assert.equal(none.status, 200, none.text);
      assert.deepEqual([none.body.tax_cents, none.body.total_cents, none.body.address_id], [0, 3395, null]);
    });

    test("422 cart_empty for an empty cart; 422 for an address or card that is not the account's; 400 for unknown members", async () => {
      const fresh = await delegated(`cust_test_${randomUUID()}`);
      problem(await preview(fresh), 422, 'cart_empty');
      const chloe = await delegated('cust_chloe');
      await add(chloe, 'var_0102');
      problem(await preview(chloe, { address_id: 'addr_ada01' }), 422, 'address_required');
      problem(await preview(chloe, { payment_method_id: 'pm_ada01' }), 422, 'unknown_payment_method');
      problem(await preview(chloe, { coupon: 'FREE' }), 400, 'invalid_request');
      problem(await preview(chloe, { address_id: 7 }), 400, 'invalid_request');
    });
  });

  describe('checkoutSavedCard', () => {
    test('201 with Location and the paid order; the cart is emptied, stock decremented, payment and audit rows written', async () => {
      const t = await delegated('cust_checkout_1');
      const teeBefore = await stockOf('organic-cotton-tee', 'var_0101');
      const mugBefore = await stockOf('stoneware-mug-set', 'var_0801');
      await add(t, 'var_0101', 2);
      await add(t, 'var_0801');
      const quoted = (await preview(t)).body;
      const res = await checkout(t, { payment_method_id: 'pm_chk1' });
      assert.equal(res.status, 201, res.text);
      expectNoStore(res);
      const location = res.headers.get('location') ?? '';
      const id = ORDER_LOCATION.exec(location)?.[1];
      assert.ok(id, `Location ${location}`);
      const order = res.body;
      assert.equal(order.id, id);
      assert.equal(order.status, 'paid');
      assert.match(order.number, /^#\d+$/);
      assert.ok(Number(order.number.slice(1)) > 1013, "numbers continue after the seed's");
      assert.deepEqual(
        order.lines.map((l: { variant_id: string; quantity: number; line_total_cents: number }) => [
          l.variant_id,
          l.quantity,
          l.line_total_cents,
        ]),
        [
          ['var_0101', 2, 5600],
          ['var_0801', 1, 4200],
        ],
      );
      for (const k of ['subtotal_cents', 'shipping_cents', 'tax_cents', 'total_cents'] as const)
        assert.equal(order[k], quoted[k], `${k} equals the preview's`);
      assert.equal(order.address_id, 'addr_chk1');
      assert.equal(order.payment_method_id, 'pm_chk1');
      assert.equal(order.payment_status, 'succeeded');
      assert.equal(order.item_count, 3);

      const read = await h.call(location, { headers: t });
      assert.equal(read.status, 200, `GET ${location}: ${read.text}`);
      // getOrder answers OrderDetail: every member of the 201's Order, with the same value, plus the order's later life.
      for (const [k, v] of Object.entries(order)) assert.deepEqual(read.body[k], v, `GET ${location}: "${k}" as the 201 answered it`);
      await expectCartLines(t, []);
      assert.equal(await stockOf('organic-cotton-tee', 'var_0101'), teeBefore - 2);
      assert.equal(await stockOf('stoneware-mug-set', 'var_0801'), mugBefore - 1);
      const payment = db.prepare('SELECT provider, provider_ref, status, amount_cents, currency FROM payments WHERE order_id = ?').all(id);
      assert.equal(payment.length, 1);
      assert.match((payment[0] as { provider_ref: string }).provider_ref, /^pi_sim_/);
      assert.deepEqual(
        { ...(payment[0] as object), provider_ref: undefined },
        { provider: 'simulated', provider_ref: undefined, status: 'succeeded', amount_cents: order.total_cents, currency: 'USD' },
      );
      const audit = db.prepare('SELECT actor, action, details FROM audit_log WHERE target = ?').all(id) as {
        actor: string;
        action: string;
        details: string;
      }[];
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.actor, 'delegated:cust_checkout_1');
      assert.equal(audit[0]!.action, 'order.placed');
      assert.equal(JSON.parse(audit[0]!.details).channel, 'openapi');
    });

    test('no idempotency: a second submission finds the cart empty (422); a refilled cart with the same Idempotency-Key places another order', async () => {
      const t = await delegated('cust_checkout_2');
      const key = { 'idempotency-key': `retry-${randomUUID()}` };
      await add(t, 'var_0101');
      const first = await checkout(t, { payment_method_id: 'pm_chk2' }, key);
      assert.equal(first.status, 201, first.text);
      problem(await checkout(t, { payment_method_id: 'pm_chk2' }, key), 422, 'cart_empty');
      await add(t, 'var_0101');
      const second = await checkout(t, { payment_method_id: 'pm_chk2' }, key);
      assert.equal(second.status, 201, second.text);
      assert.notEqual(second.body.id, first.body.id);
      const orders = ordersOf('cust_checkout_2');
      assert.deepEqual(
        orders.map((o) => o.id),
        [first.body.id, second.body.id],
      );
      // Kept for audit only, on both orders: it never deduplicated anything.
      assert.deepEqual(
        orders.map((o) => o.idempotency_key),
        [key['idempotency-key'], key['idempotency-key']],
      );
    });

    test('a declined card: 402 payment_failed; nothing written, cart and stock unchanged', async () => {
      const t = await delegated('cust_checkout_decline');
      await add(t, 'var_0102', 2);
      const stock = await stockOf('organic-cotton-tee', 'var_0102');
      const paymentsBefore = db.prepare('SELECT count(*) FROM payments').pluck().get() as number;
      problem(await checkout(t, { payment_method_id: 'pm_chkdecline' }), 402, 'payment_failed');
      await expectCartLines(t, [['var_0102', 2]]);
      assert.equal(await stockOf('organic-cotton-tee', 'var_0102'), stock);
      assert.equal(ordersOf('cust_checkout_decline').length, 0);
      assert.equal(db.prepare('SELECT count(*) FROM payments').pluck().get(), paymentsBefore);
      assert.equal(db.prepare("SELECT count(*) FROM audit_log WHERE actor = 'delegated:cust_checkout_decline'").pluck().get(), 0);
    });

    test('a card that settles later: 201 with status pending_payment and a pending payment', async () => {
      const t = await delegated('cust_checkout_async');
      await add(t, 'var_0101');
      const res = await checkout(t, { payment_method_id: 'pm_chkasync' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'pending_payment');
      assert.equal(res.body.payment_status, 'pending');
      assert.equal(db.prepare('SELECT status FROM payments WHERE order_id = ?').pluck().get(res.body.id), 'pending');
      await expectCartLines(t, []);
    });

    test("422 unknown_payment_method for an unknown card and for another account's card; the cart is unchanged", async () => {
      const t = await delegated('cust_checkout_3');
      await add(t, 'var_0101');
      problem(await checkout(t, { payment_method_id: 'pm_nope0001' }), 422, 'unknown_payment_method');
      problem(await checkout(t, { payment_method_id: 'pm_chk4' }), 422, 'unknown_payment_method');
      await expectCartLines(t, [['var_0101', 1]]);
      assert.equal(ordersOf('cust_checkout_3').length, 0);
    });

    test("422 address_required for another account's address, and for an account without any address", async () => {
      const t = await delegated('cust_checkout_3');
      problem(await checkout(t, { payment_method_id: 'pm_chk3', address_id: 'addr_ada01' }), 422, 'address_required');
      // A saved card but no address: cust_setup's card setups are completed by the webhook; give a fresh account a card directly.
      const sub = `cust_test_${randomUUID()}`;
      const fresh = await delegated(sub);
      await add(fresh, 'var_0101');
      const writer = new Database(db.name);
      writer
        .prepare(
          `INSERT INTO payment_methods (id, account_sub, brand, last4, exp_month, exp_year, provider_ref, created_at)
        VALUES ('pm_noaddress', ?, 'visa', '4242', 12, 2030, 'pm_card_visa', ?)`,
        )
        .run(sub, new Date().toISOString());
      writer.close();
      problem(await checkout(fresh, { payment_method_id: 'pm_noaddress' }), 422, 'address_required');
      assert.equal(ordersOf(sub).length, 0);
    });

    test('422 cart_empty comes first: an empty cart is refused whatever card it names', async () => {
      problem(await checkout(await delegated(`cust_test_${randomUUID()}`), { payment_method_id: 'pm_nope0001' }), 422, 'cart_empty');
    });

    test('stock exhausted since the cart was filled: 409 insufficient_stock, nothing written', async () => {
      // var_0302 has 3 units. Account 4 puts all 3 in its cart; account 5 buys one first.
      const four = await delegated('cust_checkout_4');
      const five = await delegated('cust_checkout_5');
      assert.equal((await add(four, 'var_0302', 3)).status, 201);
      await add(five, 'var_0302');
      assert.equal((await checkout(five, { payment_method_id: 'pm_chk5' })).status, 201);
      const left = await stockOf('waxed-canvas-field-jacket', 'var_0302');
      problem(await checkout(four, { payment_method_id: 'pm_chk4' }), 409, 'insufficient_stock');
      await expectCartLines(four, [['var_0302', 3]]);
      assert.equal(await stockOf('waxed-canvas-field-jacket', 'var_0302'), left);
      assert.equal(ordersOf('cust_checkout_4').length, 0);
    });

    test('body: payment_method_id required, unknown members refused (400 invalid_request)', async () => {
      const t = await delegated('cust_checkout_3');
      problem(await checkout(t, {}), 400, 'invalid_request');
      problem(await checkout(t, { payment_method_id: 'pm_chk3', idempotency_key: 'x' }), 400, 'invalid_request');
    });

    test('two checkouts of one cart at once: exactly one order; the other finds the cart empty', async () => {
      const t = await delegated('cust_checkout_6');
      await add(t, 'var_0101');
      await add(t, 'var_0801');
      const results = await Promise.all([checkout(t, { payment_method_id: 'pm_chk6' }), checkout(t, { payment_method_id: 'pm_chk6' })]);
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 422], results.map((r) => r.text).join('\n'));
      problem(
        results.find((r) => r.status === 422)!,
        422,
        'cart_empty',
      );
      assert.equal(ordersOf('cust_checkout_6').length, 1);
      await expectCartLines(t, []);
    });
  });

  describe('callers and scopes', () => {
    test('a customer is refused both operations: 403 caller_not_allowed', async () => {
      const t = bearer(await h.minter.customer({ sub: 'cust_checkout_8' }));
      problem(await preview(t), 403, 'caller_not_allowed');
      problem(await checkout(t, { payment_method_id: 'pm_chk8' }), 403, 'caller_not_allowed');
    });
    test('a delegated token without the checkout scope: 403 insufficient_scope naming checkout', async () => {
      const t = await delegated('cust_checkout_8', 'catalog:read cart:read cart:write orders:read');
      problem(await preview(t), 403, 'insufficient_scope', { scope: 'checkout' });
      problem(await checkout(t, { payment_method_id: 'pm_chk8' }), 403, 'insufficient_scope', { scope: 'checkout' });
    });
    test('a guest and an operator are refused: 403 caller_not_allowed', async () => {
      const guest = { ...bearer(await h.minter.guest()), 'guest-session': newGuestSession(h.profile.secrets.guestSessionKey) };
      problem(await preview(guest), 403, 'caller_not_allowed');
      const operator = { ...bearer(await h.minter.operator()), operator: 'ops@shop.test' };
      problem(await checkout(operator, { payment_method_id: 'pm_chk8' }), 403, 'caller_not_allowed');
    });
  });
});

// --- the charge / transaction race, with a payment provider the test controls -------------------------------------------

interface Gate {
  open(): void;
  opened: Promise<void>;
}
const gate = (): Gate => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
};

/** The simulated provider, with every charge held until the test opens `hold`, and every call recorded. */
function heldProvider(hold: { current: Gate | null }) {
  const inner = createSimulatedProvider();
  const charges: ChargeRequest[] = [];
  const refunds: { ref: string; amount: number }[] = [];
  let charged: () => void = () => {};
  const provider: PaymentProvider & { charges: typeof charges; refunds: typeof refunds; nextCharge(): Promise<void>; delayMs: number } = {
    name: 'simulated',
    charges,
    refunds,
    delayMs: 0,
    nextCharge: () => new Promise<void>((r) => (charged = r)),
    async charge(r) {
      charges.push(r);
      charged();
      if (hold.current) await hold.current.opened;
      if (provider.delayMs > 0) await new Promise((done) => setTimeout(done, provider.delayMs));
      return inner.charge(r);
    },
    findCharge: (orderId) => inner.findCharge(orderId),
    async refund(ref, amount) {
      refunds.push({ ref, amount });
      return inner.refund(ref, amount);
    },
  };
  return provider;
}

/** One reference instance over a shared database file with the given provider: two instances are two processes. */
function instance(dbPath: string, payments: PaymentProvider, seed: boolean) {
  return startReference({ overrides: { databasePath: dbPath }, payments, seed });
}

describe('checkout: the cart or the stock changes while the provider charges', () => {
  const minter = createMinter(fixtureProfile);
  const token = async (sub: string) => bearer(await minter.delegated({ sub, channel: 'openapi' }));
  const hold: { current: Gate | null } = { current: null };
  let tmp: ReturnType<typeof tempDbPath>;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;
  let pa: ReturnType<typeof heldProvider>;
  let pb: ReturnType<typeof heldProvider>;
  before(async () => {
    tmp = tempDbPath();
    pa = heldProvider(hold);
    pb = heldProvider(hold);
    a = await instance(tmp.path, pa, true);
    b = await instance(tmp.path, pb, false);
  });
  after(async () => {
    await a.close();
    await b.close();
    tmp.cleanup();
  });
  const orders = (sub: string) => a.db.prepare('SELECT count(*) FROM orders WHERE account_sub = ?').pluck().get(sub) as number;
  const add = async (t: Hdrs, variant_id: string, quantity = 1) =>
    assert.equal((await a.call('/v1/cart/items', { method: 'POST', headers: t, json: { variant_id, quantity } })).status, 201);

  test('two instances check out one cart at once: one charge, one order; the other waits for the claim and answers 422 cart_empty', async () => {
    const t = await token('cust_checkout_1');
    await add(t, 'var_0101');
    const chargesBefore = pa.charges.length + pb.charges.length;
    hold.current = gate();
    const firstCharge = Promise.race([pa.nextCharge(), pb.nextCharge()]);
    const requests = [a, b].map((x) => x.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk1' } }));
    await firstCharge; // one instance claimed the cart and asked for the money
    await new Promise((r) => setTimeout(r, 300)); // the other has long reached its claim meanwhile
    const chargedWhileHeld = pa.charges.length + pb.charges.length - chargesBefore;
    hold.current.open();
    const results = await Promise.all(requests);
    hold.current = null;
    assert.equal(chargedWhileHeld, 1, 'the second instance does not charge while the first does');
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 422], results.map((r) => r.text).join('\n'));
    assert.equal(results.find((r) => r.status === 422)!.body.error, 'cart_empty');
    assert.equal(orders('cust_checkout_1'), 1);
    assert.equal(pa.charges.length + pb.charges.length, chargesBefore + 1, 'one charge in all');
    assert.equal(pa.refunds.length + pb.refunds.length, 0, 'nothing to refund');
  });

  test('two instances race checkouts of one cart, round after round: exactly one charge and one order per cart state', async () => {
    const t = await token('cust_checkout_7');
    const charges = () => [...pa.charges, ...pb.charges].filter((c) => c.accountSub === 'cust_checkout_7').length;
    const rounds = 12;
    for (let round = 1; round <= rounds; round++) {
      await add(t, 'var_1701');
      // Each instance's provider takes a few milliseconds, differently each time: the requests interleave at every await.
      pa.delayMs = (round * 7) % 5;
      pb.delayMs = (round * 3) % 5;
      const results = await Promise.all(
        [a, b, a, b].map((x) => x.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk7' } })),
      );
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        [201, 422, 422, 422],
        `round ${round}: ${results.map((r) => r.text).join('\n')}`,
      );
      assert.equal(charges(), round, `round ${round}: one charge per cart state`);
      assert.equal(orders('cust_checkout_7'), round);
    }
    pa.delayMs = pb.delayMs = 0;
    assert.equal([...pa.refunds, ...pb.refunds].length, 0);
  });

  test('a claim left by a stopped process (older than CHECKOUT_RECONCILE_AFTER_SECONDS) is settled by the next checkout, which goes on', async () => {
    const t = await token('cust_checkout_8');
    await add(t, 'var_1701');
    const stale = new Date(a.clock.now().getTime() - (a.config.checkoutReconcileAfterSeconds + 1) * 1000).toISOString();
    const cart = (await a.call('/v1/cart', { headers: t })).body as { lines: unknown[] };
    a.db
      .prepare(
        `INSERT INTO checkout_attempts (id, account_sub, cart_owner, state, provider, amount_cents, currency, plan, created_at, updated_at)
        VALUES ('ord_stoppedclaim', 'cust_checkout_8', 'account:cust_checkout_8', 'charging', 'simulated', 1, 'USD', ?, ?, ?)`,
      )
      .run(JSON.stringify({ cartOwner: 'account:cust_checkout_8', charged: cart }), stale, stale);
    const res = await b.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk8' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(a.db.prepare("SELECT state FROM checkout_attempts WHERE id = 'ord_stoppedclaim'").pluck().get(), 'abandoned');
  });

  test('the line is removed during the charge: refund, 422 cart_empty, nothing written', async () => {
    const t = await token('cust_checkout_2');
    await add(t, 'var_0101');
    hold.current = gate();
    const charged = pa.nextCharge();
    const pending = a.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk2' } });
    await charged;
    assert.equal((await a.call('/v1/cart/items/var_0101', { method: 'DELETE', headers: t })).status, 204);
    const refundsBefore = pa.refunds.length;
    hold.current.open();
    const res = await pending;
    hold.current = null;
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error, 'cart_empty');
    assert.equal(pa.refunds.length, refundsBefore + 1);
    assert.equal(orders('cust_checkout_2'), 0);
  });

  test('a line shrinks during the charge: refund, 409, cart left as edited', async () => {
    const t = await token('cust_checkout_3');
    await add(t, 'var_0101', 2);
    await add(t, 'var_0801');
    hold.current = gate();
    const charged = pa.nextCharge();
    const pending = a.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk3' } });
    await charged;
    assert.equal((await a.call('/v1/cart/items/var_0101', { method: 'PATCH', headers: t, json: { quantity: 1 } })).status, 200);
    hold.current.open();
    const res = await pending;
    hold.current = null;
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error, 'cart_changed');
    assert.equal(orders('cust_checkout_3'), 0);
    const cart = await a.call('/v1/cart', { headers: t });
    assert.deepEqual(
      cart.body.lines.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity]),
      [
        ['var_0101', 1],
        ['var_0801', 1],
      ],
    );
  });

  test('a line added during the charge is not ordered and stays in the cart', async () => {
    const t = await token('cust_checkout_4');
    await add(t, 'var_0101');
    hold.current = gate();
    const charged = pa.nextCharge();
    const pending = a.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk4' } });
    await charged;
    await add(t, 'var_0801');
    await add(t, 'var_0101');
    hold.current.open();
    const res = await pending;
    hold.current = null;
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      res.body.lines.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity]),
      [['var_0101', 1]],
    );
    const cart = await a.call('/v1/cart', { headers: t });
    assert.deepEqual(
      cart.body.lines.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity]),
      [
        ['var_0101', 1],
        ['var_0801', 1],
      ],
    );
  });

  test('the stock runs out during the charge: refund, 409 insufficient_stock, nothing written', async () => {
    const t = await token('cust_checkout_5');
    await add(t, 'var_1802');
    hold.current = gate();
    const charged = pa.nextCharge();
    const pending = a.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk5' } });
    await charged;
    b.db.prepare("UPDATE variants SET stock = 0 WHERE id = 'var_1802'").run();
    const refundsBefore = pa.refunds.length;
    hold.current.open();
    const res = await pending;
    hold.current = null;
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error, 'insufficient_stock');
    assert.equal(pa.refunds.length, refundsBefore + 1);
    assert.equal(orders('cust_checkout_5'), 0);
    assert.equal(a.db.prepare("SELECT stock FROM variants WHERE id = 'var_1802'").pluck().get(), 0);
  });
});

describe('checkout: a provider outage whose charge went through anyway (docs/checkout.md, Crash safety)', () => {
  test('503 to the client; the reconciler finds the charge later and refunds it once, never orders it', async () => {
    const tmp = tempDbPath();
    const inner = createSimulatedProvider();
    const refunds: { ref: string; amount: number; key?: string }[] = [];
    const payments: PaymentProvider = {
      name: 'simulated',
      async charge(r) {
        await inner.charge(r); // the provider charged; its answer is lost on the way back
        throw new ProblemError('unavailable', { detail: 'The payment provider cannot be reached.', headers: { 'Retry-After': '5' } });
      },
      findCharge: (orderId) => inner.findCharge(orderId),
      async refund(ref, amount, o) {
        refunds.push({ ref, amount, ...(o?.idempotencyKey ? { key: o.idempotencyKey } : {}) });
        return inner.refund(ref, amount, o);
      },
    };
    const h = await startReference({ overrides: { databasePath: tmp.path }, payments });
    try {
      const t = bearer(await h.minter.delegated({ sub: 'cust_checkout_6', channel: 'openapi' }));
      assert.equal(
        (await h.call('/v1/cart/items', { method: 'POST', headers: t, json: { variant_id: 'var_1701', quantity: 1 } })).status,
        201,
      );
      const res = await h.call(CHECKOUT, { method: 'POST', headers: t, json: { payment_method_id: 'pm_chk6' } });
      expectProblem(res, { status: 503, error: 'unavailable', docsUrl: h.profile.docsUrl });
      const [attempt] = h.db.prepare("SELECT id, state FROM checkout_attempts WHERE account_sub = 'cust_checkout_6'").all() as {
        id: string;
        state: string;
      }[];
      assert.equal(attempt!.state, 'void_due');

      const domain = {
        db: h.db,
        clock: h.clock.now,
        payments,
        config: h.config,
        log: { debug() {}, info() {}, warn() {}, error() {} },
      } as unknown as Domain;
      assert.deepEqual(
        await reconcileCheckouts(domain, { afterSeconds: 3600 }),
        { placed: 0, refunded: 0, abandoned: 0, declined: 0, raced: 0, failed: 0 },
        'too young',
      );
      h.clock.advance(2 * 3600 * 1000);
      assert.equal((await reconcileCheckouts(domain, { afterSeconds: 3600 })).refunded, 1);
      assert.equal((await reconcileCheckouts(domain, { afterSeconds: 3600 })).refunded, 0, 'settled once');
      assert.equal(refunds.length, 1);
      assert.equal(refunds[0]!.key, `checkout-refund-${attempt!.id}`);
      assert.equal(h.db.prepare('SELECT state FROM checkout_attempts WHERE id = ?').pluck().get(attempt!.id), 'refunded');
      assert.equal(h.db.prepare("SELECT count(*) FROM orders WHERE account_sub = 'cust_checkout_6'").pluck().get(), 0, 'never ordered');
    } finally {
      await h.close();
      tmp.cleanup();
    }
  });
});
