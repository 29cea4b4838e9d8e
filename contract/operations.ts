// Spec, Endpoints > Operations: one row per operation. Data only.
import type { CallerListName } from './callers.js';
import { CONVERSATIONS_PATH, SPECIAL_ROWS, type RouteAuth, type RouteRow } from './routes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type Tool = 'mcp' | 'webmcp';
export type OperationGroup = 'catalog' | 'cart' | 'checkout' | 'account' | 'checkout-reads' | 'diagnostic' | 'operator' | 'conversation';

export interface Operation {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template with `{param}` segments, relative to the base URL. */
  readonly path: string;
  readonly group: OperationGroup;
  /** Account permissions an assistant needs (spec column agentScopes). */
  readonly agentScopes: readonly string[];
  /** API scopes a token needs (spec column apiScopes). */
  readonly apiScopes: readonly string[];
  readonly callers: CallerListName;
  readonly tools: readonly Tool[];
  /** Which of the row's cells the spec leaves blank ("not shown"); the values above are then the reference's choice. */
  readonly notShown?: readonly ('agentScopes' | 'apiScopes' | 'callers' | 'tools')[];
}

const op = (o: Operation): Operation => o;

export const OPERATIONS: readonly Operation[] = [
  op({
    operationId: 'searchProducts',
    method: 'GET',
    path: '/v1/catalog/products',
    group: 'catalog',
    agentScopes: [],
    apiScopes: ['catalog:read'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'getProduct',
    method: 'GET',
    path: '/v1/catalog/products/{handle}',
    group: 'catalog',
    agentScopes: [],
    apiScopes: ['catalog:read'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'listCollections',
    method: 'GET',
    path: '/v1/catalog/collections',
    group: 'catalog',
    agentScopes: [],
    apiScopes: ['catalog:read'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'getCart',
    method: 'GET',
    path: '/v1/cart',
    group: 'cart',
    agentScopes: [],
    apiScopes: ['cart:read'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'addCartItem',
    method: 'POST',
    path: '/v1/cart/items',
    group: 'cart',
    agentScopes: [],
    apiScopes: ['cart:write'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'updateCartItem',
    method: 'PATCH',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    agentScopes: [],
    apiScopes: ['cart:write'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'removeCartItem',
    method: 'DELETE',
    path: '/v1/cart/items/{variant_id}',
    group: 'cart',
    agentScopes: [],
    apiScopes: ['cart:write'],
    callers: 'storefront',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'checkoutSavedCard',
    method: 'POST',
    path: '/v1/checkouts/saved-card',
    group: 'checkout',
    agentScopes: ['checkout'],
    apiScopes: ['checkout'],
    callers: 'agentCheckout',
    tools: ['mcp'],
  }),
  op({
    operationId: 'getProfile',
    method: 'GET',
    path: '/v1/me/profile',
    group: 'account',
    agentScopes: ['assistant:read'],
    apiScopes: ['account:read'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'listAddresses',
    method: 'GET',
    path: '/v1/me/addresses',
    group: 'account',
    agentScopes: ['assistant:read'],
    apiScopes: ['account:read'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'addAddress',
    method: 'POST',
    path: '/v1/me/addresses',
    group: 'account',
    agentScopes: ['assistant:write'],
    apiScopes: ['account:write'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'deleteAddress',
    method: 'DELETE',
    path: '/v1/me/addresses/{id}',
    group: 'account',
    agentScopes: ['assistant:write'],
    apiScopes: ['account:write'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'listPaymentMethods',
    method: 'GET',
    path: '/v1/me/payment-methods',
    group: 'account',
    agentScopes: ['assistant:read'],
    apiScopes: ['payment_methods:read'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'listOrders',
    method: 'GET',
    path: '/v1/me/orders',
    group: 'account',
    agentScopes: ['assistant:read'],
    apiScopes: ['orders:read'],
    callers: 'account',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'getOrder',
    method: 'GET',
    path: '/v1/me/orders/{id}',
    group: 'account',
    agentScopes: ['assistant:read'],
    apiScopes: ['orders:read'],
    callers: 'account',
    tools: ['mcp', 'webmcp'],
  }),
  op({
    operationId: 'cancelOrder',
    method: 'POST',
    path: '/v1/me/orders/{id}/cancellation',
    group: 'account',
    agentScopes: ['assistant:write'],
    apiScopes: ['orders:write'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'requestReturn',
    method: 'POST',
    path: '/v1/me/orders/{id}/returns',
    group: 'account',
    agentScopes: ['assistant:write'],
    apiScopes: ['orders:write'],
    callers: 'account',
    tools: ['mcp'],
  }),
  op({
    operationId: 'getIdentity',
    method: 'GET',
    path: '/v1/me/identity',
    group: 'checkout-reads',
    agentScopes: [],
    apiScopes: ['account:read'],
    callers: 'checkout',
    tools: [],
    notShown: ['agentScopes', 'apiScopes'],
  }),
  op({
    operationId: 'getCheckoutAddress',
    method: 'GET',
    path: '/v1/me/checkout-address',
    group: 'checkout-reads',
    agentScopes: ['assistant:read'],
    apiScopes: ['account:read'],
    callers: 'checkout',
    tools: [],
    notShown: ['agentScopes', 'apiScopes'],
  }),
  op({
    operationId: 'getCheckoutMethods',
    method: 'GET',
    path: '/v1/me/checkout-methods',
    group: 'checkout-reads',
    agentScopes: ['assistant:read'],
    apiScopes: ['payment_methods:read'],
    callers: 'checkout',
    tools: [],
    notShown: ['agentScopes', 'apiScopes'],
  }),
  op({
    operationId: 'createCheckoutPreview',
    method: 'POST',
    path: '/v1/checkout-previews',
    group: 'checkout',
    agentScopes: ['checkout'],
    apiScopes: ['checkout'],
    callers: 'agentCheckout',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'getMe',
    method: 'GET',
    path: '/v1/me',
    group: 'diagnostic',
    agentScopes: [],
    apiScopes: [],
    callers: 'diagnostic',
    tools: [],
    notShown: ['agentScopes', 'apiScopes'],
  }),
  // Operator routes: the spec shows none of their rows ("the operations under /v1/ops/*: not shown"); the reference's choice.
  op({
    operationId: 'searchOpsOrders',
    method: 'GET',
    path: '/v1/ops/orders',
    group: 'operator',
    agentScopes: [],
    apiScopes: ['ops:read'],
    callers: 'operator',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'getOpsOrder',
    method: 'GET',
    path: '/v1/ops/orders/{id}',
    group: 'operator',
    agentScopes: [],
    apiScopes: ['ops:read'],
    callers: 'operator',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'cancelOpsOrder',
    method: 'POST',
    path: '/v1/ops/orders/{id}/cancellation',
    group: 'operator',
    agentScopes: [],
    apiScopes: ['ops:write'],
    callers: 'operator',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'refundOpsOrder',
    method: 'POST',
    path: '/v1/ops/orders/{id}/refunds',
    group: 'operator',
    agentScopes: [],
    apiScopes: ['ops:write'],
    callers: 'operator',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'adjustStock',
    method: 'POST',
    path: '/v1/ops/variants/{id}/stock-adjustments',
    group: 'operator',
    agentScopes: [],
    apiScopes: ['ops:write'],
    callers: 'operator',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  // Assistant conversations: a group of their own outside /v1 (spec, What the service does 1; Versioning), "DPoP plus live
  // session admission" (Public and special routes). The spec shows neither their methods nor their rows: every cell is the
  // reference's choice (docs/conversations.md). No account permission or API scope beyond a signed-in live session.
  op({
    operationId: 'listConversations',
    method: 'GET',
    path: '/assistant/conversations',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'openConversation',
    method: 'POST',
    path: '/assistant/conversations',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'getConversation',
    method: 'GET',
    path: '/assistant/conversations/{id}',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'postConversationMessage',
    method: 'POST',
    path: '/assistant/conversations/{id}/messages',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'streamConversationEvents',
    method: 'GET',
    path: '/assistant/conversations/{id}/events',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
  op({
    operationId: 'closeConversation',
    method: 'POST',
    path: '/assistant/conversations/{id}/close',
    group: 'conversation',
    agentScopes: [],
    apiScopes: [],
    callers: 'conversation',
    tools: [],
    notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
  }),
];

export const OPERATIONS_BY_ID: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((o) => [o.operationId, o]));

/** An operation's row as a route of contract/routes.ts: conversations take DPoP plus live session admission, the rest a token. */
export const operationRow = (o: Operation): RouteRow => ({
  operationId: o.operationId,
  method: o.method,
  path: o.path,
  kind: 'operation',
  auth: o.group === 'conversation' ? { kind: 'dpop-session' } : { kind: 'token' },
});

/** Every route the service answers, one row each: the operations, then the public, webhook and internal routes. */
export const ROUTES: readonly RouteRow[] = [...OPERATIONS.map(operationRow), ...SPECIAL_ROWS];

export type SpecialAuth =
  | 'none'
  | 'provider-signature'
  | 'idp-action-secret'
  | 'proxy-idp-secret'
  | 'conversation-hub-secret'
  | 'account-recovery-secret'
  | 'dpop-session';

export interface SpecialRoute {
  readonly method: HttpMethod | '*';
  readonly path: string;
  readonly auth: SpecialAuth;
  readonly note?: string;
}

const specialAuth = (auth: RouteAuth): SpecialAuth => {
  switch (auth.kind) {
    case 'shared-secret':
      return auth.secret.toLowerCase().replace(/_/g, '-') as SpecialAuth;
    case 'token':
      throw new Error('an operation is not a special route');
    default:
      return auth.kind;
  }
};

/** Spec, Endpoints > Public and special routes, as the spec's table lists them (derived from contract/routes.ts). */
export const SPECIAL_ROUTES: readonly SpecialRoute[] = [
  ...SPECIAL_ROWS.map((r) => ({ method: r.method, path: r.path, auth: specialAuth(r.auth), ...(r.note ? { note: r.note } : {}) })),
  { method: '*', path: CONVERSATIONS_PATH, auth: 'dpop-session', note: 'and every path below it' },
];
