// Scope translation for delegated callers (spec, Authentication > Scope translation). Pure.
import type { Operation } from '../../../contract/operations.js';

/** The API scopes of the operation that the token lacks, in the operation's order. */
export function missingScopes(operation: Operation, granted: ReadonlySet<string>): string[] {
  return operation.apiScopes.filter((s) => !granted.has(s));
}

/** A fresh copy of the operation's domain scopes when every required API scope is granted, otherwise nothing. */
export function translateScopes(operation: Operation, granted: ReadonlySet<string>): string[] {
  // [AUTH-SCOPE-2] nothing unless every required API scope is granted; [AUTH-SCOPE-1] then a fresh copy.
  return missingScopes(operation, granted).length === 0 ? [...operation.agentScopes] : [];
}
