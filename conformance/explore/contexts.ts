// Invited-agent context shapes (docs/explore.md, "Callers"): the entry of contexts-shape.ts (what a shape is, its
// arbitrary, whose account it acts for), contexts-expect.ts (what the spec says of it) and contexts-build.ts (the
// headers it is sent with), and how `explore` judges a shaped context's answer.
import type { Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { expectedOfContext, judgeContextAnswer } from './contexts-expect.js';
import type { ContextShape } from './contexts-shape.js';

export * from './contexts-shape.js';
export { buildContext, shapedContext, type ContextBuildOptions, type ContextRequest } from './contexts-build.js';
export { expectedOfContext, judgeContextAnswer, scopesOfPermissions, type ContextExpectOptions } from './contexts-expect.js';
export type { TokenExpectation } from './sessions-expect.js';

/**
 * A shaped context's answer on an operation of `explore`: what the spec says of the shape there (contexts-expect.ts).
 * An accepted shape may still be refused for what the request asks (a body, an unknown id), so only a refusal of the
 * credentials (401, or 403 caller_not_allowed / insufficient_scope) is a finding of it; a refused shape gets its
 * statuses and codes; any shape, never a 5xx.
 */
export function judgeShapedContext(
  shape: ContextShape,
  o: { operation?: Operation; profile: Profile },
  status: number,
  error: unknown,
): { expected: string; clauses: readonly string[] } | undefined {
  const e = expectedOfContext(shape, o);
  if (e.accept === true) {
    const refused = status === 401 || (status === 403 && (error === 'caller_not_allowed' || error === 'insufficient_scope'));
    return refused || status >= 500
      ? { expected: 'accepted (not 401, not a guard refusal)', clauses: ['AUTH-KIND-10', 'AUTH-SCOPE-4'] }
      : undefined;
  }
  return judgeContextAnswer(e, status, error);
}
