// Stage "handler": runs the route: an operation with the resolved actor and validated input, any other route (public,
// webhook, internal) with its input alone.
import type { RequestHandler } from 'express';
import { contextAt } from './context.js';
import type { RouteDef } from './route.js';

const NO_INPUT = Object.freeze({ params: undefined, query: undefined, body: undefined });

export function handlerStage(route: RouteDef): RequestHandler {
  if (route.operation !== null) {
    return async (req, res, next) => {
      const ctx = contextAt(res, 'validated');
      ctx.result = await route.handle({ ctx, domain: ctx.domain, actor: ctx.actor, input: ctx.input, req });
      next();
    };
  }
  return async (req, res, next) => {
    const ctx = contextAt(res, 'bound');
    ctx.result = await route.handle({ domain: ctx.domain, input: ctx.input ?? NO_INPUT, req });
    next();
  };
}
