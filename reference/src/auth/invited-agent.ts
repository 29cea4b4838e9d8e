// Invited agents (spec, Caller kinds; Credentials per consumer; Customer authority): the web-agent-forwarder machine token
// plus a bearer-bound `invited-agent+jwt` context signed with WEB_SESSION_CONTEXT_KEY.
import { ProblemError } from '../problem.js';
import type { AgentAdmission, AuthenticateArgs } from './agents.js';

/** Admit-caller stage: verifies the context and returns the agent's admission snapshot. */
export async function admitInvitedAgent(_args: AuthenticateArgs): Promise<AgentAdmission> {
  throw new ProblemError('invalid_token', { detail: 'invited-agent callers are not admitted by this build of the reference.', challenge: { kind: 'chosen', error: 'invalid_token' } });
}
