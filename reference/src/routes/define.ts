// An operation's route: its contract row, the zod schemas that validate its input and output (and that the description
// documents are generated from), and its handler.
import type { Request } from 'express';
import type { z } from 'zod';
import { OPERATIONS_BY_ID, type Operation } from '../../../contract/operations.js';
import type { ErrorCode } from '../../../contract/errors.js';
import type { Domain } from '../domain.js';
import type { Actor, HandlerResult, Validated } from '../pipeline/context.js';

export interface HandlerArgs<I> {
  ctx: Validated;
  domain: Domain;
  actor: Actor;
  input: I;
  req: Request;
}

type Schema = z.ZodType;

export interface RouteDef {
  operation: Operation;
  summary: string;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  success: { status: number; schema: Schema | null; description: string };
  /** Domain errors the handler may answer, beyond those of the pipeline; documented in the description documents. */
  errors: readonly ErrorCode[];
  /** Catalog reads: weak ETag, `Cache-Control: private, no-cache`, 304 on a matching If-None-Match. */
  validators: boolean;
  handle(args: HandlerArgs<{ params: any; query: any; body: any }>): HandlerResult | Promise<HandlerResult>;
}

type Out<S> = S extends Schema ? z.output<S> : undefined;

export function defineRoute<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(def: {
  operationId: string;
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  success: { status: number; schema: Schema | null; description: string };
  errors?: readonly ErrorCode[];
  validators?: boolean;
  handle(args: HandlerArgs<{ params: Out<P>; query: Out<Q>; body: Out<B> }>): HandlerResult | Promise<HandlerResult>;
}): RouteDef {
  const operation = OPERATIONS_BY_ID.get(def.operationId);
  if (!operation) throw new Error(`no operation ${def.operationId} in contract/operations.ts`);
  return {
    operation,
    summary: def.summary,
    params: def.params,
    query: def.query,
    body: def.body,
    success: def.success,
    errors: def.errors ?? [],
    validators: def.validators ?? false,
    handle: def.handle as RouteDef['handle'],
  };
}

/** `/v1/cart/items/{variant_id}` → `/v1/cart/items/:variant_id` */
export const expressPath = (template: string) => template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
