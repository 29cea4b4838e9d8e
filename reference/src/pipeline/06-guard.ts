// Stage "guard": the operation's declared callers, then its API scopes, then delegated scope translation
// ([PUR-RULE-2]; spec, Authentication > Scope translation).
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
    // [PUR-RULE-2] [ERR-TABLE-8] [END-LIST-1] [END-LIST-2] [END-LIST-3] [END-LIST-4] [END-LIST-5] the operation's caller list.
    if (!CALLER_LISTS[operation.callers].members.includes(actor.callerKind)) {
      throw new ProblemError('caller_not_allowed', { detail: `${operation.operationId} does not admit ${actor.callerKind} callers.` });
    }
    if (actor.agent) {
      // [AUTH-SCOPE-3] invited agents and assistants are never translated: their immutable permissions apply.
      guardAgent(operation, actor.agent);
      next();
      return;
    }
    const missing = missingScopes(operation, ctx.scopes);
    // [AUTH-CUST-1] [AUTH-SCOPE-2] [ERR-TABLE-9] a missing API scope: 403 insufficient_scope naming it.
    if (missing.length > 0) {
      throw new ProblemError('insufficient_scope', { detail: `The token lacks the scope ${missing[0]}.`, scope: missing[0] });
    }
    // [AUTH-SCOPE-1] delegated callers: the operation's domain scopes, as a fresh copy.
    if (actor.callerKind === 'delegated') actor.domainScopes = translateScopes(operation, ctx.scopes);
    next();
  };
}
