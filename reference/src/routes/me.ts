// GET /v1/me: the diagnostic read — how the service classified the credential and which authority it resolved.
// [END-LIST-6] served under its own diagnostic caller list (contract/callers.ts).
import { meSchema } from '../schemas/me.js';
import { findAccount } from '../store/accounts.js';
import { defineRoute } from './define.js';

export const meRoutes = [
  defineRoute({
    operationId: 'getMe',
    summary: 'Diagnose the credential',
    success: { status: 200, schema: meSchema, description: 'The caller kind, account, scopes and actor the service resolved.' },
    handle: ({ ctx, domain, actor }) => {
      const caller = ctx.caller!;
      const account = actor.accountSub ? findAccount(domain.db, actor.accountSub) : undefined;
      return {
        status: 200,
        body: {
          caller_kind: caller.kind,
          client_id: caller.clientId,
          subject: caller.sub,
          account: account ? { sub: account.sub, state: account.state, display_name: account.display_name } : null,
          scopes: [...ctx.scopes].sort(),
          permissions: actor.agent ? [...actor.agent.permissions].sort() : null,
          channel: actor.channel ?? null,
          origin: actor.origin ?? null,
          actor_chain: caller.actChain,
          guest_cart_id: ctx.guestCartId ?? null,
          operator: actor.operatorId ?? null,
        },
      };
    },
  }),
];
