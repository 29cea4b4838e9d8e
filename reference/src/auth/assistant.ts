// Assistants (spec, Assistant authority): DPoP-bound session tokens presented directly, or forwarded by a forwarder with
// exactly one original artifact.
import { ProblemError } from '../problem.js';
import type { AgentAdmission, AuthenticateArgs } from './agents.js';

/** Authenticate stage: every request under the DPoP scheme, or from an assistant token (proof, binding, nonce, replay). */
export async function authenticateDpop(_args: AuthenticateArgs): Promise<void> {
  throw new ProblemError('invalid_token', { detail: 'assistant callers are not admitted by this build of the reference.', challenge: { kind: 'chosen', error: 'invalid_token' } });
}

/** Admit-caller stage: resolves the assistant (direct or forwarded) and its session. */
export async function admitAssistant(_args: AuthenticateArgs): Promise<AgentAdmission> {
  throw new ProblemError('invalid_token', { detail: 'assistant callers are not admitted by this build of the reference.', challenge: { kind: 'chosen', error: 'invalid_token' } });
}
