// Spec part 6, Events: the inbound payment-provider webhook, POST /webhooks/stripe. Deliveries are signed as the provider
// signs them (Stripe's scheme, conformance/lib/stripe-signature.ts) with the profile's webhook secret.
//
// Levels. The statuses and codes of the Events table are the spec's, and so are the signature over the raw body and the
// refusal of bearer tokens: spec level. Which event types a service processes, and their shapes, are "not shown": checks
// that need an effect (settlement, card setups, a processing failure) send the reference's events (Stripe's
// payment_intent.succeeded and setup_intent.succeeded) and are reference level. Spec-level deliveries use
// `balance.available`, a real provider event a shop has no use for, so they change nothing and can be repeated.
//
// Not provoked here: EVT-WEBHOOK-2 (feature not configured) and EVT-WEBHOOK-3 (secret missing) need a deployment configured
// otherwise than the one under test; test/reference/http-webhook.test.ts covers them on the reference.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { CheckFailure, expectNoStore, expectProblem, fail } from '../lib/assert.js';
import { alterOneByte, ignoredEvent, newEventId, signPayload, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, stripeEvent } from '../lib/stripe-signature.js';
import { seedSchema, type Seed } from '../../contract/seed.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

const PATH = '/webhooks/stripe';


/** Names the case a failure belongs to. */
async function inCase(what: string, assertion: () => void | Promise<void>): Promise<void> {
  try {
    await assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

/** The webhook secret the deployment shares through the profile; without it nothing can be signed. */
function secretOf(shop: Shop): string {
  const secret = shop.profile.secrets.stripeWebhookSecret;
  if (!secret) return notApplicable('the profile holds no stripeWebhookSecret, so the suite cannot sign deliveries');
  return secret;
}

const now = () => Math.floor(Date.now() / 1000);

/** POSTs exactly these bytes to the webhook. */
const post = (shop: Shop, body: string, headers: Record<string, string | undefined> = {}) =>
  shop.http.post(PATH, { body, headers: { 'content-type': 'application/json', ...headers } });

/** Signs `body` (as sent) with the deployment's secret and posts it. */
const deliver = (shop: Shop, body: string, o: Parameters<typeof signPayload>[2] = {}, headers: Record<string, string> = {}) =>
  post(shop, body, { [SIGNATURE_HEADER]: signPayload(body, secretOf(shop), o), ...headers });

/** 200 `{"received": true}` (exactly), with Cache-Control: no-store. */
function expectReceived(res: ShopResponse, clause: string): void {
  if (res.status !== 200) fail('status of an accepted delivery', 200, `${res.status} ${res.text.slice(0, 300)}`, clause);
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') fail('Content-Type of the success body', 'application/json', res.headers.get('content-type'), 'RES-WEBHOOK-1');
  const body = res.body as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length !== 1 || (body as { received?: unknown }).received !== true) {
    fail('success body', { received: true }, res.text.slice(0, 300), 'RES-WEBHOOK-1');
  }
  expectNoStore(res, { clause: 'END-CONV-9' });
}

/** A problem document of the Events table, with Cache-Control: no-store. */
function expectWebhookProblem(shop: Shop, res: ShopResponse, status: number, error: string, clause: string): void {
  expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
}

/** The fixture seed (the data seed-level checks rely on), found from source and from dist/ alike. */
function fixtureSeed(): Seed {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return seedSchema.parse(JSON.parse(readFileSync(join(dir, 'fixtures', 'seed.json'), 'utf8')));
}

// ------------------------------------------------------------------------------------------- accepted deliveries (spec)

test(...check({
  id: 'events.webhook.accepted',
  title: 'a validly signed delivery is accepted with 200 {"received": true} and no-store; a redelivery of the same event is accepted too',
  clauses: ['EVT-WEBHOOK-1', 'RES-WEBHOOK-1', 'END-PUBLIC-6', 'PUR-SERVE-6', 'END-CONV-9'],
  requires: ['webhook'],
}, async (shop) => {
  const body = JSON.stringify(ignoredEvent());
  expectReceived(await deliver(shop, body), 'EVT-WEBHOOK-1');
  // The provider retries deliveries it thinks were lost: the same event, signed again.
  await inCase('the same event delivered again', async () => expectReceived(await deliver(shop, body), 'EVT-WEBHOOK-1'));
}));

test(...check({
  id: 'events.webhook.several-signatures',
  title: 'a signature header with several v1 values, one of them right, is accepted (secret rotation)',
  clauses: ['EVT-WEBHOOK-1', 'END-PUBLIC-6'],
  requires: ['webhook'],
}, async (shop) => {
  for (const o of [{ decoys: 1 }, { decoysAfter: 1 }, { decoys: 2, decoysAfter: 1 }]) {
    await inCase(`${o.decoys ?? 0} wrong v1 before and ${o.decoysAfter ?? 0} after the right one`, async () => {
      expectReceived(await deliver(shop, JSON.stringify(ignoredEvent()), o), 'END-PUBLIC-6');
    });
  }
}));

test(...check({
  id: 'events.webhook.raw-body',
  title: 'the signature covers the raw bytes: re-formatted JSON (whitespace, key order) signed as sent is accepted; a signature of another formatting is not',
  clauses: ['END-PUBLIC-8', 'END-PUBLIC-6', 'EVT-WEBHOOK-5'],
  requires: ['webhook'],
}, async (shop) => {
  const event = ignoredEvent();
  const compact = JSON.stringify(event);
  const pretty = JSON.stringify(event, null, 2);
  const reordered = `\n{ "data" : ${JSON.stringify(event.data, null, '\t')},\r\n  "type":"${String(event.type)}", "id":"${newEventId()}", "object":"event" }  \n`;
  for (const [what, body] of [['two-space indented', pretty], ['keys reordered, tabs, CRLF and surrounding whitespace', reordered]] as const) {
    await inCase(what, async () => expectReceived(await deliver(shop, body), 'END-PUBLIC-8'));
  }
  // A service that re-serialised the parsed JSON before verifying would accept this: the signature is of other bytes.
  await inCase('pretty body sent with the signature of its compact form', async () => {
    expectWebhookProblem(shop, await post(shop, pretty, { [SIGNATURE_HEADER]: signPayload(compact, secretOf(shop)) }), 400, 'invalid_signature', 'END-PUBLIC-8');
  });
}));

// --------------------------------------------------------------------------------------------------------- refusals (spec)

test(...check({
  id: 'events.webhook.missing-signature',
  title: 'a delivery without the signature header is 400 missing_signature',
  clauses: ['EVT-WEBHOOK-4', 'END-PUBLIC-6', 'ERR-PROBLEM-1', 'ERR-PROBLEM-5'],
  requires: ['webhook'],
}, async (shop) => {
  secretOf(shop);
  expectWebhookProblem(shop, await post(shop, JSON.stringify(ignoredEvent())), 400, 'missing_signature', 'EVT-WEBHOOK-4');
}));

test(...check({
  id: 'events.webhook.invalid-signature',
  title: 'a signature that does not verify is 400 invalid_signature: wrong secret, body altered by one byte, an hour old, no v1 value, garbage',
  clauses: ['EVT-WEBHOOK-5', 'END-PUBLIC-6'],
  requires: ['webhook'],
}, async (shop) => {
  const secret = secretOf(shop);
  const body = JSON.stringify(ignoredEvent());
  const cases: [string, string, string][] = [
    ['signed with another secret', body, signPayload(body, `whsec_${'x'.repeat(32)}`)],
    ['body altered by one byte after signing', alterOneByte(body), signPayload(body, secret)],
    // The provider's scheme refuses replays outside its tolerance (five minutes); an hour is far outside any.
    ['timestamp an hour old', body, signPayload(body, secret, { timestamp: now() - 3600 })],
    ['timestamp only, no v1', body, `t=${now()}`],
    ['v0 scheme only', body, signPayload(body, secret).replace('v1=', 'v0=')],
    ['not a signature', body, 'garbage'],
  ];
  for (const [what, sent, signature] of cases) {
    await inCase(what, async () => expectWebhookProblem(shop, await post(shop, sent, { [SIGNATURE_HEADER]: signature }), 400, 'invalid_signature', 'EVT-WEBHOOK-5'));
  }
}));

test(...check({
  id: 'events.webhook.never-bearer',
  title: 'a valid bearer token is no substitute for the signature: without a signature 400 missing_signature, with a wrong one 400 invalid_signature',
  clauses: ['END-PUBLIC-7', 'EVT-WEBHOOK-4', 'EVT-WEBHOOK-5'],
  requires: ['webhook'],
}, async (shop) => {
  secretOf(shop);
  const tokens: [string, string, Record<string, string>][] = [['customer', await shop.mint.customer({ sub: shop.subject('cust') }), {}]];
  if (shop.profile.capabilities.operators) tokens.push(['operator', await shop.mint.operator(), { operator: 'conformance@shop.test' }]);
  const body = JSON.stringify(ignoredEvent());
  for (const [kind, token, extra] of tokens) {
    await inCase(`${kind} bearer token, no signature`, async () => {
      expectWebhookProblem(shop, await post(shop, body, { authorization: `Bearer ${token}`, ...extra }), 400, 'missing_signature', 'END-PUBLIC-7');
    });
    await inCase(`${kind} bearer token, wrong signature`, async () => {
      expectWebhookProblem(shop, await post(shop, body, { authorization: `Bearer ${token}`, [SIGNATURE_HEADER]: signPayload(body, `whsec_${'y'.repeat(32)}`), ...extra }), 400, 'invalid_signature', 'END-PUBLIC-7');
    });
  }
}));

// -------------------------------------------------------------------------------------------- the reference's choices

test(...check({
  id: 'events.webhook.tolerance.reference',
  title: 'the replay window is 300 seconds: a signature 301 s old is 400 invalid_signature, 240 s old is accepted; an empty header is missing_signature',
  clauses: ['EVT-WEBHOOK-5', 'EVT-WEBHOOK-1', 'EVT-WEBHOOK-4'],
  level: 'reference',
  requires: ['webhook'],
}, async (shop) => {
  await inCase(`${SIGNATURE_TOLERANCE_SECONDS + 1} s old`, async () => {
    expectWebhookProblem(shop, await deliver(shop, JSON.stringify(ignoredEvent()), { timestamp: now() - SIGNATURE_TOLERANCE_SECONDS - 1 }), 400, 'invalid_signature', 'EVT-WEBHOOK-5');
  });
  await inCase('240 s old', async () => expectReceived(await deliver(shop, JSON.stringify(ignoredEvent()), { timestamp: now() - 240 }), 'EVT-WEBHOOK-1'));
  await inCase('header present but empty', async () => {
    expectWebhookProblem(shop, await post(shop, JSON.stringify(ignoredEvent()), { [SIGNATURE_HEADER]: '' }), 400, 'missing_signature', 'EVT-WEBHOOK-4');
  });
}));

test(...check({
  id: 'events.webhook.processing-failed.reference',
  title: 'a payment_intent.succeeded naming no payment the service knows fails processing: 500 processing_failed (the provider retries)',
  clauses: ['EVT-WEBHOOK-6'],
  level: 'reference',
  requires: ['webhook'],
}, async (shop) => {
  const ref = `pi_conf_unknown_${shop.subject('x')}`;
  const res = await deliver(shop, JSON.stringify(stripeEvent('payment_intent.succeeded', { id: ref, object: 'payment_intent', amount: 100, currency: 'usd', status: 'succeeded' })));
  expectWebhookProblem(shop, res, 500, 'processing_failed', 'EVT-WEBHOOK-6');
}));

test(...check({
  id: 'events.webhook.settles.reference',
  title: 'payment_intent.succeeded settles the seed\'s pending order before the answer: once 200 is in, its owner reads it paid',
  clauses: ['EVT-WEBHOOK-7', 'EVT-WEBHOOK-1'],
  level: 'reference',
  requires: ['webhook'],
  seed: true,
}, async (shop) => {
  secretOf(shop);
  const seed = fixtureSeed();
  const owner = seed.accounts.find((a) => a.orders.some((o) => o.status === 'pending_payment'));
  const order = owner?.orders.find((o) => o.status === 'pending_payment');
  if (!owner || !order) return notApplicable('the fixture seed has no pending_payment order');
  const token = await shop.mint.customer({ sub: owner.sub });
  const read = async () => {
    const res = await shop.http.get(`/v1/me/orders/${order.id}`, { token });
    if (res.status !== 200) fail(`GET /v1/me/orders/${order.id} as its owner ${owner.sub}`, 200, `${res.status} ${res.text.slice(0, 300)}`, 'EVT-WEBHOOK-7');
    return res.body?.status as unknown;
  };
  const before = await read();
  // The order is the seed's: on a long-lived deployment an earlier run settled it (still paid) or someone cancelled it.
  if (before !== 'pending_payment' && before !== 'paid') return notApplicable(`the seed's pending order ${order.id} is ${String(before)} on this deployment, neither pending_payment nor paid`);
  const res = await deliver(shop, JSON.stringify(stripeEvent('payment_intent.succeeded', { id: `pi_seed_${order.id}`, object: 'payment_intent', status: 'succeeded', currency: order.currency.toLowerCase() })));
  expectReceived(res, 'EVT-WEBHOOK-1');
  const after = await read();
  if (after !== 'paid') fail(`status of ${order.id} right after the 200`, 'paid', after, 'EVT-WEBHOOK-7');
}));

test(...check({
  id: 'events.webhook.card-setup.reference',
  title: 'setup_intent.succeeded of an admitted setup adds the card to its account before the answer; a setup never admitted adds none',
  clauses: ['EVT-WEBHOOK-8', 'EVT-WEBHOOK-1'],
  level: 'reference',
  requires: ['webhook'],
  seed: true,
}, async (shop) => {
  secretOf(shop);
  const seed = fixtureSeed();
  const setups = seed.cardSetups;
  const sub = setups[0]?.accountSub;
  if (sub === undefined) return notApplicable('the fixture seed has no admitted card setup');
  const mine = setups.filter((s) => s.accountSub === sub);
  const seededCards = seed.accounts.find((a) => a.sub === sub)?.paymentMethods.length ?? 0;
  const token = await shop.mint.customer({ sub });
  const cards = async (): Promise<{ last4?: unknown; exp_month?: unknown; exp_year?: unknown; brand?: unknown }[]> => {
    const res = await shop.http.get('/v1/me/payment-methods', { token });
    if (res.status !== 200) fail(`GET /v1/me/payment-methods as ${sub}`, 200, `${res.status} ${res.text.slice(0, 300)}`, 'EVT-WEBHOOK-8');
    const items = Array.isArray(res.body) ? res.body : res.body?.items;
    if (!Array.isArray(items)) fail('saved cards of the account', 'a list', res.text.slice(0, 300), 'EVT-WEBHOOK-8');
    return items;
  };
  const card = () => ({ brand: 'visa', last4: String(randomInt(0, 10_000)).padStart(4, '0'), exp_month: randomInt(1, 13), exp_year: 2030 + randomInt(0, 10) });
  const has = (list: Awaited<ReturnType<typeof cards>>, c: ReturnType<typeof card>) =>
    list.some((x) => x.last4 === c.last4 && x.exp_month === c.exp_month && x.exp_year === c.exp_year);
  const setupEvent = (setupId: string, c: ReturnType<typeof card>) =>
    JSON.stringify(stripeEvent('setup_intent.succeeded', { id: setupId, object: 'setup_intent', status: 'succeeded', payment_method: { id: `pm_conf${randomInt(1e9)}`, object: 'payment_method', type: 'card', card: c } }));

  // A setup id the storefront never admitted changes nothing.
  const stranger = card();
  expectReceived(await deliver(shop, setupEvent(`seti_conformance${randomInt(1e9)}`, stranger)), 'EVT-WEBHOOK-1');
  if (has(await cards(), stranger)) fail('cards after a setup that was never admitted', 'no new card', stranger, 'EVT-WEBHOOK-8');

  const start = (await cards()).length;
  // Every run completes one admitted setup. When earlier runs on this deployment used them all, completing one again must
  // add nothing (a setup completes once), so a long-lived deployment keeps giving this check a verdict.
  if (start >= seededCards + mine.length) {
    const again = card();
    expectReceived(await deliver(shop, setupEvent(mine[0]!.id, again)), 'EVT-WEBHOOK-1');
    const after = await cards();
    if (has(after, again) || after.length !== start) fail('cards after completing an already completed setup again', `${start} cards, none new`, `${after.length} cards`, 'EVT-WEBHOOK-8');
    return;
  }
  for (const setup of mine) {
    const c = card();
    expectReceived(await deliver(shop, setupEvent(setup.id, c)), 'EVT-WEBHOOK-1');
    const after = await cards();
    if (has(after, c)) {
      if (after.length !== start + 1) fail(`number of cards after completing ${setup.id}`, start + 1, after.length, 'EVT-WEBHOOK-8');
      return;
    }
  }
  fail(`a card of ${sub} after completing its admitted setups (${mine.map((s) => s.id).join(', ')})`, 'one new card right after a 200', `${start} cards before and after`, 'EVT-WEBHOOK-8');
}));

// Configuration-dependent rows of the Events table: judged on deployments whose profile says the webhook is off, or its
// secret unset; a deployment configured for deliveries cannot be switched off from outside.
test(...check({ id: 'events.webhook.not-configured', title: 'where the webhook is not configured, a delivery is answered 404 not_configured', clauses: ['EVT-WEBHOOK-2'] }, async (shop) => {
  if (shop.profile.capabilities.webhook) notApplicable('the profile claims the webhook (capabilities.webhook): this row is judged on deployments that do not');
  const body = JSON.stringify(ignoredEvent());
  const signed = shop.profile.secrets.stripeWebhookSecret ? { [SIGNATURE_HEADER]: signPayload(body, shop.profile.secrets.stripeWebhookSecret) } : {};
  expectWebhookProblem(shop, await post(shop, body, signed), 404, 'not_configured', 'EVT-WEBHOOK-2');
}));

test(...check({ id: 'events.webhook.secret-missing', title: 'where the webhook is on but its secret is missing, a delivery is answered 503 webhook_secret_missing', clauses: ['EVT-WEBHOOK-3'] }, async (shop) => {
  if (!shop.profile.capabilities.webhook) notApplicable('the profile does not claim the webhook');
  if (shop.profile.secrets.stripeWebhookSecret !== null) notApplicable('the profile holds a webhook secret: this row is judged on deployments whose secret is unset');
  const body = JSON.stringify(ignoredEvent());
  expectWebhookProblem(shop, await post(shop, body, { [SIGNATURE_HEADER]: `t=${now()},v1=${'0'.repeat(64)}` }), 503, 'webhook_secret_missing', 'EVT-WEBHOOK-3');
}));
