// The stage table: which stages run for which group of routes, in the spec's order (Authentication > Request processing
// order). It is the wiring itself, not a description of it: app.ts builds every route's handlers with `pipelineFor`, and
// docs/pipeline.md's table of groups is generated from it (scripts/gen-docs.ts). Like node-oidc-provider's route tables,
// reading it tells what runs; there is no other place where stages are put together.
import type { RequestHandler } from 'express';
import type { Domain } from '../domain.js';
import type { RouteDef } from '../routes/define.js';
import { contextOf } from './context.js';
import { decodeJsonStage } from './01-request.js';
import { domainStage } from './02-domain.js';
import { authenticateStage } from './03-authenticate.js';
import { admitCallerStage } from './04-admit-caller.js';
import { actorStage } from './05-actor.js';
import { guardStage } from './06-guard.js';
import { rateLimitStage } from './07-rate-limit.js';
import { inputValidationStage } from './08-input-validation.js';
import { handlerStage } from './09-handler.js';
import { outputValidationStage } from './10-output-validation.js';
import { conversationWriteCapStage } from '../routes/conversations.js';
import { internalStages, type InternalRoute } from '../routes/internal.js';
import { webhookStages } from '../routes/webhook.js';

/** What each group's stages are built from: the route they serve. */
export interface RouteOf {
  /** A public route is its handler. */
  public: RequestHandler;
  webhook: null;
  internal: InternalRoute;
  conversations: RouteDef;
  operations: RouteDef;
}
export type Group = keyof RouteOf;

export interface Stage<R> {
  /** As docs/pipeline.md names it. */
  readonly name: string;
  /** Runs app-wide, before routing (app.ts mounts it once); listed here so that each group reads in full. */
  readonly appWide?: true;
  readonly make?: (route: R, domain: Domain) => RequestHandler | readonly RequestHandler[];
}

const request = <R>(): Stage<R> => ({ name: 'request', appWide: true });

/** Plumbing, not a stage of the spec: the operation the request matched, for every stage after it. */
const bindRoute: Stage<RouteDef> = {
  name: 'route',
  make: (route) => (_req, res, next) => {
    const ctx = contextOf(res);
    ctx.route = route;
    ctx.operation = route.operation;
    next();
  },
};

const afterDecode: readonly Stage<RouteDef>[] = [
  { name: 'decode', make: () => decodeJsonStage() },
  { name: 'domain', make: (_r, domain) => domainStage(domain) },
  { name: 'authenticate', make: () => authenticateStage() },
  { name: 'admit caller', make: () => admitCallerStage() },
  { name: 'actor', make: () => actorStage() },
  { name: 'guard', make: () => guardStage() },
  { name: 'rate limit', make: () => rateLimitStage() },
  { name: 'input validation', make: () => inputValidationStage() },
  { name: 'handler', make: () => handlerStage() },
  { name: 'output validation', make: () => outputValidationStage() },
];

export const STAGE_TABLE: { readonly [G in Group]: readonly Stage<RouteOf[G]>[] } = {
  public: [request(), { name: 'handler', make: (handler) => handler }],
  webhook: [request(), ...webhookStages],
  internal: [request(), ...internalStages],
  // Conversation writes are capped at 64 KiB by Content-Length, before any byte of the body is read (spec, Limits).
  conversations: [
    request(),
    bindRoute,
    { name: 'write cap (64 KiB by Content-Length)', make: () => conversationWriteCapStage() },
    ...afterDecode,
  ],
  operations: [request(), bindRoute, ...afterDecode],
};

/** The handlers of one route of a group, in the table's order (the app-wide stages excepted: app.ts mounts them). */
export function stageHandlers<G extends Group>(group: G, route: RouteOf[G], domain: Domain): RequestHandler[] {
  const stages = STAGE_TABLE[group] as readonly Stage<RouteOf[G]>[];
  return stages.filter((s) => !s.appWide && s.make).flatMap((s) => s.make!(route, domain));
}

/** A route's stages as the one handler app.ts mounts (see `chain`). */
export const pipelineFor = <G extends Group>(group: G, route: RouteOf[G], domain: Domain): RequestHandler =>
  chain(stageHandlers(group, route, domain));

/**
 * Handlers run in order as one: each calls next() as it would under Express, an error (thrown, passed or rejected) skips
 * the rest and goes to the boundary. Express then dispatches one layer per route instead of one per stage, which is most
 * of its per-request routing cost.
 */
export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0]!;
  return (req, res, done) => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) return done(err);
      const handler = handlers[i++];
      if (handler === undefined) return done();
      try {
        const out = handler(req, res, next) as unknown;
        if (out instanceof Promise) out.catch((e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
    };
    next();
  };
}

/** The group of an operation of contract/operations.ts. */
export const groupOf = (route: RouteDef): 'conversations' | 'operations' =>
  route.operation.group === 'conversation' ? 'conversations' : 'operations';

/** Stage names per group, for docs/pipeline.md (plumbing left out). */
export function stageNames(group: Group): string[] {
  return STAGE_TABLE[group].filter((s) => s !== bindRoute).map((s) => s.name);
}
