// Spec part 5, Authentication, for invited agents: the agent acts with its context's permissions, which are never
// translated: they map to API scopes (Scope translation); unknown permissions unlock nothing beyond the base scopes, a
// read-only agent cannot check out, API scopes on the forwarder token widen nothing, and the forwarder needs agent:forward.
// The context's signed admission snapshot applies whatever the proxy later grants.
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { reportAuthorization } from './_shared/assistant.js';
import { expectProblem, expectSuccess, fail, inCase } from '../lib/assert.js';
import { nowSeconds } from '../lib/jws.js';
import { CUSTOMER_SCOPES } from '../lib/mint.js';
import { AGENT_FORWARD_SCOPE, PERMISSIONS } from '../../contract/scopes.js';
import { expectCredentialRefused, expectInsufficientScope } from '../lib/expect/refusals.js';
import { expectAuthority, expectPermissions, invitedAgent, sendInvited, UNKNOWN_PERMISSIONS } from './_shared/probe-agents.js';

test(
  ...check(
    {
      id: 'authentication.agents.invited.permissions',
      everyResponse: true,
      title:
        "an invited agent's permissions map to API scopes: base, assistant:read, assistant:write, checkout each unlock exactly their operations",
      clauses: ['AUTH-SCOPE-4', 'AUTH-SCOPE-6', 'AUTH-SCOPE-7', 'AUTH-SCOPE-8', 'AUTH-SCOPE-9', 'ERR-TABLE-9'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const sets: [string, readonly string[]][] = [
        ['AUTH-SCOPE-6', []],
        ['AUTH-SCOPE-7', ['assistant:read']],
        ['AUTH-SCOPE-8', ['assistant:write']],
        ['AUTH-SCOPE-9', ['checkout']],
        ['AUTH-SCOPE-4', PERMISSIONS],
      ];
      // Each set is a case, an agent of its own.
      await judgeCases(sets, async ([clause, permissions]) =>
        expectPermissions(shop, sendInvited(shop, await invitedAgent(shop, { permissions })), permissions, { clause, naming: 'either' }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.permissions.reference',
      title: 'an invited agent refused for a scope is told the permission it lacks (scope assistant:read, assistant:write, checkout)',
      clauses: ['AUTH-SCOPE-4', 'ERR-TABLE-9'],
      level: 'reference',
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: [] })), [], {
        clause: 'AUTH-SCOPE-4',
        naming: 'permission',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.read-only-checkout',
      title: 'a read-only invited agent (no checkout permission) cannot check out: 403 insufficient_scope',
      clauses: ['AUTH-SCOPE-11', 'ERR-TABLE-9'],
      requires: ['invitedAgents'],
    },
    async (shop) => {
      // Each set is a case, an agent of its own (and an empty body changes nothing).
      await judgeCases([['assistant:read'], ['assistant:read', 'assistant:write']], async (permissions) => {
        const inv = await invitedAgent(shop, { permissions });
        const res = await shop.http.post('/v1/checkouts/saved-card', { headers: inv.headers, json: {} });
        inCase(`permissions [${permissions.join(', ')}]`, () =>
          expectInsufficientScope(shop, res, { clause: 'AUTH-SCOPE-11', scope: ['checkout'] }),
        );
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.unknown-permissions',
      title:
        'unknown permissions (API scope names, account:security, made-up ones, names every object holds such as constructor) unlock nothing beyond the base scopes',
      clauses: ['AUTH-SCOPE-10', 'AUTH-SCOPE-6'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const unknown = ['account:read', 'orders:write', 'payment_methods:read', 'account:security', ...UNKNOWN_PERMISSIONS];
      await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: unknown })), unknown, {
        clause: 'AUTH-SCOPE-10',
        naming: 'either',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.forwarder-scopes-do-not-widen',
      title: "API scopes on the forwarder token do not widen an invited agent: its context's permissions alone apply",
      clauses: ['AUTH-SCOPE-3'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const wide = [AGENT_FORWARD_SCOPE, ...CUSTOMER_SCOPES].join(' ');
      await expectAuthority(shop, sendInvited(shop, await invitedAgent(shop, { permissions: [], forwarderScope: wide })), [], {
        clause: 'AUTH-SCOPE-3',
        naming: 'either',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.forwarder-needs-agent-forward',
      title: 'a web-agent-forwarder token without agent:forward cannot forward an invited agent (refused)',
      clauses: ['AUTH-SCOPE-5'],
      requires: ['invitedAgents'],
    },
    async (shop) => {
      // Each forwarder token is a case, an agent of its own.
      await judgeCases(['catalog:read cart:read cart:write', 'account:read checkout', ''], async (scope) => {
        const inv = await invitedAgent(shop, { forwarderScope: scope });
        const res = await shop.http.get('/v1/cart', { headers: inv.headers });
        inCase(`forwarder scope "${scope}"`, () => expectCredentialRefused(shop, res, { clause: 'AUTH-SCOPE-5' }));
      });
    },
  ),
);

// Killed by a server that tells the agent the forwarder's missing scope (403 insufficient_scope, scope agent:forward).
test(
  ...check(
    {
      id: 'authentication.agents.invited.forwarder-needs-agent-forward.reference',
      title: 'a forwarder token without agent:forward: 403 caller_not_allowed, no scope named (agents are told account scopes only)',
      clauses: ['AUTH-SCOPE-5', 'ERR-SCOPE-1', 'ERR-TABLE-8'],
      level: 'reference',
      requires: ['invitedAgents'],
    },
    async (shop) => {
      const inv = await invitedAgent(shop, { forwarderScope: 'catalog:read cart:read cart:write' });
      const res = await shop.http.get('/v1/cart', { headers: inv.headers });
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-SCOPE-5' });
      if (res.body?.scope !== undefined) fail('scope member', 'absent', res.body.scope, { clause: 'ERR-SCOPE-1' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.agents.invited.admission-snapshot',
      title: "an invited agent acts with its context's permissions (the admission snapshot), whatever the proxy later grants the agent",
      clauses: ['AUTH-KIND-10', 'AUTH-SCOPE-3'],
      requires: ['invitedAgents'],
      seed: true,
    },
    async (shop) => {
      const inv = await invitedAgent(shop, { permissions: ['assistant:read'], context: { admittedAt: nowSeconds() - 86_400 } });
      expectSuccess(await shop.http.get('/v1/me/profile', { headers: inv.headers }), {
        what: 'a day-old admission with assistant:read reads the profile',
        clause: 'AUTH-KIND-10',
      });
      // The proxy later reports another grant for the same agent and account: the signed snapshot is still what applies.
      await reportAuthorization(shop, { sub: inv.sub, agentId: inv.agentId }, 'granted', ['checkout']);
      expectSuccess(await shop.http.get('/v1/me/profile', { headers: inv.headers }), {
        what: 'after a grant without assistant:read',
        clause: 'AUTH-KIND-10',
      });
      expectInsufficientScope(shop, await shop.http.post('/v1/checkouts/saved-card', { headers: inv.headers, json: {} }), {
        clause: 'AUTH-SCOPE-3',
        scope: ['checkout'],
      });
    },
  ),
);
