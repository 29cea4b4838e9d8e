// POST /webhooks/stripe (spec, Events; Endpoints > Public and special routes): a special route, not an operation; mounted by
// app.ts before the JSON decoding of operations. Its stages, wired by the stage table (STAGE_TABLE.webhook in
// pipeline/groups.ts): request (app-wide), raw body (256 KiB), domain, provider signature, handler. Never a bearer token: the provider signature over the raw bytes is the
// only credential, and an Authorization header is not read. Only the boundary writes errors: stages throw ProblemError.
import express, { Router, type RequestHandler } from 'express';
import { LIMITS } from '../../../contract/limits.js';
import { refuseDeclaredOversize } from '../pipeline/01-request.js';
import type { ErrorCode } from '../../../contract/errors.js';
import type { Domain } from '../domain.js';
import { domainStage } from '../pipeline/02-domain.js';
import { contextAt } from '../pipeline/context.js';
import { ProblemError } from '../problem.js';
import { stripeEventSchema, webhookReceivedSchema } from '../schemas/webhook.js';
import { DeliveryNotProcessable, processDelivery } from '../store/webhook.js';
import { toJsonSchema, type Json } from '../json-schema.js';
import { stripeLib } from '../payments/stripe-module.js';

export const WEBHOOK_PATH = '/webhooks/stripe';
export const SIGNATURE_HEADER = 'Stripe-Signature';
/** Stripe's default: a signature older than this many seconds is refused (replay window). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Stage "raw body (256 KiB)": the exact bytes, whatever the Content-Type (even none); over the cap: 413 at the boundary. */
function rawBodyStage(): RequestHandler {
  const raw = express.raw({ type: () => true, limit: LIMITS.requestBodyBytes });
  return (req, res, next) => {
    refuseDeclaredOversize(req, res, LIMITS.requestBodyBytes);
    return raw(req, res, next);
  };
}

/**
 * Stage "provider signature": the feature and its secret are configured, the signature header is present, and it verifies
 * over the raw bytes within the tolerance (Stripe's scheme: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`; any one of
 * several `v1` values may match). The verified event becomes the request's input.
 */
function providerSignatureStage(): RequestHandler {
  return (req, res, next) => {
    const ctx = contextAt(res, 'bound');
    const { config, clock } = ctx.domain;
    if (!config.paymentWebhookEnabled)
      throw new ProblemError('not_configured', { detail: 'The payment webhook is not configured on this deployment.' });
    const secret = config.stripeWebhookSecret;
    if (!secret) throw new ProblemError('webhook_secret_missing', { detail: 'The payment webhook has no signing secret configured.' });
    const header = req.get(SIGNATURE_HEADER);
    // An empty value carries no signature: the same answer as no header.
    if (header === undefined || header.trim() === '')
      throw new ProblemError('missing_signature', { detail: `The ${SIGNATURE_HEADER} header is required.` });
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event: unknown;
    try {
      event = stripeLib().webhooks.constructEvent(raw, header, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, clock().getTime());
    } catch (err) {
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
    const t = Number(/(?:^|,)\s*t=(\d+)/.exec(header)?.[1]);
    if (!Number.isFinite(t) || t > clock().getTime() / 1000 + SIGNATURE_TOLERANCE_SECONDS) {
      throw new ProblemError('invalid_signature', { detail: 'The signature timestamp lies in the future beyond the tolerance.' });
    }
    ctx.input = { params: undefined, query: undefined, body: event };
    next();
  };
}

/** Stage "handler": processes the event before answering (settlement, card setups), idempotent by event id. */
function handlerStage(): RequestHandler {
  return (_req, res) => {
    const ctx = contextAt(res, 'bound input');
    const { db, clock, log, config } = ctx.domain;
    const parsed = stripeEventSchema.safeParse(ctx.input.body);
    if (!parsed.success) {
      log.warn('webhook', { type: null, id: null, outcome: 'failed' });
      throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed.', cause: 'not an event envelope' });
    }
    const event = parsed.data;
    let outcome: ReturnType<typeof processDelivery>;
    try {
      // Effects and the delivery's record commit together; a failure rolls both back, so the provider's retry is processed.
      outcome = db.transaction(() => processDelivery(db, event, clock(), config.checkoutReconcileAfterSeconds)).immediate();
    } catch (err) {
      log.warn('webhook', { type: event.type, id: event.id, outcome: 'failed' });
      if (err instanceof DeliveryNotProcessable) {
        throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed; retry it later.', cause: err.message });
      }
      throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed; retry it later.', cause: err });
    }
    // Event type, id and outcome only: never the body (spec, Events).
    log.info('webhook', { type: event.type, id: event.id, outcome });
    res
      .status(200)
      .set('Cache-Control', 'no-store')
      .json(webhookReceivedSchema.parse({ received: true }));
  };
}

/** The group's stages after the app-wide request stage, in order, for the stage table. */
export const webhookStages: readonly { name: string; make: (route: null, domain: Domain) => RequestHandler }[] = [
  { name: 'raw body (256 KiB)', make: () => rawBodyStage() },
  { name: 'domain', make: (_route, domain) => domainStage(domain) },
  { name: 'provider signature', make: () => providerSignatureStage() },
  { name: 'handler', make: () => handlerStage() },
];

/** The route with its stages (from the stage table), and 405 for any other method on its path. */
export function webhookRouter(stages: RequestHandler): Router {
  // The app's routing rules hold here too: one URL exactly (no case-folded or trailing-slash twin).
  const router = Router({ caseSensitive: true, strict: true });
  router.post(WEBHOOK_PATH, stages);
  router.all(WEBHOOK_PATH, (req) => {
    throw new ProblemError('method_not_allowed', { detail: `${req.method} is not allowed on this path.`, headers: { Allow: 'POST' } });
  });
  return router;
}

// ------------------------------------------------------------------------------------------- description (OpenAPI 3.1)

const jsonSchema = toJsonSchema;

const problems = (codes: ErrorCode[]): Json => ({
  description: codes.map((c) => `\`${c}\``).join(', '),
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** The webhook's entry of /openapi.json `paths` (merged by the description builder). */
export const webhookPaths: Record<string, Json> = {
  [WEBHOOK_PATH]: {
    post: {
      operationId: 'receivePaymentWebhook',
      summary: 'Receive a payment-provider delivery',
      description:
        'Authenticated by the provider signature over the raw body (never a bearer token). Processed before the answer: ' +
        '`payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.refunded`, `setup_intent.succeeded`; other ' +
        'types are acknowledged and ignored. Idempotent by event id. See docs/webhook.md.',
      tags: ['webhook'],
      security: [],
      'x-authentication': 'provider-signature',
      parameters: [
        {
          name: SIGNATURE_HEADER,
          in: 'header',
          required: true,
          description: `\`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the webhook secret>\`; several \`v1\` values may be sent, one must match; older than ${SIGNATURE_TOLERANCE_SECONDS} s is refused.`,
          schema: { type: 'string', minLength: 1 },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(stripeEventSchema, 'input') } } },
      responses: {
        '200': {
          description: 'Accepted (processed, ignored, or already processed).',
          content: { 'application/json': { schema: jsonSchema(webhookReceivedSchema, 'output') } },
        },
        '400': problems(['missing_signature', 'invalid_signature']),
        '404': problems(['not_configured']),
        '413': problems(['payload_too_large']),
        '500': problems(['processing_failed', 'internal_error']),
        '503': problems(['webhook_secret_missing']),
      },
    },
  },
};
