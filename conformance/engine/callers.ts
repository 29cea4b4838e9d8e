// Credentials of the caller kinds the caller-kind × operation checks try (agents have their own checks): fresh subjects,
// fresh guest carts and shopper addresses, so that no two checks share an account, a cart or a rate-limit budget.
import { CALLER_LISTS, type CallerKind, type CallerListName } from '../../contract/callers.js';
import { OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';
import { expectProblem, fail } from '../lib/assert.js';
import { audienceOf } from '../lib/mint.js';
import { freshShopperIp } from '../lib/shopper.js';
import { check, type Shop } from './check.js';
import type { RequestOptions, ShopResponse } from './http.js';

/** The Operator attribution header's value of every operator request the suite sends. */
export const OPERATOR_ATTRIBUTION = 'conformance@shop.test';

export const KINDS = [
  { kind: 'customer', capability: undefined },
  { kind: 'delegated', capability: 'delegated' },
  { kind: 'guest', capability: 'guests' },
  { kind: 'operator', capability: 'operators' },
] as const satisfies readonly { kind: CallerKind; capability: keyof Shop['profile']['capabilities'] | undefined }[];

export type Kind = (typeof KINDS)[number]['kind'];

export async function credentialsOf(shop: Shop, kind: Kind): Promise<Pick<RequestOptions, 'token' | 'headers'>> {
  switch (kind) {
    case 'customer':
      return { token: await shop.mint.customer({ sub: shop.subject('cust') }) };
    case 'delegated':
      // The API audience (channel openapi): the audience the service itself is addressed by, unless the profile declares
      // delegated tokens for the agent audience only.
      return { token: await shop.mint.delegated({ sub: shop.subject('cust'), audience: audienceOf(shop.profile, 'delegated', 'api') }) };
    case 'guest':
      return { token: await shop.mint.guest(), headers: { 'guest-session': shop.guestSession(), 'shopper-ip': freshShopperIp() } };
    case 'operator':
      return { token: await shop.mint.operator(), headers: { operator: OPERATOR_ATTRIBUTION } };
  }
}

/** Credentials of each kind of KINDS, except those named, whose capability the profile claims (in KINDS order). */
export async function credentialsOfClaimedKinds(
  shop: Shop,
  except: readonly Kind[] = [],
): Promise<[Kind, Pick<RequestOptions, 'token' | 'headers'>][]> {
  const out: [Kind, Pick<RequestOptions, 'token' | 'headers'>][] = [];
  for (const { kind, capability } of KINDS) {
    if (except.includes(kind) || (capability && !shop.profile.capabilities[capability])) continue;
    out.push([kind, await credentialsOf(shop, kind)]);
  }
  return out;
}

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
      for (const { kind, capability } of KINDS) {
        if (capability && !shop.profile.capabilities[capability]) {
          shop.info.annotations.push({ type: 'note', description: `${kind} not tried: the profile does not claim "${capability}"` });
          continue;
        }
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
          if (res.headers.get('www-authenticate') !== null)
            fail(`WWW-Authenticate on caller_not_allowed (${kind} on ${operationId})`, 'absent', res.headers.get('www-authenticate'), {
              clause: 'ERR-TABLE-8',
            });
        }
      }
      shop.info.annotations.push({
        type: 'note',
        description: 'invited-agent and assistant callers are tried by the agent checks (05-authentication.agent-callers)',
      });
    },
  );
}
