// The guard for invited-agent and assistant callers ([AUTH-SCOPE-3], [AUTH-SCOPE-4]): never translated, their
// immutable permissions apply; the operation's scopes must be within the API scopes those permissions map to; a forwarder
// must be allowed to forward agents; account operations need a signed-in session.
import type { Operation } from '../../../contract/operations.js';
import { AGENT_FORWARD_SCOPE } from '../../../contract/scopes.js';
import { ProblemError } from '../problem.js';
import type { AgentAdmission } from '../admission/agents.js';
import { apiScopesOf, permissionsGranting } from './permissions.js';

export function guardAgent(operation: Operation, agent: AgentAdmission): void {
  // [END-PUBLIC-19] conversations take "DPoP plus live session admission": a forwarder's Bearer machine token never qualifies, and the
  // refusal comes from the guard, before the body is validated.
  if (operation.group === 'conversation' && agent.forwarderScopes !== null) {
    throw new ProblemError('caller_not_allowed', {
      detail: "Conversations need the assistant's own DPoP session; forwarded assistants are not admitted.",
    });
  }
  if (agent.forwarderScopes && !agent.forwarderScopes.has(AGENT_FORWARD_SCOPE)) {
    // [AUTH-SCOPE-5] a forwarder that may not forward agents is a combination that matches no caller kind (AUTH-TOKEN-8),
    // refused as such; agents are told account scopes, never API or service scopes.
    throw new ProblemError('caller_not_allowed', { detail: 'The forwarding credential may not forward agents.' });
  }
  const accountBound = operation.group !== 'catalog' && operation.group !== 'cart' && operation.group !== 'diagnostic';
  // [AUTH-ASST-10] [AUTH-ACTIVE-2] a signed-out agent keeps catalog and cart: account actions are sign_in_required.
  if (accountBound && !agent.signedIn) {
    throw new ProblemError('sign_in_required', {
      detail: 'This operation needs a signed-in account.',
      challenge: { kind: 'chosen', error: 'sign_in_required' },
    });
  }
  // [AUTH-SCOPE-3] never translated: the agent's permissions apply; API scopes of the forwarding token do not widen them.
  const granted = apiScopesOf(agent.permissions);
  const missingApi = operation.apiScopes.find((s) => !granted.has(s));
  const missingPermission = operation.agentScopes.find((p) => !agent.permissions.includes(p));
  // [AUTH-SCOPE-4] [AUTH-SCOPE-11] the operation's scopes must lie within those the permissions map to.
  if (missingApi !== undefined || missingPermission !== undefined) {
    // [ERR-SCOPE-1] agents are told the account scope (permission) they lack, never an API scope.
    const scope = missingPermission ?? permissionsGranting(missingApi!)[0] ?? missingApi!;
    throw new ProblemError('insufficient_scope', { detail: `The agent lacks the permission ${scope}.`, scope });
  }
}
