// Stage "rate limit" (spec, Limits > Rate limiting; after the guard [AUTH-ORDER-8], before input validation [AUTH-ORDER-9]):
// guests are counted exactly per operation id, keyed by the shopper
// (normalised Shopper-IP when sent, else the guest cart, else the storefront as a whole); assistants have a budget per
// assistant session and one per agent client (all operations together), both in memory per instance.
import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { ProblemError } from '../problem.js';
import { contextAt, need } from './context.js';

/** Shopper-IP is normalised only here ([AUTH-GUEST-10]): case, an IPv4-mapped IPv6 prefix, and IPv6 addresses grouped by /64. */
export function normaliseShopperIp(value: string): string {
  let v = value.trim().toLowerCase();
  if (v.startsWith('::ffff:') && isIP(v.slice(7)) === 4) v = v.slice(7);
  if (isIP(v) === 6) {
    const [head = '', tail = ''] = v.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const full = v.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
    return (
      full
        .slice(0, 4)
        .map((h) => h.replace(/^0+(?=.)/, ''))
        .join(':') + '::/64'
    );
  }
  return v;
}

export function rateLimitStage(): RequestHandler {
  return (_req, res, next) => {
    const ctx = contextAt(res, 'acting');
    const { actor, domain, operation } = ctx;
    if (actor.callerKind === 'guest') {
      const { guestLimiter } = domain;
      const who = ctx.shopperIp ? `ip:${normaliseShopperIp(ctx.shopperIp)}` : ctx.guestCartId ? `cart:${ctx.guestCartId}` : 'storefront';
      // [LIM-RATE-1] guests are counted exactly per operation id.
      const decision = guestLimiter.hit(`${operation.operationId}|${who}`);
      // [ERR-TABLE-12] [LIM-RATE-4] a spent budget: 429 rate_limited with Retry-After.
      if (!decision.allowed) {
        throw new ProblemError('rate_limited', {
          detail: `The guest budget of ${operation.operationId} is spent for this window.`,
          headers: { 'Retry-After': String(decision.resetSeconds) },
        });
      }
    }
    if (actor.callerKind === 'assistant') {
      const agent = need(actor.agent, 'agent admission');
      const limiters = domain.assistantLimiters;
      // The session first: a spent session does not use up its client's budget.
      const budgets = [
        // [LIM-RATE-2] per assistant session, then [LIM-RATE-3] per agent client.
        ['session', limiters.session, `session:${agent.sessionId ?? ''}`],
        ['client', limiters.client, `client:${agent.clientId}`],
      ] as const;
      for (const [what, limiter, key] of budgets) {
        const decision = limiter.hit(key);
        // [ERR-TABLE-12] [LIM-RATE-4] a spent budget: 429 rate_limited with Retry-After.
        if (!decision.allowed) {
          throw new ProblemError('rate_limited', {
            detail: `The assistant ${what} budget of ${limiter.budget} requests per ${limiter.windowSeconds} s is spent for this window.`,
            headers: { 'Retry-After': String(decision.resetSeconds) },
          });
        }
      }
    }
    next();
  };
}
