// The guard for invited-agent and assistant callers (spec, Scope translation; Assistant authority): never translated, their
// immutable permissions apply; the operation's scopes must be within the API scopes those permissions map to; a forwarder
// must be allowed to forward agents; account operations need a signed-in session.
import type { Operation } from '../../../contract/operations.js';
import { AGENT_FORWARD_SCOPE } from '../../../contract/scopes.js';
import { ProblemError } from '../problem.js';
import type { AgentAdmission } from '../admission/agents.js';
import { apiScopesOf, permissionsGranting } from './permissions.js';

export function guardAgent(operation: Operation, agent: AgentAdmission): void {
  // Conversations take "DPoP plus live session admission": a forwarder's Bearer machine token never qualifies, and the
  // refusal comes from the guard, before the body is validated.
  if (operation.group === 'conversation' && agent.forwarderScopes !== null) {
    throw new ProblemError('caller_not_allowed', {
      detail: "Conversations need the assistant's own DPoP session; forwarded assistants are not admitted.",
    });
  }
  if (agent.forwarderScopes && !agent.forwarderScopes.has(AGENT_FORWARD_SCOPE)) {
    // Agents are told account scopes, never API or service scopes (spec, Errors): a forwarder that may not forward is a
    // combination that matches no caller kind (Token verification 3), refused as such.
    throw new ProblemError('caller_not_allowed', { detail: 'The forwarding credential may not forward agents.' });
  }
  const accountBound = operation.group !== 'catalog' && operation.group !== 'cart' && operation.group !== 'diagnostic';
  if (accountBound && !agent.signedIn) {
    throw new ProblemError('sign_in_required', {
      detail: 'This operation needs a signed-in account.',
      challenge: { kind: 'chosen', error: 'sign_in_required' },
    });
  }
  const granted = apiScopesOf(agent.permissions);
  const missingApi = operation.apiScopes.find((s) => !granted.has(s));
  const missingPermission = operation.agentScopes.find((p) => !agent.permissions.includes(p));
  if (missingApi !== undefined || missingPermission !== undefined) {
    // Agents are told the account scope (permission) they lack, never an API scope (spec, Errors).
    const scope = missingPermission ?? permissionsGranting(missingApi!)[0] ?? missingApi!;
    throw new ProblemError('insufficient_scope', { detail: `The agent lacks the permission ${scope}.`, scope });
  }
}
