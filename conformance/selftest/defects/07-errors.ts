// Defects of Errors (spec part 7, ERR-*): the problem document's headers on every failure, the error table's statuses,
// challenges and members, and framing the boundary must turn into a problem document.
import { editJson, headerOf, mapHeader, pathOf, problemAnswer, problemCode, withHeaderLast, withoutHeader } from './helpers.js';
import { referenceOnly, wire, wireWith, type Defect } from './types.js';
import { dropOn } from './05-authentication.request-processing.js';
import { bearerRequest, challengeAs } from './05-authentication.token-verification.js';

export const ERRORS_DEFECTS: readonly Defect[] = [
  wire(
    'errors.auth.assistant-bearer-challenge',
    'ERR-TABLE-3',
    'an assistant token sent as Bearer is challenged with Bearer',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'errors.auth.rejected-token-no-challenge',
    'ERR-TABLE-2',
    'a malformed, expired or rejected token answered without a challenge',
    (a, r) =>
      problemCode(a) === 'invalid_token' && headerOf(r.headers, 'authorization')
        ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') }
        : a,
  ),
  wire('errors.auth.access-ended-no-challenge', 'ERR-TABLE-5', 'account_access_ended without its invalid_token challenge', (a) =>
    problemCode(a) === 'account_access_ended' ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') } : a,
  ),
  ...[400, 404, 413, 415, 422].map((status) =>
    wire(`errors.no-store-dropped-on-${status}`, 'ERR-PROBLEM-5', `Cache-Control: no-store dropped on ${status} answers only`, (a) =>
      a.status === status ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
    ),
  ),
  ...[404, 413, 422].map((status) =>
    wire(`errors.plain-json-on-${status}`, 'ERR-PROBLEM-4', `${status} answers labelled application/json only`, (a) =>
      a.status === status ? { ...a, headers: withHeaderLast(a.headers, 'Content-Type', 'application/json') } : a,
    ),
  ),
  wire(
    'errors.webhook-refusal-not-problem',
    'ERR-PROBLEM-1',
    'the webhook refuses with {"message": …} instead of a problem document',
    (a, r) => (a.status >= 400 && pathOf(r).startsWith('/webhooks/') ? { ...a, body: JSON.stringify({ message: 'refused' }) } : a),
  ),
  wire(
    'errors.internal-refusal-not-problem',
    'ERR-PROBLEM-1',
    'the internal routes refuse with {"message": …} instead of a problem document',
    (a, r) => (a.status >= 400 && pathOf(r).startsWith('/internal/') ? { ...a, body: JSON.stringify({ message: 'refused' }) } : a),
  ),
  wire('errors.no-store-dropped-on-auth-refusals', 'ERR-PROBLEM-5', 'Cache-Control: no-store dropped on 401, 403 and 429 answers', (a) =>
    [401, 403, 429].includes(a.status) ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  wire(
    'errors.problem-as-plain-json',
    'ERR-PROBLEM-4',
    'failure answers labelled application/json instead of application/problem+json',
    (a) => (a.status >= 400 ? { ...a, headers: mapHeader(a.headers, 'content-type', () => 'application/json; charset=utf-8') } : a),
  ),
  wire('errors.request-id-dropped-on-success', 'ERR-PROBLEM-7', 'X-Request-Id missing on successful answers', (a) =>
    a.status < 300 ? { ...a, headers: withoutHeader(a.headers, 'x-request-id') } : a,
  ),
  wire(
    'errors.decoding-failure-instance-wrong',
    'ERR-PROBLEM-6',
    'a 400 or 413 that is not a validation error carries an `instance` that differs from X-Request-Id',
    (a) =>
      (a.status === 400 || a.status === 413) && problemCode(a) !== 'invalid_request' && problemCode(a) !== 'guest_session_required'
        ? editJson(a, (b) => {
            b.instance = `urn:uuid:${String(b.instance)}`;
          })
        : a,
  ),
  wire('errors.domain-error-challenge', 'ERR-PROBLEM-8', 'a WWW-Authenticate challenge added to 404 and 422 domain errors', (a) =>
    a.status === 404 || a.status === 422 ? { ...a, headers: withHeaderLast(a.headers, 'WWW-Authenticate', 'Bearer realm="shop"') } : a,
  ),
  wire('errors.no-token-bearer-only', 'ERR-TABLE-1', 'the no-token challenge offers Bearer only (the DPoP challenge is dropped)', (a) =>
    a.status === 401 &&
    /DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') &&
    /Bearer/.test(headerOf(a.headers, 'www-authenticate') ?? '')
      ? { ...a, headers: withHeaderLast(a.headers, 'WWW-Authenticate', 'Bearer error="invalid_token"') }
      : a,
  ),
  wire('errors.dpop-failure-without-nonce', 'ERR-TABLE-4', 'DPoP-Nonce missing on invalid_dpop_proof and use_dpop_nonce answers', (a) =>
    ['invalid_dpop_proof', 'use_dpop_nonce'].includes(problemCode(a) ?? '') ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  wire('errors.guest-session-refusal-without-challenge', 'ERR-TABLE-6', 'invalid_guest_session answered without WWW-Authenticate', (a) =>
    problemCode(a) === 'invalid_guest_session' ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') } : a,
  ),
  wire('errors.guest-session-required-as-401', 'ERR-TABLE-7', 'guest_session_required answered 401 instead of 400', (a) =>
    problemCode(a) === 'guest_session_required'
      ? editJson({ ...a, status: 401 }, (b) => {
          b.status = 401;
          b.title = 'Unauthorized';
        })
      : a,
  ),
  wire('errors.caller-not-allowed-challenge', 'ERR-TABLE-8', 'caller_not_allowed carries a WWW-Authenticate challenge', (a) =>
    problemCode(a) === 'caller_not_allowed'
      ? { ...a, headers: withHeaderLast(a.headers, 'WWW-Authenticate', 'Bearer error="insufficient_scope"') }
      : a,
  ),
  wire('errors.insufficient-scope-unnamed', 'ERR-TABLE-9', 'insufficient_scope without the `scope` member', (a) =>
    problemCode(a) === 'insufficient_scope'
      ? editJson(a, (b) => {
          delete b.scope;
        })
      : a,
  ),
  wire('errors.sign-in-required-bare-challenge', 'ERR-TABLE-10', 'sign_in_required challenge without error="sign_in_required"', (a) =>
    problemCode(a) === 'sign_in_required'
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/,?\s*error="sign_in_required"/g, '')) }
      : a,
  ),
  wire('errors.validation-challenge', 'ERR-TABLE-11', 'invalid_request carries a WWW-Authenticate challenge', (a) =>
    problemCode(a) === 'invalid_request' ? { ...a, headers: withHeaderLast(a.headers, 'WWW-Authenticate', 'Bearer') } : a,
  ),
  wire('errors.rate-limited-without-retry-after', 'ERR-TABLE-12', 'rate_limited answered without Retry-After', (a) =>
    a.status === 429 ? { ...a, headers: withoutHeader(a.headers, 'retry-after') } : a,
  ),
  wire('errors.cart-empty-as-409', 'ERR-TABLE-14', 'cart_empty answered 409 instead of 422', (a) =>
    problemCode(a) === 'cart_empty'
      ? editJson({ ...a, status: 409 }, (b) => {
          b.status = 409;
          b.title = 'Conflict';
        })
      : a,
  ),
  wire('errors.direct-conversation-unnamed', 'ERR-TABLE-15', 'direct_conversation_open without `conversation_id`', (a) =>
    problemCode(a) === 'direct_conversation_open'
      ? editJson(a, (b) => {
          delete b.conversation_id;
        })
      : a,
  ),
  wire(
    'errors.assistant-scope-as-api-scope',
    'ERR-SCOPE-1',
    'insufficient_scope names an API scope where it must name an account permission',
    (a) =>
      problemCode(a) === 'insufficient_scope'
        ? editJson(a, (b) => {
            if (typeof b.scope === 'string' && b.scope.startsWith('assistant:')) b.scope = 'account:read';
          })
        : a,
  ),
  wire('errors.unmatched-route-plain', 'ERR-PROBLEM-10', 'an unmatched route answered with a plain-text 404', (a) =>
    a.status === 404 && problemCode(a) !== undefined && !/recovery|order|address|conversation|not_configured/.test(problemCode(a)!)
      ? { ...a, headers: withHeaderLast(withoutHeader(a.headers, 'content-type'), 'Content-Type', 'text/plain'), body: 'Not Found' }
      : a,
  ),
  // Framing the reference once answered with 500 (issue: malformed percent-escapes, Content-Encoding not as sent).
  wire(
    'errors.percent-escape-500',
    'ERR-PROBLEM-1',
    'a malformed percent-escape in the path answers 500 with an HTML stack page (the router error reaches the boundary)',
    (a, r) =>
      /%(?![0-9a-f]{2})/i.test(pathOf(r)) || /%[89a-f][0-9a-f](?!%)/i.test(pathOf(r))
        ? {
            status: 500,
            headers: withHeaderLast(withoutHeader(a.headers, 'content-type'), 'Content-Type', 'text/html'),
            body: '<pre>URIError</pre>',
          }
        : a,
  ),
  wire(
    'errors.content-encoding-500',
    'ERR-PROBLEM-2',
    'a body whose Content-Encoding does not match it answers 500 internal_error (the inflate error is not recognised)',
    (a, r) =>
      /^(gzip|deflate|br)$/i.test(headerOf(r.headers, 'content-encoding') ?? '') && a.status >= 400
        ? editJson({ ...a, status: 500 }, (b) => {
            b.status = 500;
            b.error = 'internal_error';
            b.title = 'Internal error';
          })
        : a,
  ),
  referenceOnly(
    wire(
      'errors.malformed-path-as-404',
      'ERR-TABLE-11',
      'a malformed percent-escape answered 404 not_found, not 400 invalid_request',
      (a, r) =>
        /%(?![0-9a-f]{2})|%[89a-f][0-9a-f](?!%)/i.test(pathOf(r)) && problemCode(a) === 'invalid_request'
          ? editJson({ ...a, status: 404 }, (b) => {
              b.status = 404;
              b.error = 'not_found';
              delete b.issues;
            })
          : a,
    ),
    'the spec leaves open how a path with a malformed escape is read: taken literally, it names nothing, and a conforming 404 for that is what the defect answers',
  ),
  referenceOnly(
    wire(
      'errors.forwarder-told-service-scope',
      'ERR-SCOPE-1',
      'a forwarded assistant refused for the forwarder lacking agent:forward is told scope "agent:forward" (a service scope)',
      (a, r) =>
        ['insufficient_scope', 'caller_not_allowed'].includes(problemCode(a) ?? '') &&
        headerOf(r.headers, 'assistant-subject') !== undefined
          ? editJson(a, (b) => {
              b.error = 'insufficient_scope';
              b.scope = 'agent:forward';
            })
          : a,
    ),
    'an assistant refused for its forwarder lacking agent:forward may be told that scope (neither an API scope nor an account scope) or none: the Errors row reads both ways (docs/ambiguities.md)',
  ),
  // Judged on a deployment whose key set the suite can take down (the embedded `verifier-outage` variant,
  // cli/embedded-variants.ts): a verifier that takes an unreachable key set for a key it does not know.
  referenceOnly(
    wireWith(
      'errors.verifier-outage-as-invalid-token',
      'ERR-TABLE-13',
      'a verifier outage (key set unreachable) is answered 401 invalid_token, as if the token were bad, instead of 503 unavailable',
      (ctx) => (a) =>
        a.status === 503 && problemCode(a) === 'unavailable'
          ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', [['WWW-Authenticate', 'Bearer error="invalid_token"']])
          : a,
    ),
    'a 401 during an outage is also what a verifier answers that refuses an unknown kid without fetching its key set: the spec level does not judge it (the suite cannot tell the two apart), the reference level does (errors.verifier-outage.reference)',
  ),
  dropOn('errors.request-id-missing-on-webhook', 'ERR-PROBLEM-7', 'X-Request-Id', 'the webhook route', (_a, r) =>
    pathOf(r).startsWith('/webhooks/'),
  ),
  dropOn('errors.request-id-missing-on-internal', 'ERR-PROBLEM-7', 'X-Request-Id', 'the internal routes', (_a, r) =>
    pathOf(r).startsWith('/internal/'),
  ),
  dropOn('errors.request-id-missing-on-documents', 'ERR-PROBLEM-7', 'X-Request-Id', 'the description documents', (_a, r) =>
    pathOf(r).endsWith('/openapi.json'),
  ),
  wire('errors.forbidden-body-not-problem', 'ERR-PROBLEM-1', '403 answers carry {"message": …} instead of the problem document', (a) =>
    a.status === 403 ? { ...a, body: JSON.stringify({ message: 'Forbidden' }) } : a,
  ),
  wire('errors.decoding-failure-plain', 'ERR-PROBLEM-2', 'a malformed JSON body is refused with a plain-text 400', (a, r) =>
    a.status === 400 &&
    !['invalid_request', 'guest_session_required', 'missing_signature', 'invalid_signature'].includes(problemCode(a) ?? '') &&
    r.method !== 'GET'
      ? { ...a, headers: mapHeader(a.headers, 'content-type', () => 'text/plain'), body: 'Bad Request' }
      : a,
  ),
  wire('errors.size-refusal-plain', 'ERR-PROBLEM-3', 'a body-size refusal is plain text', (a) =>
    a.status === 413 ? { ...a, headers: mapHeader(a.headers, 'content-type', () => 'text/plain'), body: 'Payload Too Large' } : a,
  ),
];
