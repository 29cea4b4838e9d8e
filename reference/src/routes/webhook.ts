// POST /webhooks/stripe (spec, Events; Endpoints > Public and special routes): a special route, not an operation. Its row
// (contract/routes.ts) names its credential, the provider signature over the raw body; the stage table wires it
// (STAGE_TABLE.webhook in pipeline/groups.ts): request (app-wide), raw body (256 KiB), domain, provider signature,
// handler, output validation. Never a bearer token; only the boundary writes errors: stages throw ProblemError.
import { ProblemError } from '../problem.js';
import { stripeEventSchema, webhookReceivedSchema } from '../schemas/webhook.js';
import { DeliveryNotProcessable, processDelivery } from '../store/webhook.js';
import { defineSpecialRoute } from './define.js';

export { SIGNATURE_TOLERANCE_SECONDS } from '../pipeline/03-provider-signature.js';

/** Processes the verified event before answering (settlement, card setups), idempotent by event id. */
export const webhookRoute = defineSpecialRoute({
  operationId: 'receivePaymentWebhook',
  summary: 'Receive a payment-provider delivery',
  description:
    'Authenticated by the provider signature over the raw body (never a bearer token). Processed before the answer: ' +
    '`payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.refunded`, `setup_intent.succeeded`; other ' +
    'types are acknowledged and ignored. Idempotent by event id. See docs/webhook.md.',
  // Described, not validated by a stage: an event the provider signed that is not an envelope fails processing (500).
  body: stripeEventSchema,
  successes: [{ status: 200, schema: webhookReceivedSchema, description: 'Accepted (processed, ignored, or already processed).' }],
  errors: ['processing_failed'],
  handle: ({ domain, input }) => {
    const { db, clock, log, config } = domain;
    const parsed = stripeEventSchema.safeParse(input.body);
    // [EVT-WEBHOOK-6] A verified delivery that fails processing gets 500 processing_failed.
    if (!parsed.success) {
      log.warn('webhook', { type: null, id: null, outcome: 'failed' });
      throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed.', cause: 'not an event envelope' });
    }
    const event = parsed.data;
    let outcome: ReturnType<typeof processDelivery>;
    try {
      // [EVT-WEBHOOK-7] [EVT-WEBHOOK-8] Effects and the delivery's record commit together, before the answer; a failure
      // rolls both back, so the provider's retry is processed.
      outcome = db.transaction(() => processDelivery(db, event, clock(), config.checkoutReconcileAfterSeconds)).immediate();
    } catch (err) {
      log.warn('webhook', { type: event.type, id: event.id, outcome: 'failed' });
      if (err instanceof DeliveryNotProcessable) {
        throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed; retry it later.', cause: err.message });
      }
      throw new ProblemError('processing_failed', { detail: 'The delivery could not be processed; retry it later.', cause: err });
    }
    // [EVT-WEBHOOK-9] Event type, id and outcome only: never the body (spec, Events).
    log.info('webhook', { type: event.type, id: event.id, outcome });
    // [EVT-WEBHOOK-1] 200 {"received": true}.
    return { status: 200, body: { received: true } };
  },
});
