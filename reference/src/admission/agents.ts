// Admission of agent callers that act through an account permission snapshot: invited agents (web-agent forwarder plus a
// signed invited-agent context) and assistants (DPoP-bound tokens, directly or forwarded). The pipeline stages call these
// hooks; each caller kind's rules live in its own module (admission/invited-agent.ts, admission/assistant.ts).
import type { Request, Response } from 'express';
import type { Classification } from '../auth/classify.js';
import type { VerifiedToken } from '../auth/verify-token.js';
import type { Authenticated } from '../pipeline/context.js';

/** What admission resolved for an agent caller; the actor stage turns it into the live actor. */
export interface AgentAdmission {
  kind: 'invited-agent' | 'assistant';
  agentId: string;
  /** The account acted for; null for a signed-out assistant. */
  accountSub: string | null;
  /** Account permissions in force (assistants: token permissions ∩ the session's live scopes). */
  permissions: readonly string[];
  signedIn: boolean;
  sessionId: string | null;
  /** Client counted by the per-client budget (assistants). */
  clientId: string;
  /** Set when a forwarder brought the agent: its service credential's scopes (needs agent:forward). */
  forwarderScopes: ReadonlySet<string> | null;
}

export interface AuthenticateArgs {
  req: Request;
  res: Response;
  /** The scheme as sent is ctx.presentedScheme; the challenge scheme, ctx.scheme (each derived once, by its stage). */
  ctx: Authenticated;
  token: VerifiedToken;
  caller: Classification;
}
