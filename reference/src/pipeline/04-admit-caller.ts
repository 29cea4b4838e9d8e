// Stage "admit caller": admits only the headers that fit the caller kind, verifies guest sessions on cart routes and
// requires the operator attribution header (spec, Authentication > Guest sessions; Credentials per consumer).
import type { RequestHandler } from 'express';
import { HEADERS, HEADER_ADMITTED_KINDS } from '../../../contract/headers.js';
import { LIMITS } from '../../../contract/limits.js';
import { verifyGuestSession } from '../auth/guest-session.js';
import { admitAssistant } from '../admission/assistant.js';
import { admitInvitedAgent } from '../admission/invited-agent.js';
import { invalidRequest, ProblemError } from '../problem.js';
import { contextAt } from './context.js';

export function admitCallerStage(): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextAt(res, 'authenticated');
    const { domain, caller, operation } = ctx;
    const { config, clock } = domain;

    // [AUTH-ORDER-6] [AUTH-GUEST-8] [AUTH-GUEST-11] only headers that fit the caller kind: Guest-Session and Shopper-IP from guests.
    for (const [name, kinds] of Object.entries(HEADER_ADMITTED_KINDS)) {
      if (req.get(name) !== undefined && !kinds.includes(caller.kind)) {
        throw invalidRequest(
          [{ path: `headers.${name}`, code: 'not_allowed', message: `${name} is not accepted from ${caller.kind} callers.` }],
          `The ${name} header is not accepted with this credential.`,
        );
      }
    }

    // [AUTH-CRED-1] a guest: the storefront machine token plus its Guest-Session (verified on cart routes).
    if (caller.kind === 'guest') {
      const shopperIp = req.get(HEADERS.shopperIp);
      // [AUTH-GUEST-9] [LIM-SHOPPERIP-1] Shopper-IP is at most 64 characters.
      if (shopperIp !== undefined && (shopperIp.length === 0 || shopperIp.length > LIMITS.shopperIpChars)) {
        throw invalidRequest([
          {
            path: `headers.${HEADERS.shopperIp}`,
            code: 'too_long',
            message: `Shopper-IP must be 1 to ${LIMITS.shopperIpChars} characters.`,
          },
        ]);
      }
      ctx.shopperIp = shopperIp ?? null;
      ctx.guestCartId = null;
      const session = req.get(HEADERS.guestSession);
      // [AUTH-GUEST-2] the service verifies guest sessions on cart routes only.
      if (session !== undefined && operation.group === 'cart') {
        const result = verifyGuestSession(
          session,
          {
            current: config.guestSessionKey,
            previous: config.guestSessionKeyPrevious,
            previousUntil: config.guestSessionKeyPreviousUntil ? new Date(config.guestSessionKeyPreviousUntil) : null,
          },
          clock(),
        );
        // [AUTH-GUEST-5] [AUTH-GUEST-6] [AUTH-GUEST-7] [ERR-TABLE-6] forged, malformed or retired key: 401, Bearer invalid_token.
        if (!result.ok) {
          throw new ProblemError('invalid_guest_session', {
            detail:
              result.reason === 'expired_key' ? 'The guest session was signed with a retired key.' : 'The guest session is not valid.',
            challenge: { kind: 'bearer', error: 'invalid_token' },
          });
        }
        ctx.guestCartId = result.cartId;
      }
    }

    if (caller.kind === 'operator') {
      const operator = req.get(HEADERS.operator);
      // [AUTH-CRED-4] without the attribution header a backoffice token matches no caller kind (AUTH-TOKEN-8: 401 or 403): the
      // token is valid, so re-authenticating would not help; 403 caller_not_allowed.
      if (!operator)
        throw new ProblemError('caller_not_allowed', {
          detail: 'A backoffice token is an operator only with an Operator attribution header.',
        });
      if (operator.length > 256) {
        throw invalidRequest([
          { path: `headers.${HEADERS.operator}`, code: 'too_long', message: 'The Operator attribution header is 1-256 characters.' },
        ]);
      }
      ctx.operatorId = operator;
    }

    // [AUTH-ORDER-5] agents acting through a permission snapshot: the forwarded or presented artifact decides who they speak for.
    if (caller.kind === 'invited-agent' || caller.kind === 'assistant') {
      const args = { req, res, ctx, token: ctx.token, caller };
      ctx.agent = caller.kind === 'invited-agent' ? await admitInvitedAgent(args) : await admitAssistant(args);
    }
    next();
  };
}
