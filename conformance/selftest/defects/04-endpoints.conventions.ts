// Defects of the Endpoints conventions (END-CONV-*): creates, deletes and caching broken everywhere or for one operation
// or caller kind alone, validators, content types and malformed bodies.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { headerOf, mapHeader, notAStream, pathOf, tokenClaims, usesDpop, withHeaderLast, withoutHeader } from './helpers.js';
import { lenient, wire, type Defect, type DefectContext } from './types.js';

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

/** A malformed JSON body read as {} (a webhook delivery is left as it came). */
export const malformedJsonRepaired = (clause: string, section = 'endpoints'): Defect =>
  lenient(`${section}.malformed-json-repaired.${clause.toLowerCase()}`, clause, 'a malformed JSON body is read as {}', () => ({
    requestBody(req: ProxyRequest, body: string): string {
      try {
        JSON.parse(body);
        return body;
      } catch {
        return pathOf(req).startsWith('/webhooks/') ? body : '{}';
      }
    },
  }));

export const ENDPOINTS_CONVENTIONS_DEFECTS: readonly Defect[] = [
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
  wire('endpoints.no-store-dropped-on-204', 'END-CONV-9', 'Cache-Control: no-store dropped on 204 answers only', (a) =>
    a.status === 204 ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  wire('endpoints.no-store-dropped-on-health', 'END-CONV-9', 'Cache-Control: no-store dropped on GET /health only', (a, r) =>
    pathOf(r) === '/health' ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  wire('endpoints.no-store-dropped-on-internal', 'END-CONV-9', 'Cache-Control: no-store dropped on the internal routes only', (a, r) =>
    a.status < 400 && pathOf(r).startsWith('/internal/') ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  lenient('endpoints.any-content-type-accepted', 'END-CONV-5', 'a body with another or no content type is read as JSON', () => ({
    request: (req: ProxyRequest) =>
      (headerOf(req.headers, 'content-length') ?? '0') !== '0' &&
      !/json/i.test(headerOf(req.headers, 'content-type') ?? '') &&
      pathOf(req).startsWith('/v1/')
        ? { ...req, headers: withHeaderLast(req.headers, 'Content-Type', 'application/json') }
        : req,
  })),
  malformedJsonRepaired('END-CONV-4'),
  // A validator cache that answers "not modified" as soon as the client holds any tag, never comparing it.
  wire(
    'endpoints.strength.not-modified-any-tag',
    'END-CONV-8',
    'a GET with any If-None-Match is answered 304, a non-matching tag too',
    (a, r) =>
      r.method === 'GET' &&
      a.status === 200 &&
      headerOf(a.headers, 'etag') !== undefined &&
      headerOf(r.headers, 'if-none-match') !== undefined
        ? { status: 304, headers: a.headers.filter(([k]) => !/^content-(type|length)$/i.test(k)), body: '' }
        : a,
  ),
];
