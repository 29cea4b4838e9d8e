// Explore-reach defects, family "reads after writes by another caller of the same account": a write kept per caller kind
// instead of per account, so that another caller of the same account does not read it back. Stateful: each keeps, for
// one run, what one caller kind wrote, and hides it from the other kind's read. Only a sequence of two callers of one
// account (the write, then the other's read) shows it. Written from the spec and the contract alone (blind).
import type { ProxyAnswer, ProxyRequest } from '../../proxy.js';
import { editJson, headerOf, jsonSegment, keptBodies, notAStream } from '../helpers.js';
import type { Defect, DefectContext } from '../types.js';
import { isOperation, kindOf, statefulWire, subOf, type Kind } from '../blind/shared.js';

/** The account a request acts on (unverified): an invited agent's is in its context, every other kind's is the `sub`. */
function accountOf(ctx: DefectContext, r: ProxyRequest): string | undefined {
  if (kindOf(ctx.profile, r) !== 'invited-agent') return subOf(r);
  const header = ctx.profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';
  const payload = headerOf(r.headers, header)?.split('.')[1];
  const sub = payload ? jsonSegment(payload)?.sub : undefined;
  return typeof sub === 'string' ? sub : undefined;
}

/** The id of what a create answered: its body's `id`, else the last segment of its Location. */
function createdId(a: ProxyAnswer): string | undefined {
  try {
    const id = (JSON.parse(a.body ?? '') as { id?: unknown }).id;
    if (typeof id === 'string') return id;
  } catch {
    // No JSON body: the Location names it.
  }
  const location = headerOf(a.headers, 'location');
  return location ? decodeURIComponent(location.split('?')[0]!.split('/').pop() ?? '') || undefined : undefined;
}

/** Every array of the answer's JSON body with the objects `hide` picks left out. */
function withoutRows(a: ProxyAnswer, hide: (row: Record<string, unknown>) => boolean): ProxyAnswer {
  const prune = (v: unknown): unknown => {
    if (Array.isArray(v))
      return v.filter((x) => !(x && typeof x === 'object' && !Array.isArray(x) && hide(x as Record<string, unknown>))).map(prune);
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (v as Record<string, unknown>)[k] = prune(x);
    return v;
  };
  return editJson(a, (body) => void prune(body));
}

/** A set per account. */
const perAccount = () => {
  const sets = new Map<string, Set<string>>();
  return {
    add: (account: string, v: string) => void (sets.get(account) ?? sets.set(account, new Set()).get(account)!).add(v),
    delete: (account: string, v: string) => void sets.get(account)?.delete(v),
    of: (account: string): ReadonlySet<string> => sets.get(account) ?? new Set(),
  };
};

const ok = (a: ProxyAnswer) => a.status >= 200 && a.status < 300;

/**
 * A write kept per caller kind: the ids that `created` (one kind's write of an account) answered are kept per account,
 * dropped again when `forgotten` names one, and left out of `read` (one operation by another kind) of the same account.
 */
const createdHiddenFrom = (
  id: string,
  clause: string,
  description: string,
  created: (r: ProxyRequest, kind: Kind, a: ProxyAnswer) => boolean,
  read: { operation: string; kind: Kind },
  forgotten: (r: ProxyRequest, a: ProxyAnswer) => string | undefined = () => undefined,
): Defect =>
  statefulWire(id, clause, description, (ctx) => {
    const kept = perAccount();
    return {
      buffer: notAStream,
      response(a, r) {
        const account = accountOf(ctx, r);
        if (!account) return a;
        const kind = kindOf(ctx.profile, r);
        if (created(r, kind, a)) {
          const id = createdId(a);
          if (id) kept.add(account, id);
        }
        const gone = forgotten(r, a);
        if (gone !== undefined) kept.delete(account, gone);
        const hidden = kept.of(account);
        if (!isOperation(r, read.operation) || kind !== read.kind || a.status !== 200 || hidden.size === 0) return a;
        return withoutRows(a, (row) => typeof row.id === 'string' && hidden.has(row.id));
      },
    };
  });

export const REACH_SHARED_DEFECTS: readonly Defect[] = [
  // What the service does: "account data shared by several callers: ... addresses (list, add, delete)". Broken: an
  // address a delegated agent adds is filed under the agent's grant, and the customer's own listAddresses of that account
  // leaves it out.
  createdHiddenFrom(
    'reach.shared.delegated-address-hidden-from-customer',
    'PUR-SERVE-4',
    "an address added by a delegated caller is missing from the customer's listAddresses of the same account",
    (r, kind, a) => isOperation(r, 'addAddress') && kind === 'delegated' && a.status === 201,
    { operation: 'listAddresses', kind: 'customer' },
    (r, a) => (isOperation(r, 'deleteAddress') && ok(a) ? decodeURIComponent(r.path.split('?')[0]!.split('/').pop()!) : undefined),
  ),
  // Caller kinds: a delegated caller is "signed in, account cart" (the cart the customer of that account uses). Broken:
  // the cart is keyed by account and caller kind, so a line the customer added is not in the delegated caller's getCart.
  statefulWire(
    'reach.shared.customer-cart-line-unseen-by-delegated',
    'AUTH-KIND-6',
    "a cart line the customer added is missing from a delegated caller's getCart of the same account",
    (ctx) => {
      const bodies = keptBodies();
      const customerLines = perAccount();
      return {
        buffer: notAStream,
        requestBody: bodies.requestBody,
        response(a, r) {
          const account = accountOf(ctx, r);
          if (!account) return a;
          const kind = kindOf(ctx.profile, r);
          // The line is named by the string members of the add's body (the variant; the quantity is a number).
          if (isOperation(r, 'addCartItem') && ok(a) && (kind === 'customer' || kind === 'delegated')) {
            const names = Object.values(bodies.of(r) ?? {}).filter((v): v is string => typeof v === 'string');
            for (const v of names) (kind === 'customer' ? customerLines.add : customerLines.delete)(account, v);
          }
          const hidden = customerLines.of(account);
          if (!isOperation(r, 'getCart') || kind !== 'delegated' || a.status !== 200 || hidden.size === 0) return a;
          return withoutRows(a, (row) => Object.values(row).some((v) => typeof v === 'string' && hidden.has(v)));
        },
      };
    },
  ),
  // What the service does: "account data shared by several callers: ... orders (list, read, ...)". Broken: an order an
  // invited agent places is indexed under the agent, and the customer's listOrders of that account leaves it out.
  createdHiddenFrom(
    'reach.shared.invited-order-missing-for-customer',
    'PUR-SERVE-4',
    "an order placed by an invited agent is missing from the customer's listOrders of the same account",
    (r, kind, a) => isOperation(r, 'checkoutSavedCard') && kind === 'invited-agent' && ok(a),
    { operation: 'listOrders', kind: 'customer' },
  ),
];
