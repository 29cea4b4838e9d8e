// Defects of scope translation (AUTH-SCOPE-*): a missing scope not enforced, a forwarder's or delegated token's scope left
// unchecked.
import { CUSTOMER_SCOPES } from '../../lib/mint.js';
import { repairBearer } from './helpers.js';
import { lenient, type Defect } from './types.js';
import { servesRefused } from './04-endpoints.js';

/** A scope that is not enforced: insufficient_scope answered 200 {}. */
export const scopeUnenforced = (clause: string): Defect =>
  servesRefused(
    `authentication.scopes.${clause.toLowerCase()}.unenforced`,
    clause,
    'insufficient_scope',
    'a missing scope is not enforced',
  );

export const AUTHENTICATION_SCOPE_TRANSLATION_DEFECTS: readonly Defect[] = [
  lenient(
    'authentication.delegated-scopes-unchecked',
    'AUTH-SCOPE-2',
    'a delegated token missing an API scope is accepted (every scope added)',
    repairBearer((_h, c, ctx) =>
      c.client_id === ctx.profile.clients.agentProtocol && c.scope !== CUSTOMER_SCOPES.join(' ')
        ? ((c.scope = CUSTOMER_SCOPES.join(' ')), true)
        : false,
    ),
  ),
  lenient(
    'authentication.forwarder-scope-unchecked',
    'AUTH-SCOPE-5',
    'a forwarder token without agent:forward is accepted (scope added)',
    repairBearer((_h, c, ctx) =>
      [ctx.profile.clients.webAgentForwarder, ctx.profile.clients.mcpAgentForwarder].includes(c.client_id as string) &&
      !String(c.scope ?? '')
        .split(' ')
        .includes('agent:forward')
        ? ((c.scope = `${String(c.scope ?? '')} agent:forward`.trim()), true)
        : false,
    ),
  ),
  scopeUnenforced('AUTH-SCOPE-3'),
  scopeUnenforced('AUTH-SCOPE-4'),
  scopeUnenforced('AUTH-SCOPE-6'),
  scopeUnenforced('AUTH-SCOPE-7'),
  scopeUnenforced('AUTH-SCOPE-8'),
  scopeUnenforced('AUTH-SCOPE-9'),
  scopeUnenforced('AUTH-SCOPE-10'),
  scopeUnenforced('AUTH-SCOPE-11'),
];
