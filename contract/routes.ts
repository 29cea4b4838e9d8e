// Spec, Endpoints > Public and special routes: the routes that are not operations, one row each, with how a caller
// authenticates. With the operations (contract/operations.ts, whose rows `ROUTES` there lists beside these) every route the
// service answers is a row: the reference routes, wires and describes them from these rows, and the suite takes their paths
// from here. Data only.
import type { HttpMethod } from './operations.js';
import { LIMITS } from './limits.js';

/** Where a shared secret travels: `Authorization: Bearer <secret>`, or a header of its own. */
export type SecretCarrier = { readonly kind: 'bearer' } | { readonly kind: 'header'; readonly name: string };

/** The shared secrets of the internal routes, by the variable that configures them. */
export type SharedSecret = 'IDP_ACTION_SECRET' | 'PROXY_IDP_SECRET' | 'CONVERSATION_HUB_SECRET' | 'ACCOUNT_RECOVERY_SECRET';

export type RouteAuth =
  /** No credential at all. */
  | { readonly kind: 'none' }
  /** An access token (Bearer, or DPoP for assistants); the operation's row says which callers and scopes. */
  | { readonly kind: 'token' }
  /** DPoP plus live session admission (assistant conversations). */
  | { readonly kind: 'dpop-session' }
  /** A component's shared secret in its carrier. */
  | { readonly kind: 'shared-secret'; readonly secret: SharedSecret; readonly carrier: SecretCarrier }
  /** The payment provider's signature over the raw body, in this header; never a bearer token. */
  | { readonly kind: 'provider-signature'; readonly header: string };

export type RouteKind = 'operation' | 'public' | 'webhook' | 'internal';

export interface RouteRow {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template with `{param}` segments, relative to the base URL. */
  readonly path: string;
  readonly kind: RouteKind;
  readonly auth: RouteAuth;
  /** Internal routes: the body is read by a bounded reader of this many bytes (spec, Limits). */
  readonly bodyLimit?: number;
  readonly note?: string;
}

const NONE = { kind: 'none' } as const;
const bearerSecret = (secret: SharedSecret): RouteAuth => ({ kind: 'shared-secret', secret, carrier: { kind: 'bearer' } });
const PROXY_IDP: RouteAuth = { kind: 'shared-secret', secret: 'PROXY_IDP_SECRET', carrier: { kind: 'header', name: 'X-Proxy-Idp-Secret' } };
const row = (r: RouteRow): RouteRow => r;

export const HEALTH = { operationId: 'getHealth', method: 'GET', path: '/health', kind: 'public', auth: NONE } as const satisfies RouteRow;
/** The general description document. */
export const DESCRIPTION = {
  operationId: 'getDescription',
  method: 'GET',
  path: '/openapi.json',
  kind: 'public',
  auth: NONE,
  note: 'cached 300 seconds',
} as const satisfies RouteRow;
/** The description document for assistants. */
export const ASSISTANT_DESCRIPTION = {
  operationId: 'getAssistantDescription',
  method: 'GET',
  path: '/assistant/openapi.json',
  kind: 'public',
  auth: NONE,
  note: 'cached 300 seconds',
} as const satisfies RouteRow;
export type DescriptionPath = typeof DESCRIPTION.path | typeof ASSISTANT_DESCRIPTION.path;
export const PAYMENT_WEBHOOK = {
  operationId: 'receivePaymentWebhook',
  method: 'POST',
  path: '/webhooks/stripe',
  kind: 'webhook',
  auth: { kind: 'provider-signature', header: 'Stripe-Signature' },
  note: 'raw body; 200 {received: true}',
} as const satisfies RouteRow;

/** The internal routes, in the order the description document lists them. */
export const INTERNAL_ROWS: readonly RouteRow[] = [
  row({
    operationId: 'recordSecurityIntent',
    method: 'POST',
    path: '/internal/account/security-intents',
    kind: 'internal',
    auth: bearerSecret('IDP_ACTION_SECRET'),
    bodyLimit: LIMITS.securityIntentBytes,
    note: 'body bounded to 8 KiB',
  }),
  row({
    operationId: 'registerSignedOutAssistantSession',
    method: 'POST',
    path: '/internal/assistant/sessions/signed-out',
    kind: 'internal',
    auth: PROXY_IDP,
    bodyLimit: LIMITS.requestBodyBytes,
  }),
  row({
    operationId: 'recordConnectedAgent',
    method: 'POST',
    path: '/internal/assistant/agents/connected',
    kind: 'internal',
    auth: PROXY_IDP,
    bodyLimit: LIMITS.requestBodyBytes,
  }),
  row({
    operationId: 'recordAgentAuthorization',
    method: 'POST',
    path: '/internal/agent-authorization',
    kind: 'internal',
    auth: PROXY_IDP,
    bodyLimit: LIMITS.requestBodyBytes,
  }),
  row({
    operationId: 'recordConversationTurn',
    method: 'POST',
    path: '/internal/conversations/{id}/turn',
    kind: 'internal',
    auth: bearerSecret('CONVERSATION_HUB_SECRET'),
    bodyLimit: LIMITS.conversationWriteBytes,
  }),
  row({
    operationId: 'recordConversationHandoffTimeout',
    method: 'POST',
    path: '/internal/conversations/{id}/handoff-timeout',
    kind: 'internal',
    auth: bearerSecret('CONVERSATION_HUB_SECRET'),
    bodyLimit: LIMITS.conversationWriteBytes,
  }),
  row({
    operationId: 'recoverAccount',
    method: 'POST',
    path: '/internal/account/recover',
    kind: 'internal',
    auth: bearerSecret('ACCOUNT_RECOVERY_SECRET'),
    bodyLimit: LIMITS.requestBodyBytes,
    note: 'closed when the secret is not configured',
  }),
];

/** Every route that is not an operation: the public routes, the webhook, the internal routes. */
export const SPECIAL_ROWS: readonly RouteRow[] = [HEALTH, DESCRIPTION, ASSISTANT_DESCRIPTION, PAYMENT_WEBHOOK, ...INTERNAL_ROWS];

/** The prefix of the assistant conversation operations (spec, Public and special routes: "and every path below it"). */
export const CONVERSATIONS_PATH = '/assistant/conversations';
/** The prefixes of the internal routes and of the webhook. */
export const INTERNAL_PREFIX = '/internal/';
export const WEBHOOK_PREFIX = '/webhooks/';

export type SpecialRouteId =
  | 'getHealth'
  | 'getDescription'
  | 'getAssistantDescription'
  | 'receivePaymentWebhook'
  | 'recordSecurityIntent'
  | 'registerSignedOutAssistantSession'
  | 'recordConnectedAgent'
  | 'recordAgentAuthorization'
  | 'recordConversationTurn'
  | 'recordConversationHandoffTimeout'
  | 'recoverAccount';

/** Each special route's path (template) by its operation id: what the suite sends its requests to. */
export const SPECIAL_PATHS: Readonly<Record<SpecialRouteId, string>> = Object.freeze(
  Object.fromEntries(SPECIAL_ROWS.map((r) => [r.operationId, r.path])) as Record<SpecialRouteId, string>,
);

/** A special route's row by operation id; a wrong id is a bug of the caller. */
export function specialRow(operationId: string): RouteRow {
  const r = SPECIAL_ROWS.find((s) => s.operationId === operationId);
  if (!r) throw new Error(`no special route ${operationId} in contract/routes.ts`);
  return r;
}

/** A path template with its parameters filled in as given (a caller that needs an escape writes it). */
export function fillPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return v;
  });
}
