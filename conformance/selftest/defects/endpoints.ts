// Defects of the Endpoints part (END-*): conventions of creates, deletes and caching; the public routes; the diagnostic
// read's caller list. And of the Events part (EVT-*): the webhook's answers and what it does before it answers, and the
// keep-alive comments of event streams.
import { signPayload, SIGNATURE_HEADER } from '../../lib/stripe-signature.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  bareProblem,
  editJson,
  headerOf,
  keptBodies,
  mapHeader,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  tokenClaims,
  usesDpop,
  withHeader,
  withHeaderLast,
  withoutHeader,
} from './helpers.js';
import { lenient, wire, wireWith, type Defect, type DefectContext } from './types.js';

const WEBHOOK = '/webhooks/stripe';
const isWebhook = (r: ProxyRequest) => r.method === 'POST' && pathOf(r) === WEBHOOK;
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

/** Drops the comment lines (`:` …) of an event stream after the first one; data lines pass. Lines may span chunks. */
function afterFirstComment(): (chunk: Buffer) => Buffer {
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
        if (seen++ > 0) {
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

const isCatalog = (path: string) => path.startsWith('/v1/catalog/');
const isDocument = (path: string) => path === '/openapi.json' || path === '/assistant/openapi.json';

// --- the conventions broken for one create, one delete or one caller kind alone --------------------------------------------

type Cell = (r: ProxyRequest, ctx: DefectContext) => boolean;
const isDpopCaller: Cell = usesDpop;
const isDelegated: Cell = (r, ctx) => tokenClaims(r)?.client_id === ctx.profile.clients.agentProtocol;
const isForwarded: Cell = (r, ctx) => tokenClaims(r)?.client_id === ctx.profile.clients.webAgentForwarder;
const isGuest: Cell = (r) => headerOf(r.headers, 'guest-session') !== undefined;
const route =
  (method: string, pattern: RegExp): Cell =>
  (r) =>
    r.method === method && pattern.test(pathOf(r));
const both =
  (...cells: Cell[]): Cell =>
  (r, ctx) =>
    cells.every((c) => c(r, ctx));

/** A rewrite of the successful answers of one cell (an operation, a caller kind) alone. */
const inCell = (id: string, clause: string, description: string, cell: Cell, rewrite: (a: ProxyAnswer) => ProxyAnswer): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: (ctx) => ({ buffer: notAStream, response: (a, r) => (a.status < 300 && cell(r, ctx) ? rewrite(a) : a) }),
});
const as200 = (a: ProxyAnswer): ProxyAnswer => (a.status === 201 ? { ...a, status: 200 } : a);
const deleteAs200 = (a: ProxyAnswer): ProxyAnswer =>
  a.status === 204 ? { ...a, status: 200, headers: withHeaderLast(a.headers, 'Content-Type', 'application/json'), body: '{}' } : a;
const cacheable = (a: ProxyAnswer): ProxyAnswer => ({ ...a, headers: withoutHeader(a.headers, 'cache-control') });

const CHECKOUT_CELL = route('POST', /^\/v1\/checkouts\/saved-card$/);
const CONVENTION_CELLS: readonly Defect[] = [
  inCell('endpoints.checkout-answers-200', 'END-CONV-1', 'checkoutSavedCard answers 200 instead of 201', CHECKOUT_CELL, as200),
  inCell(
    'endpoints.checkout-without-no-store',
    'END-CONV-9',
    'checkoutSavedCard answers 201 without Cache-Control: no-store',
    CHECKOUT_CELL,
    cacheable,
  ),
  inCell(
    'endpoints.add-cart-item-answers-200',
    'END-CONV-1',
    'addCartItem (declared a create) answers 200 instead of 201',
    route('POST', /^\/v1\/cart\/items$/),
    as200,
  ),
  inCell(
    'endpoints.add-address-answers-200-to-assistants',
    'END-CONV-1',
    'addAddress answers 200 instead of 201 to assistant callers alone',
    both(route('POST', /^\/v1\/me\/addresses$/), isDpopCaller),
    as200,
  ),
  inCell(
    'endpoints.delete-address-answers-200-to-invited-agents',
    'END-CONV-3',
    'deleteAddress answers 200 {} instead of 204 to forwarded agents alone',
    both(route('DELETE', /^\/v1\/me\/addresses\/[^/]+$/), isForwarded),
    deleteAs200,
  ),
  inCell(
    'endpoints.remove-cart-item-answers-200-to-guests',
    'END-CONV-3',
    'removeCartItem answers 200 {} instead of 204 to guests alone',
    both(route('DELETE', /^\/v1\/cart\/items\/[^/]+$/), isGuest),
    deleteAs200,
  ),
  inCell(
    'endpoints.create-without-no-store-to-delegated',
    'END-CONV-9',
    'creates answer delegated callers without Cache-Control: no-store',
    both((r) => r.method === 'POST', isDelegated),
    (a) => (a.status === 201 ? cacheable(a) : a),
  ),
  inCell(
    'endpoints.conversation-message-answers-200',
    'END-CONV-1',
    'a conversation message (declared a create) answers 200 instead of 201',
    route('POST', /^\/assistant\/conversations\/[^/]+\/messages$/),
    as200,
  ),
  inCell(
    'endpoints.conversation-open-without-location',
    'END-CONV-2',
    'opening a conversation answers 201 without Location (the conversation has a GET URL)',
    route('POST', /^\/assistant\/conversations$/),
    (a) => ({ ...a, headers: withoutHeader(a.headers, 'location') }),
  ),
];

export const ENDPOINTS_DEFECTS: readonly Defect[] = [
  ...CONVENTION_CELLS,
  wire('endpoints.create-answers-200', 'END-CONV-1', 'creates answer 200 instead of 201', (a) =>
    a.status === 201 ? { ...a, status: 200 } : a,
  ),
  wire('endpoints.create-without-location', 'END-CONV-2', 'creates answer 201 without Location', (a) =>
    a.status === 201 ? { ...a, headers: withoutHeader(a.headers, 'location') } : a,
  ),
  wire('endpoints.delete-answers-200', 'END-CONV-3', 'deletes answer 200 {} instead of 204', (a, r) =>
    a.status === 204 && r.method === 'DELETE'
      ? { ...a, status: 200, headers: withHeaderLast(a.headers, 'Content-Type', 'application/json'), body: '{}' }
      : a,
  ),
  wire('endpoints.catalog-strong-etag', 'END-CONV-6', 'catalog ETags are strong', (a, r) =>
    isCatalog(pathOf(r)) ? { ...a, headers: mapHeader(a.headers, 'etag', (v) => v.replace(/^W\//, '')) } : a,
  ),
  wire('endpoints.catalog-cache-max-age', 'END-CONV-7', 'catalog GETs carry Cache-Control: private, max-age=60', (a, r) =>
    isCatalog(pathOf(r)) && a.status === 200 ? { ...a, headers: withHeaderLast(a.headers, 'Cache-Control', 'private, max-age=60') } : a,
  ),
  wire('endpoints.not-modified-answers-200', 'END-CONV-8', 'a matching If-None-Match is answered 200 with the body again', (a) =>
    a.status === 304 ? { ...a, status: 200 } : a,
  ),
  wire('endpoints.success-without-no-store', 'END-CONV-9', 'successful non-catalog answers without Cache-Control: no-store', (a, r) =>
    a.status < 300 && !isCatalog(pathOf(r)) && !isDocument(pathOf(r)) ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  wire('endpoints.health-needs-token', 'END-PUBLIC-1', 'GET /health refused without a token', (a, r) =>
    pathOf(r) === '/health' && !headerOf(r.headers, 'authorization')
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a,
  ),
  wire('endpoints.openapi-short-cache', 'END-PUBLIC-3', '/openapi.json cacheable for 60 seconds', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=60')) }
      : a,
  ),
  wire('endpoints.assistant-openapi-short-cache', 'END-PUBLIC-5', '/assistant/openapi.json cacheable for 60 seconds', (a, r) =>
    pathOf(r) === '/assistant/openapi.json'
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=60')) }
      : a,
  ),
  wire('endpoints.identity-leaks-email', 'PUR-BANNER-2', 'the identity read carries the account email', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          b.email = 'leak@example.test';
        })
      : a,
  ),
  // ------------------------------------------------------------------------------------------------- the diagnostic read
  // A server that reuses the account list for GET /v1/me: guests and operators cannot diagnose their credentials.
  wireWith(
    'endpoints.me-under-account-list',
    'END-LIST-6',
    'GET /v1/me is guarded by the account list instead of its own: a guest or an operator gets 403 caller_not_allowed',
    (ctx) => (a, r) =>
      pathOf(r) === '/v1/me' && a.status === 200 && (headerOf(r.headers, 'guest-session') || headerOf(r.headers, 'operator'))
        ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden')
        : a,
  ),
  // ----------------------------------------------------------------------------------------------------------- the webhook
  // A parser that reads the first v1 value of the signature header only: during a secret rotation the provider signs with
  // both secrets, and a delivery whose right signature comes second is refused.
  lenient(
    'endpoints.webhook-first-signature-only',
    'END-PUBLIC-6',
    'the webhook verifies only the first v1 signature of the header (several v1 values: the others are dropped)',
    () => ({
      request: (req: ProxyRequest): ProxyRequest => {
        const value = headerOf(req.headers, SIGNATURE_HEADER);
        if (!isWebhook(req) || value === undefined) return req;
        const parts = value.split(',');
        const first = parts.findIndex((p) => p.trim().startsWith('v1='));
        const kept = parts.filter((p, i) => !p.trim().startsWith('v1=') || i === first);
        return { ...req, headers: withHeader(req.headers, SIGNATURE_HEADER, kept.join(',')) };
      },
    }),
  ),
  // A webhook mounted behind the API's bearer middleware, that trusts an authenticated caller: a delivery with a valid
  // bearer token needs no signature (the proxy signs it, as the server would let it through).
  lenient(
    'endpoints.webhook-bearer-accepted',
    'END-PUBLIC-7',
    'a delivery with a bearer token is accepted without (or with a wrong) provider signature',
    (ctx) => ({
      requestBody(req: ProxyRequest, body: string) {
        const secret = ctx.profile.secrets.stripeWebhookSecret;
        if (!isWebhook(req) || !/^Bearer\s+\S/i.test(headerOf(req.headers, 'authorization') ?? '') || !secret) return body;
        return { body, headers: withHeader(req.headers, SIGNATURE_HEADER, signPayload(body, secret)) };
      },
    }),
  ),
  // The classic: a JSON body parser runs before the webhook, which verifies the signature over the re-serialised object.
  lenient(
    'endpoints.webhook-reserialised-body',
    'END-PUBLIC-8',
    'the webhook verifies the signature over the parsed and re-serialised JSON, not over the raw bytes',
    () => ({
      requestBody(req: ProxyRequest, body: string) {
        if (!isWebhook(req)) return body;
        try {
          return JSON.stringify(JSON.parse(body));
        } catch {
          return body;
        }
      },
    }),
  ),
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
    rules: () => ({
      buffer: notAStream,
      streamFilter: (a) => (/^text\/event-stream/i.test(headerOf(a.headers, 'content-type') ?? '') ? afterFirstComment() : undefined),
    }),
  },
];
