// Guest-session shapes (docs/explore.md, "Callers"): the entry of sessions-shape.ts (what a shape is, its arbitrary,
// whose cart it acts on), sessions-expect.ts (what the spec says of it) and sessions-build.ts (the headers it is sent
// with), and how `explore` judges a shaped session's answer.
import type { Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import type { ArtifactCarrier } from '../engine/transport/target.js';
import { expectedOfSession, judgeSessionAnswer } from './sessions-expect.js';
import type { SessionShape } from './sessions-shape.js';

export * from './sessions-shape.js';
export { buildSession, sessionValue, type SessionBuildOptions, type SessionRequest } from './sessions-build.js';
export {
  ANY_4XX,
  describeErrors,
  expectedOfSession,
  judgeSessionAnswer,
  type SessionExpectOptions,
  type TokenExpectation,
} from './sessions-expect.js';

/**
 * A shaped session's answer on an operation of `explore`: what the spec says of the shape there (sessions-expect.ts).
 * An accepted shape may still be refused for what the request asks (a body, an unknown id or line), so only a refusal
 * of the session or its token (401, 400 guest_session_required) is a finding of it; a refused shape gets its statuses
 * and codes; any shape, never a 5xx.
 */
export function judgeShapedSession(
  shape: SessionShape,
  o: { operation?: Operation; profile: Profile; now?: Date; carrier?: ArtifactCarrier },
  status: number,
  error: unknown,
): { expected: string; clauses: readonly string[] } | undefined {
  const e = expectedOfSession(shape, o);
  if (e.accept === true) {
    const refusedSession = status === 401 || (status === 400 && error === 'guest_session_required');
    return refusedSession || status >= 500
      ? { expected: 'accepted (not 401, not guest_session_required)', clauses: ['AUTH-KIND-9'] }
      : undefined;
  }
  return judgeSessionAnswer(e, status, error);
}
