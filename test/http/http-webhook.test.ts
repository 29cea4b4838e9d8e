// POST /webhooks/stripe over HTTP against the reference (spec, Events; Endpoints > Public and special routes): every row of
// the Events table, the signature over the raw bytes (wrong secret, stale timestamp, several v1 values, one byte altered,
// reformatted JSON), never a bearer, idempotency by event id, settlement and card-setup completion before the answer.
// A second connection to the reference's database file shows what each delivery wrote.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bearer, fixtureProfile, startReference, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { alterOneByte, IGNORED_EVENT_TYPE, newEventId, signPayload, stripeEvent } from '../../conformance/lib/stripe-signature.js';
import { openDatabase, type Db } from '../../reference/src/db/open.js';
import { LIMITS } from '../../contract/limits.js';

type Res = Awaited<ReturnType<Harness['call']>>;
const SECRET = fixtureProfile.secrets.stripeWebhookSecret!;
const PATH = '/webhooks/stripe';

describe('payment webhook over HTTP', () => {
  let h: Harness;
  let db: Db;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shop-webhook-'));
    h = await startReference({ overrides: { databasePath: join(dir, 'shop.db') } });
    db = openDatabase(join(dir, 'shop.db'));
  });
  after(async () => {
    db.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);
  const post = (body: string, headers: Record<string, string> = {}) =>
    h.call(PATH, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  /** Signs and posts an event; returns the answer and the event. */
  async function deliver(type: string, object: Record<string, unknown>, o: { id?: string; secret?: string; timestamp?: number } = {}) {
    const event = stripeEvent(type, object, o.id ?? newEventId());
    const payload = JSON.stringify(event);
    const res = await post(payload, {
      'stripe-signature': signPayload(payload, o.secret ?? SECRET, { timestamp: o.timestamp ?? nowSeconds() }),
    });
    return { res, event, payload };
  }
  const accepted = (res: Res) => {
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: true });
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    expectNoStore(res);
    assert.ok(res.headers.get('x-request-id'));
  };
  const problem = (res: Res, status: number, error: string) => {
    const doc = expectProblem(res, { status, error, docsUrl: h.profile.docsUrl });
    expectNoStore(res);
    return doc;
  };
  const delivery = (id: string) =>
    db.prepare('SELECT type, outcome FROM webhook_events WHERE event_id = ?').get(id) as { type: string; outcome: string } | undefined;
  const order = (id: string) => db.prepare('SELECT status FROM orders WHERE id = ?').get(id) as { status: string };
  const payment = (ref: string) =>
    db.prepare('SELECT status, amount_cents, refunded_cents FROM payments WHERE provider_ref = ?').get(ref) as {
      status: string;
      amount_cents: number;
      refunded_cents: number;
    };

  /** A new pending order of a fresh account with its payment `pi_test_<n>`: a checkout waiting for the provider. */
  function pendingOrder(): { orderId: string; ref: string; sub: string } {
    const n = randomUUID().replace(/-/g, '').slice(0, 12);
    const sub = `cust_wh_${n}`;
    const at = new Date().toISOString();
    db.prepare(
      `INSERT INTO accounts (sub, email, display_name, state, self_service_eligible, created_at) VALUES (?, NULL, 'Webhook Test', 'active', 0, ?)`,
    ).run(sub, at);
    db.prepare(
      `INSERT INTO orders (id, account_sub, number, status, placed_at, currency, subtotal_cents, shipping_cents, tax_cents, total_cents, updated_at)
      VALUES (?, ?, ?, 'pending_payment', ?, 'USD', 5000, 0, 0, 5000, ?)`,
    ).run(`ord_${n}`, sub, `#T${n}`, at, at);
    db.prepare(
      `INSERT INTO payments (id, order_id, provider, provider_ref, status, amount_cents, refunded_cents, currency, created_at, updated_at)
      VALUES (?, ?, 'simulated', ?, 'pending', 5000, 0, 'USD', ?, ?)`,
    ).run(`pay_${n}`, `ord_${n}`, `pi_test_${n}`, at, at);
    return { orderId: `ord_${n}`, ref: `pi_test_${n}`, sub };
  }

  /** An admitted card setup of a fresh account (the seed's `seti_admitted…` rows are added by the seed itself). */
  function admittedSetup(): { setupId: string; sub: string } {
    const n = randomUUID().replace(/-/g, '').slice(0, 12);
    const sub = `cust_setup_${n}`;
    const at = new Date().toISOString();
    db.prepare(
      `INSERT INTO accounts (sub, email, display_name, state, self_service_eligible, created_at) VALUES (?, NULL, 'Setup Test', 'active', 0, ?)`,
    ).run(sub, at);
    db.prepare(
      `INSERT INTO card_setups (id, account_sub, status, payment_method_id, created_at, updated_at) VALUES (?, ?, 'admitted', NULL, ?, ?)`,
    ).run(`seti_test${n}`, sub, at, at);
    return { setupId: `seti_test${n}`, sub };
  }
  const cardsOf = (sub: string) =>
    db
      .prepare(
        'SELECT id, brand, last4, exp_month, exp_year, provider_ref FROM payment_methods WHERE account_sub = ? ORDER BY created_at, id',
      )
      .all(sub) as { id: string; brand: string; last4: string; exp_month: number; exp_year: number; provider_ref: string }[];

  describe('the Events table', () => {
    test('delivery accepted: 200 {received: true} with no-store; an unknown type is recorded as ignored', async () => {
      const { res, event } = await deliver(IGNORED_EVENT_TYPE, { id: 'obj_1' });
      accepted(res);
      assert.deepEqual(delivery(event.id as string), { type: IGNORED_EVENT_TYPE, outcome: 'ignored' });
    });

    test('signature header absent: 400 missing_signature; present but empty: the same', async () => {
      const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
      const doc = problem(await post(payload), 400, 'missing_signature');
      assert.equal(typeof doc.detail, 'string');
      problem(await post(payload, { 'stripe-signature': '' }), 400, 'missing_signature');
      problem(await post(payload, { 'stripe-signature': '   ' }), 400, 'missing_signature');
    });

    test('signature invalid: 400 invalid_signature (wrong secret, malformed header, no v1, one byte altered, body missing)', async () => {
      const event = stripeEvent(IGNORED_EVENT_TYPE, {});
      const payload = JSON.stringify(event);
      const t = nowSeconds();
      const cases: [string, string, string][] = [
        ['wrong secret', payload, signPayload(payload, 'whsec_not_the_secret_of_this_deployment', { timestamp: t })],
        ['malformed header', payload, 'not-a-signature'],
        ['timestamp only', payload, `t=${t}`],
        ['another scheme only', payload, signPayload(payload, SECRET, { timestamp: t }).replace('v1=', 'v0=')],
        ['one byte altered after signing', alterOneByte(payload), signPayload(payload, SECRET, { timestamp: t })],
        ['no body, signed as the event', '', signPayload(payload, SECRET, { timestamp: t })],
      ];
      for (const [what, body, signature] of cases) {
        const res = await post(body, { 'stripe-signature': signature });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        problem(res, 400, 'invalid_signature');
      }
      assert.equal(delivery(event.id as string), undefined, 'nothing recorded');
    });

    test('a timestamp beyond the tolerance in the future is invalid (299 s ahead is accepted): a signature never verifies forever', async () => {
      for (const ahead of [301, 10 * 365 * 86400]) {
        const future = await deliver(IGNORED_EVENT_TYPE, {}, { timestamp: nowSeconds() + ahead });
        problem(future.res, 400, 'invalid_signature');
        assert.equal(delivery(future.event.id as string), undefined);
      }
      accepted((await deliver(IGNORED_EVENT_TYPE, {}, { timestamp: nowSeconds() + 299 })).res);
    });

    test('a stale timestamp (older than 300 s) is invalid; 299 s old is accepted; the service clock decides', async () => {
      const stale = await deliver(IGNORED_EVENT_TYPE, {}, { timestamp: nowSeconds() - 301 });
      problem(stale.res, 400, 'invalid_signature');
      assert.equal(delivery(stale.event.id as string), undefined);
      accepted((await deliver(IGNORED_EVENT_TYPE, {}, { timestamp: nowSeconds() - 299 })).res);
      // Signed now, delivered after the service's clock moved 301 s on: too old.
      const event = stripeEvent(IGNORED_EVENT_TYPE, {});
      const payload = JSON.stringify(event);
      const signature = signPayload(payload, SECRET, { timestamp: nowSeconds() });
      h.clock.advance(301_000);
      try {
        problem(await post(payload, { 'stripe-signature': signature }), 400, 'invalid_signature');
      } finally {
        h.clock.advance(-301_000);
      }
      accepted(await post(payload, { 'stripe-signature': signature }));
    });

    test('feature not configured: 404 not_configured, before any signature check', async () => {
      const off = await startReference({ overrides: { paymentWebhookEnabled: false } });
      try {
        const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
        expectProblem(
          await off.call(PATH, {
            method: 'POST',
            body: payload,
            headers: { 'content-type': 'application/json', 'stripe-signature': signPayload(payload, SECRET) },
          }),
          { status: 404, error: 'not_configured', docsUrl: off.profile.docsUrl },
        );
        expectProblem(await off.call(PATH, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } }), {
          status: 404,
          error: 'not_configured',
          docsUrl: off.profile.docsUrl,
        });
      } finally {
        await off.close();
      }
    });

    test('webhook secret missing: 503 webhook_secret_missing', async () => {
      const noSecret = await startReference({ overrides: { stripeWebhookSecret: null } });
      try {
        const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
        const res = await noSecret.call(PATH, {
          method: 'POST',
          body: payload,
          headers: { 'content-type': 'application/json', 'stripe-signature': signPayload(payload, SECRET) },
        });
        const doc = expectProblem(res, { status: 503, error: 'webhook_secret_missing', docsUrl: noSecret.profile.docsUrl });
        expectNoStore(res);
        assert.equal(typeof doc.detail, 'string', '503 says what is missing');
      } finally {
        await noSecret.close();
      }
    });

    test('processing failure: 500 processing_failed, nothing recorded, and the retry is processed once the payment exists', async () => {
      const ref = `pi_test_late_${randomUUID().replace(/-/g, '')}`;
      const { res, event, payload } = await deliver('payment_intent.succeeded', { id: ref, object: 'payment_intent' });
      const doc = problem(res, 500, 'processing_failed');
      assert.equal('detail' in doc, false, 'a 500 carries no detail');
      assert.equal(delivery(event.id as string), undefined, 'a failed delivery is not recorded');
      const warn = h.logs.find((l) => l.event === 'webhook' && l.id === event.id);
      assert.deepEqual(
        warn,
        { level: 'warn', event: 'webhook', type: 'payment_intent.succeeded', id: event.id, outcome: 'failed' },
        'type, id and outcome only',
      );
      assert.ok(!JSON.stringify(h.logs).includes(ref), 'the body is never logged');

      // The checkout commits its order and payment; the provider retries the same delivery.
      const { orderId } = pendingOrder();
      db.prepare('UPDATE payments SET provider_ref = ? WHERE order_id = ?').run(ref, orderId);
      accepted(await post(payload, { 'stripe-signature': signPayload(payload, SECRET, { timestamp: nowSeconds() }) }));
      assert.equal(order(orderId).status, 'paid');
      assert.deepEqual(delivery(event.id as string), { type: 'payment_intent.succeeded', outcome: 'processed' });
    });
  });

  describe('credential and raw body', () => {
    test('never a bearer: a valid operator or customer token without a signature is 400 missing_signature', async () => {
      const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
      for (const token of [await h.minter.operator(), await h.minter.customer({ sub: 'cust_ada' })]) {
        problem(await post(payload, { ...bearer(token), operator: 'ops@shop.test' }), 400, 'missing_signature');
      }
      // With a valid signature, an Authorization header (even a bad one) is not read.
      accepted(
        await post(payload, {
          authorization: 'Bearer not-a-token',
          'stripe-signature': signPayload(payload, SECRET, { timestamp: nowSeconds() }),
        }),
      );
    });

    test('several v1 values, one of them right: accepted (before, after, between decoys)', async () => {
      for (const o of [{ decoys: 1 }, { decoysAfter: 2 }, { decoys: 2, decoysAfter: 1 }]) {
        const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
        const signature = signPayload(payload, SECRET, { timestamp: nowSeconds(), ...o });
        assert.ok((signature.match(/v1=/g) ?? []).length > 1);
        accepted(await post(payload, { 'stripe-signature': signature }));
      }
      const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
      const onlyDecoys = signPayload(payload, SECRET, { timestamp: nowSeconds(), decoys: 2 })
        .split(',')
        .filter((_, i, all) => i !== all.length - 1)
        .join(',');
      problem(await post(payload, { 'stripe-signature': onlyDecoys }), 400, 'invalid_signature');
    });

    test('the signature covers the exact bytes: reformatted JSON signed as sent is accepted, whatever the Content-Type', async () => {
      const event = stripeEvent(IGNORED_EVENT_TYPE, { id: 'obj_2', nested: { a: 1, b: [1, 2] } });
      for (const [body, type] of [
        [JSON.stringify(event, null, 2), 'application/json'],
        [`  ${JSON.stringify(event, null, '\t')}\r\n`, 'application/json; charset=utf-8'],
        [JSON.stringify({ data: event.data, type: event.type, id: newEventId() }), 'text/plain'],
      ] as const) {
        accepted(await post(body, { 'content-type': type, 'stripe-signature': signPayload(body, SECRET, { timestamp: nowSeconds() }) }));
      }
    });

    test('a verified body that is not an event (empty, not JSON, no type) fails processing (500); over 256 KiB is 413 before anything else', async () => {
      for (const body of ['', 'not json', '[1,2]', '{"id":"evt_x"}']) {
        problem(await post(body, { 'stripe-signature': signPayload(body, SECRET, { timestamp: nowSeconds() }) }), 500, 'processing_failed');
      }
      const big = JSON.stringify({ ...stripeEvent(IGNORED_EVENT_TYPE, {}), pad: 'x'.repeat(LIMITS.requestBodyBytes) });
      problem(await post(big, { 'stripe-signature': signPayload(big, SECRET, { timestamp: nowSeconds() }) }), 413, 'payload_too_large');
    });

    test('one URL, POST only: another method is 405 with Allow: POST; a trailing slash or other case is 404', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await h.call(PATH, { method });
        problem(res, 405, 'method_not_allowed');
        assert.equal(res.headers.get('allow'), 'POST');
      }
      const payload = JSON.stringify(stripeEvent(IGNORED_EVENT_TYPE, {}));
      const signature = signPayload(payload, SECRET, { timestamp: nowSeconds() });
      for (const path of [`${PATH}/`, '/webhooks/Stripe', '/v1/webhooks/stripe']) {
        problem(
          await h.call(path, {
            method: 'POST',
            body: payload,
            headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          }),
          404,
          'not_found',
        );
      }
    });
  });

  describe('processing before the answer', () => {
    test("payment_intent.succeeded settles the seed's pending order: paid once the 200 is in, read back by an operator", async () => {
      assert.equal(order('ord_1013').status, 'pending_payment');
      const { res, event } = await deliver('payment_intent.succeeded', {
        id: 'pi_seed_ord_1013',
        object: 'payment_intent',
        amount: payment('pi_seed_ord_1013').amount_cents,
      });
      accepted(res);
      assert.equal(order('ord_1013').status, 'paid');
      assert.equal(payment('pi_seed_ord_1013').status, 'succeeded');
      assert.deepEqual(delivery(event.id as string), { type: 'payment_intent.succeeded', outcome: 'processed' });
      const read = await h.call('/v1/ops/orders/ord_1013', {
        headers: { ...bearer(await h.minter.operator()), operator: 'ops@shop.test' },
      });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.status, 'paid');
      assert.equal(read.body.payments[0].status, 'succeeded');
    });

    test('payment_intent.payment_failed: the payment fails, the order stays pending_payment; a later success still settles it', async () => {
      const { orderId, ref } = pendingOrder();
      accepted((await deliver('payment_intent.payment_failed', { id: ref, object: 'payment_intent' })).res);
      assert.equal(payment(ref).status, 'failed');
      assert.equal(order(orderId).status, 'pending_payment');
      accepted((await deliver('payment_intent.succeeded', { id: ref, object: 'payment_intent' })).res);
      assert.equal(payment(ref).status, 'succeeded');
      assert.equal(order(orderId).status, 'paid');
      // Out of order: a failure after the capture changes nothing.
      accepted((await deliver('payment_intent.payment_failed', { id: ref, object: 'payment_intent' })).res);
      assert.equal(payment(ref).status, 'succeeded');
      assert.equal(order(orderId).status, 'paid');
    });

    test('payment_intent.payment_failed naming no payment is a processing failure too', async () => {
      problem((await deliver('payment_intent.payment_failed', { id: 'pi_nobody_knows' })).res, 500, 'processing_failed');
    });

    test('charge.refunded: partial, then full (order refunded); the total is cumulative, never counted twice', async () => {
      const ref = 'pi_seed_ord_1011';
      const { amount_cents: amount } = payment(ref);
      assert.equal(order('ord_1011').status, 'paid');
      accepted(
        (await deliver('charge.refunded', { id: 'ch_1011', object: 'charge', payment_intent: ref, amount, amount_refunded: 1000 })).res,
      );
      assert.deepEqual(payment(ref), { status: 'succeeded', amount_cents: amount, refunded_cents: 1000 });
      assert.equal(order('ord_1011').status, 'paid');
      accepted(
        (await deliver('charge.refunded', { id: 'ch_1011', object: 'charge', payment_intent: ref, amount, amount_refunded: 1000 })).res,
      );
      assert.equal(payment(ref).refunded_cents, 1000, 'a second report of the same total adds nothing');
      accepted(
        (await deliver('charge.refunded', { id: 'ch_1011', object: 'charge', payment_intent: ref, amount, amount_refunded: amount })).res,
      );
      assert.deepEqual(payment(ref), { status: 'refunded', amount_cents: amount, refunded_cents: amount });
      assert.equal(order('ord_1011').status, 'refunded');
    });

    test("charge.refunded of a charge that is not the shop's is acknowledged and ignored", async () => {
      const { res, event } = await deliver('charge.refunded', {
        id: 'ch_x',
        object: 'charge',
        payment_intent: 'pi_elsewhere',
        amount_refunded: 10,
      });
      accepted(res);
      assert.equal(delivery(event.id as string)?.outcome, 'ignored');
    });

    test('idempotent by event id: a redelivery is answered 200 without processing again, even with other content', async () => {
      const ref = 'pi_seed_ord_1012';
      const before = payment(ref);
      const id = newEventId();
      const first = await deliver(
        'charge.refunded',
        { id: 'ch_1012', object: 'charge', payment_intent: ref, amount_refunded: 500 },
        { id },
      );
      accepted(first.res);
      assert.equal(payment(ref).refunded_cents, before.refunded_cents + 500);
      // The same delivery again, re-signed (a provider retry), and the same id with another body: neither is processed.
      accepted(await post(first.payload, { 'stripe-signature': signPayload(first.payload, SECRET, { timestamp: nowSeconds() }) }));
      accepted(
        (await deliver('charge.refunded', { id: 'ch_1012', object: 'charge', payment_intent: ref, amount_refunded: 2000 }, { id })).res,
      );
      const { orderId, ref: otherRef } = pendingOrder();
      accepted((await deliver('payment_intent.succeeded', { id: otherRef }, { id })).res);
      assert.equal(payment(ref).refunded_cents, before.refunded_cents + 500, 'counted once');
      assert.equal(order(orderId).status, 'pending_payment', 'a reused event id settles nothing');
      assert.equal((db.prepare('SELECT count(*) AS n FROM webhook_events WHERE event_id = ?').get(id) as { n: number }).n, 1);
      assert.deepEqual(delivery(id), { type: 'charge.refunded', outcome: 'processed' });
    });

    test('setup_intent.succeeded completes an admitted setup into a saved card of its account (expanded payment method)', async () => {
      const { setupId, sub } = admittedSetup();
      const { res, event } = await deliver('setup_intent.succeeded', {
        id: setupId,
        object: 'setup_intent',
        payment_method: {
          id: 'pm_1TestVisa',
          object: 'payment_method',
          type: 'card',
          card: { brand: 'visa', last4: '1881', exp_month: 11, exp_year: 2031 },
        },
      });
      accepted(res);
      const cards = cardsOf(sub);
      assert.equal(cards.length, 1);
      assert.deepEqual(
        { ...cards[0], id: undefined },
        { id: undefined, brand: 'visa', last4: '1881', exp_month: 11, exp_year: 2031, provider_ref: 'pm_1TestVisa' },
      );
      assert.match(cards[0]!.id, /^pm_[a-z0-9]{4,32}$/);
      assert.deepEqual(db.prepare('SELECT status, payment_method_id FROM card_setups WHERE id = ?').get(setupId), {
        status: 'completed',
        payment_method_id: cards[0]!.id,
      });
      assert.equal(delivery(event.id as string)?.outcome, 'processed');
      // Completed once: another delivery for the same setup (a new event id) adds no second card.
      const again = await deliver('setup_intent.succeeded', {
        id: setupId,
        payment_method: { id: 'pm_1TestVisa', card: { brand: 'visa', last4: '1881', exp_month: 11, exp_year: 2031 } },
      });
      accepted(again.res);
      assert.equal(cardsOf(sub).length, 1);
      assert.equal(delivery(again.event.id as string)?.outcome, 'ignored');
    });

    test('setup_intent.succeeded: card details from payment_method_details beside a payment method id', async () => {
      const { setupId, sub } = admittedSetup();
      accepted(
        (
          await deliver('setup_intent.succeeded', {
            id: setupId,
            payment_method: 'pm_1TestAmex',
            payment_method_details: { type: 'card', card: { brand: 'amex', last4: '0005', exp_month: 1, exp_year: 2030 } },
          })
        ).res,
      );
      assert.deepEqual(
        cardsOf(sub).map((c) => [c.brand, c.last4, c.provider_ref]),
        [['amex', '0005', 'pm_1TestAmex']],
      );
    });

    test('a setup that was never admitted is ignored: no card anywhere', async () => {
      const count = () => (db.prepare('SELECT count(*) AS n FROM payment_methods').get() as { n: number }).n;
      const before = count();
      const { res, event } = await deliver('setup_intent.succeeded', {
        id: 'seti_neveradmitted1',
        payment_method: { id: 'pm_x', card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2030 } },
      });
      accepted(res);
      assert.equal(count(), before);
      assert.equal(delivery(event.id as string)?.outcome, 'ignored');
    });

    test('an admitted setup whose card is missing or malformed fails processing; the setup stays admitted', async () => {
      const { setupId, sub } = admittedSetup();
      problem((await deliver('setup_intent.succeeded', { id: setupId, payment_method: 'pm_nocard' })).res, 500, 'processing_failed');
      problem(
        (
          await deliver('setup_intent.succeeded', {
            id: setupId,
            payment_method: { id: 'pm_d', card: { brand: 'discover', last4: '11170', exp_month: 1, exp_year: 2030 } },
          })
        ).res,
        500,
        'processing_failed',
      );
      problem(
        (
          await deliver('setup_intent.succeeded', {
            id: setupId,
            payment_method: { id: 'pm_d', card: { brand: 'Discover Card', last4: '1117', exp_month: 13, exp_year: 2030 } },
          })
        ).res,
        500,
        'processing_failed',
      );
      assert.equal(cardsOf(sub).length, 0);
      assert.deepEqual(db.prepare('SELECT status FROM card_setups WHERE id = ?').get(setupId), { status: 'admitted' });
    });
  });
});

describe('payment webhook: the payment of a checkout still charging (docs/checkout.md, Crash safety)', () => {
  test('a capture whose checkout has no order yet: retried while young, then completes the order; the slow request answers it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shop-webhook-attempt-'));
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const charged: string[] = [];
    const payments = {
      name: 'simulated' as const,
      async charge(r: { orderId: string }) {
        charged.push(r.orderId);
        await held;
        return { status: 'succeeded' as const, providerRef: `pi_test_slow_${r.orderId.slice(4)}` };
      },
      findCharge: async () => undefined,
      refund: async () => ({ status: 'succeeded' as const, providerRef: 're_x' }),
    };
    const h = await startReference({ overrides: { databasePath: join(dir, 'shop.db') }, payments });
    try {
      const token = bearer(await h.minter.delegated({ sub: 'cust_checkout_3', channel: 'openapi' }));
      assert.equal(
        (await h.call('/v1/cart/items', { method: 'POST', headers: token, json: { variant_id: 'var_1701', quantity: 1 } })).status,
        201,
      );
      const request = h.call('/v1/checkouts/saved-card', { method: 'POST', headers: token, json: { payment_method_id: 'pm_chk3' } });
      while (charged.length === 0) await new Promise((r) => setTimeout(r, 5));
      const orderId = charged[0]!;
      const event = stripeEvent('payment_intent.succeeded', {
        id: `pi_test_slow_${orderId.slice(4)}`,
        object: 'payment_intent',
        metadata: { order_id: orderId },
      });
      const payload = JSON.stringify(event);
      const deliver = () =>
        h.call(PATH, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': signPayload(payload, SECRET, { timestamp: Math.floor(h.clock.now().getTime() / 1000) }),
          },
          body: payload,
        });
      expectProblem(await deliver(), { status: 500, error: 'processing_failed', docsUrl: h.profile.docsUrl });
      assert.equal(
        h.db.prepare('SELECT count(*) FROM orders WHERE id = ?').pluck().get(orderId),
        0,
        'a young attempt is left to its request',
      );

      h.clock.advance((h.config.checkoutReconcileAfterSeconds + 1) * 1000);
      assert.equal((await deliver()).status, 200);
      assert.equal(h.db.prepare('SELECT state FROM checkout_attempts WHERE id = ?').pluck().get(orderId), 'placed');
      assert.equal(h.db.prepare('SELECT status FROM orders WHERE id = ?').pluck().get(orderId), 'paid');

      release();
      const res = await request;
      assert.equal(res.status, 201, 'the slow request answers with the order the webhook wrote');
      assert.equal(res.body.id, orderId);
      assert.equal(h.db.prepare('SELECT count(*) FROM payments WHERE order_id = ?').pluck().get(orderId), 1, 'one payment');
    } finally {
      release();
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
