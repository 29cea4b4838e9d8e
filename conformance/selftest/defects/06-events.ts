// Defects of Events (spec part 6, EVT-*): the webhook's answers and what it does before it answers, and the keep-alive
// comments of event streams.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { editJson, headerOf, keptBodies, notAStream, pathOf, problemAnswer, problemCode, servedWithTrace } from './helpers.js';
import { wire, wireWith, type Defect } from './types.js';

export const WEBHOOK = '/webhooks/stripe';

export const isWebhook = (r: ProxyRequest) => r.method === 'POST' && pathOf(r) === WEBHOOK;

/** How long after its 200 a delivery's effect stays invisible, for the defects that settle after answering. */
const LATE_MS = 3_000;

/** The `type` and `data.object` of a delivery's body. */
const eventOf = (body: Record<string, unknown> | undefined): { type?: unknown; object?: Record<string, unknown> } => ({
  type: body?.type,
  object: ((body?.data as Record<string, unknown> | undefined)?.object ?? undefined) as Record<string, unknown> | undefined,
});

/**
 * A webhook that answers 200 first and does the work of `type` in the background: for LATE_MS after the answer, reads
 * that `hide` recognizes show the state before the delivery (`hide` rewrites the answer as it was).
 */
const answersBeforeWork = (
  id: string,
  clause: string,
  description: string,
  type: string,
  hide: (a: ProxyAnswer, r: ProxyRequest, event: Record<string, unknown>) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: () => {
    const kept = keptBodies();
    let pending: { until: number; object: Record<string, unknown> } | undefined;
    return {
      buffer: notAStream,
      requestBody: kept.requestBody,
      response(a, r) {
        if (isWebhook(r)) {
          const e = eventOf(kept.of(r));
          if (a.status === 200 && e.type === type && e.object) pending = { until: Date.now() + LATE_MS, object: e.object };
          return a;
        }
        return pending && Date.now() < pending.until && r.method === 'GET' ? hide(a, r, pending.object) : a;
      },
    };
  },
});

/**
 * Drops the comments (a `:` line and the blank line that ends it) of an event stream that `keep` refuses, given the
 * comment's index among those sent and the ms since the stream opened; data lines pass. Lines may span chunks.
 */
export function dropComments(keep: (index: number, sinceOpenMs: number) => boolean): (chunk: Buffer) => Buffer {
  const opened = Date.now();
  let seen = 0;
  let partial = '';
  return (chunk) => {
    const text = partial + chunk.toString('utf8');
    const end = text.lastIndexOf('\n');
    partial = end < 0 ? text : text.slice(end + 1);
    if (end < 0) return Buffer.alloc(0);
    const lines = text.slice(0, end + 1).split(/(?<=\n)/);
    const kept: string[] = [];
    let dropBlank = false;
    for (const line of lines) {
      if (line.startsWith(':')) {
        if (!keep(seen++, Date.now() - opened)) {
          dropBlank = true;
          continue;
        }
      } else if (dropBlank && line === '\n') {
        dropBlank = false;
        continue;
      }
      dropBlank = false;
      kept.push(line);
    }
    return Buffer.from(kept.join(''), 'utf8');
  };
}

/** Proxy rules that filter the comments of every event stream through dropComments(keep). */
const keepComments = (keep: (index: number, sinceOpenMs: number) => boolean) => () => ({
  buffer: notAStream,
  streamFilter: (a: ProxyAnswer) =>
    /^text\/event-stream/i.test(headerOf(a.headers, 'content-type') ?? '') ? dropComments(keep) : undefined,
});

export const EVENTS_DEFECTS: readonly Defect[] = [
  // A deployment with the webhook switched off that reports it as a missing secret (one check for both rows).
  wireWith(
    'events.webhook-off-as-secret-missing',
    'EVT-WEBHOOK-2',
    'with the webhook not configured, a delivery is answered 503 webhook_secret_missing instead of 404 not_configured',
    (ctx) => (a, r) =>
      isWebhook(r) && problemCode(a) === 'not_configured' ? problemAnswer(ctx, a, 503, 'webhook_secret_missing', 'Service Unavailable') : a,
  ),
  // A webhook that verifies against an unset secret: every signature fails.
  wireWith(
    'events.webhook-secret-missing-as-invalid',
    'EVT-WEBHOOK-3',
    'with the webhook secret missing, a delivery is answered 400 invalid_signature (verified against no secret) instead of 503',
    (ctx) => (a, r) =>
      isWebhook(r) && problemCode(a) === 'webhook_secret_missing' ? problemAnswer(ctx, a, 400, 'invalid_signature', 'Bad Request') : a,
  ),
  answersBeforeWork(
    'events.webhook-settles-after-answer',
    'EVT-WEBHOOK-7',
    'payment_intent.succeeded is answered 200 before the payment is settled: for 3 s the order still reads pending_payment',
    'payment_intent.succeeded',
    (a, r) =>
      /^\/v1\/me\/orders\/[^/]+$/.test(pathOf(r)) && a.body?.includes('"status":"paid"')
        ? { ...a, body: a.body.replace('"status":"paid"', '"status":"pending_payment"') }
        : a,
  ),
  answersBeforeWork(
    'events.webhook-card-setup-after-answer',
    'EVT-WEBHOOK-8',
    "setup_intent.succeeded is answered 200 before the card setup completes: for 3 s the account's cards lack the new one",
    'setup_intent.succeeded',
    (a, r, object) => {
      const card = ((object.payment_method as Record<string, unknown> | undefined)?.card ?? {}) as Record<string, unknown>;
      if (pathOf(r) !== '/v1/me/payment-methods' || a.status !== 200) return a;
      const same = (x: Record<string, unknown>) => x.last4 === card.last4 && x.exp_month === card.exp_month && x.exp_year === card.exp_year;
      try {
        const body = JSON.parse(a.body ?? '') as unknown;
        if (Array.isArray(body)) return { ...a, body: JSON.stringify(body.filter((x: Record<string, unknown>) => !same(x))) };
        return editJson(a, (b) => {
          if (Array.isArray(b.items)) b.items = (b.items as Record<string, unknown>[]).filter((x) => !same(x));
        });
      } catch {
        return a;
      }
    },
  ),
  // ------------------------------------------------------------------------------------------------------ event streams
  // A keep-alive sent once, when the stream opens or at its first beat, and never again (a timeout cleared by mistake).
  {
    id: 'events.stream-one-keep-alive',
    clause: 'EVT-STREAM-1',
    description: 'an event stream gets its first keep-alive comment, then none: comment lines after the first are dropped',
    kind: 'wire',
    rules: keepComments((index) => index === 0),
  },
  // The beat started late (a first timer of 30 s): comments come every 15 s, but the first only 30 s after the open.
  {
    id: 'events.stream-late-first-keep-alive',
    clause: 'EVT-STREAM-1',
    description: 'an event stream gets its first keep-alive comment 30 s after it opens: the comments of its first 20 s are dropped',
    kind: 'wire',
    rules: keepComments((_index, sinceOpenMs) => sinceOpenMs >= 20_000),
  },
  // Half the beats lost: a comment every 30 s, the first at once.
  {
    id: 'events.stream-keep-alive-every-30s',
    clause: 'EVT-STREAM-1',
    description: 'an event stream gets a keep-alive comment at once, then one every 30 s: every second comment is dropped',
    kind: 'wire',
    rules: keepComments((index) => index % 2 === 0),
  },
  wire('events.webhook-accepted-202', 'EVT-WEBHOOK-1', 'a verified delivery answered 202 instead of 200', (a, r) =>
    pathOf(r) === '/webhooks/stripe' && a.status === 200 ? { ...a, status: 202 } : a,
  ),
  wire('events.webhook-missing-signature-as-invalid', 'EVT-WEBHOOK-4', 'a delivery without signature answered invalid_signature', (a) =>
    problemCode(a) === 'missing_signature'
      ? editJson(a, (b) => {
          b.error = 'invalid_signature';
          if (typeof b.type === 'string') b.type = b.type.replace(/missing_signature$/, 'invalid_signature');
        })
      : a,
  ),
  wire('events.webhook-invalid-signature-as-401', 'EVT-WEBHOOK-5', 'a delivery whose signature does not verify answered 401', (a) =>
    problemCode(a) === 'invalid_signature'
      ? editJson({ ...a, status: 401 }, (b) => {
          b.status = 401;
          b.title = 'Unauthorized';
        })
      : a,
  ),
  wire(
    'events.processing-failure-acknowledged',
    'EVT-WEBHOOK-6',
    'a delivery that fails processing is answered 200 {"received": true}',
    (a) => (problemCode(a) === 'processing_failed' ? servedWithTrace(a, '{"received":true}') : a),
  ),
];
