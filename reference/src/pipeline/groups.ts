// The stage table: which stages run for which group of routes, in the spec's order (Authentication > Request processing
// order). It is the wiring itself, not a description of it: app.ts builds every route's handlers with `pipelineFor`, and
// docs/pipeline.md's table of groups is generated from it (scripts/gen-docs.ts). Like node-oidc-provider's route tables,
// reading it tells what runs; there is no other place where stages are put together. A route's group follows from its
// contract row (`groupOf`); where a shared stage treats groups differently, the option is written here.
import type { RequestHandler } from 'express';
import type { Domain } from '../domain.js';
import { contextOf } from './context.js';
import type { RouteDef } from './route.js';
import { BOUNDED_BODY, decodeJsonStage } from './01-request.js';
import { boundedBodyStage, conversationWriteCapStage, rawBodyStage } from './01-body-readers.js';
import { domainStage } from './02-domain.js';
import { authenticateStage } from './03-authenticate.js';
import { providerSignatureStage } from './03-provider-signature.js';
import { sharedSecretStage } from './03-shared-secret.js';
import { admitCallerStage } from './04-admit-caller.js';
import { actorStage } from './05-actor.js';
import { guardStage } from './06-guard.js';
import { rateLimitStage } from './07-rate-limit.js';
import { inputValidationStage } from './08-input-validation.js';
import { handlerStage } from './09-handler.js';
import { outputValidationStage } from './10-output-validation.js';

export type Group = 'public' | 'webhook' | 'internal' | 'conversations' | 'operations';

export interface Stage {
  /** As docs/pipeline.md names it. */
  readonly name: string;
  /** Runs app-wide, before routing (app.ts mounts it once); listed here so that each group reads in full. */
  readonly appWide?: true;
  readonly make?: (route: RouteDef, domain: Domain) => RequestHandler | readonly RequestHandler[];
}

const request: Stage = { name: 'request', appWide: true };

/** Plumbing, not a stage of the spec: the route the request matched (and its operation), for every stage after it. */
const bindRoute: Stage = {
  name: 'route',
  make: (route) => (_req, res, next) => {
    const ctx = contextOf(res);
    ctx.route = route;
    if (route.operation !== null) ctx.operation = route.operation;
    next();
  },
};

const domain: Stage = { name: 'domain', make: (_r, d) => domainStage(d) };
const inputValidation: Stage = { name: 'input validation', make: (route) => inputValidationStage(route) };
const handler: Stage = { name: 'handler', make: (route) => handlerStage(route) };

const afterDecode: readonly Stage[] = [
  { name: 'decode', make: () => decodeJsonStage() },
  domain,
  { name: 'authenticate', make: () => authenticateStage() },
  { name: 'admit caller', make: () => admitCallerStage() },
  { name: 'actor', make: () => actorStage() },
  { name: 'guard', make: () => guardStage() },
  { name: 'rate limit', make: () => rateLimitStage() },
  inputValidation,
  handler,
  // An operation's one success, whatever status its handler answers.
  { name: 'output validation', make: (route) => outputValidationStage(route, 'first') },
];

/** The routes outside the operations answer only the statuses they declare. */
const declaredOutput: Stage = { name: 'output validation', make: (route) => outputValidationStage(route, 'declared') };

export const STAGE_TABLE: { readonly [G in Group]: readonly Stage[] } = {
  public: [request, bindRoute, domain, handler, declaredOutput],
  webhook: [
    request,
    bindRoute,
    { name: 'raw body (256 KiB)', make: () => rawBodyStage() },
    domain,
    { name: 'provider signature', make: (route) => providerSignatureStage(route) },
    handler,
    declaredOutput,
  ],
  internal: [
    request,
    bindRoute,
    domain,
    { name: 'shared secret', make: (route) => sharedSecretStage(route) },
    // Read as it arrives, up to the row's bodyLimit: a content coding is refused, an empty `charset=` ignored.
    { name: 'bounded body', make: (route) => boundedBodyStage(route, BOUNDED_BODY) },
    inputValidation,
    handler,
    declaredOutput,
  ],
  // Conversation writes are capped at 64 KiB by Content-Length, before any byte of the body is read (spec, Limits).
  conversations: [
    request,
    bindRoute,
    { name: 'write cap (64 KiB by Content-Length)', make: () => conversationWriteCapStage() },
    ...afterDecode,
  ],
  operations: [request, bindRoute, ...afterDecode],
};

/** A route's group, from its contract row. */
export function groupOf(route: RouteDef): Group {
  switch (route.row.kind) {
    case 'operation':
      return route.operation?.group === 'conversation' ? 'conversations' : 'operations';
    default:
      return route.row.kind;
  }
}

/** The handlers of one route, in its group's order (the app-wide stages excepted: app.ts mounts them). */
export function stageHandlers(route: RouteDef, domain: Domain, group: Group = groupOf(route)): RequestHandler[] {
  return STAGE_TABLE[group].filter((s) => !s.appWide && s.make).flatMap((s) => s.make!(route, domain));
}

/** A route's stages as the one handler app.ts mounts (see `chain`). */
export const pipelineFor = (route: RouteDef, domain: Domain): RequestHandler => chain(stageHandlers(route, domain));

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

/** Stage names per group, for docs/pipeline.md (plumbing left out). */
export function stageNames(group: Group): string[] {
  return STAGE_TABLE[group].filter((s) => s !== bindRoute).map((s) => s.name);
}
