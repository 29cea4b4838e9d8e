// DPoP proof shapes (docs/explore.md): the entry of proofs-shape.ts (what a shape is, its arbitrary and description),
// proofs-build.ts (the headers a shape is sent as) and proofs-expect.ts (what the spec and RFC 9449 say must be answered
// to it), and how `explore` judges a shaped proof's answer on any operation.
import { expectedOfProof, judgeProofAnswer, type ProofJudgeOptions } from './proofs-expect.js';
import type { ProofShape } from './proofs-shape.js';

export * from './proofs-shape.js';
export { buildProof, htuOf, type BuiltProof, type ProofBuildOptions } from './proofs-build.js';
export {
  describeRefusal,
  expectedOfProof,
  judgeProofAnswer,
  type ErrorsByStatus,
  type ProofExpectation,
  type ProofJudgeOptions,
} from './proofs-expect.js';

/**
 * A shaped proof's answer on an operation of `explore` (the shape as sent: asSent): an accepted proof may still be
 * refused for what the request asks (an unknown id, a body), so only a refusal of the credential (401) is a finding of
 * it; a refused shape gets its statuses and codes; any shape, never a 5xx.
 */
export function judgeShapedProof(
  shape: ProofShape,
  o: ProofJudgeOptions,
  status: number,
  error: unknown,
): { expected: string; clauses: readonly string[] } | undefined {
  const e = expectedOfProof(shape, o);
  if (e.accept === true)
    return status === 401 || status >= 500 ? { expected: 'accepted (not 401)', clauses: ['AUTH-ASST-1', 'ERR-TABLE-4'] } : undefined;
  return judgeProofAnswer(e, status, error);
}
