// The caller-guard check of one operation (spec, What the service does 1; Errors: caller_not_allowed), built per operation
// by the check files of the operations' parts: every kind of the operation's caller list passes the guard, every other
// kind gets 403 caller_not_allowed without a challenge.
//
// Scopes. The guard "checks the operation's declared callers, assistant agentScopes, API scopes and delegated scope
// translation", one stage with no order inside it: a wrong kind whose token also lacks the API scope may rightly get
// insufficient_scope. So every kind's token carries the operation's API scopes (apiScopesOf), and only the caller refusal
// applies. Where neither the spec nor the target's documents say which scopes an operation needs (the checkout reads),
// a 403 insufficient_scope is accepted, from members and others alike.
import { CALLER_LISTS } from '../../../contract/callers.js';
import { OPERATIONS_BY_ID, type Operation } from '../../../contract/operations.js';
import { credentialsOf, KINDS, type CallerCredentials, type Kind } from '../../lib/callers.js';
import { check, learned, type Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { judgeCases } from '../../engine/runner/cases.js';
import { expectNoHeader, expectProblem } from '../../lib/assert.js';
import { CALLER_GUARD, LIST_CLAUSE, guardRefused as refusedByGuard } from '../../rules/04-endpoints.js';
import { enforce } from '../../rules/rule.js';

export { LIST_CLAUSE } from '../../rules/04-endpoints.js';

/** Refused by the guard (rules/04-endpoints.ts guardRefused), on an answer of the suite's transport. */
export const guardRefused = (res: ShopResponse): boolean => refusedByGuard({ status: res.status, error: res.body?.error });

/**
 * The API scopes an operation needs, as far as the suite can know them: the spec's (its row's apiScopes, where the spec
 * shows them) and those the target's documents declare in its security requirements. `known` is false when neither says
 * (the checkout reads, the preview, the operator routes of a target that declares none): `scopes` are then the
 * reference's, minted in case they help, and a refusal for a missing scope is no verdict on anything.
 */
export function apiScopesOf(operationId: string): { scopes: readonly string[]; known: boolean } {
  const op = OPERATIONS_BY_ID.get(operationId);
  const declared = learned().securityScopes(operationId);
  const shown = op !== undefined && !op.notShown?.includes('apiScopes');
  return { scopes: [...new Set([...(op?.apiScopes ?? []), ...(declared ?? [])])], known: shown || declared !== undefined };
}

/** A 403 insufficient_scope for an operation whose scopes the suite cannot know: accepted, with a note. */
export function unknownScopeRefusal(shop: Shop, res: ShopResponse, operationId: string, who: string): boolean {
  if (res.status !== 403 || res.body?.error !== 'insufficient_scope' || apiScopesOf(operationId).known) return false;
  shop.info.annotations.push({
    type: 'note',
    description: `${who} on ${operationId}: 403 insufficient_scope accepted (neither the spec nor the documents' security requirement names its scopes)`,
  });
  return true;
}

/**
 * The credentials of a caller kind (as conformance/lib/callers.ts presents them: fresh subjects, a fresh guest cart and shopper)
 * whose token carries the kind's default scopes plus the API scopes of the operations named, so that a refusal is the
 * caller guard's and not the scope check's.
 */
export function credentialsFor(shop: Shop, kind: Kind, operationIds: readonly string[]): Promise<CallerCredentials> {
  return credentialsOf(shop, kind, { scopes: operationIds.flatMap((id) => apiScopesOf(id).scopes) });
}

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
      // see: the kinds are cases of their own (engine/runner/cases.ts).
      await judgeCases(tried, async ({ kind }) => {
        const res = await shop.http.request(op.method, path, {
          ...(await credentialsFor(shop, kind, [operationId])),
          ...(json !== undefined ? { json } : {}),
        });
        if (unknownScopeRefusal(shop, res, operationId, kind)) return;
        // The guard's rule (rules/04-endpoints.ts): the token carries the operation's scopes, so only the caller refusal
        // stands; the refusal is then judged as the problem document the error table gives it.
        const guarded = { status: res.status, error: res.body?.error, request: { operationId, kind, scopesCovered: true } };
        if (members.includes(kind)) enforce(CALLER_GUARD, guarded, { clause: opClause });
        else {
          enforce(CALLER_GUARD, guarded, { clause: [kind === 'operator' ? 'END-LIST-5' : listClause, 'PUR-RULE-2'] });
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
      });
      shop.info.annotations.push({
        type: 'note',
        description: 'invited-agent and assistant callers are tried by the agent checks (05-authentication.agent-callers)',
      });
    },
  );
}
