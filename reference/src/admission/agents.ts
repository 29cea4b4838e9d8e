// Admission of agent callers that act through an account permission snapshot: invited agents (web-agent forwarder plus a
// signed invited-agent context) and assistants (DPoP-bound tokens, directly or forwarded). The pipeline stages call these
// hooks; each caller kind's rules live in its own module (admission/invited-agent.ts, admission/assistant.ts).
import type { Request, Response } from 'express';
import type { Classification } from '../auth/classify.js';
import type { VerifiedToken } from '../auth/verify-token.js';
import type { AgentAdmission, Authenticated } from '../pipeline/context.js';

export type { AgentAdmission };

export interface AuthenticateArgs {
  req: Request;
  res: Response;
  /** The scheme as sent is ctx.presentedScheme; the challenge scheme, ctx.scheme (each derived once, by its stage). */
  ctx: Authenticated;
  token: VerifiedToken;
  caller: Classification;
}
