// An agent's request admitted past the caller guard (spec, Authentication > Request processing order): the handler's
// answer, not a refusal of the caller.
import { fail, brief, expectNoServerError } from '../assert.js';
import type { Answer } from './response.js';
import { errorOf } from './dpop.js';

/** Errors with which the authentication stages and the guard refuse a caller (as opposed to the handler's answers). */
const GUARD_ERRORS = new Set([
  'invalid_token',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'caller_not_allowed',
  'insufficient_scope',
  'sign_in_required',
  'account_access_ended',
]);

/** Past the guard: whatever the handler or validation says next, it is not a refusal of the caller. */
export function expectPassesGuard(res: Answer, { what, clause }: { what: string; clause: string }): void {
  const error = errorOf(res);
  if (res.status === 401 || res.status === 429 || (error !== undefined && GUARD_ERRORS.has(error))) {
    fail(`${what}: admitted past the guard`, 'a handler or validation answer (2xx, 400, 404, 409, 422)', brief(res), { clause });
  }
  expectNoServerError(res, { what: `${what}: status`, clause });
}
