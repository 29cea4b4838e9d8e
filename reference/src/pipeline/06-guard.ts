// Stage "guard": the operation's declared callers, then its API scopes, then delegated scope translation
// (spec, What the service does 1; Scope translation).
import type { RequestHandler } from 'express';
import { CALLER_LISTS } from '../../../contract/callers.js';
import { missingScopes, translateScopes } from '../auth/scopes.js';
import { guardAgent } from '../auth/agent-guard.js';
import { ProblemError } from '../problem.js';
import { contextAt } from './context.js';

export function guardStage(): RequestHandler {
  return (_req, res, next) => {
    const ctx = contextAt(res, 'acting');
    const { operation, actor } = ctx;
    if (!CALLER_LISTS[operation.callers].members.includes(actor.callerKind)) {
      throw new ProblemError('caller_not_allowed', { detail: `${operation.operationId} does not admit ${actor.callerKind} callers.` });
    }
    if (actor.agent) {
      // Invited agents and assistants are never translated: their immutable permissions apply.
      guardAgent(operation, actor.agent);
      next();
      return;
    }
    const missing = missingScopes(operation, ctx.scopes);
    if (missing.length > 0) {
      throw new ProblemError('insufficient_scope', { detail: `The token lacks the scope ${missing[0]}.`, scope: missing[0] });
    }
    if (actor.callerKind === 'delegated') actor.domainScopes = translateScopes(operation, ctx.scopes);
    next();
  };
}
