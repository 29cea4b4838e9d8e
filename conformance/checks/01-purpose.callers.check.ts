// Spec part 1, What the service does, its callers: the web storefront (guest visitors and signed-in customers), an
// agent-protocol server acting for a user, a backoffice application, invited agents in a website session and personal
// assistant agents calling directly. Each caller the profile claims is accepted: a read of its own passes authentication
// and the guard (a 2xx for the cart; the backoffice's read is the target's own route, admitted). How each kind is
// recognized is judged in part 5; this check judges only that none is turned away.
//
// Data. Fresh subjects, a fresh guest cart, a fresh invited agent and a fresh assistant session: nothing is shared.
import { check, learned, test } from '../engine/runner/check.js';
import { credentialsOf } from '../lib/callers.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, expectSuccess, fail, inCase } from '../lib/assert.js';
import { AssistantAgent } from './_shared/assistant.js';
import { operator, send, undeclaredScopeRefusal } from './_shared/call-ops.js';
import { invitedAgent } from './_shared/probe-agents.js';

test(
  ...check(
    {
      id: 'purpose.callers.accepted',
      title:
        'every caller the profile claims is accepted: a guest and a customer of the storefront, the agent-protocol server, the backoffice, an invited agent and an assistant each get a 2xx on a read of their own',
      clauses: ['PUR-CALLERS-1'],
    },
    async (shop) => {
      const caps = shop.profile.capabilities;
      // A caller of the storefront list reads its cart with its credentials (lib/callers.ts): a 2xx.
      const readsCart = (label: string, kind: 'customer' | 'guest' | 'delegated') => () =>
        inCase(label, async () =>
          expectSuccess(await shop.http.get('/v1/cart', await credentialsOf(shop, kind)), {
            what: 'GET /v1/cart',
            clause: 'PUR-CALLERS-1',
          }),
        );
      // Each caller is its own subject, guest session, invited agent or assistant session: a case of its own.
      const cases: (() => Promise<void>)[] = [readsCart('the storefront for a signed-in customer (GET /v1/cart)', 'customer')];
      if (caps.guests) cases.push(readsCart('the storefront for a guest visitor (GET /v1/cart with a Guest-Session)', 'guest'));
      if (caps.delegated) cases.push(readsCart('the agent-protocol server acting for a user (GET /v1/cart)', 'delegated'));
      // The backoffice's route and query are the target's (not shown): any described read under /v1/ops/ that names no
      // record; a 400 for a query it wants is still an admitted caller. Documents that describe none leave this caller
      // unjudged (the others still are), and so does a 403 insufficient_scope where they declare no scopes for the read
      // (the token carries the scopes they declare for /v1/ops/, else the suite's default).
      const opsRead = caps.operators ? learned().operatorRead() : undefined;
      if (opsRead)
        cases.push(() =>
          inCase('the backoffice (an operator read under /v1/ops/)', async () => {
            const r = { method: opsRead.method, path: opsRead.path };
            const res = await send(shop, r, await operator(shop));
            if (undeclaredScopeRefusal(res, opsRead.operationId)) {
              shop.info.annotations.push({
                type: 'note',
                description: `the backoffice not judged: ${r.method} ${r.path} answered 403 insufficient_scope, and the documents declare no scopes for it`,
              });
              return;
            }
            if ([401, 403, 404, 405].includes(res.status) || res.status >= 500)
              fail(`${r.method} ${r.path} as the backoffice`, 'admitted (not 401, 403, 404, 405 or 5xx)', brief(res), {
                clause: 'PUR-CALLERS-1',
              });
          }),
        );
      if (caps.invitedAgents)
        cases.push(() =>
          inCase('an invited agent in a website session (GET /v1/cart)', async () => {
            const inv = await invitedAgent(shop);
            expectSuccess(await shop.http.get('/v1/cart', { headers: inv.headers }), { what: 'GET /v1/cart', clause: 'PUR-CALLERS-1' });
          }),
        );
      if (caps.assistants)
        cases.push(() =>
          inCase('a personal assistant agent calling directly (GET /v1/cart)', async () => {
            const agent = await AssistantAgent.create(shop);
            expectSuccess((await agent.get('/v1/cart')).res, { what: 'GET /v1/cart', clause: 'PUR-CALLERS-1' });
          }),
        );
      await judgeCases(cases, (judge) => judge());
    },
  ),
);
