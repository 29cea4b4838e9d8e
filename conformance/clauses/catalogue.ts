// The clause catalogue: every normative statement of the spec (../shared/spec/service-spec.md), in its nine parts, with a
// stable ID, a one-line paraphrase precise enough to test against, its severity, and, only where a black box (HTTP plus the
// profile) cannot observe it, why not. Data only; the one piece of logic is the lookup map at the end.
//
// IDs are stable: never renumber. A clause the spec drops is removed, not reused; a new one takes the next free number.
// Where the spec repeats a requirement (e.g. "Creates use 201 with Location" in Versioning), the first statement holds the
// clause and the repetition gets none; repetitions catalogued before that rule keep their IDs as aliases (`repeats`).
// Statements the spec marks "not shown" are left open and get no clause.

export type SpecPart =
  | 'purpose'
  | 'resources'
  | 'states'
  | 'endpoints'
  | 'authentication'
  | 'events'
  | 'errors'
  | 'limits'
  | 'versioning';

export interface Clause {
  /** Stable, `<PART PREFIX>-<SECTION>-<n>`, e.g. 'AUTH-GUEST-3'. */
  readonly id: string;
  readonly part: SpecPart;
  /** The spec heading it comes from, e.g. 'Authentication > Guest sessions'. */
  readonly section: string;
  /** One-line paraphrase of the requirement, precise enough to test against. */
  readonly text: string;
  readonly severity: 'MUST' | 'SHOULD';
  /** Only when a black box (HTTP + profile only) cannot observe it: why. */
  readonly notTestable?: string;
  /**
   * The clauses this one repeats: the spec states the requirement twice (typically once where it belongs and again in the
   * Limits or Errors tables). IDs stay stable, so the repetition keeps its ID as an alias: its verdict follows the checks
   * of both, and the self-test needs no defect of its own for it.
   */
  readonly repeats?: readonly string[];
}

export const PART_PREFIX: Readonly<Record<SpecPart, string>> = {
  purpose: 'PUR',
  resources: 'RES',
  states: 'STA',
  endpoints: 'END',
  authentication: 'AUTH',
  events: 'EVT',
  errors: 'ERR',
  limits: 'LIM',
  versioning: 'VER',
};

// Spec headings, spelled once.
const PUR_SERVES = 'What the service does';
const PUR_RULES = 'What the service does > Rules on scope of the service';
const RES_PROBLEM = 'Resources and their fields > Problem document (all error bodies)';
const RES_KINDS = 'Resources and their fields > Caller kinds';
const RES_GUEST = 'Resources and their fields > Guest session value';
const RES_RECOVERY = 'Resources and their fields > Account recovery request (POST /internal/account/recover)';
const RES_WEBHOOK = 'Resources and their fields > Payment webhook success body';
const STA = 'States and transitions';
const END_CONV = 'Endpoints';
const END_PUBLIC = 'Endpoints > Public and special routes';
const END_OPS = 'Endpoints > Operations (customer, agent and guest traffic)';
const END_LISTS = 'Endpoints > Operations > Caller lists by name';
const END_FACTS = 'Endpoints > Operations > Additional route facts';
const END_RECOVERY = 'Endpoints > Operations > Recovery endpoint results';
const AUTH_CRED = 'Authentication > Credentials per consumer';
const AUTH_TOKEN = 'Authentication > Token verification';
const AUTH_ORDER = 'Authentication > Request processing order';
const AUTH_SCHEME = 'Authentication > Challenge scheme (chosen before verification)';
const AUTH_CUST = 'Authentication > Customer authority';
const AUTH_GUEST = 'Authentication > Guest sessions';
const AUTH_SCOPE = 'Authentication > Scope translation (delegated callers only)';
const AUTH_ASST = 'Authentication > Assistant authority';
const EVT = 'Events';
const EVT_STREAM = 'Events > Streaming';
const ERR = 'Errors';
const ERR_TABLE = 'Errors > Failure table';
const LIM = 'Limits';
const LIM_RATE = 'Limits > Rate limiting';
const VER = 'Versioning';

// Reasons shared by several clauses.
const NT_NOT_ROUTES = 'human-only operations are not routes of the service (PUR-HUMAN-3), so the refusal has no request to observe; it happens at the identity provider and the storefront';
const NT_ATTRIBUTION = 'actor attribution (origin, channel, actor chain) is internal: the spec shows no response field that carries it';

export const CLAUSES: readonly Clause[] = [
  // ───────────────────────────── Purpose: What the service does ─────────────────────────────
  { id: 'PUR-SERVE-1', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service is an HTTP/JSON interface: it serves catalog reads of products and collections (searchProducts, getProduct, listCollections).' },
  { id: 'PUR-SERVE-2', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service serves the cart to guests, signed-in customers and agents (getCart, addCartItem, updateCartItem, removeCartItem).' },
  { id: 'PUR-SERVE-3', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service serves checkout: previews (createCheckoutPreview), saved-card checkout (checkoutSavedCard) and the checkout reads (getCheckoutAddress, getCheckoutMethods).' },
  { id: 'PUR-SERVE-4', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service serves shared account data: profile read, addresses list/add/delete, saved payment-method list, orders list/read/cancel/request return, and identity (getIdentity).' },
  { id: 'PUR-SERVE-5', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service serves operator operations under /v1/ops/*.' },
  { id: 'PUR-SERVE-6', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service serves an inbound payment-provider webhook, a health route, machine-readable description routes, and internal routes called by other components.' },
  { id: 'PUR-CALLERS-1', part: 'purpose', section: PUR_SERVES, severity: 'MUST', text: 'The service accepts the web storefront (guest visitors and signed-in customers), an agent-protocol server acting for a user, a backoffice application, invited agents in a website session, and personal assistant agents calling directly.' },

  { id: 'PUR-RULE-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Every operation has exactly one URL: no operation is also reachable under a second path (caller-specific prefixes or aliases).' },
  { id: 'PUR-RULE-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Which caller kinds may use an operation is declared per operation and enforced by a guard on its one URL, not by a path prefix: a caller kind outside the operation\'s list is refused at the same URL others may use.' },
  { id: 'PUR-RULE-3', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Every path under /v1/ops/* is operator-only: no other caller kind gets a successful answer there.' },
  { id: 'PUR-RULE-4', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Assistant conversation routes (/assistant/conversations...) and internal routes (/internal/...) are separate route groups with their own authentication, outside the per-operation caller guard.' },
  { id: 'PUR-RULE-5', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Every URL is a public contract: each customer, agent and guest operation route is declared in the published description document.' },
  { id: 'PUR-RULE-6', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'There are no storefront-only URLs: no route is reserved to the storefront by its path (no website- or storefront-prefixed variants of operations).' },

  { id: 'PUR-STOREFRONT-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Capabilities that only the storefront performs are not service endpoints: neither served as routes nor listed in either description document.' },
  { id: 'PUR-STOREFRONT-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Guest-cart merge is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-3', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Status receipt pages are not service endpoints.' },
  { id: 'PUR-STOREFRONT-4', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'The profile page is not a service endpoint (only the profile read getProfile is).' },
  { id: 'PUR-STOREFRONT-5', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Email-verification sync after sign-in is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-6', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Claim of verified guest orders is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-7', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Card controls are not service endpoints (payment methods are list-only).' },
  { id: 'PUR-STOREFRONT-8', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Address update and address default are not service endpoints: PUT/PATCH on /v1/me/addresses/{id} and any default-address route are not served.' },
  { id: 'PUR-STOREFRONT-9', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Private activity is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-10', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Connected agents (listing or managing them) are not a service endpoint.' },
  { id: 'PUR-STOREFRONT-11', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Agent invitations, including their acceptance and inspection, are not service endpoints.' },
  { id: 'PUR-STOREFRONT-12', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Delegated sign-in is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-13', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Sign-out-everywhere is not a service endpoint.' },
  { id: 'PUR-STOREFRONT-14', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'No member of the account-security family is a service endpoint: fresh verifications, security methods, embedded verification, phone and email contact changes, contact methods, account deletion.' },

  { id: 'PUR-HUMAN-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Human-only operations require the scope account:security.', notTestable: 'human-only operations are not routes of the service (PUR-HUMAN-3), so no request can show the scope being required' },
  { id: 'PUR-HUMAN-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Human-only operations are refused to invited agents, assistant agents, delegated OAuth clients and operators.', notTestable: NT_NOT_ROUTES },
  { id: 'PUR-HUMAN-3', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Human-only operations are not routes of the service: no route answers for them and no route accepts account:security as what unlocks it.' },
  { id: 'PUR-HUMAN-4', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Human-only operations are excluded from agent discovery: neither /openapi.json nor /assistant/openapi.json lists an operation requiring account:security.' },
  { id: 'PUR-HUMAN-5', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Human-only operations are excluded from agent grants.', notTestable: 'grants are issued by the identity provider and its proxy, not by the service; no service response shows a grant' },

  { id: 'PUR-BANNER-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'An identity read for an agent banner (getIdentity by an agent caller) returns, of the account\'s personal data, only the display name.' },
  { id: 'PUR-BANNER-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'An identity read for an agent banner never contains the customer\'s email address.' },

  { id: 'PUR-IDEM-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'A request carrying an Idempotency-Key header is accepted: the header never causes a refusal.' },
  { id: 'PUR-IDEM-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'The Idempotency-Key header is ignored: two requests with the same key are each processed and no stored response is replayed.' },
  { id: 'PUR-IDEM-3', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'Retrying an order-placing call (checkoutSavedCard) with a filled cart places another order, whatever Idempotency-Key it carries.' },
  { id: 'PUR-IDEM-4', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'A checkout submission after a paid order finds the cart empty and is refused (422 cart_empty).' },
  { id: 'PUR-PROTO-1', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'There is no RPC protocol: no JSON-RPC (or similar) endpoint is served.' },
  { id: 'PUR-PROTO-2', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'There is no request batching: no batch endpoint is served and a JSON array of requests is not executed as several operations.' },
  { id: 'PUR-PROTO-3', part: 'purpose', section: PUR_RULES, severity: 'MUST', text: 'There is no CORS support: no response (including to an OPTIONS preflight with Origin) carries Access-Control-Allow-* headers.' },

  // ───────────────────────────── Resources ─────────────────────────────
  { id: 'RES-PROBLEM-1', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'Every error body is an RFC 9457 problem document with media type application/problem+json.' },
  { id: 'RES-PROBLEM-2', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'A problem document always has an `error` member: a string holding the stable machine code.' },
  { id: 'RES-PROBLEM-3', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'A problem document always has `type`, a URI string equal to {docs_url}/api/problems/<error>.' },
  { id: 'RES-PROBLEM-4', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'A problem document always has `title`, the HTTP reason phrase of its status.' },
  { id: 'RES-PROBLEM-5', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'A problem document always has `status`, an integer equal to the HTTP status of the response.' },
  { id: 'RES-PROBLEM-6', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'The optional `detail` member, when present, is a string.' },
  { id: 'RES-PROBLEM-7', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: '`detail` is never present on an internal_error problem.', notTestable: 'a black box has no request guaranteed to cause an internal_error in a conforming server (every problem the checks meet is still checked for it)' },
  { id: 'RES-PROBLEM-8', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'A problem document always has `instance`, a string equal to the X-Request-Id of the request (as written on the response).' },
  { id: 'RES-PROBLEM-9', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: '`issues` appears only on validation errors (invalid_request), as an array of at most 20 items.' },
  { id: 'RES-PROBLEM-10', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: 'Each `issues` item has the members `path`, `code` and `message`.' },
  { id: 'RES-PROBLEM-11', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: '`scope` appears only on insufficient_scope problems, and names the missing scope.' },
  { id: 'RES-PROBLEM-12', part: 'resources', section: RES_PROBLEM, severity: 'MUST', text: '`conversation_id` appears only on direct_conversation_open problems, and names the conversation concerned.' },

  { id: 'RES-GUEST-1', part: 'resources', section: RES_GUEST, severity: 'MUST', text: 'A Guest-Session value has the format gs1.<uuid>.<signature>; any other shape is malformed (401 invalid_guest_session).' },
  { id: 'RES-GUEST-2', part: 'resources', section: RES_GUEST, severity: 'MUST', text: 'The <uuid> of a guest session value is a lowercase UUID and is the cart id; an uppercase UUID is malformed.' },
  { id: 'RES-GUEST-3', part: 'resources', section: RES_GUEST, severity: 'MUST', text: 'The <signature> of a guest session value is the 43-character base64url (unpadded) HMAC-SHA256 of the id under the shared guest key; any other signature is refused.' },

  { id: 'RES-RECOVERY-1', part: 'resources', section: RES_RECOVERY, severity: 'MUST', text: 'The recovery request body requires `subject`, a string of 1–256 characters.' },
  { id: 'RES-RECOVERY-2', part: 'resources', section: RES_RECOVERY, severity: 'MUST', text: 'The recovery request body requires `operationId`, a string of 1–128 characters.' },
  { id: 'RES-RECOVERY-3', part: 'resources', section: RES_RECOVERY, severity: 'MUST', text: 'The recovery request body requires `purpose`, exactly `email` or `delete`.' },
  { id: 'RES-RECOVERY-4', part: 'resources', section: RES_RECOVERY, severity: 'MUST', text: 'The recovery request body accepts no other fields: an unknown member is refused with 400 invalid_request.' },
  { id: 'RES-RECOVERY-5', part: 'resources', section: RES_RECOVERY, severity: 'MUST', text: 'A successful recovery response carries `status`, one of `complete`, `pending`, `cancelled`.' },

  { id: 'RES-WEBHOOK-1', part: 'resources', section: RES_WEBHOOK, severity: 'MUST', text: 'The payment webhook success body is the JSON object {"received": true}, `received` a boolean.' },

  // ───────────────────────────── States and transitions ─────────────────────────────
  { id: 'STA-LIFE-1', part: 'states', section: STA, severity: 'MUST', text: 'A request on behalf of an account in state `deleting` is refused with 401 account_access_ended.' },
  { id: 'STA-LIFE-2', part: 'states', section: STA, severity: 'MUST', text: 'A request on behalf of an account in state `deleted` is refused with 401 account_access_ended.' },
  { id: 'STA-LIFE-3', part: 'states', section: STA, severity: 'MUST', text: 'A request on behalf of an account in state `contact_transition` is refused with 401 account_access_ended.' },
  { id: 'STA-LIFE-4', part: 'states', section: STA, severity: 'MUST', text: 'The email-verification sync may finish a pending email change during `contact_transition`.', notTestable: 'the email-verification sync is performed by the storefront and is not a service route (PUR-STOREFRONT-5)' },
  { id: 'STA-LIFE-5', part: 'states', section: STA, severity: 'MUST', text: 'A sign-in that finishes a pending email change is allowed during `contact_transition`.', notTestable: 'sign-in happens at the identity provider and storefront; the service is session-unaware and has no sign-in route' },
  { id: 'STA-RECOVERY-1', part: 'states', section: STA, severity: 'MUST', text: 'Recovery status `complete` is returned when the operation has finished.' },
  { id: 'STA-RECOVERY-2', part: 'states', section: STA, severity: 'MUST', text: 'Recovery status `pending` is returned when provider work remains.' },
  { id: 'STA-RECOVERY-3', part: 'states', section: STA, severity: 'MUST', text: 'Recovery status `cancelled` is returned when the authorization is retired.' },
  { id: 'STA-RECOVERY-4', part: 'states', section: STA, severity: 'MUST', text: 'A cancelled recovery authorization is never reopened: repeating the request keeps answering `cancelled`, never `pending` or `complete`.' },
  { id: 'STA-PARTIAL-1', part: 'states', section: STA, severity: 'MUST', text: 'When an email change or account deletion partly fails, the approved operation and its checkpoints are preserved: the same operation can be resumed through the recovery endpoint.' },
  { id: 'STA-PARTIAL-2', part: 'states', section: STA, severity: 'MUST', text: 'After a partial failure the account stays restricted (denied, or in contact transition: 401 account_access_ended) until that same operation is explicitly resumed.' },
  { id: 'STA-PARTIAL-3', part: 'states', section: STA, severity: 'MUST', text: 'No background job retries a partly failed email change or account deletion.', notTestable: 'background jobs are invisible to a black box; a retry would only show as a state change at an unknown time' },

  // ───────────────────────────── Endpoints ─────────────────────────────
  { id: 'END-CONV-1', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'A create answers 201 (e.g. addAddress).' },
  { id: 'END-CONV-2', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'A create whose resource has a GET URL answers with a Location header giving that URL.' },
  { id: 'END-CONV-3', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'A delete answers 204 with no body (e.g. deleteAddress, removeCartItem).' },
  { id: 'END-CONV-4', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'Request bodies are JSON: a body that is not JSON is refused with a 400 problem.' },
  { id: 'END-CONV-5', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'A request body needs Content-Type: application/json: a body sent with another or no content type is refused.' },
  { id: 'END-CONV-6', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'Catalog GETs carry a weak ETag (W/"...").' },
  { id: 'END-CONV-7', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'Catalog GETs carry Cache-Control: private, no-cache.' },
  { id: 'END-CONV-8', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'A GET whose ETag matches the request\'s If-None-Match answers 304 with no body.' },
  { id: 'END-CONV-9', part: 'endpoints', section: END_CONV, severity: 'MUST', text: 'Every other response (not a catalog GET or description document) carries Cache-Control: no-store by default.' },

  { id: 'END-PUBLIC-1', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'GET /health answers without any authentication.' },
  { id: 'END-PUBLIC-2', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'GET /openapi.json answers without any authentication.' },
  { id: 'END-PUBLIC-3', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'GET /openapi.json is cacheable for 300 seconds (Cache-Control max-age=300).' },
  { id: 'END-PUBLIC-4', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'GET /assistant/openapi.json answers without any authentication.' },
  { id: 'END-PUBLIC-5', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'GET /assistant/openapi.json is cacheable for 300 seconds (Cache-Control max-age=300).' },
  { id: 'END-PUBLIC-6', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /webhooks/stripe (the payment-provider webhook) is authenticated by the provider signature over the raw body.' },
  { id: 'END-PUBLIC-7', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /webhooks/stripe never accepts a bearer token in place of the provider signature: a delivery with a valid bearer token and no signature still gets 400 missing_signature.' },
  { id: 'END-PUBLIC-8', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /webhooks/stripe reads its body as raw bytes: a signature over the exact bytes verifies whatever their JSON formatting (whitespace, key order).' },
  { id: 'END-PUBLIC-9', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/account/security-intents requires the shared secret of the identity provider\'s action script; without it the request is refused.' },
  { id: 'END-PUBLIC-10', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/account/security-intents is not exposed by the storefront proxy.', notTestable: 'concerns the storefront\'s proxy, which is not part of the service under test' },
  { id: 'END-PUBLIC-11', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/assistant/sessions/signed-out requires the X-Proxy-Idp-Secret header with the proxy secret; missing or wrong, it is refused.' },
  { id: 'END-PUBLIC-12', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/assistant/agents/connected requires the X-Proxy-Idp-Secret header with the proxy secret; missing or wrong, it is refused.' },
  { id: 'END-PUBLIC-13', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/agent-authorization requires the X-Proxy-Idp-Secret header with the proxy secret; missing or wrong, it is refused.' },
  { id: 'END-PUBLIC-14', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/conversations/{id}/turn requires Authorization: Bearer <CONVERSATION_HUB_SECRET>; missing or wrong, it is refused.' },
  { id: 'END-PUBLIC-15', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/conversations/{id}/handoff-timeout requires Authorization: Bearer <CONVERSATION_HUB_SECRET>; missing or wrong, it is refused.' },
  { id: 'END-PUBLIC-16', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/account/recover requires Authorization: Bearer <ACCOUNT_RECOVERY_SECRET>.' },
  { id: 'END-PUBLIC-17', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/account/recover is closed (never succeeds) when ACCOUNT_RECOVERY_SECRET is not configured.' },
  { id: 'END-PUBLIC-18', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'POST /internal/account/recover accepts only its own credential: other secrets of the profile and access tokens are refused.' },
  { id: 'END-PUBLIC-19', part: 'endpoints', section: END_PUBLIC, severity: 'MUST', text: 'Routes under /assistant/conversations require DPoP (a DPoP-bound token with a proof) plus live session admission; a Bearer token is never enough.' },

  { id: 'END-OPS-SEARCHPRODUCTS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'searchProducts is GET /v1/catalog/products: callers of the storefront list; API scope catalog:read; no agentScopes.' },
  { id: 'END-OPS-GETPRODUCT-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getProduct is GET /v1/catalog/products/{handle}: callers of the storefront list; API scope catalog:read; no agentScopes.' },
  { id: 'END-OPS-LISTCOLLECTIONS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'listCollections is GET /v1/catalog/collections: callers of the storefront list; API scope catalog:read; no agentScopes.' },
  { id: 'END-OPS-GETCART-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getCart is GET /v1/cart: callers of the storefront list; API scope cart:read; no agentScopes.' },
  { id: 'END-OPS-ADDCARTITEM-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'addCartItem is POST /v1/cart/items: callers of the storefront list; API scope cart:write; no agentScopes.' },
  { id: 'END-OPS-UPDATECARTITEM-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'updateCartItem is PATCH /v1/cart/items/{variant_id}: callers of the storefront list; API scope cart:write; no agentScopes.' },
  { id: 'END-OPS-REMOVECARTITEM-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'removeCartItem is DELETE /v1/cart/items/{variant_id}: callers of the storefront list; API scope cart:write; no agentScopes.' },
  { id: 'END-OPS-CHECKOUTSAVEDCARD-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'checkoutSavedCard is POST /v1/checkouts/saved-card: callers of the agent-checkout list; API scope checkout; agentScopes checkout.' },
  { id: 'END-OPS-GETPROFILE-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getProfile is GET /v1/me/profile: callers of the account list; API scope account:read; agentScopes assistant:read.' },
  { id: 'END-OPS-LISTADDRESSES-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'listAddresses is GET /v1/me/addresses: callers of the account list; API scope account:read; agentScopes assistant:read.' },
  { id: 'END-OPS-ADDADDRESS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'addAddress is POST /v1/me/addresses: callers of the account list; API scope account:write; agentScopes assistant:write.' },
  { id: 'END-OPS-DELETEADDRESS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'deleteAddress is DELETE /v1/me/addresses/{id}: callers of the account list; API scope account:write; agentScopes assistant:write.' },
  { id: 'END-OPS-LISTPAYMENTMETHODS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'listPaymentMethods is GET /v1/me/payment-methods: callers of the account list; API scope payment_methods:read; agentScopes assistant:read.' },
  { id: 'END-OPS-LISTORDERS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'listOrders is GET /v1/me/orders: callers of the account list; API scope orders:read; agentScopes assistant:read.' },
  { id: 'END-OPS-GETORDER-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getOrder is GET /v1/me/orders/{id}: callers of the account list; API scope orders:read; agentScopes assistant:read.' },
  { id: 'END-OPS-CANCELORDER-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'cancelOrder is POST /v1/me/orders/{id}/cancellation: callers of the account list; API scope orders:write; agentScopes assistant:write.' },
  { id: 'END-OPS-REQUESTRETURN-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'requestReturn is POST /v1/me/orders/{id}/returns: callers of the account list; API scope orders:write; agentScopes assistant:write.' },
  { id: 'END-OPS-GETIDENTITY-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getIdentity is GET /v1/me/identity: callers of the checkout list (its scopes are not shown).' },
  { id: 'END-OPS-GETCHECKOUTADDRESS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getCheckoutAddress is GET /v1/me/checkout-address: callers of the checkout list (its scopes are not shown).' },
  { id: 'END-OPS-GETCHECKOUTMETHODS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'getCheckoutMethods is GET /v1/me/checkout-methods: callers of the checkout list (its scopes are not shown).' },
  { id: 'END-OPS-CREATECHECKOUTPREVIEW-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'createCheckoutPreview is POST /v1/checkout-previews (its callers and scopes are not shown).' },
  { id: 'END-OPS-TOOLS-1', part: 'endpoints', section: END_OPS, severity: 'MUST', text: 'Agent-tool exposure follows the Tools column: every catalog, cart and account operation plus checkoutSavedCard as mcp tools; the catalog and cart operations plus listOrders and getOrder also as webmcp tools; the checkout reads and the preview as no tool.', notTestable: 'tools are exposed by the agent-protocol server (mcp) and the storefront (webmcp), not by the service; no service response shows the exposure' },

  { id: 'END-LIST-1', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'The storefront caller list is exactly customer, delegated, guest, invited-agent, assistant: an operator is refused with 403 caller_not_allowed.' },
  { id: 'END-LIST-2', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'The account caller list is the storefront list without guest: a guest is refused with 403 caller_not_allowed.' },
  { id: 'END-LIST-3', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'The checkout caller list (checkout reads and identity) is exactly customer, invited-agent, assistant: delegated, guest and operator are refused with 403 caller_not_allowed.' },
  { id: 'END-LIST-4', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'The agent-checkout caller list is exactly delegated, invited-agent, assistant: customer, guest and operator are refused with 403 caller_not_allowed.' },
  { id: 'END-LIST-5', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'The operator caller list has only operator: an operator is admitted only to /v1/ops/* and is refused (403 caller_not_allowed) on every customer, agent and guest operation.' },
  { id: 'END-LIST-6', part: 'endpoints', section: END_LISTS, severity: 'MUST', text: 'GET /v1/me is a diagnostic read served under its own, separate diagnostic caller list.' },

  { id: 'END-ME-1', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'Account data routes under /v1/me/* return data of the authenticated account only: one account never sees another\'s addresses, payment methods, orders, profile or identity.' },
  { id: 'END-ME-2', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'Every row under /v1/me/* is scoped by ownership of the token sub: reading, cancelling, returning or deleting another account\'s order or address by id neither succeeds nor changes it.' },
  { id: 'END-IDENT-1', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The identity read (getIdentity) includes a boolean telling whether the canonical database identity is eligible for the identity provider\'s self-service account feature.' },
  { id: 'END-IDENT-2', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'No token, URL or transport of the identity provider\'s self-service account feature passes through the service: the identity read carries only the eligibility boolean for it.' },
  { id: 'END-IDENT-3', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The storefront owns all use of the self-service account feature.', notTestable: 'a duty of the storefront, not of the service' },
  { id: 'END-RECOVERY-1', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint checks ownership: a subject that does not own the operation gets 404 recovery_not_found.' },
  { id: 'END-RECOVERY-2', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint checks purpose: a purpose other than the operation\'s gets 404 recovery_not_found.' },
  { id: 'END-RECOVERY-3', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint checks the persisted phase: only an operation in a resumable phase is resumed.' },
  { id: 'END-RECOVERY-4', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint cannot begin an operation from unconsumed proof: an operation whose proof was never consumed gets 404 recovery_not_found.' },
  { id: 'END-RECOVERY-5', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint cannot take a new email: a body naming an email address is refused with 400 invalid_request.' },
  { id: 'END-RECOVERY-6', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The recovery endpoint cannot run arbitrary provider commands: a body naming a command or provider action is refused with 400 invalid_request.' },
  { id: 'END-RECOVERY-7', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'Repeating a recovery request never grants fresh authority: a repeated call resumes the same operation and never restarts or widens it.' },
  { id: 'END-RECOVERY-8', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A finished recovery operation answers 200 with status `complete`.' },
  { id: 'END-RECOVERY-9', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A recovery operation whose provider condition remains answers 200 with status `pending`, and the same operation may be retried.' },
  { id: 'END-RECOVERY-10', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A recovery operation whose authorization is retired answers 200 with status `cancelled`.' },
  { id: 'END-RECOVERY-11', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A recovery request with the recovery credential missing or wrong answers 401.' },
  { id: 'END-RECOVERY-12', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A recovery request with no matching resumable authorization answers 404 recovery_not_found.' },
  { id: 'END-RECOVERY-13', part: 'endpoints', section: END_RECOVERY, severity: 'MUST', text: 'A recovery request while recovery is still incomplete answers 409 recovery_pending.' },
  { id: 'END-FRESH-1', part: 'endpoints', section: END_FACTS, severity: 'MUST', text: 'The input field naming a fresh-verification approval is `freshIntentId`, distinct from `operationId` (which names an operation of the description).', notTestable: 'fresh verifications are storefront-only (PUR-STOREFRONT-14) and the spec shows no service input that takes the approval' },

  // ───────────────────────────── Authentication ─────────────────────────────
  // Caller kinds: the table sits under Resources in the spec but defines how the service authenticates, hence AUTH-KIND.
  { id: 'AUTH-KIND-1', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'The caller kinds are exactly customer, delegated, guest, invited-agent, operator, assistant; every accepted token is classified as one of them.', notTestable: 'the kind names are internal: no response the spec shows carries them; each kind\'s recognition is covered by AUTH-KIND-2..12' },
  { id: 'AUTH-KIND-2', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A token with a user sub, no act claim, and client_id equal to the website client is recognized as customer.' },
  { id: 'AUTH-KIND-3', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A customer acts on the account named by its sub and owns that account\'s cart.' },
  { id: 'AUTH-KIND-4', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A customer actor has kind customer and channel web.', notTestable: NT_ATTRIBUTION },
  { id: 'AUTH-KIND-5', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A token with a user sub whose outermost act.sub equals its client_id equals the agent-protocol server\'s client is recognized as delegated.' },
  { id: 'AUTH-KIND-6', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A delegated caller is signed in and uses the account cart of its sub (the same cart the customer sees).' },
  { id: 'AUTH-KIND-7', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A delegated actor is an agent actor with origin oauth, channel mcp or openapi, and a non-empty actor chain whose outermost subject equals the client id.', notTestable: NT_ATTRIBUTION },
  { id: 'AUTH-KIND-8', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A delegated caller gets no human-only operations.', notTestable: NT_NOT_ROUTES },
  { id: 'AUTH-KIND-9', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A token with sub <client_id>@clients and client_id equal to the storefront client, with a Guest-Session header, is recognized as guest and owns the one browser cart of that session.' },
  { id: 'AUTH-KIND-10', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A web-agent-forwarder machine token plus a signed invited-agent context is recognized as invited-agent and acts as the existing delegated agent with its original admission snapshot (the context\'s permissions).' },
  { id: 'AUTH-KIND-11', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A token with sub <client_id>@clients and client_id equal to the backoffice client, with an Operator header, is recognized as operator.' },
  { id: 'AUTH-KIND-12', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'An identity-provider access token for the API or agent audience from the proxy\'s custom token exchange, presented directly, or a separately verified signed-out proxy token, is recognized as assistant (agent actor with origin assistant).' },
  { id: 'AUTH-KIND-13', part: 'authentication', section: RES_KINDS, severity: 'MUST', text: 'A stored actor with no origin means origin assistant.', notTestable: 'stored actors are internal records the spec shows no read for' },

  { id: 'AUTH-CRED-1', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'A guest visitor is served with the storefront machine token (client credentials) plus a Guest-Session header.' },
  { id: 'AUTH-CRED-2', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'A signed-in customer is served with its own access token for the API audience and nothing else.' },
  { id: 'AUTH-CRED-3', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'The agent-protocol server is served with an on-behalf-of token exchanged from the agent client\'s token.' },
  { id: 'AUTH-CRED-4', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'The backoffice is served with its machine token plus an Operator attribution header; without the header it is not an operator.' },
  { id: 'AUTH-CRED-5', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'An invited-agent session is served with the web-agent-forwarder machine token plus a signed invited-agent context.' },
  { id: 'AUTH-CRED-6', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'The invited-agent context is bearer-bound: a context bound to a different access token is refused.' },
  { id: 'AUTH-CRED-7', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'The invited-agent context has token type invited-agent+jwt: a context with another typ is refused.' },
  { id: 'AUTH-CRED-8', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'An assistant agent browser is served with the web-agent-forwarder machine token plus the agent\'s original browser cookie.' },
  { id: 'AUTH-CRED-9', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'A signed-out assistant of the agent-protocol server is served with the agent-forwarder machine token plus the original token in the Assistant-Subject header.' },
  { id: 'AUTH-CRED-10', part: 'authentication', section: AUTH_CRED, severity: 'MUST', text: 'An assistant agent is served with its own credential issued through the identity-provider proxy, presented directly.' },

  { id: 'AUTH-TOKEN-1', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'The access token is read from the Authorization header only: a token in the query string, a cookie or the body is ignored (401 invalid_token when no header).' },
  { id: 'AUTH-TOKEN-2', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A token from another issuer is refused with 401 invalid_token.' },
  { id: 'AUTH-TOKEN-3', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A token whose signature does not verify against the published key set is refused with 401 invalid_token.' },
  { id: 'AUTH-TOKEN-4', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A token for another audience is refused with 401 invalid_token.' },
  { id: 'AUTH-TOKEN-5', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A token whose header type is not at+jwt is refused with 401 invalid_token.' },
  { id: 'AUTH-TOKEN-6', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'An expired token is refused with 401 invalid_token.' },
  { id: 'AUTH-TOKEN-7', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'Every access token carries client_id: a token without client_id is refused.' },
  { id: 'AUTH-TOKEN-8', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'The caller kind is derived from client_id, sub and act checked against the configured client ids; any combination matching no caller kind is refused with 401 or 403 even with a valid signature.' },
  { id: 'AUTH-TOKEN-9', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A validly signed token with an unknown client_id is refused with 401 or 403.' },
  { id: 'AUTH-TOKEN-10', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A validly signed token whose act chain\'s outermost actor is not the agent client is refused with 401 or 403.' },
  { id: 'AUTH-TOKEN-11', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A validly signed machine token from a client with no caller kind is refused with 401 or 403.' },
  { id: 'AUTH-TOKEN-12', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'A user token from the website client that carries act is an invited-agent login and is never accepted as customer.' },
  { id: 'AUTH-TOKEN-13', part: 'authentication', section: AUTH_TOKEN, severity: 'MUST', text: 'The live actor (lifecycle and delegation checks) is resolved before guards, input validation and the handler: e.g. an ended account gets 401 account_access_ended even on an operation its kind may not call or with an invalid body.' },

  { id: 'AUTH-ORDER-1', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'Stages run in the order request, domain, authenticate, admit caller, actor, guard, rate limit, input validation, handler, output validation; an earlier stage\'s refusal wins over a later one\'s.' },
  { id: 'AUTH-ORDER-2', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The request stage sets X-Request-Id on every response.' },
  { id: 'AUTH-ORDER-3', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'A valid traceparent request header is echoed on the response; an invalid one is not.' },
  { id: 'AUTH-ORDER-4', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'A request with DPoP gets a fresh DPoP-Nonce header on every response, success or failure.' },
  { id: 'AUTH-ORDER-5', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The admit-caller stage resolves a forwarded agent to the caller it speaks for.' },
  { id: 'AUTH-ORDER-6', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The admit-caller stage admits only headers that fit the caller kind: Guest-Session and Shopper-IP only from guests, Operator only from operators; others are refused.' },
  { id: 'AUTH-ORDER-7', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The conversation variant of the actor stage refuses assistant browser sessions on /assistant/conversations routes.' },
  { id: 'AUTH-ORDER-8', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The guard precedes the rate limit: a request the guard refuses is answered 403 even when the caller\'s budget is spent.' },
  { id: 'AUTH-ORDER-9', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The rate limit precedes input validation: an over-budget request with an invalid body is answered 429, not 400.' },
  { id: 'AUTH-ORDER-10', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'A bad token is answered (401) before the body is validated: a bad token with an invalid body yields 401, not 400 invalid_request.' },
  { id: 'AUTH-ORDER-11', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'A malformed JSON body fails during decoding, before authentication: it yields 400, not 401, even with no or a bad token.' },
  { id: 'AUTH-ORDER-12', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'Each stage runs once per operation: e.g. a fresh DPoP proof is recorded once and is not refused as a replay of itself.' },
  { id: 'AUTH-ORDER-13', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The request stage parses the configuration of the request.', notTestable: 'configuration parsing is internal; its observable effects are the other request-stage clauses (AUTH-ORDER-2, AUTH-ORDER-3, END-CONV-9, AUTH-SCHEME-6)' },
  { id: 'AUTH-ORDER-14', part: 'authentication', section: AUTH_ORDER, severity: 'MUST', text: 'The domain stage provides database, clock and providers to the later stages.', notTestable: 'dependency wiring inside the server is invisible over HTTP' },

  { id: 'AUTH-SCHEME-1', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'On a conversation path (/assistant/conversations...) the challenge scheme is DPoP, whatever the Authorization header.' },
  { id: 'AUTH-SCHEME-2', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'When the Authorization scheme is DPoP, the challenge scheme is DPoP.' },
  { id: 'AUTH-SCHEME-3', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'When a Bearer token\'s unverified header type marks an assistant session token, the challenge scheme is DPoP.' },
  { id: 'AUTH-SCHEME-4', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'When a Bearer token\'s unverified act claim marks an assistant session token, the challenge scheme is DPoP.' },
  { id: 'AUTH-SCHEME-5', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'Otherwise the challenge scheme is Bearer.' },
  { id: 'AUTH-SCHEME-6', part: 'authentication', section: AUTH_SCHEME, severity: 'MUST', text: 'The scheme is chosen from the request alone, before verification: an unverifiable (e.g. badly signed) token gets the challenge its unverified form selects.' },

  { id: 'AUTH-CUST-1', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'A customer is authorized by the access token alone, with the operation\'s API scopes checked (missing one: 403 insufficient_scope).' },
  { id: 'AUTH-CUST-2', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'The service reads no Shop-Session header: a stale or bogus Shop-Session does not change the answer.' },
  { id: 'AUTH-CUST-3', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'The service is session-unaware: a customer token needs no sid, generation or epoch claim, and such claims do not change the answer.' },
  { id: 'AUTH-CUST-4', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'No sign-in registration or web verification context is needed: a freshly minted customer token works on its first request.' },
  { id: 'AUTH-CUST-5', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'Revoking a web session does not invalidate an already issued API token before its expiry; there is no account-wide cutoff at the service until token expiry.', notTestable: 'web sessions and the account cutoff are written by the storefront, which the suite does not drive; the service offers no revocation input' },
  { id: 'AUTH-CUST-6', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'Sign-in activity is not recorded for customers.', notTestable: 'no route reads sign-in activity (private activity is storefront-only), so its absence cannot be observed' },
  { id: 'AUTH-CUST-7', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'Session ownership, cookie revocation and sign-out-everywhere belong to the storefront (account cutoff, then provider session and refresh-token revocation).', notTestable: 'a duty of the storefront; the service side (no such route) is PUR-STOREFRONT-13' },
  { id: 'AUTH-CUST-8', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'The key that signs invited-agent contexts (WEB_SESSION_CONTEXT_KEY) cannot create customer authority: a token or context signed with it is never accepted as customer.' },
  { id: 'AUTH-CUST-9', part: 'authentication', section: AUTH_CUST, severity: 'MUST', text: 'Invited-agent contexts are accepted only with the web-agent-forwarder machine token (a client distinct from the guest storefront client): with a storefront, website or other token they are refused.' },

  { id: 'AUTH-GUEST-1', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'The storefront mints guest sessions.', notTestable: 'minting happens in the storefront; the service has no minting route' },
  { id: 'AUTH-GUEST-2', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'The service verifies guest sessions only on cart routes: a forged Guest-Session on a guest catalog request is not refused as invalid_guest_session.' },
  { id: 'AUTH-GUEST-3', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A guest cart read without a Guest-Session sees an empty cart.' },
  { id: 'AUTH-GUEST-4', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Every guest cart write without a Guest-Session is refused with 400 guest_session_required.' },
  { id: 'AUTH-GUEST-5', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A forged guest session (bad signature) yields 401 invalid_guest_session with WWW-Authenticate: Bearer error="invalid_token".' },
  { id: 'AUTH-GUEST-6', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A malformed guest session yields 401 invalid_guest_session with WWW-Authenticate: Bearer error="invalid_token".' },
  { id: 'AUTH-GUEST-7', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A guest session signed with an expired key (previous key after its deadline) yields 401 invalid_guest_session with WWW-Authenticate: Bearer error="invalid_token".' },
  { id: 'AUTH-GUEST-8', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Shopper-IP is for guests only: from any other caller kind it is refused.' },
  { id: 'AUTH-GUEST-9', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Shopper-IP is at most 64 characters: a longer value is refused.' },
  { id: 'AUTH-GUEST-10', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Shopper-IP is normalized and used only for rate limits.', notTestable: 'how the value is normalized and that it is used for nothing else are internal; only its rate-limit effect is visible (LIM-RATE-1)' },
  { id: 'AUTH-GUEST-11', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Guest-Session and Shopper-IP are each refused on website (customer) tokens.' },
  { id: 'AUTH-GUEST-12', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A guest session signed with GUEST_SESSION_KEY verifies.' },
  { id: 'AUTH-GUEST-13', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'During rotation, a guest session signed with GUEST_SESSION_KEY_PREVIOUS verifies before GUEST_SESSION_KEY_PREVIOUS_UNTIL (ISO 8601).' },
  { id: 'AUTH-GUEST-14', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'A guest session signed with GUEST_SESSION_KEY_PREVIOUS does not verify at or after GUEST_SESSION_KEY_PREVIOUS_UNTIL.' },
  { id: 'AUTH-GUEST-15', part: 'authentication', section: AUTH_GUEST, severity: 'SHOULD', text: 'The guest-key rotation window is 30 days.', notTestable: 'an operating practice: the server only honours the configured deadline (AUTH-GUEST-13, AUTH-GUEST-14)' },
  { id: 'AUTH-GUEST-16', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'The storefront token identifies the storefront, not the visitor: with the same token, each Guest-Session (random cart id authenticated by its HMAC) is its own cart.' },
  { id: 'AUTH-GUEST-17', part: 'authentication', section: AUTH_GUEST, severity: 'MUST', text: 'Two guests cannot see each other\'s carts.' },

  { id: 'AUTH-SCOPE-1', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'For a delegated caller whose API scopes the guard accepted, the actor receives only that operation\'s domain scopes, as a fresh copy.', notTestable: 'domain scopes are internal; what is visible is the refusal when a required API scope is missing (AUTH-SCOPE-2)' },
  { id: 'AUTH-SCOPE-2', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Delegated translation yields nothing unless every required API scope is granted: a delegated token missing any of the operation\'s apiScopes is refused with 403 insufficient_scope.' },
  { id: 'AUTH-SCOPE-3', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'invited-agent and assistant callers are never translated: their immutable permissions apply, and API scopes on the forwarding token do not widen them.' },
  { id: 'AUTH-SCOPE-4', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'For invited-agent and assistant callers the guard requires the operation\'s scopes to be within the API scopes mapped from their permissions.' },
  { id: 'AUTH-SCOPE-5', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'The forwarding service credential must be allowed to forward agents: a machine forwarder token without agent:forward is refused.' },
  { id: 'AUTH-SCOPE-6', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'With no account permission (base), an agent gets exactly catalog:read, cart:read and cart:write.' },
  { id: 'AUTH-SCOPE-7', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Permission assistant:read unlocks account:read, payment_methods:read and orders:read.' },
  { id: 'AUTH-SCOPE-8', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Permission assistant:write unlocks account:write and orders:write.' },
  { id: 'AUTH-SCOPE-9', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Permission checkout unlocks checkout.' },
  { id: 'AUTH-SCOPE-10', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Unknown permissions unlock nothing beyond the base scopes.' },
  { id: 'AUTH-SCOPE-11', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'A read-only invited agent (no checkout permission) cannot check out: checkoutSavedCard is refused with 403 insufficient_scope.' },
  { id: 'AUTH-HUMAN-1', part: 'authentication', section: AUTH_SCOPE, severity: 'MUST', text: 'Human-only actions are refused to agents three ways: identity-provider grant scopes, the operation\'s declared caller kinds, and domain policy on the actor kind.', notTestable: NT_NOT_ROUTES },

  { id: 'AUTH-ASST-1', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Assistant session tokens are used with the DPoP scheme and a proof.' },
  { id: 'AUTH-ASST-2', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'An assistant session token is never accepted as Bearer.' },
  { id: 'AUTH-ASST-3', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'An assistant session token is never accepted in a URL (query parameter).' },
  { id: 'AUTH-ASST-4', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'An assistant session token is never accepted in a cookie.' },
  { id: 'AUTH-ASST-5', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A missing, malformed, expired or rejected assistant token is answered in one scheme (chosen before verification) with error="invalid_token".' },
  { id: 'AUTH-ASST-6', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'An assistant\'s effective scopes are its token\'s API scopes mapped to permissions, intersected with the session\'s live scopes.' },
  { id: 'AUTH-ASST-7', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'The same effective-scope rule applies to REST calls, calls forwarded by the agent-protocol server, and the company agent.' },
  { id: 'AUTH-ASST-8', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A signed-out token on a signed-in session acts signed out.' },
  { id: 'AUTH-ASST-9', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A signed-in token on a signed-out session acts signed out.' },
  { id: 'AUTH-ASST-10', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A stale assistant token acting signed out gets sign_in_required on account actions.' },
  { id: 'AUTH-ASST-11', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'An accepted DPoP proof jti is recorded: replaying the same proof is refused (401 invalid_dpop_proof).' },
  { id: 'AUTH-ASST-12', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Accepted proof jtis are kept in shared storage, so every instance refuses a replay.', notTestable: 'a black box sees one base URL and cannot address instances separately; the refusal itself is AUTH-ASST-11' },
  { id: 'AUTH-ASST-13', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Recorded proof entries are removed by the job clean_dpop_proofs.', notTestable: 'background jobs and storage contents are invisible over HTTP' },
  { id: 'AUTH-ASST-14', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A signed-out assistant token with empty scope gets only the fixed base catalog and cart authority.' },
  { id: 'AUTH-ASST-15', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Direct assistant tokens are single-level personal_agent token-exchange tokens from the shared proxy client: a deeper act chain or another client is refused.' },
  { id: 'AUTH-ASST-16', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A separately verified signed-out proxy token is also accepted as a direct assistant token.' },
  { id: 'AUTH-ASST-17', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'web_agent_forwarder and mcp_agent_forwarder credentials only forward agents: used without a forwarded artifact they are refused.' },
  { id: 'AUTH-ASST-18', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'A forwarder needs exactly one original artifact: a request with none or with two is refused.' },
  { id: 'AUTH-SIGNIN-1', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'sign_in_required is 403 for every caller kind.' },
  { id: 'AUTH-SIGNIN-2', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'sign_in_required carries WWW-Authenticate: <scheme> error="sign_in_required", scheme chosen from the request.' },
  { id: 'AUTH-SIGNIN-3', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Clients map on the `error` member, not on the status.', notTestable: 'advice that constrains clients, not the server' },
  { id: 'AUTH-ACTIVE-1', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Account-bound customer and agent requests require an active account.' },
  { id: 'AUTH-ACTIVE-2', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Guests and signed-out assistant sessions keep only the base capabilities their caller kind and scopes allow (catalog and cart).' },
  { id: 'AUTH-ACTIVE-3', part: 'authentication', section: AUTH_ASST, severity: 'MUST', text: 'Operators use separate operator authority: an operator token grants no customer or account authority.' },

  // ───────────────────────────── Events ─────────────────────────────
  { id: 'EVT-WEBHOOK-1', part: 'events', section: EVT, severity: 'MUST', text: 'A delivery posted by the payment provider to POST /webhooks/stripe with a valid signature is accepted with 200 {"received": true}.' },
  { id: 'EVT-WEBHOOK-2', part: 'events', section: EVT, severity: 'MUST', text: 'When the webhook feature is not configured, a delivery gets 404 not_configured.' },
  { id: 'EVT-WEBHOOK-3', part: 'events', section: EVT, severity: 'MUST', text: 'When the webhook secret is missing, a delivery gets 503 webhook_secret_missing.' },
  { id: 'EVT-WEBHOOK-4', part: 'events', section: EVT, severity: 'MUST', text: 'A delivery without the signature header gets 400 missing_signature.' },
  { id: 'EVT-WEBHOOK-5', part: 'events', section: EVT, severity: 'MUST', text: 'A delivery whose signature does not verify gets 400 invalid_signature.' },
  { id: 'EVT-WEBHOOK-6', part: 'events', section: EVT, severity: 'MUST', text: 'A verified delivery that fails processing gets 500 processing_failed.' },
  { id: 'EVT-WEBHOOK-7', part: 'events', section: EVT, severity: 'MUST', text: 'The webhook settles payments before it answers: once 200 is returned the payment\'s order state already reflects the delivery.' },
  { id: 'EVT-WEBHOOK-8', part: 'events', section: EVT, severity: 'MUST', text: 'The webhook completes a card setup that was originally admitted before it answers.' },
  { id: 'EVT-WEBHOOK-9', part: 'events', section: EVT, severity: 'MUST', text: 'Webhook logs record event type, event id and outcome only.', notTestable: 'logs are not visible over HTTP' },
  { id: 'EVT-STREAM-1', part: 'events', section: EVT_STREAM, severity: 'MUST', text: 'A response that is an event stream gets a keep-alive comment every 15 seconds (never more than 15 seconds without one).' },

  // ───────────────────────────── Errors ─────────────────────────────
  { id: 'ERR-PROBLEM-1', part: 'errors', section: ERR, severity: 'MUST', text: 'Every failure uses the problem document of the Resources part.' },
  { id: 'ERR-PROBLEM-2', part: 'errors', section: ERR, severity: 'MUST', text: 'Decoding failures (malformed JSON) use the problem document.' },
  { id: 'ERR-PROBLEM-3', part: 'errors', section: ERR, severity: 'MUST', text: 'Body-size refusals use the problem document.' },
  { id: 'ERR-PROBLEM-4', part: 'errors', section: ERR, severity: 'MUST', text: 'Every response with status 400 or above carries Content-Type: application/problem+json.' },
  { id: 'ERR-PROBLEM-5', part: 'errors', section: ERR, severity: 'MUST', text: 'Every response with status 400 or above carries Cache-Control: no-store.' },
  { id: 'ERR-PROBLEM-6', part: 'errors', section: ERR, severity: 'MUST', text: 'Errors that bypass the normal error path (decoding failures, size limit) still carry `instance` equal to X-Request-Id.' },
  { id: 'ERR-PROBLEM-7', part: 'errors', section: ERR, severity: 'MUST', text: 'Every response, success or failure, carries an X-Request-Id header.' },
  { id: 'ERR-PROBLEM-8', part: 'errors', section: ERR, severity: 'MUST', text: 'Domain errors carry no headers beyond the standard ones except Retry-After, RateLimit and RateLimit-Policy (no WWW-Authenticate on e.g. cart_empty or caller_not_allowed).' },
  { id: 'ERR-PROBLEM-9', part: 'errors', section: ERR, severity: 'MUST', text: 'Challenges and nonces are set by the error mapper alone.', notTestable: 'which component writes a header is internal; the observable header sets are ERR-PROBLEM-8 and the ERR-TABLE rows' },
  { id: 'ERR-PROBLEM-10', part: 'errors', section: ERR, severity: 'MUST', text: 'An unmatched route is answered in the problem format (its status and code are not shown).' },
  { id: 'ERR-LOG-1', part: 'errors', section: ERR, severity: 'MUST', text: 'Unexpected failures are logged as api_error.', notTestable: 'logs are not visible over HTTP' },
  { id: 'ERR-SCOPE-1', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'Assistant callers refused with insufficient_scope are told account scopes (permissions such as assistant:read), never API scopes, in `scope`.' },

  { id: 'ERR-TABLE-1', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'No token on a /v1 route: 401 invalid_token with WWW-Authenticate: Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256".' },
  { id: 'ERR-TABLE-2', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A malformed, expired or rejected token: 401 invalid_token with a challenge in the scheme chosen from the request.' },
  { id: 'ERR-TABLE-3', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'An assistant token sent as Bearer: 401 invalid_token with WWW-Authenticate: DPoP error="invalid_token", algs="ES256".' },
  { id: 'ERR-TABLE-4', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A DPoP proof or nonce failure: 401 invalid_dpop_proof or use_dpop_nonce, with WWW-Authenticate: DPoP error="<that code>" and a DPoP-Nonce header.' },
  { id: 'ERR-TABLE-5', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'Ended account access: 401 account_access_ended with an error="invalid_token" challenge.' },
  { id: 'ERR-TABLE-6', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A forged, malformed or expired-key guest session: 401 invalid_guest_session with WWW-Authenticate: Bearer error="invalid_token".', repeats: ['AUTH-GUEST-5', 'AUTH-GUEST-6', 'AUTH-GUEST-7'] },
  { id: 'ERR-TABLE-7', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A guest write without a session: 400 guest_session_required.' },
  { id: 'ERR-TABLE-8', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A wrong caller kind: 403 caller_not_allowed with no WWW-Authenticate.' },
  { id: 'ERR-TABLE-9', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A missing API or account scope: 403 insufficient_scope with the `scope` member naming it.' },
  { id: 'ERR-TABLE-10', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'Not signed in to the account: 403 sign_in_required with WWW-Authenticate: <scheme> error="sign_in_required".' },
  { id: 'ERR-TABLE-11', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A validation failure: 400 invalid_request with `issues` (at most 20) and no WWW-Authenticate.' },
  { id: 'ERR-TABLE-12', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A rate limit: 429 rate_limited with a Retry-After header.' },
  { id: 'ERR-TABLE-13', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A verifier or identity-proxy outage: 503 unavailable with Retry-After: 5.' },
  { id: 'ERR-TABLE-14', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'A cart with no lines at checkout: 422 cart_empty.' },
  { id: 'ERR-TABLE-15', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'An open direct conversation: error direct_conversation_open with the `conversation_id` member (status not shown).' },
  { id: 'ERR-TABLE-16', part: 'errors', section: ERR_TABLE, severity: 'MUST', text: 'An unexpected failure: 500 internal_error with no `detail`.', notTestable: 'a black box has no request guaranteed to cause an unexpected failure in a conforming server' },

  // ───────────────────────────── Limits ─────────────────────────────
  { id: 'LIM-BODY-1', part: 'limits', section: LIM, severity: 'MUST', text: 'Every request body is capped at 256 KiB: a larger body is refused with a problem document.' },
  { id: 'LIM-CONV-1', part: 'limits', section: LIM, severity: 'MUST', text: 'Conversation write routes cap the body at 64 KiB, checked via Content-Length.' },
  { id: 'LIM-INTENT-1', part: 'limits', section: LIM, severity: 'MUST', text: 'POST /internal/account/security-intents reads at most 8 KiB through a bounded reader: a larger body is refused even without a Content-Length.' },
  { id: 'LIM-ISSUES-1', part: 'limits', section: LIM, severity: 'MUST', text: 'The `issues` member holds at most 20 items, however many problems the input has.', repeats: ['RES-PROBLEM-9'] },
  { id: 'LIM-SHOPPERIP-1', part: 'limits', section: LIM, severity: 'MUST', text: 'The Shopper-IP guest header is at most 64 characters.', repeats: ['AUTH-GUEST-9'] },
  { id: 'LIM-RECOVERY-1', part: 'limits', section: LIM, severity: 'MUST', text: 'The recovery `subject` is 1–256 characters: empty or 257 is refused with 400 invalid_request, 256 is accepted.', repeats: ['RES-RECOVERY-1'] },
  { id: 'LIM-RECOVERY-2', part: 'limits', section: LIM, severity: 'MUST', text: 'The recovery `operationId` is 1–128 characters: empty or 129 is refused with 400 invalid_request, 128 is accepted.', repeats: ['RES-RECOVERY-2'] },
  { id: 'LIM-DOCS-1', part: 'limits', section: LIM, severity: 'MUST', text: 'The description documents /openapi.json and /assistant/openapi.json are cached for 300 seconds.', repeats: ['END-PUBLIC-3', 'END-PUBLIC-5'] },
  { id: 'LIM-STREAM-1', part: 'limits', section: LIM, severity: 'MUST', text: 'Streamed responses carry a keep-alive every 15 seconds.', repeats: ['EVT-STREAM-1'] },
  { id: 'LIM-RETRY-1', part: 'limits', section: LIM, severity: 'MUST', text: 'A 503 unavailable carries Retry-After: 5.', repeats: ['ERR-TABLE-13'] },
  { id: 'LIM-GUESTKEY-1', part: 'limits', section: LIM, severity: 'SHOULD', text: 'The previous guest key window is 30 days (rotation practice).', notTestable: 'an operating practice for the deadline an operator configures; the server only honours the configured deadline', repeats: ['AUTH-GUEST-15'] },
  { id: 'LIM-SIGNIN-1', part: 'limits', section: LIM, severity: 'MUST', text: 'A delegated sign-in is accepted for an invited agent only when its DPoP proof is at most ten minutes old.', notTestable: 'a check the storefront performs on invited-agent sign-in, not the service' },
  { id: 'LIM-RATE-1', part: 'limits', section: LIM_RATE, severity: 'MUST', text: 'Guests are rate-counted exactly per operation id: spending the budget of one operation does not limit another.' },
  { id: 'LIM-RATE-2', part: 'limits', section: LIM_RATE, severity: 'MUST', text: 'Assistant callers have a per-session rate budget.' },
  { id: 'LIM-RATE-3', part: 'limits', section: LIM_RATE, severity: 'MUST', text: 'Assistant callers have a per-client rate budget.' },
  { id: 'LIM-RATE-4', part: 'limits', section: LIM_RATE, severity: 'MUST', text: 'Exceeding a rate budget gives 429 rate_limited with Retry-After.', repeats: ['ERR-TABLE-12'] },

  // ───────────────────────────── Versioning ─────────────────────────────
  { id: 'VER-PREFIX-1', part: 'versioning', section: VER, severity: 'MUST', text: 'Customer-facing operations live under the /v1 prefix.' },
  { id: 'VER-PREFIX-2', part: 'versioning', section: VER, severity: 'MUST', text: 'Assistant conversation routes and the description documents live outside /v1 (/assistant/conversations..., /openapi.json, /assistant/openapi.json).' },
  { id: 'VER-ROUTES-1', part: 'versioning', section: VER, severity: 'MUST', text: 'Route names are declared only in the contract.', notTestable: 'where route names are declared is a property of the source, not of HTTP behaviour; the served routes are checked by PUR-RULE-1 and VER-ROUTES-2' },
  { id: 'VER-ROUTES-2', part: 'versioning', section: VER, severity: 'MUST', text: 'Earlier website-prefixed paths for the checkout reads no longer exist.' },
  { id: 'VER-ROUTES-3', part: 'versioning', section: VER, severity: 'MUST', text: 'Nothing aliases old paths: no old path answers, redirects to or proxies a current route.' },
  { id: 'VER-DOCS-1', part: 'versioning', section: VER, severity: 'MUST', text: 'Two description documents exist: the general one (/openapi.json) and the assistant one (/assistant/openapi.json).' },
];

export const CLAUSES_BY_ID: ReadonlyMap<string, Clause> = new Map(CLAUSES.map((c) => [c.id, c]));
