// Spec part 6, Events, for what the handler does with the events the reference processes (which event types a service
// processes is "not shown"): it settles payments, or completes a card setup that was originally admitted, before it
// answers; a delivery it cannot process is 500 processing_failed; the replay window of the signature is the provider's.
// All reference level; deliveries are signed with the profile's webhook secret (conformance/lib/stripe-signature.ts).
//
// Levels. Why no spec-level variant judges settlement (EVT-WEBHOOK-7) or card setups (EVT-WEBHOOK-8): provoking either
// effect needs what the spec leaves "not shown" and no profile member or description document names: the event type that
// settles a payment or completes a setup (payment_intent.succeeded, setup_intent.succeeded are the reference's choice),
// the provider reference that ties a pending order to its payment (pi_seed_<order id> is the fixture seed's; the profile
// names the pending order, not its payment), which card setups are admitted (the seed's; no profile member, no spec
// operation admits one), and the order and card records read back (fields "not shown"). A processing failure does have a
// spec-level check (events.webhook.unreadable-delivery, in 06-events.webhook: a signed body that is not JSON); the one
// here fails a processed type, which is the reference's choice.
//
// Data. The settlement and card-setup checks use the fixture seed's pending order and admitted card setups, looked up in
// the seed itself (fixtureSeed of _shared/seed-data.ts) by their state.
import { randomInt } from 'node:crypto';
import { check, notApplicable, test } from '../engine/runner/check.js';
import { expectStatus, fail, inCase } from '../lib/assert.js';
import { nowSeconds } from '../lib/jws.js';
import { ignoredEvent, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, stripeEvent } from '../lib/stripe-signature.js';
import { deliver, postWebhook, webhookSecret } from './_shared/deliver-webhook.js';
import { expectReceived, expectWebhookProblem } from '../lib/expect/webhook.js';
import { fixtureSeed, seedPaymentRef } from './_shared/seed-data.js';

test(
  ...check(
    {
      id: 'events.webhook.tolerance.reference',
      title:
        'the replay window is 300 seconds: a signature 301 s old or an hour ahead is 400 invalid_signature, 240 s old is accepted; an empty header is missing_signature',
      clauses: ['EVT-WEBHOOK-5', 'EVT-WEBHOOK-1', 'EVT-WEBHOOK-4'],
      level: 'reference',
      requires: ['webhook'],
    },
    async (shop) => {
      await inCase(`${SIGNATURE_TOLERANCE_SECONDS + 1} s old`, async () => {
        expectWebhookProblem(
          shop,
          await deliver(shop, JSON.stringify(ignoredEvent()), { timestamp: nowSeconds() - SIGNATURE_TOLERANCE_SECONDS - 1 }),
          400,
          'invalid_signature',
          { clause: 'EVT-WEBHOOK-5' },
        );
      });
      await inCase('240 s old', async () =>
        expectReceived(await deliver(shop, JSON.stringify(ignoredEvent()), { timestamp: nowSeconds() - 240 }), { clause: 'EVT-WEBHOOK-1' }),
      );
      // Killed by a verifier that only refuses old timestamps (a signature dated ahead would verify forever).
      await inCase('dated an hour in the future', async () => {
        expectWebhookProblem(
          shop,
          await deliver(shop, JSON.stringify(ignoredEvent()), { timestamp: nowSeconds() + 3600 }),
          400,
          'invalid_signature',
          { clause: 'EVT-WEBHOOK-5' },
        );
      });
      await inCase('header present but empty', async () => {
        expectWebhookProblem(
          shop,
          await postWebhook(shop, JSON.stringify(ignoredEvent()), { [SIGNATURE_HEADER]: '' }),
          400,
          'missing_signature',
          { clause: 'EVT-WEBHOOK-4' },
        );
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.processing-failed.reference',
      title:
        'a payment_intent.succeeded naming no payment the service knows fails processing: 500 processing_failed (the provider retries)',
      clauses: ['EVT-WEBHOOK-6'],
      level: 'reference',
      requires: ['webhook'],
    },
    async (shop) => {
      const ref = `pi_conf_unknown_${shop.subject('x')}`;
      const res = await deliver(
        shop,
        JSON.stringify(
          stripeEvent('payment_intent.succeeded', { id: ref, object: 'payment_intent', amount: 100, currency: 'usd', status: 'succeeded' }),
        ),
      );
      expectWebhookProblem(shop, res, 500, 'processing_failed', { clause: 'EVT-WEBHOOK-6' });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.settles.reference',
      title: "payment_intent.succeeded settles the seed's pending order before the answer: once 200 is in, its owner reads it paid",
      clauses: ['EVT-WEBHOOK-7', 'EVT-WEBHOOK-1'],
      level: 'reference',
      requires: ['webhook'],
      seed: true,
    },
    async (shop) => {
      webhookSecret(shop);
      const seed = fixtureSeed();
      const owner = seed.accounts.find((a) => a.orders.some((o) => o.status === 'pending_payment'));
      const order = owner?.orders.find((o) => o.status === 'pending_payment');
      if (!owner || !order) return notApplicable('the fixture seed has no pending_payment order');
      const token = await shop.mint.customer({ sub: owner.sub });
      const read = async () => {
        const res = await shop.http.get(`/v1/me/orders/${order.id}`, { token });
        expectStatus(res, 200, { what: `GET /v1/me/orders/${order.id} as its owner ${owner.sub}`, clause: 'EVT-WEBHOOK-7' });
        return res.body?.status as unknown;
      };
      const before = await read();
      // The order is the seed's: on a long-lived deployment an earlier run settled it (still paid) or someone cancelled it.
      if (before !== 'pending_payment' && before !== 'paid')
        return notApplicable(
          `the seed's pending order ${order.id} is ${String(before)} on this deployment, neither pending_payment nor paid`,
        );
      const res = await deliver(
        shop,
        JSON.stringify(
          stripeEvent('payment_intent.succeeded', {
            id: seedPaymentRef(order.id),
            object: 'payment_intent',
            status: 'succeeded',
            currency: order.currency.toLowerCase(),
          }),
        ),
      );
      expectReceived(res, { clause: 'EVT-WEBHOOK-1' });
      const after = await read();
      if (after !== 'paid') fail(`status of ${order.id} right after the 200`, 'paid', after, { clause: 'EVT-WEBHOOK-7' });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.card-setup.reference',
      title: 'setup_intent.succeeded of an admitted setup adds the card to its account before the answer; a setup never admitted adds none',
      clauses: ['EVT-WEBHOOK-8', 'EVT-WEBHOOK-1'],
      level: 'reference',
      requires: ['webhook'],
      seed: true,
    },
    async (shop) => {
      webhookSecret(shop);
      const seed = fixtureSeed();
      const setups = seed.cardSetups;
      const sub = setups[0]?.accountSub;
      if (sub === undefined) return notApplicable('the fixture seed has no admitted card setup');
      const mine = setups.filter((s) => s.accountSub === sub);
      const seededCards = seed.accounts.find((a) => a.sub === sub)?.paymentMethods.length ?? 0;
      const token = await shop.mint.customer({ sub });
      const cards = async (): Promise<{ last4?: unknown; exp_month?: unknown; exp_year?: unknown; brand?: unknown }[]> => {
        const res = await shop.http.get('/v1/me/payment-methods', { token });
        expectStatus(res, 200, { what: `GET /v1/me/payment-methods as ${sub}`, clause: 'EVT-WEBHOOK-8' });
        const items = Array.isArray(res.body) ? res.body : res.body?.items;
        if (!Array.isArray(items)) fail('saved cards of the account', 'a list', res.text.slice(0, 300), { clause: 'EVT-WEBHOOK-8' });
        return items;
      };
      const card = () => ({
        brand: 'visa',
        last4: String(randomInt(0, 10_000)).padStart(4, '0'),
        exp_month: randomInt(1, 13),
        exp_year: 2030 + randomInt(0, 10),
      });
      const has = (list: Awaited<ReturnType<typeof cards>>, c: ReturnType<typeof card>) =>
        list.some((x) => x.last4 === c.last4 && x.exp_month === c.exp_month && x.exp_year === c.exp_year);
      const setupEvent = (setupId: string, c: ReturnType<typeof card>) =>
        JSON.stringify(
          stripeEvent('setup_intent.succeeded', {
            id: setupId,
            object: 'setup_intent',
            status: 'succeeded',
            payment_method: { id: `pm_conf${randomInt(1e9)}`, object: 'payment_method', type: 'card', card: c },
          }),
        );

      // A setup id the storefront never admitted changes nothing.
      const stranger = card();
      expectReceived(await deliver(shop, setupEvent(`seti_conformance${randomInt(1e9)}`, stranger)), { clause: 'EVT-WEBHOOK-1' });
      if (has(await cards(), stranger))
        fail('cards after a setup that was never admitted', 'no new card', stranger, { clause: 'EVT-WEBHOOK-8' });

      const start = (await cards()).length;
      // Every run completes one admitted setup. When earlier runs on this deployment used them all, completing one again must
      // add nothing (a setup completes once), so a long-lived deployment keeps giving this check a verdict.
      if (start >= seededCards + mine.length) {
        const again = card();
        expectReceived(await deliver(shop, setupEvent(mine[0]!.id, again)), { clause: 'EVT-WEBHOOK-1' });
        const after = await cards();
        if (has(after, again) || after.length !== start)
          fail('cards after completing an already completed setup again', `${start} cards, none new`, `${after.length} cards`, {
            clause: 'EVT-WEBHOOK-8',
          });
        return;
      }
      for (const setup of mine) {
        const c = card();
        expectReceived(await deliver(shop, setupEvent(setup.id, c)), { clause: 'EVT-WEBHOOK-1' });
        const after = await cards();
        if (has(after, c)) {
          if (after.length !== start + 1)
            fail(`number of cards after completing ${setup.id}`, start + 1, after.length, { clause: 'EVT-WEBHOOK-8' });
          return;
        }
      }
      fail(
        `a card of ${sub} after completing its admitted setups (${mine.map((s) => s.id).join(', ')})`,
        'one new card right after a 200',
        `${start} cards before and after`,
        { clause: 'EVT-WEBHOOK-8' },
      );
    },
  ),
);
