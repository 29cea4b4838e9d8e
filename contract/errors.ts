// Spec, Errors (and the webhook and recovery tables of Events and Endpoints): the error catalogue. Data only.

export interface ErrorEntry {
  readonly status: number;
  /** Response headers the error carries besides Content-Type, Cache-Control and X-Request-Id. */
  readonly headers: readonly string[];
  /** false where the spec does not name the code (or its status) and the reference chose it. */
  readonly shownInSpec: boolean;
  readonly summary: string;
  /** Members of the problem document beyond the standard ones. */
  readonly members?: readonly ('issues' | 'scope' | 'conversation_id')[];
}

const e = (x: ErrorEntry): ErrorEntry => x;

export const ERRORS = {
  invalid_token: e({
    status: 401,
    headers: ['WWW-Authenticate'],
    shownInSpec: true,
    summary: 'No token, or a malformed, expired or rejected token.',
  }),
  invalid_dpop_proof: e({
    status: 401,
    headers: ['WWW-Authenticate', 'DPoP-Nonce'],
    shownInSpec: true,
    summary: 'The DPoP proof is missing, malformed or does not match the request or the token.',
  }),
  use_dpop_nonce: e({
    status: 401,
    headers: ['WWW-Authenticate', 'DPoP-Nonce'],
    shownInSpec: true,
    summary: 'The DPoP proof lacks the current server nonce; retry with the nonce of the DPoP-Nonce header.',
  }),
  account_access_ended: e({
    status: 401,
    headers: ['WWW-Authenticate'],
    shownInSpec: true,
    summary: 'The account is deleting, deleted or in a contact transition.',
  }),
  invalid_guest_session: e({
    status: 401,
    headers: ['WWW-Authenticate'],
    shownInSpec: true,
    summary: 'The Guest-Session value is forged, malformed or signed with an expired key.',
  }),
  guest_session_required: e({ status: 400, headers: [], shownInSpec: true, summary: 'A guest cart write needs a Guest-Session header.' }),
  caller_not_allowed: e({ status: 403, headers: [], shownInSpec: true, summary: 'The operation does not admit this caller kind.' }),
  insufficient_scope: e({
    status: 403,
    headers: [],
    shownInSpec: true,
    summary: 'A scope the operation needs is missing; `scope` names it.',
    members: ['scope'],
  }),
  sign_in_required: e({
    status: 403,
    headers: ['WWW-Authenticate'],
    shownInSpec: true,
    summary: 'The operation needs a signed-in account.',
  }),
  invalid_request: e({
    status: 400,
    headers: [],
    shownInSpec: true,
    summary: 'The request failed validation; `issues` lists at most 20 problems.',
    members: ['issues'],
  }),
  rate_limited: e({
    status: 429,
    headers: ['Retry-After'],
    shownInSpec: true,
    summary: 'A rate-limit budget is spent; retry after Retry-After seconds.',
  }),
  unavailable: e({
    status: 503,
    headers: ['Retry-After'],
    shownInSpec: true,
    summary: 'The token verifier or the identity proxy cannot be reached.',
  }),
  cart_empty: e({ status: 422, headers: [], shownInSpec: true, summary: 'Checkout needs a cart with at least one line.' }),
  direct_conversation_open: e({
    status: 409,
    headers: [],
    shownInSpec: false,
    summary: 'A direct conversation is already open; `conversation_id` names it. (The spec names the code, not its status.)',
    members: ['conversation_id'],
  }),
  internal_error: e({ status: 500, headers: [], shownInSpec: true, summary: 'Unexpected failure; never carries `detail`.' }),
  // Events: the payment webhook.
  not_configured: e({
    status: 404,
    headers: [],
    shownInSpec: true,
    summary: 'The route is not configured: the payment webhook when off, an internal route whose secret is unset.',
  }),
  webhook_secret_missing: e({
    status: 503,
    headers: [],
    shownInSpec: true,
    summary: 'The webhook secret is missing from the configuration.',
  }),
  missing_signature: e({ status: 400, headers: [], shownInSpec: true, summary: 'The provider signature header is absent.' }),
  invalid_signature: e({ status: 400, headers: [], shownInSpec: true, summary: 'The provider signature does not verify.' }),
  processing_failed: e({
    status: 500,
    headers: [],
    shownInSpec: true,
    summary: 'The delivery verified but could not be processed; the provider retries.',
  }),
  // Endpoints: the recovery endpoint.
  recovery_not_found: e({ status: 404, headers: [], shownInSpec: true, summary: 'No matching resumable authorization.' }),
  recovery_pending: e({ status: 409, headers: [], shownInSpec: true, summary: 'The recovery is still incomplete.' }),
  // The reference's choices where the spec says "not shown".
  not_found: e({
    status: 404,
    headers: [],
    shownInSpec: false,
    summary: 'No route matches the path, or the resource does not exist for this caller.',
  }),
  method_not_allowed: e({ status: 405, headers: ['Allow'], shownInSpec: false, summary: 'The path exists but not with this method.' }),
  invalid_json: e({
    status: 400,
    headers: [],
    shownInSpec: false,
    summary: 'The request body is not valid JSON (answered before authentication).',
  }),
  payload_too_large: e({
    status: 413,
    headers: [],
    shownInSpec: false,
    summary: 'The request body is over the limit (256 KiB in general).',
  }),
  unsupported_media_type: e({
    status: 415,
    headers: [],
    shownInSpec: false,
    summary: 'A request body was sent without Content-Type: application/json.',
  }),
  header_too_large: e({
    status: 431,
    headers: [],
    shownInSpec: false,
    summary: "The request headers are over Node's 16 KiB limit (answered before any stage runs).",
  }),
  invalid_credentials: e({
    status: 401,
    headers: ['WWW-Authenticate'],
    shownInSpec: false,
    summary: "An internal route's shared secret is missing or wrong (bearer-secret routes add a Bearer challenge).",
  }),
  order_not_cancellable: e({
    status: 409,
    headers: [],
    shownInSpec: false,
    summary: 'The order is past the point where it can be cancelled (fulfilled, delivered, cancelled, refunded).',
  }),
  order_not_returnable: e({ status: 409, headers: [], shownInSpec: false, summary: 'Only a delivered order can be returned, once.' }),
  order_not_refundable: e({ status: 409, headers: [], shownInSpec: false, summary: 'The order has no captured payment left to refund.' }),
  payment_failed: e({
    status: 402,
    headers: [],
    shownInSpec: false,
    summary: 'The payment provider declined the charge; no order was kept and the cart is unchanged.',
  }),
  unknown_payment_method: e({ status: 422, headers: [], shownInSpec: false, summary: 'The saved card does not exist for this account.' }),
  address_required: e({
    status: 422,
    headers: [],
    shownInSpec: false,
    summary: 'Checkout needs a shipping address: name one, or save one first.',
  }),
  cart_changed: e({
    status: 409,
    headers: [],
    shownInSpec: false,
    summary: 'The cart changed while the payment was taken; the charge was refunded. Read the cart and check out again.',
  }),
  unknown_variant: e({ status: 422, headers: [], shownInSpec: false, summary: 'The variant does not exist.' }),
  insufficient_stock: e({
    status: 409,
    headers: [],
    shownInSpec: false,
    summary: 'The variant has fewer units in stock than the cart asks for.',
  }),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** Reason phrases (RFC 9110) for the statuses the service answers: the reference's problem `title` (its choice of edition). */
export const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Every reason phrase registered for a status (RFC 9110 and the RFCs it obsoletes or that registered the status first:
 * RFC 2616, 7231, 7233, 4918, 6585). The spec's `title` is "HTTP reason phrase of the status" without naming an edition,
 * and RFC 9112 section 4 makes the phrase informative, so any registered phrase of the status is one (docs/ambiguities.md).
 */
export const REGISTERED_REASON_PHRASES: Readonly<Record<number, readonly string[]>> = {
  400: ['Bad Request'],
  401: ['Unauthorized'],
  402: ['Payment Required'],
  403: ['Forbidden'],
  404: ['Not Found'],
  405: ['Method Not Allowed'],
  406: ['Not Acceptable'],
  407: ['Proxy Authentication Required'],
  408: ['Request Timeout', 'Request Time-out'],
  409: ['Conflict'],
  410: ['Gone'],
  411: ['Length Required'],
  412: ['Precondition Failed'],
  413: ['Content Too Large', 'Payload Too Large', 'Request Entity Too Large'],
  414: ['URI Too Long', 'Request-URI Too Long', 'Request-URI Too Large'],
  415: ['Unsupported Media Type'],
  416: ['Range Not Satisfiable', 'Requested Range Not Satisfiable', 'Requested range not satisfiable'],
  417: ['Expectation Failed'],
  421: ['Misdirected Request'],
  422: ['Unprocessable Content', 'Unprocessable Entity'],
  423: ['Locked'],
  424: ['Failed Dependency'],
  426: ['Upgrade Required'],
  428: ['Precondition Required'],
  429: ['Too Many Requests'],
  431: ['Request Header Fields Too Large'],
  451: ['Unavailable For Legal Reasons'],
  500: ['Internal Server Error'],
  501: ['Not Implemented'],
  502: ['Bad Gateway'],
  503: ['Service Unavailable'],
  504: ['Gateway Timeout', 'Gateway Time-out'],
  505: ['HTTP Version Not Supported', 'HTTP Version not supported'],
};
