// Per-request state: one typed object, held in res.locals, filled stage by stage in the spec's order.
import type { Request, Response } from 'express';
import type { Operation } from '../../../contract/operations.js';
import type { CallerKind } from '../../../contract/callers.js';
import type { Scheme } from '../auth/challenge.js';
import type { Classification } from '../auth/classify.js';
import type { AgentAdmission } from '../admission/agents.js';
import type { VerifiedToken } from '../auth/verify-token.js';
import type { Domain } from '../domain.js';
import type { RouteDef } from '../routes/define.js';

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

export interface RequestContext {
  readonly requestId: string;
  /** Challenge scheme chosen from the request alone, before verification. */
  readonly scheme: Scheme;
  domain?: Domain;
  route?: RouteDef;
  operation?: Operation;
  token?: VerifiedToken;
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

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function contextOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('request stage did not run');
  return ctx;
}

export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pipeline: ${what} is missing (stage order)`);
  return value;
}

export type Req = Request;
