// Route definitions: a contract row (looked up by operation id) with its schemas and handler, as the one RouteDef of
// pipeline/route.ts. Operations take `defineRoute`; the public routes, the webhook and the internal routes `defineSpecialRoute`.
import type { z } from 'zod';
import { OPERATIONS_BY_ID, operationRow } from '../../../contract/operations.js';
import { specialRow } from '../../../contract/routes.js';
import type { ErrorCode } from '../../../contract/errors.js';
import type { HandlerResult } from '../pipeline/context.js';
import type { HandlerArgs, PlainArgs, RouteDef, Schema, Success } from '../pipeline/route.js';

export type { HandlerArgs, RouteDef } from '../pipeline/route.js';

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
  success: Success;
  errors?: readonly ErrorCode[];
  validators?: boolean;
  handle(args: HandlerArgs<{ params: Out<P>; query: Out<Q>; body: Out<B> }>): HandlerResult | Promise<HandlerResult>;
}): RouteDef {
  const operation = OPERATIONS_BY_ID.get(def.operationId);
  if (!operation) throw new Error(`no operation ${def.operationId} in contract/operations.ts`);
  return {
    row: operationRow(operation),
    operation,
    summary: def.summary,
    params: def.params,
    query: def.query,
    body: def.body,
    successes: [def.success],
    errors: def.errors ?? [],
    validators: def.validators ?? false,
    handle: def.handle as RouteDef['handle'],
  };
}

/** A route of contract/routes.ts (public, webhook, internal): no token, so no actor; every status it answers declared. */
export function defineSpecialRoute<P extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(def: {
  operationId: string;
  summary: string;
  description?: string;
  params?: P;
  body?: B;
  successes: readonly Success[];
  errors?: readonly ErrorCode[];
  handle(args: PlainArgs<{ params: Out<P>; query: undefined; body: Out<B> }>): HandlerResult | Promise<HandlerResult>;
}): RouteDef {
  return {
    row: specialRow(def.operationId),
    operation: null,
    summary: def.summary,
    description: def.description,
    params: def.params,
    body: def.body,
    successes: def.successes,
    errors: def.errors ?? [],
    validators: false,
    handle: def.handle as RouteDef['handle'],
  };
}
