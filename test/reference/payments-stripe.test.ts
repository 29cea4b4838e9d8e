// The Stripe adapter of the payment port (reference/src/payments/stripe.ts), against msw standing in for the Stripe API:
// no request leaves the process (anything but the local reference is an error). The adapter alone, then checkouts over
// HTTP through a reference started with PAYMENT_PROVIDER=stripe.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createStripeProvider, intentStatus } from '../../reference/src/payments/stripe.js';
import { ProblemError } from '../../reference/src/problem.js';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';

const STRIPE = 'https://api.stripe.com/v1';
const KEY = 'sk_test_conformance_0000';

interface Seen {
  path: string;
  form: URLSearchParams;
  headers: Headers;
}
const seen: Seen[] = [];

/** What the fake Stripe answers to POST /v1/payment_intents, chosen per test. */
let intentReply: (form: URLSearchParams) => Response = () =>
  HttpResponse.json({ error: { type: 'api_error', message: 'no reply set' } }, { status: 500 });

/** PaymentIntent ids stay unique for the whole file: the reference stores them (payments.provider_ref is unique). */
let intents = 0;
const paymentIntent =
  (status: string, extra: Record<string, unknown> = {}) =>
  (form: URLSearchParams) =>
    HttpResponse.json({
      id: `pi_test_${++intents}`,
      object: 'payment_intent',
      status,
      amount: Number(form.get('amount')),
      currency: form.get('currency'),
      payment_method: form.get('payment_method'),
      metadata: { order_id: form.get('metadata[order_id]') },
      last_payment_error: null,
      ...extra,
    });
const cardError =
  (decline_code: string, code = 'card_declined') =>
  () =>
    HttpResponse.json(
      {
        error: {
          type: 'card_error',
          code,
          decline_code,
          message: 'Your card was declined.',
          payment_intent: { id: 'pi_declined_1', object: 'payment_intent', status: 'requires_payment_method' },
        },
      },
      { status: 402 },
    );

const server = setupServer(
  http.post(`${STRIPE}/payment_intents`, async ({ request }) => {
    const form = new URLSearchParams(await request.text());
    seen.push({ path: '/v1/payment_intents', form, headers: request.headers });
    return intentReply(form);
  }),
  http.post(`${STRIPE}/refunds`, async ({ request }) => {
    const form = new URLSearchParams(await request.text());
    seen.push({ path: '/v1/refunds', form, headers: request.headers });
    return HttpResponse.json({
      id: 're_test_1',
      object: 'refund',
      status: 'succeeded',
      amount: Number(form.get('amount')),
      payment_intent: form.get('payment_intent'),
    });
  }),
);

before(() => {
  server.listen({
    onUnhandledRequest(request, print) {
      // The reference under test listens on 127.0.0.1: those requests are the test's own and pass through.
      if (new URL(request.url).hostname === '127.0.0.1') return;
      print.error();
    },
  });
});
afterEach(() => {
  seen.length = 0;
});
after(() => server.close());

const charge = {
  orderId: 'ord_0123456789abcdef0123',
  amountCents: 3619,
  currency: 'USD',
  paymentMethodRef: 'pm_card_visa',
  accountSub: 'cust_checkout_1',
};

describe('Stripe adapter', () => {
  const stripe = createStripeProvider({ secretKey: KEY, maxNetworkRetries: 0 });

  test('refuses a live key', () => {
    assert.throws(() => createStripeProvider({ secretKey: 'sk_live_nope' }), /test-mode keys only/);
  });

  test('a charge is one PaymentIntent, created and confirmed off-session with the saved card; succeeded → succeeded', async () => {
    intentReply = paymentIntent('succeeded');
    const result = await stripe.charge(charge);
    assert.deepEqual(result, { status: 'succeeded', providerRef: `pi_test_${intents}` });
    assert.equal(seen.length, 1);
    const { form, headers } = seen[0]!;
    assert.deepEqual(Object.fromEntries(form), {
      amount: '3619',
      currency: 'usd',
      payment_method: 'pm_card_visa',
      'allowed_payment_method_types[0]': 'card',
      confirm: 'true',
      off_session: 'true',
      'metadata[order_id]': charge.orderId,
    });
    assert.equal(headers.get('authorization'), `Bearer ${KEY}`);
    // Stripe's idempotency for this one attempt (new order id per checkout request): network retries never charge twice.
    assert.equal(headers.get('idempotency-key'), `charge-${charge.orderId}`);
  });

  test('a card error is a failed charge with its decline code', async () => {
    intentReply = cardError('insufficient_funds');
    assert.deepEqual(await stripe.charge(charge), { status: 'failed', providerRef: 'pi_declined_1', declineCode: 'insufficient_funds' });
    intentReply = cardError(undefined as unknown as string, 'authentication_required');
    assert.equal((await stripe.charge(charge)).declineCode, 'authentication_required');
  });

  test('processing → pending; requires_capture → pending; requires_* and canceled → failed', async () => {
    intentReply = paymentIntent('processing');
    assert.deepEqual(await stripe.charge(charge), { status: 'pending', providerRef: `pi_test_${intents}` });
    intentReply = paymentIntent('requires_action', { last_payment_error: { code: 'authentication_required' } });
    assert.deepEqual(await stripe.charge(charge), {
      status: 'failed',
      providerRef: `pi_test_${intents}`,
      declineCode: 'authentication_required',
    });
    intentReply = paymentIntent('requires_payment_method');
    assert.deepEqual(await stripe.charge(charge), {
      status: 'failed',
      providerRef: `pi_test_${intents}`,
      declineCode: 'requires_payment_method',
    });
    assert.deepEqual(
      [
        'succeeded',
        'processing',
        'requires_capture',
        'requires_action',
        'requires_confirmation',
        'requires_payment_method',
        'canceled',
      ].map(intentStatus),
      ['succeeded', 'pending', 'pending', 'failed', 'failed', 'failed', 'failed'],
    );
  });

  test('Stripe unreachable, failing (5xx) or rate limiting: ProblemError unavailable with Retry-After 5', async () => {
    for (const reply of [
      () => HttpResponse.error(),
      () => HttpResponse.json({ error: { type: 'api_error', message: 'boom' } }, { status: 500 }),
      () => HttpResponse.json({ error: { type: 'invalid_request_error', code: 'rate_limit', message: 'slow down' } }, { status: 429 }),
    ]) {
      intentReply = reply;
      await assert.rejects(stripe.charge(charge), (err: unknown) => {
        assert.ok(err instanceof ProblemError, String(err));
        assert.equal(err.code, 'unavailable');
        assert.equal(err.status, 503);
        assert.equal(err.options.headers?.['Retry-After'], '5');
        return true;
      });
    }
  });

  test('a wrong key or an invalid request is not an outage: thrown as is (500)', async () => {
    intentReply = () =>
      HttpResponse.json({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } }, { status: 401 });
    await assert.rejects(stripe.charge(charge), (err: unknown) => !(err instanceof ProblemError));
  });

  test('a refund is one Refund of the PaymentIntent, for the amount', async () => {
    assert.deepEqual(await stripe.refund('pi_test_9', 3619), { status: 'succeeded', providerRef: 're_test_1' });
    assert.equal(seen[0]!.path, '/v1/refunds');
    assert.deepEqual(Object.fromEntries(seen[0]!.form), { payment_intent: 'pi_test_9', amount: '3619' });
  });
});

describe('checkout over HTTP with PAYMENT_PROVIDER=stripe', () => {
  let h: Harness;
  before(async () => {
    h = await startReference({ overrides: { paymentProvider: 'stripe', stripeSecretKey: KEY } });
  });
  after(async () => {
    await h.close();
  });
  const token = async (sub: string) => bearer(await h.minter.delegated({ sub, channel: 'openapi' }));
  const add = (t: Record<string, string>, variant_id: string) =>
    h.call('/v1/cart/items', { method: 'POST', headers: t, json: { variant_id, quantity: 1 } });
  const checkout = (t: Record<string, string>, payment_method_id: string) =>
    h.call('/v1/checkouts/saved-card', { method: 'POST', headers: t, json: { payment_method_id } });
  const lines = async (t: Record<string, string>) =>
    ((await h.call('/v1/cart', { headers: t })).body.lines as { variant_id: string }[]).map((l) => l.variant_id);

  test("succeeded: 201, order paid, charged with the saved card's provider reference and the order total", async () => {
    intentReply = paymentIntent('succeeded');
    const t = await token('cust_checkout_1');
    await add(t, 'var_0101');
    const res = await checkout(t, 'pm_chk1');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'paid');
    const form = seen.find((s) => s.path === '/v1/payment_intents')!.form;
    assert.equal(form.get('payment_method'), 'pm_card_visa_chk1');
    assert.equal(form.get('amount'), String(res.body.total_cents));
    assert.equal(form.get('metadata[order_id]'), res.body.id);
    assert.deepEqual(await lines(t), []);
  });

  test('declined: 402 payment_failed, cart unchanged', async () => {
    intentReply = cardError('generic_decline');
    const t = await token('cust_checkout_2');
    await add(t, 'var_0101');
    expectProblem(await checkout(t, 'pm_chk2'), { status: 402, error: 'payment_failed', docsUrl: h.profile.docsUrl });
    assert.deepEqual(await lines(t), ['var_0101']);
  });

  test('processing: 201 with status pending_payment', async () => {
    intentReply = paymentIntent('processing');
    const t = await token('cust_checkout_3');
    await add(t, 'var_0101');
    const res = await checkout(t, 'pm_chk3');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'pending_payment');
  });

  test('a charge whose order cannot be written is refunded at Stripe, and the request answers 500', async () => {
    // Stripe answers an id the database already holds (payments.provider_ref is unique): the order transaction fails.
    intentReply = paymentIntent('succeeded');
    const first = await token('cust_checkout_5');
    await add(first, 'var_0101');
    assert.equal((await checkout(first, 'pm_chk5')).status, 201);
    const taken = `pi_test_${intents}`;
    intentReply = (form) => paymentIntent('succeeded', { id: taken })(form);
    const t = await token('cust_checkout_6');
    await add(t, 'var_0101');
    seen.length = 0;
    expectProblem(await checkout(t, 'pm_chk6'), { status: 500, error: 'internal_error', docsUrl: h.profile.docsUrl });
    const refund = seen.find((x) => x.path === '/v1/refunds');
    assert.ok(refund, 'a Refund was created');
    assert.equal(refund.form.get('payment_intent'), taken);
    assert.equal(refund.form.get('amount'), seen.find((x) => x.path === '/v1/payment_intents')!.form.get('amount'));
    assert.deepEqual(await lines(t), ['var_0101']);
  });

  test('Stripe unreachable: 503 unavailable with Retry-After: 5; nothing ordered, cart unchanged', async () => {
    intentReply = () => HttpResponse.error();
    const t = await token('cust_checkout_4');
    await add(t, 'var_0101');
    const res = await checkout(t, 'pm_chk4');
    expectProblem(res, { status: 503, error: 'unavailable', docsUrl: h.profile.docsUrl });
    expectNoStore(res);
    assert.equal(res.headers.get('retry-after'), '5');
    assert.deepEqual(await lines(t), ['var_0101']);
    const orders = await h.call('/v1/me/orders', { headers: t });
    if (orders.status === 200) assert.deepEqual(orders.body.items, [], 'no order was kept');
  });
});
