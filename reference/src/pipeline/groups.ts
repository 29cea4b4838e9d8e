// The one place that says which stages run for which route group, in the spec's order (Request processing order).
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

/** Stage names per group, as docs/pipeline.md lists them. The request stage runs app-wide, before every group. */
export const GROUP_STAGES = {
  public: ['request', 'handler'],
  webhook: ['request', 'raw body (256 KiB)', 'domain', 'provider signature', 'handler'],
  internal: ['request', 'domain', 'shared secret', 'bounded body', 'input validation', 'handler'],
  conversations: [
    'request',
    'write cap (64 KiB by Content-Length)',
    'decode',
    'domain',
    'authenticate',
    'admit caller',
    'actor',
    'guard',
    'rate limit',
    'input validation',
    'handler',
    'output validation',
  ],
  operations: [
    'request',
    'decode',
    'domain',
    'authenticate',
    'admit caller',
    'actor',
    'guard',
    'rate limit',
    'input validation',
    'handler',
    'output validation',
  ],
} as const;

function bindRoute(route: RouteDef): RequestHandler {
  return (_req, res, next) => {
    const ctx = contextOf(res);
    ctx.route = route;
    ctx.operation = route.operation;
    next();
  };
}

/** The handlers of one operation (customer, agent and guest traffic under /v1). Each stage runs once per operation. */
export function operationPipeline(route: RouteDef, domain: Domain): RequestHandler[] {
  return [
    bindRoute(route),
    // Conversation writes are capped at 64 KiB by Content-Length, before any byte of the body is read (spec, Limits).
    ...(route.operation.group === 'conversation' ? [conversationWriteCapStage()] : []),
    ...decodeJsonStage(),
    domainStage(domain),
    authenticateStage(),
    admitCallerStage(),
    actorStage(),
    guardStage(),
    rateLimitStage(),
    inputValidationStage(),
    handlerStage(),
    outputValidationStage(),
  ];
}
