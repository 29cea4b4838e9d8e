// Spec part 6, Events: the inbound payment-provider webhook, POST /webhooks/stripe (Endpoints > Public and special routes):
// a validly signed delivery is accepted with 200 `{received: true}`; the signature covers the raw body and no bearer token
// stands in for it; a missing or invalid signature is refused with its code. The rows that depend on the configuration
// (feature not configured, secret missing) are judged on deployments whose profile says they are configured that way.
//
// Levels. The statuses and codes of the Events table are the spec's, and so are the signature over the raw body and the
// refusal of bearer tokens: spec level. Which event types a service processes, and their shapes, are "not shown": checks
// that need an effect (settlement, card setups, a failure of one processed type) send the reference's events (Stripe's
// payment_intent.succeeded and setup_intent.succeeded) and are reference level, in 06-events.webhook-processing.
// Spec-level deliveries use `balance.available`, a real provider event a shop has no use for, so they change nothing and
// can be repeated. That a service acknowledges (200) an event type it does not process is an assumption, the provider's
// usual practice (it retries any other answer), not a row of the spec. One processing failure needs no event type: a
// validly signed body that is not JSON, which no service can read as an event (events.webhook.unreadable-delivery).
import { check, notApplicable, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, fail, inCase } from '../lib/assert.js';
import { nowSeconds } from '../lib/jws.js';
import { alterOneByte, ignoredEvent, newEventId, signPayload, SIGNATURE_HEADER } from '../lib/stripe-signature.js';
import { deliver, postWebhook, webhookSecret } from './_shared/deliver-webhook.js';
import { expectReceived, expectWebhookProblem } from '../lib/expect/webhook.js';
import { expectRefusal } from '../lib/expect/refusals.js';

// ------------------------------------------------------------------------------------------- accepted deliveries (spec)

test(
  ...check(
    {
      id: 'events.webhook.accepted',
      title:
        'a validly signed delivery is accepted with 200 {"received": true} and no-store; a redelivery of the same event is accepted too',
      clauses: ['EVT-WEBHOOK-1', 'RES-WEBHOOK-1', 'END-PUBLIC-6', 'PUR-SERVE-6', 'END-CONV-9'],
      requires: ['webhook'],
    },
    async (shop) => {
      const body = JSON.stringify(ignoredEvent());
      expectReceived(await deliver(shop, body), { clause: 'EVT-WEBHOOK-1' });
      // The provider retries deliveries it thinks were lost: the same event, signed again.
      await inCase('the same event delivered again', async () => expectReceived(await deliver(shop, body), { clause: 'EVT-WEBHOOK-1' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.several-signatures',
      title: 'a signature header with several v1 values, one of them right, is accepted (secret rotation)',
      clauses: ['EVT-WEBHOOK-1', 'END-PUBLIC-6'],
      requires: ['webhook'],
    },
    async (shop) => {
      // Each delivery is an event of its own that changes nothing: each is a case.
      await judgeCases([{ decoys: 1 }, { decoysAfter: 1 }, { decoys: 2, decoysAfter: 1 }], (o) =>
        inCase(`${o.decoys ?? 0} wrong v1 before and ${o.decoysAfter ?? 0} after the right one`, async () => {
          expectReceived(await deliver(shop, JSON.stringify(ignoredEvent()), o), { clause: 'END-PUBLIC-6' });
        }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.raw-body',
      title:
        'the signature covers the raw bytes: re-formatted JSON (whitespace, key order) signed as sent is accepted; a signature of another formatting is not',
      clauses: ['END-PUBLIC-8', 'END-PUBLIC-6', 'EVT-WEBHOOK-5'],
      requires: ['webhook'],
    },
    async (shop) => {
      const event = ignoredEvent();
      const compact = JSON.stringify(event);
      const pretty = JSON.stringify(event, null, 2);
      const reordered = `\n{ "data" : ${JSON.stringify(event.data, null, '\t')},\r\n  "type":"${String(event.type)}", "id":"${newEventId()}", "object":"event" }  \n`;
      // The two accepted deliveries are two events, each a case. The refused one carries the first one's event id, so it is
      // sent after that one was answered, as before.
      await judgeCases(
        [
          ['two-space indented', pretty],
          ['keys reordered, tabs, CRLF and surrounding whitespace', reordered],
        ] as const,
        async ([what, sent]) => {
          const res = await deliver(shop, sent);
          inCase(what, () => expectReceived(res, { clause: 'END-PUBLIC-8' }));
        },
      );
      const refusedAnswer = await postWebhook(shop, pretty, { [SIGNATURE_HEADER]: signPayload(compact, webhookSecret(shop)) });
      // A service that re-serialised the parsed JSON before verifying would accept this: the signature is of other bytes.
      inCase('pretty body sent with the signature of its compact form', () => {
        expectWebhookProblem(shop, refusedAnswer, 400, 'invalid_signature', { clause: 'END-PUBLIC-8' });
      });
    },
  ),
);

// --------------------------------------------------------------------------------------------------------- refusals (spec)

test(
  ...check(
    {
      id: 'events.webhook.missing-signature',
      title: 'a delivery without the signature header is 400 missing_signature',
      clauses: ['EVT-WEBHOOK-4', 'END-PUBLIC-6', 'ERR-PROBLEM-1', 'ERR-PROBLEM-5'],
      requires: ['webhook'],
    },
    async (shop) => {
      webhookSecret(shop);
      expectWebhookProblem(shop, await postWebhook(shop, JSON.stringify(ignoredEvent())), 400, 'missing_signature', {
        clause: 'EVT-WEBHOOK-4',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.invalid-signature',
      title:
        'a signature that does not verify is 400 invalid_signature: wrong secret, body altered by one byte, an hour old, no v1 value, garbage',
      clauses: ['EVT-WEBHOOK-5', 'END-PUBLIC-6'],
      requires: ['webhook'],
    },
    async (shop) => {
      const secret = webhookSecret(shop);
      const body = JSON.stringify(ignoredEvent());
      const cases: [string, string, string][] = [
        ['signed with another secret', body, signPayload(body, `whsec_${'x'.repeat(32)}`)],
        ['body altered by one byte after signing', alterOneByte(body), signPayload(body, secret)],
        // The provider's scheme refuses replays outside its tolerance (five minutes); an hour is far outside any.
        ['timestamp an hour old', body, signPayload(body, secret, { timestamp: nowSeconds() - 3600 })],
        ['timestamp only, no v1', body, `t=${nowSeconds()}`],
        ['v0 scheme only', body, signPayload(body, secret).replace('v1=', 'v0=')],
        ['not a signature', body, 'garbage'],
      ];
      // Each delivery is refused at its signature, before anything is recorded: each is a case.
      await judgeCases(cases, async ([what, sent, signature]) => {
        const res = await postWebhook(shop, sent, { [SIGNATURE_HEADER]: signature });
        inCase(what, () => expectWebhookProblem(shop, res, 400, 'invalid_signature', { clause: 'EVT-WEBHOOK-5' }));
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.never-bearer',
      title:
        'a valid bearer token is no substitute for the signature: without a signature 400 missing_signature, with a wrong one 400 invalid_signature',
      clauses: ['END-PUBLIC-7', 'EVT-WEBHOOK-4', 'EVT-WEBHOOK-5'],
      requires: ['webhook'],
    },
    async (shop) => {
      webhookSecret(shop);
      const tokens: [string, string, Record<string, string>][] = [
        ['customer', await shop.mint.customer({ sub: shop.subject('cust') }), {}],
      ];
      if (shop.profile.capabilities.operators)
        tokens.push(['operator', await shop.mint.operator(), { operator: operatorAttribution(shop.profile) }]);
      const body = JSON.stringify(ignoredEvent());
      // Every delivery is refused at its signature: each token × signature is a case, in the tokens' order.
      const cases = tokens.flatMap(([kind, token, extra]) => [
        {
          what: `${kind} bearer token, no signature`,
          headers: { authorization: `Bearer ${token}`, ...extra },
          error: 'missing_signature',
        },
        {
          what: `${kind} bearer token, wrong signature`,
          headers: { authorization: `Bearer ${token}`, [SIGNATURE_HEADER]: signPayload(body, `whsec_${'y'.repeat(32)}`), ...extra },
          error: 'invalid_signature',
        },
      ]);
      await judgeCases(cases, async ({ what, headers, error }) => {
        const res = await postWebhook(shop, body, headers);
        inCase(what, () => {
          expectWebhookProblem(shop, res, 400, error, { clause: 'END-PUBLIC-7' });
        });
      });
    },
  ),
);

// A processing failure any service has: the bytes verify but are not JSON. How a service answers a verified delivery it
// cannot read is a reading: a processing failure (500 processing_failed), or a refusal of the body while decoding (a
// 4xx: the spec lets a service decode a body before authenticating it). Either is accepted, but never a 200 nor a
// signature refusal (the signature verifies), and a 5xx only as the table's row. Killed by a webhook that acknowledges
// what it failed to process (self-test defect events.processing-failure-acknowledged).
async function deliverUnreadable(shop: Shop): Promise<ShopResponse> {
  const event = JSON.stringify(ignoredEvent());
  const res = await deliver(shop, event.slice(0, Math.floor(event.length / 2)));
  const error = (res.body as { error?: unknown } | null)?.error;
  if (error === 'missing_signature' || error === 'invalid_signature')
    fail('a validly signed delivery that is not JSON', 'not a signature refusal', brief(res), { clause: 'EVT-WEBHOOK-6' });
  return res;
}

test(
  ...check(
    {
      id: 'events.webhook.unreadable-delivery',
      title:
        'a validly signed delivery whose bytes are not JSON (a provider event cut short) is not acknowledged: a 4xx problem document, or 500 processing_failed; never a signature refusal',
      clauses: ['EVT-WEBHOOK-6', 'ERR-PROBLEM-5'],
      requires: ['webhook'],
    },
    async (shop) => {
      const res = await deliverUnreadable(shop);
      if (res.status >= 400 && res.status < 500) return void expectRefusal(shop, res, { clause: 'EVT-WEBHOOK-6' });
      expectWebhookProblem(shop, res, 500, 'processing_failed', { clause: 'EVT-WEBHOOK-6' });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.unreadable-delivery.reference',
      title: 'a validly signed delivery whose bytes are not JSON fails processing: 500 processing_failed',
      clauses: ['EVT-WEBHOOK-6'],
      level: 'reference',
      requires: ['webhook'],
    },
    async (shop) => {
      expectWebhookProblem(shop, await deliverUnreadable(shop), 500, 'processing_failed', { clause: 'EVT-WEBHOOK-6' });
    },
  ),
);

// Configuration-dependent rows of the Events table: judged on deployments whose profile says the webhook is off, or its
// secret unset; a deployment configured for deliveries cannot be switched off from outside.
test(
  ...check(
    {
      id: 'events.webhook.not-configured',
      everyResponse: true,
      title: 'where the webhook is not configured, a delivery is answered 404 not_configured',
      clauses: ['EVT-WEBHOOK-2'],
    },
    async (shop) => {
      if (shop.profile.capabilities.webhook)
        notApplicable('the profile claims the webhook (capabilities.webhook): this row is judged on deployments that do not');
      const body = JSON.stringify(ignoredEvent());
      const signed = shop.profile.secrets.stripeWebhookSecret
        ? { [SIGNATURE_HEADER]: signPayload(body, shop.profile.secrets.stripeWebhookSecret) }
        : {};
      expectWebhookProblem(shop, await postWebhook(shop, body, signed), 404, 'not_configured', { clause: 'EVT-WEBHOOK-2' });
    },
  ),
);

test(
  ...check(
    {
      id: 'events.webhook.secret-missing',
      everyResponse: true,
      title: 'where the webhook is on but its secret is missing, a delivery is answered 503 webhook_secret_missing',
      clauses: ['EVT-WEBHOOK-3'],
    },
    async (shop) => {
      if (!shop.profile.capabilities.webhook) notApplicable('the profile does not claim the webhook');
      if (shop.profile.secrets.stripeWebhookSecret !== null)
        notApplicable('the profile holds a webhook secret: this row is judged on deployments whose secret is unset');
      const body = JSON.stringify(ignoredEvent());
      expectWebhookProblem(
        shop,
        await postWebhook(shop, body, { [SIGNATURE_HEADER]: `t=${nowSeconds()},v1=${'0'.repeat(64)}` }),
        503,
        'webhook_secret_missing',
        { clause: 'EVT-WEBHOOK-3' },
      );
    },
  ),
);
