// Stage "actor": resolves live authority [AUTH-TOKEN-13]: the account's lifecycle for account-bound
// callers, the delegated actor chain, the guest's cart, the operator's attribution.
import type { RequestHandler } from 'express';
import { ensureAccount } from '../store/accounts.js';
import { ProblemError } from '../problem.js';
import { contextAt, need, type Actor } from './context.js';

const ENDED = new Set(['deleting', 'deleted', 'contact_transition']);

export function actorStage(): RequestHandler {
  return (_req, res, next) => {
    const ctx = contextAt(res, 'authenticated');
    const { domain, caller } = ctx;
    const { db, clock } = domain;
    const claims = ctx.token.claims;
    let actor: Actor;
    switch (caller.kind) {
      case 'customer':
      case 'delegated': {
        const account = ensureAccount(db, caller.sub, clock(), { name: claims.name, email: claims.email });
        // [AUTH-ACTIVE-1] [STA-LIFE-1] [STA-LIFE-2] [STA-LIFE-3] [ERR-TABLE-5] account-bound requests need an active account.
        if (ENDED.has(account.state)) {
          throw new ProblemError('account_access_ended', {
            detail: 'Access to this account has ended.',
            challenge: { kind: 'chosen', error: 'invalid_token' },
          });
        }
        // [AUTH-KIND-3] [AUTH-KIND-6] a customer and a delegated caller act on the account of their sub and use its cart;
        // [AUTH-KIND-4] a customer in channel web, [AUTH-KIND-7] a delegated agent of origin oauth in channel mcp or openapi.
        // [AUTH-CUST-5] no account-wide cutoff: only the account's lifecycle state is checked.
        actor =
          caller.kind === 'customer'
            ? { callerKind: 'customer', accountSub: account.sub, cartOwner: `account:${account.sub}`, domainScopes: [], channel: 'web' }
            : {
                callerKind: 'delegated',
                accountSub: account.sub,
                cartOwner: `account:${account.sub}`,
                domainScopes: [],
                channel: caller.channel,
                origin: 'oauth',
              };
        break;
      }
      case 'guest':
        // [AUTH-KIND-9] [AUTH-ACTIVE-2] a guest owns the one cart of its session and no account.
        actor = { callerKind: 'guest', accountSub: null, cartOwner: ctx.guestCartId ? `guest:${ctx.guestCartId}` : null, domainScopes: [] };
        break;
      case 'operator':
        actor = {
          // [AUTH-ACTIVE-3] an operator holds no account authority and no cart.
          callerKind: 'operator',
          accountSub: null,
          cartOwner: null,
          domainScopes: [],
          operatorId: need(ctx.operatorId, 'operator id'),
        };
        break;
      case 'invited-agent':
      case 'assistant': {
        const agent = need(ctx.agent, 'agent admission');
        // [AUTH-ACTIVE-1] [STA-LIFE-1] [STA-LIFE-2] [STA-LIFE-3] agents acting for an account need it active too.
        if (agent.accountSub !== null) {
          const account = ensureAccount(db, agent.accountSub, clock());
          if (ENDED.has(account.state)) {
            throw new ProblemError('account_access_ended', {
              detail: 'Access to this account has ended.',
              challenge: { kind: 'chosen', error: 'invalid_token' },
            });
          }
        }
        actor = {
          callerKind: caller.kind,
          accountSub: agent.accountSub,
          // [AUTH-ASST-14] a signed-out assistant keeps a cart of its own session (base catalog and cart authority only).
          cartOwner:
            agent.accountSub !== null ? `account:${agent.accountSub}` : agent.sessionId !== null ? `session:${agent.sessionId}` : null,
          domainScopes: [],
          origin: caller.kind === 'assistant' ? 'assistant' : 'oauth',
          agent,
        };
        break;
      }
    }
    ctx.actor = actor;
    next();
  };
}
