// Blind defects of "Errors" (spec part 7): the boundary's headers, the problem format on every path, and the table of
// failures, each broken for one status, one code or one caller kind.
import { randomBytes } from 'node:crypto';
import { editJson, headerOf, mapHeader, pathOf, problemCode, usesBearer, withHeader, withoutHeader } from '../helpers.js';
import { referenceOnly, wire, wireWith, type Defect } from '../types.js';
import { isCode, isDpop, isKnownPath, kindOf, withCode, withStatus } from './shared.js';

/** Account permission of each API scope (spec, Scope translation table): the right answer an assistant must be told. */
const API_SCOPE_OF_PERMISSION: Record<string, string> = {
  'assistant:read': 'account:read',
  'assistant:write': 'account:write',
};

export const BLIND_ERRORS_DEFECTS: readonly Defect[] = [
  // "The boundary ... sets `Content-Type: application/problem+json` ... on every response with status 400 or above."
  // Broken on 422: plain application/json.
  wire('blind.errors.json-content-type-on-422', 'ERR-PROBLEM-4', '422 problems are sent as application/json', (a) =>
    a.status === 422 ? { ...a, headers: withHeader(a.headers, 'Content-Type', 'application/json; charset=utf-8') } : a,
  ),
  // "... and `Cache-Control: no-store` on every response with status 400 or above". Broken on 404s: no Cache-Control.
  wire('blind.errors.no-store-missing-on-404', 'ERR-PROBLEM-5', '404 problems carry no Cache-Control', (a) =>
    a.status === 404 ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  // "sets `instance` when the error did not pass the normal error path (decoding failures, size limit)". Broken for
  // decoding failures: no instance.
  wire('blind.errors.decoding-no-instance', 'ERR-PROBLEM-6', 'a malformed-JSON refusal has no `instance`', (a) =>
    a.status === 400 && problemCode(a) === 'invalid_json' ? editJson(a, (b) => void delete b.instance) : a,
  ),
  // "... and writes `X-Request-Id` on every response." Broken on 304 answers.
  wire('blind.errors.request-id-missing-on-304', 'ERR-PROBLEM-7', '304 answers carry no X-Request-Id', (a) =>
    a.status === 304 ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
  ),
  // "All failures (including ... body-size refusals ...) use the problem document". Broken for the size limit: the
  // framework's plain-text page.
  wire('blind.errors.payload-too-large-text', 'ERR-PROBLEM-3', 'a body over the cap is refused with a text/plain 413', (a) =>
    a.status === 413
      ? {
          ...a,
          headers: withHeader(withoutHeader(a.headers, 'content-type'), 'Content-Type', 'text/plain; charset=utf-8'),
          body: 'Payload Too Large',
        }
      : a,
  ),
  // "Status and code for an unmatched route (it is answered in the same problem format)". Broken: the framework's HTML.
  wire('blind.errors.unmatched-route-html', 'ERR-PROBLEM-10', 'an unmatched route is answered with an HTML 404 page', (a, r) =>
    a.status === 404 && !isKnownPath(pathOf(r))
      ? {
          ...a,
          headers: withHeader(a.headers, 'Content-Type', 'text/html; charset=utf-8'),
          body: `<!DOCTYPE html>\n<html lang="en"><head><title>Error</title></head><body><pre>Cannot ${r.method} ${pathOf(r)}</pre></body></html>\n`,
        }
      : a,
  ),
  // "| no token on `/v1` | 401 | `invalid_token` | `WWW-Authenticate: Bearer error="invalid_token", DPoP
  // error="invalid_token", algs="ES256"` |". Broken on cart routes: only the Bearer challenge.
  wire('blind.errors.no-token-bearer-only-on-cart', 'ERR-TABLE-1', 'a cart request without a token is challenged in Bearer only', (a, r) =>
    a.status === 401 && headerOf(r.headers, 'authorization') === undefined && /^\/v1\/cart(\/|$)/.test(pathOf(r))
      ? { ...a, headers: withHeader(a.headers, 'WWW-Authenticate', 'Bearer error="invalid_token"') }
      : a,
  ),
  // "| assistant token sent as Bearer | 401 | `invalid_token` | `DPoP error="invalid_token", algs="ES256"` |". Broken: the
  // algs parameter is left out.
  wire('blind.errors.assistant-bearer-no-algs', 'ERR-TABLE-3', 'an assistant token sent as Bearer is challenged without algs', (a, r) =>
    a.status === 401 && /^Bearer\s/i.test(headerOf(r.headers, 'authorization') ?? '')
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => (/^DPoP\s/i.test(v) ? v.replace(/,\s*algs="[^"]*"/, '') : v)) }
      : a,
  ),
  // "| DPoP proof or nonce failure | 401 | ... | `DPoP error="..."` and `DPoP-Nonce` |". Broken for invalid proofs.
  wire('blind.errors.invalid-proof-no-nonce', 'ERR-TABLE-4', 'invalid_dpop_proof refusals carry no DPoP-Nonce', (a) =>
    isCode(a, 'invalid_dpop_proof') ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  // "| wrong caller kind | 403 | `caller_not_allowed` | none |". Broken for operators: an insufficient_scope challenge.
  wireWith(
    'blind.errors.caller-not-allowed-challenge-operator',
    'ERR-TABLE-8',
    'caller_not_allowed to an operator carries a Bearer challenge',
    (ctx) => (a, r) =>
      isCode(a, 'caller_not_allowed') && kindOf(ctx.profile, r) === 'operator'
        ? { ...a, headers: [...a.headers, ['WWW-Authenticate', 'Bearer error="insufficient_scope"']] }
        : a,
  ),
  // "| missing API or account scope | 403 | `insufficient_scope` (with `scope`) |". Broken for delegated callers: no scope.
  wireWith(
    'blind.errors.insufficient-scope-no-scope-delegated',
    'ERR-TABLE-9',
    'insufficient_scope to a delegated caller has no `scope`',
    (ctx) => (a, r) =>
      isCode(a, 'insufficient_scope') && kindOf(ctx.profile, r) === 'delegated' ? editJson(a, (b) => void delete b.scope) : a,
  ),
  // "| validation failure | 400 | `invalid_request` (with `issues`, max 20) | none |". Broken on PATCH: a challenge.
  wire('blind.errors.validation-challenge-on-patch', 'ERR-TABLE-11', 'a PATCH validation failure carries WWW-Authenticate', (a, r) =>
    r.method === 'PATCH' && isCode(a, 'invalid_request')
      ? { ...a, headers: [...a.headers, ['WWW-Authenticate', 'Bearer error="invalid_request"']] }
      : a,
  ),
  // "| rate limit | 429 | `rate_limited` | `Retry-After` |". Broken for assistant (DPoP) callers: no Retry-After.
  wire('blind.errors.retry-after-missing-for-assistant', 'ERR-TABLE-12', '429 answers to DPoP requests carry no Retry-After', (a, r) =>
    a.status === 429 && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'retry-after') } : a,
  ),
  // "| verifier or identity-proxy outage | 503 | `unavailable` | `Retry-After: 5` |". Broken: Retry-After: 30.
  wire('blind.errors.unavailable-retry-after-30', 'ERR-TABLE-13', '503 unavailable carries Retry-After: 30', (a) =>
    isCode(a, 'unavailable') ? { ...a, headers: withHeader(a.headers, 'Retry-After', '30') } : a,
  ),
  // "| cart has no lines at checkout | 422 | `cart_empty` |". Broken: 409.
  wire('blind.errors.cart-empty-409', 'ERR-TABLE-14', 'cart_empty is answered 409', (a) =>
    isCode(a, 'cart_empty') ? withStatus(a, 409) : a,
  ),
  // "assistant callers are told account scopes, never API scopes". Broken: an assistant is told the API scope.
  wire('blind.errors.assistant-told-api-scope', 'ERR-SCOPE-1', 'insufficient_scope to an assistant names the API scope', (a, r) =>
    isCode(a, 'insufficient_scope') && isDpop(r)
      ? editJson(a, (b) => {
          if (typeof b.scope === 'string') b.scope = API_SCOPE_OF_PERMISSION[b.scope] ?? b.scope;
        })
      : a,
  ),
  // Request processing order: "A malformed JSON body fails during decoding, before authentication: it yields 400, not
  // 401." Broken when no token is sent: the missing token is answered first.
  wireWith(
    'blind.errors.malformed-json-without-token-401',
    'AUTH-ORDER-11',
    'malformed JSON without a token is answered 401',
    (ctx) => (a, r) =>
      a.status === 400 && headerOf(r.headers, 'authorization') === undefined && /^\/v1\//.test(pathOf(r)) && isCode(a, 'invalid_json')
        ? {
            ...withCode(ctx, withStatus(a, 401), 'invalid_token'),
            headers: [...a.headers, ['WWW-Authenticate', 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"']],
          }
        : a,
  ),
  // "The boundary ... sets `Content-Type: application/problem+json` ... on every response with status 400 or above."
  // Broken on 429 only: the rate limiter writes its own body as plain JSON.
  wire('blind.errors.json-content-type-on-429', 'ERR-PROBLEM-4', '429 problems are sent as application/json', (a) =>
    a.status === 429 ? { ...a, headers: withHeader(a.headers, 'Content-Type', 'application/json; charset=utf-8') } : a,
  ),
  // Same sentence. Broken on the conversation routes only: their failures are sent as application/json.
  wire(
    'blind.errors.conversation-problem-as-json',
    'ERR-PROBLEM-4',
    'failures on /assistant/conversations are sent as application/json',
    (a, r) =>
      a.status >= 400 && pathOf(r).startsWith('/assistant/conversations')
        ? { ...a, headers: mapHeader(a.headers, 'content-type', () => 'application/json; charset=utf-8') }
        : a,
  ),
  // "... and `Cache-Control: no-store` on every response with status 400 or above". Broken on 503: the outage answer is
  // made cacheable for as long as its Retry-After.
  wire('blind.errors.no-store-missing-on-503', 'ERR-PROBLEM-5', '503 problems carry Cache-Control: max-age=5', (a) =>
    a.status === 503 ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'max-age=5') } : a,
  ),
  // Same sentence. Broken on 431 (answered before the application runs): no Cache-Control at all.
  referenceOnly(
    wire('blind.errors.no-store-missing-on-431', 'ERR-PROBLEM-5', '431 problems carry no Cache-Control', (a) =>
      a.status === 431 ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
    ),
    "a 431 is the reference's answer to headers over Node's limit (the spec shows no header limit): only a reference-level check sends one",
  ),
  // Same sentence. Broken on 409 conflicts: Cache-Control: private.
  wire('blind.errors.no-store-missing-on-409', 'ERR-PROBLEM-5', '409 problems carry Cache-Control: private', (a) =>
    a.status === 409 ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'private') } : a,
  ),
  // "... and writes `X-Request-Id` on every response." Broken on the webhook (mounted before the request stage): none.
  wire('blind.errors.request-id-missing-on-webhook', 'ERR-PROBLEM-7', 'answers of POST /webhooks/stripe carry no X-Request-Id', (a, r) =>
    pathOf(r) === '/webhooks/stripe' ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
  ),
  // "Domain errors may carry only the headers `Retry-After`, `RateLimit` and `RateLimit-Policy`; challenges and nonces are
  // set by the error mapper alone." Broken for Bearer requests: domain errors carry a DPoP-Nonce all the same.
  wire('blind.errors.nonce-on-bearer-domain-error', 'ERR-PROBLEM-8', 'domain errors to Bearer requests carry a DPoP-Nonce', (a, r) =>
    a.status >= 400 &&
    a.status !== 401 &&
    usesBearer(r) &&
    headerOf(a.headers, 'www-authenticate') === undefined &&
    headerOf(a.headers, 'dpop-nonce') === undefined &&
    problemCode(a) !== undefined
      ? { ...a, headers: [...a.headers, ['DPoP-Nonce', randomBytes(16).toString('base64url')]] }
      : a,
  ),
  // "| rate limit | 429 | `rate_limited` | `Retry-After` |". Broken for guests only: no Retry-After.
  wireWith(
    'blind.errors.retry-after-missing-for-guest',
    'ERR-TABLE-12',
    '429 answers to guests carry no Retry-After',
    (ctx) => (a, r) =>
      a.status === 429 && kindOf(ctx.profile, r) === 'guest' ? { ...a, headers: withoutHeader(a.headers, 'retry-after') } : a,
  ),
  // "| DPoP proof or nonce failure | 401 | ... | `DPoP error="..."` and `DPoP-Nonce` |". Broken for use_dpop_nonce on the
  // conversation routes only: the refusal asks for a nonce and gives none.
  wire(
    'blind.errors.use-dpop-nonce-without-nonce-on-conversations',
    'ERR-TABLE-4',
    'use_dpop_nonce refusals on /assistant/conversations carry no DPoP-Nonce',
    (a, r) =>
      isCode(a, 'use_dpop_nonce') && pathOf(r).startsWith('/assistant/conversations')
        ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') }
        : a,
  ),
  // "| missing API or account scope | 403 | `insufficient_scope` (with `scope`) |". Broken for invited agents only: the
  // member is named `required_scope`.
  wireWith(
    'blind.errors.insufficient-scope-renamed-for-invited-agent',
    'ERR-TABLE-9',
    'insufficient_scope to an invited agent names the scope in `required_scope`',
    (ctx) => (a, r) =>
      isCode(a, 'insufficient_scope') && kindOf(ctx.profile, r) === 'invited-agent'
        ? editJson(a, (b) => {
            b.required_scope = b.scope;
            delete b.scope;
          })
        : a,
  ),
  // "| wrong caller kind | 403 | `caller_not_allowed` | none |". Broken for guests only: a Bearer challenge.
  wireWith(
    'blind.errors.caller-not-allowed-challenge-guest',
    'ERR-TABLE-8',
    'caller_not_allowed to a guest carries a Bearer challenge',
    (ctx) => (a, r) =>
      isCode(a, 'caller_not_allowed') && kindOf(ctx.profile, r) === 'guest'
        ? { ...a, headers: [...a.headers, ['WWW-Authenticate', 'Bearer error="insufficient_scope"']] }
        : a,
  ),
  // "... and writes `X-Request-Id` on every response." Broken on 431 (answered before the request stage runs).
  referenceOnly(
    wire('blind.errors.request-id-missing-on-431', 'ERR-PROBLEM-7', '431 answers carry no X-Request-Id', (a) =>
      a.status === 431 ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
    ),
    "a 431 is the reference's answer to headers over Node's limit (the spec shows no header limit): only a reference-level check sends one",
  ),
];
