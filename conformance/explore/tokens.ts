// Token shapes (docs/explore.md, "Token shapes"): the entry of tokens-shape.ts (what a shape is, its arbitrary),
// tokens-classify.ts (the caller kind a varied token becomes), tokens-expect.ts (what the spec says of it) and
// tokens-build.ts (the credentials it is sent as), and how `explore` judges a shaped token's answer.
import { CALLER_LISTS } from '../../contract/callers.js';
import type { Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { expectedOfToken, judgeTokenAnswer } from './tokens-expect.js';
import type { TokenKind, TokenShape } from './tokens-shape.js';

export * from './tokens-api.js';

/**
 * A shaped token's answer on an operation of `explore`: what the spec says of the shape there (tokens-expect.ts); an
 * accepted shape may still be refused for what the request asks (an unknown id, a body), so only a refusal of the
 * token (401) is a finding of it; a refused shape gets its statuses and codes; any shape, never a 5xx.
 */
export function judgeShapedToken(
  kind: TokenKind,
  shape: TokenShape,
  profile: Profile,
  operation: Operation | undefined,
  status: number,
  error: unknown,
): { expected: string; clauses: readonly string[] } | undefined {
  const e = expectedOfToken(kind, shape, profile, operation);
  // A kind outside the operation's caller list may be refused by the guard for its kind or for a scope: one stage, no
  // order inside it (rules/04-endpoints.ts CALLER_GUARD), so a 403 of either code stands where a guard refusal is due.
  const outsideList = operation !== undefined && !(CALLER_LISTS[operation.callers].members as readonly string[]).includes(kind);
  if (
    outsideList &&
    status === 403 &&
    (error === 'caller_not_allowed' || error === 'insufficient_scope') &&
    (e.accept !== false || e.statuses.includes(403))
  )
    return undefined;
  if (e.accept === true) return status === 401 || status >= 500 ? { expected: 'accepted (not 401)', clauses: ['ERR-TABLE-2'] } : undefined;
  return judgeTokenAnswer(e, status, error);
}
