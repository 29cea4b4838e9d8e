// Stage "handler": runs the operation with the resolved actor and validated input.
import type { RequestHandler } from 'express';
import { contextAt } from './context.js';

export function handlerStage(): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextAt(res, 'validated');
    ctx.result = await ctx.route.handle({ ctx, domain: ctx.domain, actor: ctx.actor, input: ctx.input, req });
    next();
  };
}
