// What `explore` can send: every row of the contract (contract/operations.ts, contract/routes.ts) is a command, with what
// its plan needs (a body, the path id it names) and how often it comes. The operations that build state (cart writes,
// checkout, creates) and their observers come most; every other route comes too, so that a two-minute run reaches every
// operation as every caller kind. Data and pure lookups only.
import { CALLER_KINDS, CALLER_LISTS, type CallerKind } from '../../contract/callers.js';
import { OPERATIONS, OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';
import { SPECIAL_ROWS, type RouteKind, type RouteRow } from '../../contract/routes.js';

/** What a path parameter names: a row this sequence made (order, address, conversation), a stocked variant, a product, or nothing anyone has. */
export type Ref = 'order' | 'address' | 'variant' | 'product' | 'conversation' | 'unknown';

export interface Command {
  /** The operation id of the contract's row. */
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly kind: RouteKind;
  /** The operation's group; undefined for the public, internal and webhook routes. */
  readonly group: Operation['group'] | undefined;
  /** The plan gives the body its roles (variant, quantity, card); other writes send the body their documents describe. */
  readonly body?: true;
  /** What the path's one parameter names. */
  readonly ref?: Ref;
  readonly weight: number;
}

/** The commands whose body the plan fills itself, by role. */
const ROLE_BODIES = new Set(['addCartItem', 'updateCartItem', 'checkoutSavedCard', 'addAddress', 'openConversation']);

/** How often each command comes: the state builders and their observers most; every other route at 1. */
const WEIGHTS: Readonly<Record<string, number>> = {
  addCartItem: 5,
  checkoutSavedCard: 4,
  getCart: 3,
  listOrders: 2,
  getOrder: 2,
  addAddress: 2,
  deleteAddress: 2,
  removeCartItem: 2,
  // The one request body the spec shows member by member (Resources, Account recovery request): probed the most.
  recoverAccount: 3,
};

function refOf(r: RouteRow): Ref | undefined {
  if (!/\{[^}]+\}/.test(r.path)) return undefined;
  if (r.path.includes('{variant_id}')) return 'variant';
  if (r.path.includes('{handle}')) return 'product';
  if (r.path.startsWith('/v1/me/orders/')) return 'order';
  if (r.path.startsWith('/v1/me/addresses/')) return 'address';
  // A conversation's event stream is never opened: a stream holds the sequence until its keep-alive (an unknown id is 404).
  if (r.path.startsWith('/assistant/conversations/') && r.operationId !== 'streamConversationEvents') return 'conversation';
  return 'unknown';
}

const commandOf = (r: RouteRow): Command => {
  const ref = refOf(r);
  return {
    id: r.operationId,
    method: r.method,
    path: r.path,
    kind: r.kind,
    group: OPERATIONS_BY_ID.get(r.operationId)?.group,
    ...(ROLE_BODIES.has(r.operationId) ? { body: true as const } : {}),
    ...(ref ? { ref } : {}),
    weight: WEIGHTS[r.operationId] ?? 1,
  };
};

/** Every route of the contract, as a command. */
export const COMMANDS: readonly Command[] = [
  ...OPERATIONS.map((o) =>
    commandOf({ operationId: o.operationId, method: o.method, path: o.path, kind: 'operation', auth: { kind: 'token' } }),
  ),
  ...SPECIAL_ROWS.map(commandOf),
];
export const COMMANDS_BY_ID: ReadonlyMap<string, Command> = new Map(COMMANDS.map((c) => [c.id, c]));
export const COMMAND_IDS = COMMANDS.map((c) => c.id) as [string, ...string[]];

/**
 * The commands the differential compares against the lockstep reference: the cart, checkout, the account's reads and
 * writes, search and the assistant's conversations of its own, whose answers the spec pins far enough for two
 * deployments to agree. Every other route (the preview, the checkout reads, `GET /v1/me`, the operator and internal
 * routes, the webhook, the public routes, a conversation's items), where the spec leaves callers, payloads or codes to
 * the deployment, is judged by the rule book, the model and the target's own documents alone.
 */
export const DIFFERENTIAL_COMMANDS: ReadonlySet<string> = new Set([
  'getCart',
  'addCartItem',
  'updateCartItem',
  'removeCartItem',
  'checkoutSavedCard',
  'listOrders',
  'getOrder',
  'cancelOrder',
  'listAddresses',
  'addAddress',
  'deleteAddress',
  'getProfile',
  'listPaymentMethods',
  'searchProducts',
  'listConversations',
  'openConversation',
]);

/** The special routes with a credential of their own (a shared secret, the provider's signature). */
export const hasOwnCredential = (id: string): boolean => {
  const auth = SPECIAL_ROWS.find((r) => r.operationId === id)?.auth.kind;
  return auth === 'shared-secret' || auth === 'provider-signature';
};

/** Writes: a command that changes state (its Idempotency-Key and retry weights differ from a read's). */
export const isWrite = (c: Command): boolean => c.method !== 'GET';

/**
 * The caller kinds the contract admits on a command: the operation's caller list (the reference's where the spec does
 * not show it), every kind on the public routes, none on the internal routes and the webhook (their own credential only).
 */
export function admittedKinds(c: Command): readonly CallerKind[] {
  const op = OPERATIONS_BY_ID.get(c.id);
  if (op) return CALLER_LISTS[op.callers].members;
  return c.kind === 'public' ? CALLER_KINDS : [];
}
