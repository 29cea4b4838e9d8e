// Stage "provider signature" (spec, Events; Public and special routes): the payment webhook's only credential is the
// provider's signature over the raw bytes, in the header its row names; an Authorization header is not read.
import type { RequestHandler } from 'express';
import { ProblemError } from '../problem.js';
import { stripeLib } from '../payments/stripe-module.js';
import { contextAt } from './context.js';
import type { RouteDef } from './route.js';

/** Stripe's default: a signature older than this many seconds is refused (replay window). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The feature and its secret are configured, the signature header is present, and it verifies over the raw bytes within
 * the tolerance (Stripe's scheme: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`; any one of several `v1` values may
 * match). The verified event becomes the request's input.
 */
export function providerSignatureStage(route: RouteDef): RequestHandler {
  const auth = route.row.auth;
  if (auth.kind !== 'provider-signature') throw new Error(`${route.row.operationId}: the signature stage on a route without one`);
  const header = auth.header;
  return (req, res, next) => {
    const ctx = contextAt(res, 'bound');
    const { config, clock } = ctx.domain;
    // [EVT-WEBHOOK-2] When the webhook feature is not configured, a delivery gets 404 not_configured.
    if (!config.paymentWebhookEnabled)
      throw new ProblemError('not_configured', { detail: 'The payment webhook is not configured on this deployment.' });
    const secret = config.stripeWebhookSecret;
    // [EVT-WEBHOOK-3] When the webhook secret is missing, a delivery gets 503 webhook_secret_missing.
    if (!secret) throw new ProblemError('webhook_secret_missing', { detail: 'The payment webhook has no signing secret configured.' });
    const signature = req.get(header);
    // [EVT-WEBHOOK-4] [END-PUBLIC-7] No signature, whatever else is sent: an empty value carries none either.
    if (signature === undefined || signature.trim() === '')
      throw new ProblemError('missing_signature', { detail: `The ${header} header is required.` });
    // [END-PUBLIC-6] The signature is verified over the raw bytes.
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event: unknown;
    try {
      event = stripeLib().webhooks.constructEvent(raw, signature, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, clock().getTime());
    } catch (err) {
      // [EVT-WEBHOOK-5] A delivery whose signature does not verify gets 400 invalid_signature.
      if (err instanceof stripeLib().errors.StripeSignatureVerificationError) {
        throw new ProblemError('invalid_signature', { detail: 'The signature does not verify over the body, or it is too old.' });
      }
      // Verified, but the bytes are not JSON: nothing the provider should send; it fails processing.
      throw new ProblemError('processing_failed', {
        detail: 'The delivery could not be processed.',
        cause: `body is not JSON (${(err as Error).name})`,
      });
    }
    // The provider's library refuses only signatures older than the tolerance: one dated beyond it in the future is refused
    // too, or a captured delivery signed ahead of time would verify forever.
    const t = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
    // [EVT-WEBHOOK-5] A signature dated beyond the tolerance in the future does not verify either.
    if (!Number.isFinite(t) || t > clock().getTime() / 1000 + SIGNATURE_TOLERANCE_SECONDS) {
      throw new ProblemError('invalid_signature', { detail: 'The signature timestamp lies in the future beyond the tolerance.' });
    }
    ctx.input = { params: undefined, query: undefined, body: event };
    next();
  };
}
