// The caller-guard check of one operation (spec, What the service does 1; Errors: caller_not_allowed), built per operation
// by the check files of the operations' parts: every kind of the operation's caller list passes the guard, every other
// kind gets 403 caller_not_allowed without a challenge.
import { CALLER_LISTS, type CallerListName } from '../../../contract/callers.js';
import { OPERATIONS_BY_ID, type Operation } from '../../../contract/operations.js';
import { credentialsOf, KINDS } from '../../engine/callers.js';
import { check } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import { CASES_AT_ONCE, judgeConcurrently } from '../../engine/in-flight.js';
import { expectNoHeader, expectProblem, fail } from '../../lib/assert.js';

/** The list clause of each caller list (spec, Endpoints > Caller lists by name). */
export const LIST_CLAUSE: Readonly<Record<CallerListName, string>> = {
  storefront: 'END-LIST-1',
  account: 'END-LIST-2',
  checkout: 'END-LIST-3',
  agentCheckout: 'END-LIST-4',
  operator: 'END-LIST-5',
  diagnostic: 'END-LIST-6',
  conversation: 'END-PUBLIC-19',
};

/** Refused by the guard: 401, or 403 caller_not_allowed / insufficient_scope. A 403 of another code is a later stage's. */
export const guardRefused = (res: ShopResponse): boolean =>
  res.status === 401 || (res.status === 403 && (res.body?.error === 'caller_not_allowed' || res.body?.error === 'insufficient_scope'));

/**
 * The check that one operation admits exactly its caller list (spec, What the service does 1; Errors: caller_not_allowed):
 * every kind of the list passes the guard, every other kind gets 403 caller_not_allowed without a challenge. `request`
 * builds a request the operation accepts once past the guard (a later stage's 400/404/409 still counts as admitted).
 */
export function callerGuardCheck(operationId: string, request: (op: Operation) => { path: string; json?: unknown }) {
  const op = OPERATIONS_BY_ID.get(operationId);
  if (!op) throw new Error(`contract has no operation ${operationId}`);
  const members = CALLER_LISTS[op.callers].members;
  const opClause = `END-OPS-${operationId.toUpperCase()}-1`;
  const listClause = LIST_CLAUSE[op.callers];
  return check(
    {
      id: `endpoints.callers.${operationId}`,
      title: `${operationId} (${op.method} ${op.path}) admits the ${op.callers} list and refuses other caller kinds with 403 caller_not_allowed`,
      clauses: [...new Set([opClause, listClause, 'END-LIST-5', 'PUR-RULE-2', 'ERR-TABLE-8'])],
    },
    async (shop) => {
      const { path, json } = request(op);
      const tried = KINDS.filter(({ kind, capability }) => {
        if (!capability || shop.profile.capabilities[capability]) return true;
        shop.info.annotations.push({ type: 'note', description: `${kind} not tried: the profile does not claim "${capability}"` });
        return false;
      });
      // Each kind is its own caller on a fresh account (or a fresh guest cart), and the request changes nothing the others
      // see: the kinds are tried at once, their verdict the one of the kinds in turn.
      await judgeConcurrently(
        tried.map(({ kind }) => async () => {
          const res = await shop.http.request(op.method, path, {
            ...(await credentialsOf(shop, kind)),
            ...(json !== undefined ? { json } : {}),
          });
          if (members.includes(kind)) {
            if (guardRefused(res))
              fail(
                `${kind} on ${operationId} (in the ${op.callers} list) must pass the guard`,
                'not 401, not 403 caller_not_allowed/insufficient_scope',
                `${res.status} ${res.text.slice(0, 300)}`,
                { clause: opClause },
              );
          } else {
            expectProblem(res, {
              status: 403,
              error: 'caller_not_allowed',
              docsUrl: shop.docsUrl,
              // The list's own clause, and the rule that the guard refuses kinds outside it at the one URL.
              clause: [kind === 'operator' ? 'END-LIST-5' : listClause, 'PUR-RULE-2'],
            });
            expectNoHeader(res, 'www-authenticate', {
              what: `WWW-Authenticate on caller_not_allowed (${kind} on ${operationId})`,
              clause: 'ERR-TABLE-8',
            });
          }
        }),
        CASES_AT_ONCE,
      );
      shop.info.annotations.push({
        type: 'note',
        description: 'invited-agent and assistant callers are tried by the agent checks (05-authentication.agent-callers)',
      });
    },
  );
}
