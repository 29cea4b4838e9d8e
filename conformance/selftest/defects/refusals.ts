// Defects that serve what must be refused, by rewriting the refusal (caller lists, scopes, body caps), and stateful
// defects (idempotent replay, shared guest carts, a first request refused). Each is judged on its own clause.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  editJson,
  freshGuestSession,
  guestSessionSignedBy,
  headerOf,
  refusal,
  servedWithTrace,
  mapHeader,
  notAStream,
  pathOf,
  problemCode,
  usesDpop,
  withGuestSession,
  withHeaderLast,
} from './helpers.js';
import { lenient, referenceOnly, wire, type Defect } from './types.js';

const servesRefused = (id: string, clause: string, code: string, what: string, when: (r: ProxyRequest) => boolean = () => true): Defect =>
  wire(id, clause, `${what}: ${code} answered 200 {}`, (a, r) => (problemCode(a) === code && when(r) ? servedWithTrace(a) : a));

/** A caller list (or the guard of an operation) that admits any caller: caller_not_allowed answered 200 {}. */
const admitsAny = (clause: string, what: string, when: (r: ProxyRequest) => boolean): Defect =>
  servesRefused(`callers.${clause.toLowerCase()}.admits-any`, clause, 'caller_not_allowed', what, when);
/** A scope that is not enforced: insufficient_scope answered 200 {}. */
const scopeUnenforced = (clause: string): Defect =>
  servesRefused(`scopes.${clause.toLowerCase()}.unenforced`, clause, 'insufficient_scope', 'a missing scope is not enforced');
/** A malformed JSON body read as {} (a webhook delivery is left as it came). */
const malformedJsonRepaired = (clause: string): Defect =>
  lenient(`endpoints.malformed-json-repaired.${clause.toLowerCase()}`, clause, 'a malformed JSON body is read as {}', () => ({
    requestBody(req: ProxyRequest, body: string): string {
      try {
        JSON.parse(body);
        return body;
      } catch {
        return pathOf(req).startsWith('/webhooks/') ? body : '{}';
      }
    },
  }));

/** Guest-Session values replaced by one session: every guest shares one cart. */
const oneCart = (id: string, clause: string): Defect =>
  lenient(id, clause, 'every guest session is mapped to one cart', (ctx) => {
    const shared = freshGuestSession(ctx);
    return { request: (req: ProxyRequest) => (headerOf(req.headers, 'guest-session') ? withGuestSession(req, shared) : req) };
  });

/** Answers replayed by Idempotency-Key (a server that stores and replays them). */
const replay = (id: string, clause: string): Defect => ({
  id,
  clause,
  kind: 'wire',
  description: 'answers stored and replayed by Idempotency-Key',
  rules: () => {
    const stored = new Map<string, ProxyAnswer>();
    return {
      buffer: notAStream,
      response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
        const key = headerOf(r.headers, 'idempotency-key');
        if (!key || r.method === 'GET') return a;
        const seen = stored.get(`${pathOf(r)} ${key}`);
        if (seen) return seen;
        stored.set(`${pathOf(r)} ${key}`, a);
        return a;
      },
    };
  },
});

export const REFUSALS_DEFECTS: readonly Defect[] = [
  admitsAny('END-LIST-1', 'the storefront list admits any caller', (r) => /^\/v1\/(catalog|cart)/.test(pathOf(r))),
  admitsAny('END-LIST-2', 'the account list admits any caller', (r) =>
    /^\/v1\/me\/(profile|addresses|payment-methods|orders)/.test(pathOf(r)),
  ),
  admitsAny('END-LIST-3', 'the checkout list admits any caller', (r) => /^\/v1\/me\/(identity|checkout-)/.test(pathOf(r))),
  admitsAny('END-LIST-4', 'the agent-checkout list admits any caller', (r) => pathOf(r).startsWith('/v1/checkouts')),
  admitsAny('END-LIST-5', 'the operator list admits any caller', (r) => pathOf(r).startsWith('/v1/ops/') || pathOf(r).startsWith('/v1/')),
  admitsAny('PUR-RULE-2', 'the guard of an operation admits any caller kind', () => true),
  admitsAny('PUR-RULE-3', 'an ops route admits other callers', (r) => pathOf(r).startsWith('/v1/ops/')),
  admitsAny('AUTH-ACTIVE-3', 'an operator is admitted to customer routes', (r) => !pathOf(r).startsWith('/v1/ops/')),
  scopeUnenforced('AUTH-SCOPE-3'),
  scopeUnenforced('AUTH-SCOPE-4'),
  scopeUnenforced('AUTH-SCOPE-6'),
  scopeUnenforced('AUTH-SCOPE-7'),
  scopeUnenforced('AUTH-SCOPE-8'),
  scopeUnenforced('AUTH-SCOPE-9'),
  scopeUnenforced('AUTH-SCOPE-10'),
  scopeUnenforced('AUTH-SCOPE-11'),
  scopeUnenforced('AUTH-ASST-6'),
  scopeUnenforced('AUTH-ASST-7'),
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
  wire('limits.body-cap-absent', 'LIM-BODY-1', 'a body over 256 KiB is accepted (413 answered 200 {})', (a, r) =>
    a.status === 413 && !pathOf(r).startsWith('/assistant/') && !pathOf(r).startsWith('/internal/') ? servedWithTrace(a) : a,
  ),
  wire('limits.conversation-cap-absent', 'LIM-CONV-1', 'a conversation body over 64 KiB is accepted (413 answered 200 {})', (a, r) =>
    a.status === 413 && pathOf(r).startsWith('/assistant/') ? servedWithTrace(a) : a,
  ),
  wire('limits.intent-cap-absent', 'LIM-INTENT-1', 'a security intent over 8 KiB is accepted (413 answered 202 {})', (a, r) =>
    a.status === 413 && pathOf(r) === '/internal/account/security-intents' ? { ...servedWithTrace(a), status: 202 } : a,
  ),
  wire('limits.issues-unbounded', 'LIM-ISSUES-1', '`issues` holds every problem (padded past 20)', (a) =>
    problemCode(a) === 'invalid_request'
      ? editJson(a, (b) => {
          // A server that reports every problem: 30 bad members, 30 issues (repeated here past the cap of 20).
          if (Array.isArray(b.issues) && b.issues.length > 0) {
            let issues: unknown[] = b.issues;
            while (issues.length <= 25) issues = [...issues, ...issues];
            b.issues = issues;
          }
        })
      : a,
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
  malformedJsonRepaired('AUTH-ORDER-11'),
  wire('auth.rate-limit-after-validation', 'AUTH-ORDER-9', 'an over-budget request with an invalid body is answered 400', (a, r) =>
    a.status === 429 && r.method !== 'GET' ? refusal(400, 'invalid_request', 'Bad Request') : a,
  ),
  wire('auth.validation-before-token', 'AUTH-ORDER-10', 'a bad token with a body is answered 400 invalid_request', (a, r) =>
    problemCode(a) === 'invalid_token' && r.method !== 'GET' && headerOf(r.headers, 'authorization')
      ? refusal(400, 'invalid_request', 'Bad Request')
      : a,
  ),
  oneCart('auth.guests-share-one-cart', 'AUTH-GUEST-17'),
  oneCart('auth.guest-session-not-the-cart', 'AUTH-GUEST-16'),
  wire('auth.current-guest-key-refused', 'AUTH-GUEST-12', 'every guest session is refused as invalid', (a, r) =>
    headerOf(r.headers, 'guest-session') && pathOf(r).startsWith('/v1/cart') && a.status < 400
      ? refusal(401, 'invalid_guest_session', 'Unauthorized', 'Bearer error="invalid_token"')
      : a,
  ),
  lenient('auth.forged-guest-session-checked-on-catalog', 'AUTH-GUEST-2', 'a forged Guest-Session on a catalog read is refused', (ctx) => ({
    buffer: notAStream,
    response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
      if (!pathOf(r).startsWith('/v1/catalog') || !headerOf(r.headers, 'guest-session')) return a;
      return guestSessionSignedBy(r, ctx.profile.secrets.guestSessionKey)
        ? a
        : refusal(401, 'invalid_guest_session', 'Unauthorized', 'Bearer error="invalid_token"');
    },
  })),
  replay('purpose.idempotent-replay', 'PUR-IDEM-2'),
  replay('purpose.order-replayed', 'PUR-IDEM-3'),
  wire('purpose.idempotency-key-refused', 'PUR-IDEM-1', 'a request with Idempotency-Key is refused 400', (a, r) =>
    headerOf(r.headers, 'idempotency-key') && a.status < 400 ? refusal(400, 'invalid_request', 'Bad Request') : a,
  ),
  wire(
    'purpose.idempotency-key-refused-for-assistants',
    'PUR-IDEM-1',
    'a request with Idempotency-Key is refused 400 when an assistant (DPoP) sends it',
    (a, r) =>
      headerOf(r.headers, 'idempotency-key') && usesDpop(r) && a.status < 400 ? refusal(400, 'invalid_request', 'Bad Request') : a,
  ),
  wire('purpose.idempotency-key-refused-on-account', 'PUR-IDEM-1', 'a request with Idempotency-Key under /v1/me/ is refused 400', (a, r) =>
    headerOf(r.headers, 'idempotency-key') && pathOf(r).startsWith('/v1/me/') && a.status < 400
      ? refusal(400, 'invalid_request', 'Bad Request')
      : a,
  ),
  wire('purpose.empty-cart-checkout-accepted', 'PUR-IDEM-4', 'cart_empty answered 201 {}', (a) =>
    problemCode(a) === 'cart_empty' ? { ...servedWithTrace(a), status: 201 } : a,
  ),
  referenceOnly(
    wire('endpoints.recovery-pending-as-200', 'END-RECOVERY-13', '409 recovery_pending answered 200 pending', (a) =>
      problemCode(a) === 'recovery_pending' ? servedWithTrace(a, '{"status":"pending"}') : a,
    ),
    'the spec does not make two resumptions overlap: a deployment that runs them one at a time answers each 200 pending, as the defect does',
  ),
  wire(
    'events.processing-failure-acknowledged',
    'EVT-WEBHOOK-6',
    'a delivery that fails processing is answered 200 {"received": true}',
    (a) => (problemCode(a) === 'processing_failed' ? servedWithTrace(a, '{"received":true}') : a),
  ),
  wire('purpose.banner-leaks-phone', 'PUR-BANNER-1', 'the identity read carries a phone number besides the display name', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          b.phone = '+15550100';
        })
      : a,
  ),
  {
    id: 'auth.first-request-refused',
    clause: 'AUTH-CUST-4',
    kind: 'wire',
    description: 'the first request of each customer token is refused (a server that needs a sign-in registration)',
    rules: () => {
      const seen = new Set<string>();
      return {
        buffer: notAStream,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          const auth = headerOf(r.headers, 'authorization');
          if (!auth || !/^Bearer /.test(auth) || seen.has(auth) || a.status >= 400) return a;
          seen.add(auth);
          return refusal(401, 'invalid_token', 'Unauthorized', 'Bearer error="invalid_token"');
        },
      };
    },
  },
];
