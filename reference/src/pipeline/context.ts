// Per-request state: one typed object, held in res.locals, filled stage by stage in the spec's order.
import type { Response } from 'express';
import type { Operation } from '../../../contract/operations.js';
import type { CallerKind } from '../../../contract/callers.js';
import type { Scheme } from '../auth/challenge.js';
import type { Classification } from '../auth/classify.js';
import type { VerifiedToken } from '../auth/verify-token.js';
import type { Domain } from '../domain.js';
import type { RouteDef } from './route.js';
import type { EventStream } from '../sse.js';

/** What admission resolved for an agent caller; the actor stage turns it into the live actor. */
export interface AgentAdmission {
  kind: 'invited-agent' | 'assistant';
  agentId: string;
  /** The account acted for; null for a signed-out assistant. */
  accountSub: string | null;
  /** Account permissions in force (assistants: token permissions ∩ the session's live scopes). */
  permissions: readonly string[];
  signedIn: boolean;
  sessionId: string | null;
  /** Client counted by the per-client budget (assistants). */
  clientId: string;
  /** Set when a forwarder brought the agent: its service credential's scopes (needs agent:forward). */
  forwarderScopes: ReadonlySet<string> | null;
}

export interface Actor {
  callerKind: CallerKind;
  /** The account acted for (customer and agent callers). */
  accountSub: string | null;
  /** Key of the cart the actor owns: `account:<sub>` or `guest:<uuid>`; null for a guest without session. */
  cartOwner: string | null;
  /** Delegated callers: the operation's domain scopes after translation (spec, Scope translation). */
  domainScopes: readonly string[];
  channel?: 'web' | 'mcp' | 'openapi';
  origin?: 'oauth' | 'assistant';
  operatorId?: string;
  /** Invited agents and assistants: the admission snapshot their authority comes from. */
  agent?: AgentAdmission;
}

/**
 * The context as the stages fill it. The boundary reads it in whatever state a failure left it, so its fields are
 * optional here; a stage reads it through `contextAt`, typed as the stages before it leave it (below).
 */
export interface RequestContext {
  readonly requestId: string;
  /** Challenge scheme chosen from the request alone, before verification (the request stage; the only place it is derived). */
  readonly scheme: Scheme;
  domain?: Domain;
  route?: RouteDef;
  operation?: Operation;
  token?: VerifiedToken;
  /** The scheme the Authorization header presents the token in (the authenticate stage; the only place it is parsed). */
  presentedScheme?: 'bearer' | 'dpop';
  scopes: ReadonlySet<string>;
  caller?: Classification;
  guestCartId?: string | null;
  shopperIp?: string | null;
  operatorId?: string;
  /** Invited agents and assistants, from the admit-caller stage. */
  agent?: AgentAdmission;
  /** A fresh DPoP-Nonce for a DPoP request: every response to it carries one (success: output stage; error: boundary). */
  dpopNonce?: string;
  actor?: Actor;
  input?: { params: unknown; query: unknown; body: unknown };
  result?: HandlerResult;
}

type With<C, K extends keyof RequestContext> = C & { readonly [F in K]-?: NonNullable<RequestContext[F]> };

/** After the domain stage (every group but the public routes). */
export type Bound = With<RequestContext, 'domain'>;
/** After the domain stage of an operation: its route and operation too. */
export type Routed = With<Bound, 'route' | 'operation'>;
/** After authenticate: the verified token, in which scheme, and the caller kind it classifies as. */
export type Authenticated = With<Routed, 'token' | 'presentedScheme' | 'caller'>;
/** After the actor stage. */
export type Acting = With<Authenticated, 'actor'>;
/** After input validation (operations), or the webhook's and internal routes' own parsing. */
export type Validated = With<Acting, 'input'>;
export type BoundInput = With<Bound, 'input'>;
/** After the handler. */
export type Handled = With<Validated, 'result'>;

interface Reached {
  bound: Bound;
  routed: Routed;
  authenticated: Authenticated;
  acting: Acting;
  validated: Validated;
  'bound input': BoundInput;
  handled: Handled;
}

const FILLED: { readonly [S in keyof Reached]: readonly (keyof RequestContext)[] } = {
  bound: ['domain'],
  routed: ['domain', 'route', 'operation'],
  authenticated: ['domain', 'route', 'operation', 'token', 'presentedScheme', 'caller'],
  acting: ['domain', 'route', 'operation', 'token', 'presentedScheme', 'caller', 'actor'],
  validated: ['domain', 'route', 'operation', 'token', 'presentedScheme', 'caller', 'actor', 'input'],
  'bound input': ['domain', 'input'],
  handled: ['domain', 'route', 'operation', 'token', 'presentedScheme', 'caller', 'actor', 'input', 'result'],
};

/**
 * The context as a stage placed after `at` sees it, typed so: what the stages before it filled is there, without a check
 * per field. A missing field means the stage table puts a stage before what it depends on: a wiring bug, thrown once here.
 */
export function contextAt<S extends keyof Reached>(res: Response, at: S): Reached[S] {
  const ctx = contextOf(res);
  const missing = FILLED[at].filter((f) => ctx[f] === undefined);
  if (missing.length > 0) throw new Error(`pipeline: ${missing.join(', ')} missing at "${at}" (stage order)`);
  return ctx as Reached[S];
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * A streamed success (text/event-stream): the output stage opens the stream with the same headers as any success
   * (the result's, DPoP-Nonce), then hands it to this producer, which resolves when the stream is over.
   */
  stream?: (stream: EventStream) => Promise<void>;
}

export function contextOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('request stage did not run');
  return ctx;
}

/** A value one caller kind's admission provides (operator id, agent admission): absent only on a wiring bug. */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pipeline: ${what} is missing (stage order)`);
  return value;
}
