// Deliveries to the payment-provider webhook (POST /webhooks/stripe), signed as the provider signs them (Stripe's scheme,
// conformance/lib/stripe-signature.ts) with the profile's webhook secret, and the answers of the Events table.
import { notApplicable, type Shop } from '../../engine/runner/check.js';
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
