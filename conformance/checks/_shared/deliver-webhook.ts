// Deliveries to the payment-provider webhook (POST /webhooks/stripe), signed as the provider signs them (Stripe's scheme,
// conformance/lib/stripe-signature.ts) with the profile's webhook secret, and the answers of the Events table.
import { notApplicable, type Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { expectNoStore, expectProblem, expectStatus, fail } from '../../lib/assert.js';
import { signPayload, SIGNATURE_HEADER } from '../../lib/stripe-signature.js';
import { SPECIAL_PATHS } from '../../../contract/routes.js';

export const PATH = SPECIAL_PATHS.receivePaymentWebhook;

/** The webhook secret the deployment shares through the profile; without it nothing can be signed. */
export function webhookSecret(shop: Shop): string {
  const secret = shop.profile.secrets.stripeWebhookSecret;
  if (!secret) return notApplicable('the profile holds no stripeWebhookSecret, so the suite cannot sign deliveries');
  return secret;
}

/** POSTs exactly these bytes to the webhook. */
export const postWebhook = (shop: Shop, body: string, headers: Record<string, string | undefined> = {}) =>
  shop.http.post(PATH, { body, headers: { 'content-type': 'application/json', ...headers } });

/** Signs `body` (as sent) with the deployment's secret and posts it. */
export const deliver = (shop: Shop, body: string, o: Parameters<typeof signPayload>[2] = {}, headers: Record<string, string> = {}) =>
  postWebhook(shop, body, { [SIGNATURE_HEADER]: signPayload(body, webhookSecret(shop), o), ...headers });

/** 200 `{"received": true}` (exactly), with Cache-Control: no-store. */
export function expectReceived(res: ShopResponse, { clause }: { clause: string }): void {
  expectStatus(res, 200, { what: 'status of an accepted delivery', clause });
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json')
    fail('Content-Type of the success body', 'application/json', res.headers.get('content-type'), { clause: 'RES-WEBHOOK-1' });
  const body = res.body as unknown;
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    Object.keys(body).length !== 1 ||
    (body as { received?: unknown }).received !== true
  ) {
    fail('success body', { received: true }, res.text.slice(0, 300), { clause: 'RES-WEBHOOK-1' });
  }
  expectNoStore(res, { clause: 'END-CONV-9' });
}

/** A problem document of the Events table, with Cache-Control: no-store. */
export function expectWebhookProblem(shop: Shop, res: ShopResponse, status: number, error: string, { clause }: { clause: string }): void {
  expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
}
