// The one route model: a contract row (method, path, operation id, how a caller authenticates; contract/routes.ts,
// contract/operations.ts), the zod schemas that validate its input and output (and that the description documents are
// generated from), and its handler. Every route is one: operations, the public routes, the webhook, the internal routes.
// The stage table (groups.ts) says which stages run for a route from its row; routes/ only defines them.
import type { Request } from 'express';
import type { z } from 'zod';
import type { ErrorCode } from '../../../contract/errors.js';
import type { Operation } from '../../../contract/operations.js';
import type { RouteRow } from '../../../contract/routes.js';
import type { Domain } from '../domain.js';
import type { Actor, HandlerResult, Validated } from './context.js';

export type Schema = z.ZodType;

export interface Success {
  status: number;
  schema: Schema | null;
  description: string;
}

export interface HandlerArgs<I> {
  ctx: Validated;
  domain: Domain;
  /** Operations: the resolved actor. Routes without a token (public, webhook, internal) have none. */
  actor: Actor;
  input: I;
  req: Request;
}

/** What a route without a token (public, webhook, internal) is given: no actor, no authenticated context. */
export interface PlainArgs<I> {
  domain: Domain;
  input: I;
  req: Request;
}

export interface RouteInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

export interface RouteDef {
  /** Its row of the contract. */
  readonly row: RouteRow;
  /** Operations (token or DPoP session): their row of contract/operations.ts (callers, scopes, group); else null. */
  readonly operation: Operation | null;
  readonly summary: string;
  /** A longer description for the description document (internal routes). */
  readonly description?: string;
  readonly params?: Schema;
  readonly query?: Schema;
  readonly body?: Schema;
  /** The route's success first; further statuses it may answer after it (internal routes). */
  readonly successes: readonly Success[];
  /** Domain errors the handler may answer, beyond those of the stages; documented in the description documents. */
  readonly errors: readonly ErrorCode[];
  /** Catalog reads: weak ETag, `Cache-Control: private, no-cache`, 304 on a matching If-None-Match. */
  readonly validators: boolean;
  /** The handler stage calls it with `HandlerArgs` for operations and `PlainArgs` for the other routes. */
  handle(args: HandlerArgs<RouteInput> | PlainArgs<RouteInput>): HandlerResult | Promise<HandlerResult>;
}

/** A route that is an operation of contract/operations.ts. */
export type OperationRouteDef = RouteDef & { readonly operation: Operation };

export const isOperation = (route: RouteDef): route is OperationRouteDef => route.operation !== null;

/** The route's success (its first). */
export const successOf = (route: RouteDef): Success => route.successes[0]!;
