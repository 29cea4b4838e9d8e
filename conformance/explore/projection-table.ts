// The differential oracle's table (projection.ts): what it compares, with the clauses that pin each field, what it never
// compares and why, and the clauses each error code's row pins. Data only; docs/explore.md cites it.

/**
 * What the differential oracle compares, with the clauses that pin it and when it applies (the docs cite this table). The
 * table is the wiring: compareProjections reports a difference only by a row's `field`, in the row's `label`.
 */
export const COMPARED = [
  {
    field: 'status class',
    label: 'status',
    when: 'success, refusal (4xx) or server error; success against a refusal only when either side answers a code the spec names, or the model knows the step succeeds and the target refused',
    clauses: ['END-OPS-<operation>-1'],
  },
  {
    field: 'status',
    label: 'status',
    when: 'when either side answers an error code the spec names with its status; 201 of addAddress, 204 of a delete, 304',
    clauses: ['ERR-TABLE-*', 'END-CONV-1', 'END-CONV-3', 'END-CONV-8'],
  },
  {
    field: 'error',
    label: 'problem error',
    when: 'when either side answers an error code the spec names and the spec orders the two refusals (contract/stages.ts)',
    clauses: ['RES-PROBLEM-2', 'ERR-TABLE-*'],
  },
  {
    field: 'challenge',
    label: 'WWW-Authenticate challenge',
    when: 'both sides answer the same code, other than insufficient_scope: schemes and their `error` parameter',
    clauses: ['ERR-TABLE-1..6', 'ERR-TABLE-10', 'AUTH-SCHEME-*', 'ERR-PROBLEM-8'],
  },
  {
    field: 'dpopNonce',
    label: 'DPoP-Nonce presence',
    when: 'presence, on the answer to a DPoP request (a proof with the DPoP scheme: contract/requests.ts isDpopRequest)',
    clauses: ['AUTH-ORDER-4', 'ERR-TABLE-4'],
  },
  { field: 'requestId', label: 'X-Request-Id presence', when: 'presence, always', clauses: ['AUTH-ORDER-2', 'ERR-PROBLEM-7'] },
  {
    field: 'instanceMatches',
    label: 'problem instance equal to X-Request-Id',
    when: "on both sides' problem documents",
    clauses: ['RES-PROBLEM-8', 'ERR-PROBLEM-6'],
  },
  {
    field: 'cache',
    label: 'Cache-Control class',
    when: 'class: no-store, private no-cache (catalog GETs), fresh N seconds (description documents), absent',
    clauses: ['END-CONV-7', 'END-CONV-9', 'ERR-PROBLEM-5', 'LIM-DOCS-1'],
  },
  {
    field: 'media',
    label: 'media type',
    when: "on failures (status 400 or above): the media type's essence",
    clauses: ['RES-PROBLEM-1', 'ERR-PROBLEM-4'],
  },
  {
    field: 'retryAfter',
    label: 'Retry-After',
    when: 'presence on rate_limited; the value 5 on unavailable',
    clauses: ['ERR-TABLE-12', 'ERR-TABLE-13', 'LIM-RETRY-1'],
  },
  {
    field: 'location',
    label: 'Location presence',
    when: 'presence on a 201 of checkoutSavedCard (the order has a GET URL)',
    clauses: ['END-CONV-2'],
  },
] as const satisfies readonly { field: string; label: string; when: string; clauses: readonly string[] }[];

/** A field the differential compares: a row of COMPARED. */
export type ComparedField = (typeof COMPARED)[number]['field'];

/** The label of a compared field in a finding's message. */
export const labelOf = (field: ComparedField): string => COMPARED.find((c) => c.field === field)!.label;

/** What is never compared, and why (the spec leaves it to the deployment). */
export const NEVER_COMPARED: readonly { what: string; why: string }[] = [
  { what: 'bodies of successes', why: 'payload shapes of every operation are not shown (Endpoints)' },
  { what: 'ids, Location values, ETag values, X-Request-Id values', why: "their form is the deployment's choice" },
  { what: 'problem detail, title wording beyond the status, type URL base', why: "human text and the docs base are the deployment's" },
  {
    what: 'status and code of a refusal whose code the spec does not name (not_found, invalid_json, payload_too_large, ...)',
    why: 'the spec leaves them open ("not shown"): a 404 and a 403 refusal are the same answer; only "a refusal" (4xx) is compared',
  },
  {
    what: 'invalid_request against a refusal whose code the spec does not name',
    why: 'payload shapes are not shown: which inputs a deployment refuses as invalid and which as unknown is its choice',
  },
  {
    what: 'a success against a refusal whose code the spec does not name (a repeated cancel, the removal of a line the cart lacks, the deletion of an unknown address), unless the model knows the step succeeds',
    why: 'idempotent deletes and cancels are as conforming as 404 or 409: the spec does not show those refusals',
  },
  {
    what: "the reference's invalid_request on a cart line write the plan did not mutate, against a success",
    why: "the reference's line cap (99 units) is an input bound the spec does not show",
  },
  {
    what: 'the outcome of a duplicated X-Request-Id, a bad percent-escape in the query, a body without members',
    why: 'the spec does not pin how they are handled (a checkout may take the default card); the model and header rules still judge them',
  },
  {
    what: 'the exact 2xx of checkoutSavedCard',
    why: "whether a checkout is a create is the deployment's choice; the spec-level checks judge a declared create (its documents) answering 201",
  },
  {
    what: 'DPoP-Nonce presence on an answer to a request that is not a DPoP request (an assistant token sent as Bearer, the DPoP scheme without a proof, a proof beside Bearer)',
    why: 'not pinned (the DPoP checks accept either; docs/ambiguities.md, 4); a nonce on a domain error to such a request is judged by the model',
  },
  { what: 'status of direct_conversation_open', why: 'not shown (Errors table)' },
  {
    what: 'whether a request is rate limited',
    why: 'numeric budgets and windows are not shown (Limits); the concurrency oracle checks budgets are never exceeded',
  },
  { what: 'the exact 2xx status of operations other than creates and deletes', why: 'only creates (201) and deletes (204) are pinned' },
  { what: 'the challenge of insufficient_scope', why: 'left to the error mapper (Errors table)' },
  { what: 'success media types, ops paths and methods, event streams', why: 'not shown' },
];

/** The clauses an error code's row pins (its status, its headers). */
export const CODE_CLAUSES: Readonly<Record<string, readonly string[]>> = {
  invalid_token: ['ERR-TABLE-2', 'AUTH-SCHEME-6'],
  invalid_dpop_proof: ['ERR-TABLE-4', 'AUTH-ASST-11'],
  use_dpop_nonce: ['ERR-TABLE-4'],
  account_access_ended: ['ERR-TABLE-5'],
  invalid_guest_session: ['ERR-TABLE-6', 'AUTH-GUEST-5'],
  guest_session_required: ['ERR-TABLE-7', 'AUTH-GUEST-4'],
  caller_not_allowed: ['ERR-TABLE-8'],
  insufficient_scope: ['ERR-TABLE-9'],
  sign_in_required: ['ERR-TABLE-10', 'AUTH-SIGNIN-1'],
  invalid_request: ['ERR-TABLE-11'],
  rate_limited: ['ERR-TABLE-12', 'LIM-RATE-4'],
  unavailable: ['ERR-TABLE-13'],
  cart_empty: ['ERR-TABLE-14', 'PUR-IDEM-4'],
  direct_conversation_open: ['ERR-TABLE-15'],
  internal_error: ['ERR-TABLE-16'],
  not_configured: ['EVT-WEBHOOK-2'],
  webhook_secret_missing: ['EVT-WEBHOOK-3'],
  missing_signature: ['EVT-WEBHOOK-4'],
  invalid_signature: ['EVT-WEBHOOK-5'],
  processing_failed: ['EVT-WEBHOOK-6'],
  recovery_not_found: ['END-RECOVERY-12'],
  recovery_pending: ['END-RECOVERY-13'],
};
