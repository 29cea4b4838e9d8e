// The rules of every response, for the checks that gather answers themselves (the vocabulary: lib/expect/every-response.ts).
export {
  EVERY_RESPONSE_CLAUSES,
  expectBoundaryRules,
  expectDomainErrorHeaders,
  expectDpopNonce,
  expectEveryResponse,
  expectProblemMembers,
  expectRequestId,
  isDomainError,
} from '../../lib/expect/every-response.js';
