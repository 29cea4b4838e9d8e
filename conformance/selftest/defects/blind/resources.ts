// Blind defects of "Resources and their fields" (spec part 2): the problem document, guest session values, the recovery
// request and the webhook body, each broken for one status, one code or one route.
import { guestSessionSignature, signGuestSession } from '../../../lib/guest-session.js';
import { editJson, headerOf, mapHeader, pathOf, problemCode } from '../helpers.js';
import { lenient, referenceOnly, wire, wireWith, type Defect } from '../types.js';
import { isCode, isOperation, withCode } from './shared.js';

const RECOVERY_MEMBERS = new Set(['subject', 'operationId', 'purpose']);

export const BLIND_RESOURCES_DEFECTS: readonly Defect[] = [
  // "`title` | string | yes | HTTP reason phrase of the status". Broken for 429 only: the title names the code.
  wire('blind.resources.title-429', 'RES-PROBLEM-4', "429 problems are titled 'Rate Limited', not the reason phrase", (a) =>
    a.status === 429 ? editJson(a, (b) => void (b.title = 'Rate Limited')) : a,
  ),
  // "`instance` | string | yes | the value of the `X-Request-Id` of the request". Broken on 404s: instance is the request
  // path (RFC 9457's customary use), not the request id.
  wire('blind.resources.instance-path-on-404', 'RES-PROBLEM-8', 'on 404 problems `instance` is the request path', (a, r) =>
    a.status === 404 ? editJson(a, (b) => void (b.instance = pathOf(r))) : a,
  ),
  // "`type` | string (URI) | yes | `{docs_url}/api/problems/<error>`". Broken for cart_empty: the `/api` segment is missing.
  wireWith(
    'blind.resources.type-cart-empty',
    'RES-PROBLEM-3',
    'cart_empty problems have type {docs_url}/problems/cart_empty',
    (ctx) => (a) =>
      isCode(a, 'cart_empty') ? editJson(a, (b) => void (b.type = `${ctx.profile.docsUrl.replace(/\/+$/, '')}/problems/cart_empty`)) : a,
  ),
  // "`status` | integer | yes | HTTP status". Broken on 403: status is the string "403".
  wire('blind.resources.status-string-403', 'RES-PROBLEM-5', '403 problems carry `status` as the string "403"', (a) =>
    a.status === 403 ? editJson(a, (b) => void (b.status = '403')) : a,
  ),
  // "`issues` | array, max 20 items". Broken when the input has many faults: a 21st item is kept.
  wire('blind.resources.issues-21', 'RES-PROBLEM-9', 'a validation problem with 20 issues gets a 21st', (a) =>
    editJson(a, (b) => {
      if (Array.isArray(b.issues) && b.issues.length >= 20)
        b.issues = [...(b.issues as unknown[]), { path: '/', code: 'too_many_issues', message: 'More issues were found.' }];
    }),
  ),
  // "each item: `path`, `code`, `message`". Broken on updateCartItem: items name the member `pointer`, not `path`.
  wire(
    'blind.resources.issue-pointer-on-update-cart-item',
    'RES-PROBLEM-10',
    'updateCartItem issues carry `pointer` instead of `path`',
    (a, r) =>
      isOperation(r, 'updateCartItem') && problemCode(a) === 'invalid_request'
        ? editJson(a, (b) => {
            if (Array.isArray(b.issues))
              b.issues = (b.issues as Record<string, unknown>[]).map(({ path, ...rest }) => ({ pointer: path, ...rest }));
          })
        : a,
  ),
  // "`scope` | string | only for `insufficient_scope`". Broken on caller_not_allowed: it names the operation's scope.
  wire('blind.resources.scope-on-caller-not-allowed', 'RES-PROBLEM-11', 'caller_not_allowed problems carry a `scope` member', (a) =>
    isCode(a, 'caller_not_allowed') ? editJson(a, (b) => void (b.scope = 'account:read')) : a,
  ),
  // "`<uuid>` is a lowercase UUID (the cart id)". Broken: an uppercase UUID is accepted (lowercased before checking).
  lenient('blind.resources.guest-uppercase-uuid', 'RES-GUEST-2', 'an uppercase UUID in Guest-Session is accepted', (ctx) => ({
    request: (r) => ({
      ...r,
      headers: mapHeader(r.headers, 'guest-session', (v) => {
        const m = /^gs1\.([0-9A-Fa-f-]{36})\.([\w-]+=*)$/.exec(v);
        if (!m || m[1] === m[1]!.toLowerCase()) return v;
        // A genuine signature over the id as written, whose case the verifier does not check: the cart id is lower-cased.
        if (guestSessionSignature(m[1]!, ctx.profile.secrets.guestSessionKey) !== m[2]) return v;
        return signGuestSession(m[1]!.toLowerCase(), ctx.profile.secrets.guestSessionKey);
      }),
    }),
  })),
  // "`<signature>` is a 43-character base64url HMAC-SHA256". Broken: a padded signature (44 characters, `=`) is accepted.
  lenient('blind.resources.guest-padded-signature', 'RES-GUEST-3', 'a Guest-Session signature with base64 `=` padding is accepted', () => ({
    request: (r) => ({
      ...r,
      headers: mapHeader(r.headers, 'guest-session', (v) => (/^gs1\.[^.]+\.[\w-]{43}=+$/.test(v) ? v.replace(/=+$/, '') : v)),
    }),
  })),
  // "No other fields are accepted." Broken: unknown members of the recovery body are dropped, not refused.
  lenient('blind.resources.recovery-unknown-member', 'RES-RECOVERY-4', 'the recovery endpoint ignores unknown body members', () => ({
    requestBody(r, body) {
      if (pathOf(r) !== '/internal/account/recover') return body;
      try {
        const v = JSON.parse(body) as unknown;
        if (!v || typeof v !== 'object' || Array.isArray(v)) return body;
        return JSON.stringify(Object.fromEntries(Object.entries(v).filter(([k]) => RECOVERY_MEMBERS.has(k))));
      } catch {
        return body;
      }
    },
  })),
  // "Payment webhook success body: `{ received: true }` (boolean `received`)." Broken: `received` is the string "true".
  wire('blind.resources.webhook-received-string', 'RES-WEBHOOK-1', 'the webhook answers {"received": "true"}', (a, r) =>
    pathOf(r) === '/webhooks/stripe' && a.status === 200 && headerOf(a.headers, 'content-type') !== undefined
      ? editJson(a, (b) => void (b.received = 'true'))
      : a,
  ),
  // Events: "| signature header absent | 400 | `missing_signature` |". Broken: the absent header is reported as invalid.
  wireWith(
    'blind.resources.webhook-missing-as-invalid',
    'EVT-WEBHOOK-4',
    'a delivery without signature gets invalid_signature',
    (ctx) => (a) => (isCode(a, 'missing_signature') ? withCode(ctx, a, 'invalid_signature') : a),
  ),
  // "`title` | string | yes | HTTP reason phrase of the status". Broken for 402 only: the title names the failure.
  referenceOnly(
    wire('blind.resources.title-402', 'RES-PROBLEM-4', "402 problems are titled 'Payment Failed', not 'Payment Required'", (a) =>
      a.status === 402 ? editJson(a, (b) => void (b.title = 'Payment Failed')) : a,
    ),
    "a 402 is the reference's answer to a declined card (the spec shows no payment failure): only reference-level checks provoke one",
  ),
  // "`type` | string (URI) | yes | `{docs_url}/api/problems/<error>`". Broken for recovery_pending only: the code is
  // spelled with a hyphen in the URI.
  wireWith(
    'blind.resources.type-recovery-pending-hyphen',
    'RES-PROBLEM-3',
    'recovery_pending problems have type {docs_url}/api/problems/recovery-pending',
    (ctx) => (a) =>
      isCode(a, 'recovery_pending')
        ? editJson(a, (b) => void (b.type = `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/recovery-pending`))
        : a,
  ),
  // "`error` | string | yes | stable machine code". Broken on the webhook's refusals only: `error` is an object
  // `{code, message}`, in the payment provider's own style.
  wire('blind.resources.webhook-error-object', 'RES-PROBLEM-2', 'webhook refusals carry `error` as an object {code, message}', (a, r) =>
    pathOf(r) === '/webhooks/stripe' && a.status >= 400
      ? editJson(a, (b) => {
          if (typeof b.error === 'string') b.error = { code: b.error, message: typeof b.detail === 'string' ? b.detail : b.error };
        })
      : a,
  ),
  // "`detail` | string | no | human text". Broken for guest_session_required only: `detail` is null.
  wire(
    'blind.resources.detail-null-on-guest-session-required',
    'RES-PROBLEM-6',
    'guest_session_required problems carry detail: null',
    (a) => (isCode(a, 'guest_session_required') ? editJson(a, (b) => void (b.detail = null)) : a),
  ),
  // "`instance` | string | yes | the value of the `X-Request-Id` of the request". Broken on the internal routes' 401s.
  wire(
    'blind.resources.instance-missing-on-internal-401',
    'RES-PROBLEM-8',
    '401 problems of /internal/* routes have no `instance`',
    (a, r) => (a.status === 401 && pathOf(r).startsWith('/internal/') ? editJson(a, (b) => void delete b.instance) : a),
  ),
  // "`status` | integer | yes | HTTP status". Broken on 431 (written by the header parser's handler): `status` is 400.
  referenceOnly(
    wire('blind.resources.status-400-on-431', 'RES-PROBLEM-5', '431 problems carry `status`: 400', (a) =>
      a.status === 431 ? editJson(a, (b) => void (b.status = 400)) : a,
    ),
    "a 431 is the reference's answer to headers over Node's limit (the spec shows no header limit): only a reference-level check sends one",
  ),
];
