// The clause catalogue, spec part 6: Events (contract/clauses/catalogue.ts assembles the parts). Data only.
import type { Clause } from '../catalogue.js';
import { EVT, EVT_STREAM } from '../headings.js';

export const EVENTS: readonly Clause[] = [
  {
    id: 'EVT-WEBHOOK-1',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'A delivery posted by the payment provider to POST /webhooks/stripe with a valid signature is accepted with 200 {"received": true}.',
  },
  {
    id: 'EVT-WEBHOOK-2',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'When the webhook feature is not configured, a delivery gets 404 not_configured.',
  },
  {
    id: 'EVT-WEBHOOK-3',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'When the webhook secret is missing, a delivery gets 503 webhook_secret_missing.',
  },
  {
    id: 'EVT-WEBHOOK-4',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'A delivery without the signature header gets 400 missing_signature.',
  },
  {
    id: 'EVT-WEBHOOK-5',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'A delivery whose signature does not verify gets 400 invalid_signature.',
  },
  {
    id: 'EVT-WEBHOOK-6',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'A verified delivery that fails processing gets 500 processing_failed.',
  },
  {
    id: 'EVT-WEBHOOK-7',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: "The webhook settles payments before it answers: once 200 is returned the payment's order state already reflects the delivery.",
  },
  {
    id: 'EVT-WEBHOOK-8',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'The webhook completes a card setup that was originally admitted before it answers.',
  },
  {
    id: 'EVT-WEBHOOK-9',
    part: 'events',
    section: EVT,
    severity: 'MUST',
    text: 'Webhook logs record event type, event id and outcome only.',
    notTestable: 'logs are not visible over HTTP',
  },
  {
    id: 'EVT-STREAM-1',
    part: 'events',
    section: EVT_STREAM,
    severity: 'MUST',
    text: 'A response that is an event stream gets a keep-alive comment every 15 seconds (never more than 15 seconds without one).',
  },
];
