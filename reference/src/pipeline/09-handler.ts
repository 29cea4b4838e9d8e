// Stage "handler": runs the operation with the resolved actor and validated input.
import type { RequestHandler } from 'express';
import { contextOf, need } from './context.js';

export function handlerStage(): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextOf(res);
    const route = need(ctx.route, 'route');
    ctx.result = await route.handle({
      ctx,
      domain: need(ctx.domain, 'domain'),
      actor: need(ctx.actor, 'actor'),
      input: need(ctx.input, 'input') as { params: unknown; query: unknown; body: unknown },
      req,
    });
    next();
  };
}
