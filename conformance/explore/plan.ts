// What `explore` generates: a plan step names an operation of the contract, a caller (a kind the suite can mint, or a
// credential defect it can forge) and at most one mutation into the negative space. Plans are symbolic (the path id of
// "account a's last order", not the id itself), so that a replay on a fresh deployment resolves them to that
// deployment's own ids; each is resolved to a concrete Step (exchange.ts) only when it is sent. Data and arbitraries only.
import fc from 'fast-check';
import type { CallerKind } from '../../contract/callers.js';
import type { Profile } from '../../contract/profile.js';
import { bodyShapeArbitrary, describeBody, type BodyShape } from './bodies.js';
import { describeToken, tokenShapeArbitrary, type TokenKind, type TokenShape } from './tokens.js';
import { describeProof, proofShapeArbitrary, type ProofShape } from './proofs.js';
import { describeSession, sessionShapeArbitrary, type SessionShape } from './sessions.js';
import { contextShapeArbitrary, describeContext, type ContextShape } from './contexts.js';
import { admittedKinds, COMMANDS, hasOwnCredential, isWrite, type Command } from './commands.js';

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
  // The internal routes' and the webhook's own credential (the route's shared secret in its carrier, or a provider
  // signature made with the webhook secret), and a wrong one in the same place.
  'secret:own',
  'secret:wrong',
  // A machine token of the identity-provider proxy's client, a client with no caller kind (Token verification 3): what a
  // proxy might send in place of its shared secret.
  'machine:proxy',
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
  'conditional',
  'body-shape',
  'token-shape',
  'proof-shape',
  'session-shape',
  'context-shape',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** The commands explored: every route of the contract (commands.ts). */
export type ExploredOperation = string;

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
  /** With the query parameters the target's document declares at their defaults (a query that changes nothing). */
  query?: boolean;
  /** Then sent again at once under the same Idempotency-Key with another body (rekey.ts). */
  rekey?: boolean;
  /** Not generated: the second send of a rekey, its body altered (rekey.ts). */
  altered?: boolean;
  /** Then sent again at once with the first send's credential reused: its DPoP proof, its context (reuse.ts). */
  reuse?: boolean;
  /** With the mutation `body-shape`: the body generated from the valid one (bodies.ts). */
  bodyShape?: BodyShape;
  /** With the mutation `token-shape`: how the caller's token is varied (tokens.ts). */
  token?: TokenShape;
  /** With the mutation `proof-shape`: how an assistant's DPoP proof and its Authorization are varied (proofs.ts). */
  proof?: ProofShape;
  /** With the mutation `session-shape`: how a guest's session value, its carrier and its token are varied (sessions.ts). */
  session?: SessionShape;
  /** With the mutation `context-shape`: how an invited agent's context and forwarder token are varied (contexts.ts). */
  context?: ContextShape;
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

/** The mutations that mean something for a command: path ids for row reads and writes, bodies for writes. */
function mutationsOf(c: Command): Mutation[] {
  const headers: Mutation[] = ['duplicate-header', 'absent-header', 'wrong-method', 'bad-path-escape'];
  // The caller's token with a claim or JOSE header varied (tokens.ts), on the routes of the access tokens.
  if (c.kind === 'operation' && c.group !== 'conversation') headers.push('token-shape', 'token-shape', 'token-shape');
  // A conditional GET (If-None-Match: the ETag this deployment last gave for the path) where the spec pins ETag and 304.
  if (c.group === 'catalog') headers.push('conditional', 'conditional');
  if (c.ref === 'order' || c.ref === 'address') return ['foreign-id', 'foreign-id', 'foreign-id', 'unknown-id', ...headers];
  if (isWrite(c) && c.method !== 'DELETE')
    return [
      'wrong-type',
      'missing-member',
      'over-long',
      'bad-escape',
      'not-json',
      'no-content-type',
      ...(c.id === 'checkoutSavedCard' ? (['foreign-card', 'foreign-card'] as const) : []),
      // A body generated from the valid one and beyond it (bodies.ts), half of the body mutations; not on the webhook,
      // whose body is signed bytes.
      ...(c.kind === 'webhook' ? [] : (Array.from({ length: 6 }, () => 'body-shape') as Mutation[])),
      ...headers,
    ];
  return headers;
}

/**
 * The writes sent again under their Idempotency-Key with another body (rekey.ts): the creates of a row from free text.
 * A body whose members name rows (a variant, a saved card) changes its meaning when changed, and what a deployment
 * answers to it first (a validation, an empty cart) is its own.
 */
export const REKEYED: ReadonlySet<ExploredOperation> = new Set(['addAddress', 'requestReturn']);

/** The assistant conversation operations (their routes are the target's own: its assistant description document). */
export const CONVERSATION_OPS: ReadonlySet<ExploredOperation> = new Set(
  COMMANDS.filter((c) => c.group === 'conversation').map((c) => c.id),
);

/** The caller kind a label presents (a defective credential presents its kind's); undefined for no kind at all. */
export function kindOfCaller(caller: string): CallerKind | 'anonymous' | 'secret' | undefined {
  const prefix = caller.split(/[:#]/)[0]!;
  const kinds: Record<string, CallerKind | 'anonymous' | 'secret'> = {
    customer: 'customer',
    delegated: 'delegated',
    guest: 'guest',
    invited: 'invited-agent',
    assistant: 'assistant',
    browser: 'assistant',
    operator: 'operator',
    anonymous: 'anonymous',
    secret: 'secret',
  };
  return kinds[prefix];
}

/** A caller with a sound credential of its kind (not a forged or defective one). */
export const isSound = (caller: string): boolean =>
  /^(customer|delegated|invited|assistant|guest):[ab]$/.test(caller) || caller === 'browser:a' || caller === 'operator';

/**
 * One plan step. Positive steps (owned callers, no mutation) dominate, so that sequences build state (carts filled,
 * orders placed, addresses added) for the negative ones to probe; writes carry a repeated Idempotency-Key and are
 * retried more often than reads.
 */
export function planStepArbitrary(callers: readonly Caller[]): fc.Arbitrary<PlanStep> {
  // Positive steps are sent as a caller that owns a cart with a sound credential (a defective one acts for account a only
  // had the deployment accepted it), so that sequences build state for the negative ones to probe.
  const owned = callers.filter((c) => ownerOf(c) !== undefined && !ACTS_FOR_A.test(c));
  // Conversations are the assistant's: with an assistant caller, mostly sent as it.
  const sessions = callers.filter((c) => sessionOf(c) !== undefined && c.startsWith('assistant:'));
  const sound = callers.filter(isSound);
  const routeCallers = callers.filter((c) => !c.startsWith('secret:'));
  const op = fc.oneof(...COMMANDS.map((c) => ({ weight: c.weight, arbitrary: fc.constant(c) })));
  return op.chain((c) => {
    // The usual caller: one the contract admits (an owner of a cart for the cart and account routes, a session for the
    // conversations, the route's own credential for an internal route or the webhook); then any caller at all, so that
    // every kind meets every route, refused or not (docs/explore.md, "Callers").
    const admitted = admittedKinds(c);
    const usual = hasOwnCredential(c.id)
      ? (['secret:own'] as Caller[])
      : CONVERSATION_OPS.has(c.id) && sessions.length > 0
        ? sessions
        : [...owned, ...sound].filter((x) => admitted.includes(kindOfCaller(x) as CallerKind));
    // Any caller, its kind drawn first (each kind as often as another, however many labels it has), then its label.
    const anyCallers = hasOwnCredential(c.id) ? [...routeCallers, 'secret:wrong' as Caller] : routeCallers;
    const byKind = [...new Set(anyCallers.map((x) => kindOfCaller(x) ?? 'other'))].map((k) =>
      anyCallers.filter((x) => (kindOfCaller(x) ?? 'other') === k),
    );
    const any = fc.oneof(...byKind.map((labels) => fc.constantFrom(...labels)));
    const write = isWrite(c);
    return fc
      .record(
        {
          op: fc.constant(c.id),
          caller: fc.oneof(...(usual.length > 0 ? [{ weight: c.weight > 1 ? 4 : 2, arbitrary: fc.constantFrom(...usual) }] : []), {
            weight: 1,
            arbitrary: any,
          }),
          variant: fc.constantFrom<0 | 1>(0, 1),
          quantity: fc.integer({ min: 1, max: 3 }),
          mutation: fc.oneof(
            { weight: c.ref === 'order' || c.ref === 'address' ? 2 : 4, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constantFrom(...mutationsOf(c)) },
          ),
          idempotencyKey: fc.oneof(
            { weight: write ? 1 : 3, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constantFrom('k1', 'k2') },
          ),
          repeat: fc.oneof({ weight: write ? 2 : 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
          rekey: REKEYED.has(c.id) ? fc.boolean() : fc.constant(false),
          query: c.method === 'GET' ? fc.boolean() : fc.constant(false),
        },
        { requiredKeys: ['op', 'caller', 'variant', 'quantity'] },
      )
      .map(({ rekey, query, ...p }) => ({
        ...p,
        ...(rekey && p.idempotencyKey !== undefined && p.mutation === undefined ? { rekey } : {}),
        ...(query ? { query } : {}),
      }))
      .chain((p) => {
        if (p.mutation === 'body-shape') return bodyShapeArbitrary().map((bodyShape) => ({ ...p, bodyShape }));
        // A sound assistant session's or invited agent's step, unmutated, has its DPoP proof or context shaped one time in
        // four, a guest's its session one time in two (guests call fewer routes) (proofs.ts, sessions.ts, contexts.ts).
        // Operations only: the public and special routes take no such credential.
        // One unshaped step of theirs in four is then sent again with its credential reused (reuse.ts).
        const reused = fc.oneof({ weight: 3, arbitrary: fc.constant(p) }, { weight: 1, arbitrary: fc.constant({ ...p, reuse: true }) });
        if (p.mutation === undefined && c.kind === 'operation' && /^assistant:[ab]$/.test(p.caller))
          return fc.oneof(
            { weight: 3, arbitrary: reused },
            { weight: 1, arbitrary: proofShapeArbitrary().map((proof) => ({ ...p, mutation: 'proof-shape' as const, proof })) },
          );
        if (p.mutation === undefined && c.kind === 'operation' && c.group !== 'conversation' && /^guest:[ab]$/.test(p.caller))
          return fc.oneof(
            { weight: 1, arbitrary: fc.constant(p) },
            { weight: 1, arbitrary: sessionShapeArbitrary().map((session) => ({ ...p, mutation: 'session-shape' as const, session })) },
          );
        if (p.mutation === undefined && c.kind === 'operation' && c.group !== 'conversation' && /^invited:[ab]$/.test(p.caller))
          return fc.oneof(
            { weight: 3, arbitrary: reused },
            { weight: 1, arbitrary: contextShapeArbitrary().map((context) => ({ ...p, mutation: 'context-shape' as const, context })) },
          );
        if (p.mutation !== 'token-shape') return fc.constant(p);
        // A token shape for a sound Bearer caller (customer, delegated, guest, operator); any other caller goes unmutated.
        const kind = /^(customer|delegated|guest):[ab]$|^operator$/.test(p.caller) ? (kindOfCaller(p.caller) as TokenKind) : undefined;
        const { mutation: _m, ...rest } = p;
        return kind ? tokenShapeArbitrary(kind).map((token) => ({ ...p, token })) : fc.constant(rest as PlanStep);
      }) as fc.Arbitrary<PlanStep>;
  });
}

/** A plan step in one line, for the console and the report. */
export function describePlan(p: PlanStep): string {
  const extras = [
    p.mutation &&
      `mutation ${p.mutation}${p.bodyShape ? ` (${describeBody(p.bodyShape)})` : ''}${p.token ? ` (${describeToken(p.token)})` : ''}${p.proof ? ` (${describeProof(p.proof)})` : ''}${p.session ? ` (${describeSession(p.session)})` : ''}${p.context ? ` (${describeContext(p.context)})` : ''}`,
    p.idempotencyKey && `Idempotency-Key ${p.idempotencyKey}`,
    p.repeat && 'sent twice',
    p.rekey && 'then under the same key with another body',
    p.reuse && 'then again with its credential reused',
    p.query && 'with its default query',
  ].filter(Boolean);
  return `${p.op} as ${p.caller}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}
