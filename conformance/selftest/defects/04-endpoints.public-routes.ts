// Defects of the public routes (END-PUBLIC-*): health and description documents that need a token or cache otherwise,
// and the webhook's signature verification. The internal routes' credentials are in 04-endpoints.internal.ts.
import { SIGNATURE_HEADER, signPayload } from '../../lib/stripe-signature.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { bareProblem, headerOf, mapHeader, pathOf, served, usesBearer, withHeader } from './helpers.js';
import { lenient, wire, type Defect } from './types.js';
import { isWebhook } from './06-events.js';

const unauthenticatedRefused =
  (path: string) =>
  (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer =>
    pathOf(r) === path && !headerOf(r.headers, 'authorization')
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a;

export const ENDPOINTS_PUBLIC_ROUTES_DEFECTS: readonly Defect[] = [
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
  wire(
    'endpoints.routes.openapi-needs-token',
    'END-PUBLIC-2',
    '/openapi.json refused without a token',
    unauthenticatedRefused('/openapi.json'),
  ),
  wire(
    'endpoints.routes.assistant-openapi-needs-token',
    'END-PUBLIC-4',
    '/assistant/openapi.json refused without a token',
    unauthenticatedRefused('/assistant/openapi.json'),
  ),
  wire(
    'endpoints.auth.conversation-bearer-served',
    'END-PUBLIC-19',
    'a conversation route served with a Bearer token (401 answered 200 {})',
    (a, r) => (a.status === 401 && pathOf(r).startsWith('/assistant/conversations') && usesBearer(r) ? served(a) : a),
  ),
];
