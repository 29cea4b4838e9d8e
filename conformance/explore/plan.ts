// What `explore` generates: a plan step names an operation of the contract, a caller (a kind the suite can mint, or a
// credential defect it can forge) and at most one mutation into the negative space. Plans are symbolic (the path id of
// "account a's last order", not the id itself), so that a replay on a fresh deployment resolves them to that
// deployment's own ids; each is resolved to a concrete Step (exchange.ts) only when it is sent. Data and arbitraries only.
import fc from 'fast-check';
import type { Profile } from '../../contract/profile.js';

/** DPoP proof defects an assistant step can carry (the DPoP checks' negative matrix, dpop-negative-matrix.ts). */
export const PROOF_DEFECTS = [
  'none',
  'wrong-htm',
  'wrong-htu',
  'stale-iat',
  'future-iat',
  'replay',
  'wrong-key',
  'no-ath',
  'bad-ath',
  'bad-nonce',
] as const;
export type ProofDefect = (typeof PROOF_DEFECTS)[number];

/**
 * Callers a step is sent as: every caller kind the suite can mint, for two accounts where the kind acts for one (customer,
 * delegated, invited agent, assistant with DPoP), two guest carts, the operator, the assistant's browser session carried by
 * the web-agent forwarder; and the credential defects the suite can forge: tokens (expired, wrong audience, guest headers
 * on a customer token, a forged guest session or invited-agent context, a forwarder without an artifact) and DPoP proofs
 * (`assistant:proof-<defect>`, account a's assistant session).
 */
export const CALLERS = [
  'customer:a',
  'customer:b',
  'delegated:a',
  'delegated:b',
  'guest:a',
  'guest:b',
  'guest:no-session',
  'guest:forged-session',
  'customer:expired',
  'customer:guest-headers',
  'anonymous',
  'operator',
  'invited:a',
  'invited:b',
  'invited:expired-context',
  'invited:forged-context',
  'invited:wrong-audience',
  'assistant:a',
  'assistant:b',
  'assistant:expired',
  'assistant:bearer',
  ...PROOF_DEFECTS.map((d) => `assistant:proof-${d}` as const),
  'browser:a',
  'forwarder:no-artifact',
] as const;
export type Caller = (typeof CALLERS)[number];

/** The capability a caller needs the profile to claim. */
export const CALLER_CAPABILITY: Partial<Record<Caller, keyof Profile['capabilities']>> = {
  'delegated:a': 'delegated',
  'delegated:b': 'delegated',
  'guest:a': 'guests',
  'guest:b': 'guests',
  'guest:no-session': 'guests',
  'guest:forged-session': 'guests',
  operator: 'operators',
  ...Object.fromEntries(CALLERS.filter((c) => /^(invited|forwarder):/.test(c)).map((c) => [c, 'invitedAgents'])),
  ...Object.fromEntries(CALLERS.filter((c) => /^(assistant|browser):/.test(c)).map((c) => [c, 'assistants'])),
};

/** The proof defect of an assistant caller label (`assistant:proof-<defect>`), if any. */
export const proofDefectOf = (caller: string): ProofDefect | undefined => PROOF_DEFECTS.find((d) => caller === `assistant:proof-${d}`);

/** Caller labels whose credential is defective: they act for account a, had the deployment accepted them. */
const ACTS_FOR_A =
  /^(customer:expired|customer:guest-headers|invited:(expired-context|forged-context|wrong-audience)|assistant:(expired|bearer|proof-.+))$/;

/**
 * The account a caller acts on (a or b), or the guest cart it owns; undefined for a caller that owns nothing. An agent
 * (delegated, invited, assistant, the assistant's browser session) acts for its account: its cart is the account's cart.
 */
export function ownerOf(caller: string): string | undefined {
  if (/^(customer|delegated|invited|assistant|browser):a$/.test(caller) || ACTS_FOR_A.test(caller)) return 'account:a';
  if (/^(customer|delegated|invited|assistant|browser):b$/.test(caller)) return 'account:b';
  if (caller === 'guest:a' || caller === 'guest:b') return caller;
  return undefined;
}

/** The assistant session a caller speaks as (its conversations are that session's), if any. */
export const sessionOf = (caller: string): 'a' | 'b' | undefined =>
  /^(assistant|browser):/.test(caller) ? (caller.endsWith(':b') ? 'b' : 'a') : undefined;

/** Mutations into the negative space; `idempotency-key` and `repeat` are positive (the spec says they change nothing). */
export const MUTATIONS = [
  'wrong-type',
  'missing-member',
  'over-long',
  'bad-escape',
  'not-json',
  'no-content-type',
  'duplicate-header',
  'absent-header',
  'wrong-method',
  'unknown-id',
  'foreign-id',
  'foreign-card',
  'bad-path-escape',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** The operations explored, with what their plan needs. */
export const EXPLORED = {
  getCart: {},
  addCartItem: { body: true },
  updateCartItem: { body: true, variantPath: true },
  removeCartItem: { variantPath: true },
  checkoutSavedCard: { body: true },
  listOrders: {},
  getOrder: { ref: 'order' },
  cancelOrder: { ref: 'order' },
  listAddresses: {},
  addAddress: { body: true },
  deleteAddress: { ref: 'address' },
  getProfile: {},
  listPaymentMethods: {},
  searchProducts: {},
  listConversations: {},
  openConversation: { body: true },
} as const satisfies Record<string, { body?: true; variantPath?: true; ref?: 'order' | 'address' }>;
export type ExploredOperation = keyof typeof EXPLORED;

export interface PlanStep {
  op: ExploredOperation;
  caller: Caller;
  /** Which of the two variants (profile data `variant`, `otherVariant`) a cart step names. */
  variant: 0 | 1;
  quantity: number;
  /** Whose last created row a path id names (`foreign-id` names the other account's). */
  mutation?: Mutation;
  /** An Idempotency-Key from a small pool, so that keys repeat within a sequence. */
  idempotencyKey?: string;
  /** Sent again right after, exactly (fresh credentials): a retry. */
  repeat?: boolean;
}

/**
 * Callers the profile's capabilities allow. Assistant sessions are registered through the identity-provider proxy's
 * routes: without the proxy secret the suite cannot make one, and no assistant caller is generated.
 */
export const callersFor = (profile: Profile): Caller[] =>
  CALLERS.filter((c) => {
    const cap = CALLER_CAPABILITY[c];
    if (cap === 'assistants' && !profile.secrets.proxyIdpSecret) return false;
    return cap === undefined || profile.capabilities[cap];
  });

/** The mutations that mean something for an operation: path ids for row reads and writes, bodies for writes. */
function mutationsOf(op: ExploredOperation): Mutation[] {
  const spec = EXPLORED[op] as { body?: true; variantPath?: true; ref?: 'order' | 'address' };
  const headers: Mutation[] = ['duplicate-header', 'absent-header', 'wrong-method', 'bad-path-escape'];
  if (spec.ref) return ['foreign-id', 'foreign-id', 'foreign-id', 'unknown-id', ...headers];
  if (spec.body)
    return [
      'wrong-type',
      'missing-member',
      'over-long',
      'bad-escape',
      'not-json',
      'no-content-type',
      ...(op === 'checkoutSavedCard' ? (['foreign-card', 'foreign-card'] as const) : []),
      ...headers,
    ];
  return headers;
}

/** The assistant conversation operations (their routes are the target's own: its assistant description document). */
export const CONVERSATION_OPS: ReadonlySet<ExploredOperation> = new Set(['listConversations', 'openConversation']);

/** How often each operation comes: the state builders (cart writes, checkout, creates) and their observers most. */
const OP_WEIGHTS: Record<ExploredOperation, number> = {
  addCartItem: 5,
  checkoutSavedCard: 4,
  getCart: 3,
  listOrders: 2,
  getOrder: 2,
  addAddress: 2,
  deleteAddress: 2,
  removeCartItem: 2,
  cancelOrder: 1,
  updateCartItem: 1,
  listAddresses: 1,
  getProfile: 1,
  listPaymentMethods: 1,
  searchProducts: 1,
  listConversations: 1,
  openConversation: 1,
};

/**
 * One plan step. Positive steps (owned callers, no mutation) dominate, so that sequences build state (carts filled,
 * orders placed, addresses added) for the negative ones to probe; writes carry a repeated Idempotency-Key and are
 * retried more often than reads.
 */
export function planStepArbitrary(callers: readonly Caller[]): fc.Arbitrary<PlanStep> {
  // Positive steps are sent as a caller that owns a cart with a sound credential (a defective one acts for account a only
  // had the deployment accepted it), so that sequences build state for the negative ones to probe.
  const owned = callers.filter((c) => ownerOf(c) !== undefined && !ACTS_FOR_A.test(c));
  // Conversations are the assistant's: without an assistant caller they are not generated; with one, mostly sent as it.
  const sessions = callers.filter((c) => sessionOf(c) !== undefined && c.startsWith('assistant:'));
  const weights = (Object.entries(OP_WEIGHTS) as [ExploredOperation, number][]).filter(
    ([o]) => sessions.length > 0 || !CONVERSATION_OPS.has(o),
  );
  const op = fc.oneof(...weights.map(([o, weight]) => ({ weight, arbitrary: fc.constant(o) })));
  return op.chain((o) => {
    const usual = CONVERSATION_OPS.has(o) ? sessions : owned;
    const write = EXPLORED[o] && ('body' in EXPLORED[o] || o === 'removeCartItem' || o === 'deleteAddress' || o === 'cancelOrder');
    return fc.record(
      {
        op: fc.constant(o),
        caller: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...usual) }, { weight: 1, arbitrary: fc.constantFrom(...callers) }),
        variant: fc.constantFrom<0 | 1>(0, 1),
        quantity: fc.integer({ min: 1, max: 3 }),
        mutation: fc.oneof(
          { weight: EXPLORED[o] && 'ref' in EXPLORED[o] ? 2 : 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(...mutationsOf(o)) },
        ),
        idempotencyKey: fc.oneof(
          { weight: write ? 1 : 3, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('k1', 'k2') },
        ),
        repeat: fc.oneof({ weight: write ? 2 : 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      },
      { requiredKeys: ['op', 'caller', 'variant', 'quantity'] },
    ) as fc.Arbitrary<PlanStep>;
  });
}

/** A plan step in one line, for the console and the report. */
export function describePlan(p: PlanStep): string {
  const extras = [
    p.mutation && `mutation ${p.mutation}`,
    p.idempotencyKey && `Idempotency-Key ${p.idempotencyKey}`,
    p.repeat && 'sent twice',
  ].filter(Boolean);
  return `${p.op} as ${p.caller}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}
