// The suite's assertion vocabulary, one entry point: framework-neutral, verb-named expectations over an HTTP response
// (conformance/lib/expect/), each doing one job and throwing a CheckFailure that carries what was looked at, expected and
// actual, and the clause, so that any runner (the check wrapper, a node:test test) can report it as a record. Every helper
// takes the clause in a trailing options object `{ clause }`. Compositions that send requests of their own (an order
// placed, a refusal probed across caller kinds) are the checks' own sequences, in conformance/checks/_shared/.
export {
  CheckFailure,
  fail,
  failSetup,
  failSoft,
  inCase,
  NotDeclared,
  notDeclared,
  softFailures,
  type ClauseOption,
  type ClauseRef,
} from './expect/failure.js';
export {
  answers,
  brief,
  expect4xx,
  expectCreated,
  expectHeader,
  expectNoContent,
  expectNoAnswer,
  expectNoHeader,
  expectNoServerError,
  expectSameJson,
  expectStatus,
  expectSuccess,
  is2xx,
  is4xx,
  type HttpResult,
  type WhatOption,
} from './expect/response.js';
export {
  CHALLENGE_LEFT_OPEN,
  expectFailureNoStore,
  expectIssues,
  expectOwnedMembers,
  expectProblem,
  expectProblemDetail,
  expectProblemDocument,
  PROBLEM_DOCUMENT_CLAUSES,
  expectProblemError,
  expectProblemInstance,
  expectProblemMediaType,
  expectProblemObject,
  expectProblemStatus,
  expectProblemTitle,
  expectProblemType,
  type MemberOption,
  type ProblemExpectation,
  withRow,
} from './expect/problem.js';
export { expectChallenge, type ChallengeExpectation } from './expect/challenge.js';
// The rule book's conditions a check composes (conformance/rules/).
export { expectDpopNonce, nonceOf } from '../rules/05-authentication.js';
export { expectCacheControl, expectFreshFor, expectNoStore, expectWeakEtag, parseCacheControl } from './expect/cache.js';
