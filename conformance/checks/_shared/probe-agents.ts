// Agents as the authentication checks present them, and the probes that measure their authority. Invited agents: the
// web-agent-forwarder machine token plus a bearer-bound `invited-agent+jwt` context (docs/tokens.md). Assistants: their
// own DPoP-bound session token (conformance/checks/_shared/assistant.ts). A probe of an operation reaches the guard and, past it,
// changes nothing: ids no record has, and bodies that fail validation.
import { expectPassesGuard } from '../../lib/expect/agents.js';
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { ALL_PERMISSIONS, type AssistantAgent } from './assistant.js';
import { errorOf } from '../../lib/expect/dpop.js';
import { brief, failSoft, inCase } from '../../lib/assert.js';
import { freshHex } from '../../lib/fresh-id.js';
import type { InvitedAgentContextOptions } from '../../lib/mint.js';
import { OPERATIONS, type HttpMethod, type Operation } from '../../../contract/operations.js';
import { expectInsufficientScope } from '../../lib/expect/refusals.js';
import { PRODUCT_HANDLE, VARIANT } from './seed-data.js';
import { contextHeader } from './artifact-headers.js';
import { learned } from '../../engine/runner/check.js';
import { mapCases } from '../../engine/runner/cases.js';

/** One request: method, path and JSON body. */
export interface Call {
  method: string;
  path: string;
  json?: unknown;
}

/**
 * A request for `op` that reaches the guard and, past it, changes nothing: ids no record has, and bodies that fail
 * validation (or name nothing). Reads are sent as they are.
 */
export function probe(op: Operation): Call {
  // Routes the spec leaves open (operator, conversation) are the target's, from its description documents: a contract row
  // is looked up by its id, an operation found in the documents (describedOperatorOperations) is already the target's.
  const open = op.group === 'operator' || op.group === 'conversation';
  const route = open && OPERATIONS.includes(op) ? learned().operation(op.operationId) : op;
  const path = route.path
    .replace('{handle}', PRODUCT_HANDLE)
    .replace('{variant_id}', VARIANT)
    .replace(/\{[^}]+\}/g, () => `none_${freshHex()}`);
  const method = route.method;
  if (method === 'POST' || method === 'PATCH' || method === 'PUT') return { method, path, json: { conformance_probe: true } };
  return { method, path };
}

/**
 * Every operation the target's documents describe under /v1/ops/, as rows of the operator group, whatever their ids: the
 * spec shows none of them, only that the prefix is operator-only (What the service does, rule 1).
 */
export const describedOperatorOperations = (): Operation[] =>
  learned()
    .operatorOperations()
    .map((op) => ({
      operationId: op.operationId,
      method: op.method as HttpMethod,
      path: op.path,
      group: 'operator',
      agentScopes: [],
      apiScopes: [],
      callers: 'operator',
      tools: [],
      notShown: ['agentScopes', 'apiScopes', 'callers', 'tools'],
    }));

/**
 * Permissions no table knows (AUTH-SCOPE-10: they unlock nothing beyond the base scopes): made-up names, and the names of
 * members every object of a server's language holds, which a permission table kept as a plain object would find.
 */
export const UNKNOWN_PERMISSIONS: readonly string[] = [
  'admin',
  'assistant:*',
  'checkout:all',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

/** The contract's operation of that id. */
export const OP = (id: string): Operation => {
  const op = OPERATIONS.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

/** Probes of the permission table: operation → the permission it needs (undefined: base authority). */
export const PERMISSION_PROBES: readonly [string, string | undefined][] = [
  ['searchProducts', undefined],
  ['getCart', undefined],
  ['addCartItem', undefined],
  ['getProfile', 'assistant:read'],
  ['listPaymentMethods', 'assistant:read'],
  ['listOrders', 'assistant:read'],
  ['addAddress', 'assistant:write'],
  ['cancelOrder', 'assistant:write'],
  ['checkoutSavedCard', 'checkout'],
];

/**
 * Sends one call as some caller. `inTurn`: its calls go one after another (an assistant's: each proof carries the nonce of
 * the answer before it, and a deployment may honour only its newest).
 */
export type Send = ((call: Call) => Promise<ShopResponse>) & { inTurn?: boolean };

/** The row of the permission table (Scope translation) whose API scopes a permission unlocks. */
const PERMISSION_ROW: Readonly<Record<string, string>> = {
  'assistant:read': 'AUTH-SCOPE-7',
  'assistant:write': 'AUTH-SCOPE-8',
  checkout: 'AUTH-SCOPE-9',
};

/**
 * Each permission probe sent, with whether `permissions` hold what it needs (or it needs none). A probe changes nothing, so
 * they go at once (one after another when the sender's calls go in turn); they are yielded in the table's order.
 */
async function* probeEach(send: Send, permissions: readonly string[]) {
  const sent = send.inTurn ? undefined : await mapCases(PERMISSION_PROBES, async ([id]) => send(probe(OP(id))));
  for (const [i, [id, needs]] of PERMISSION_PROBES.entries()) {
    const op = OP(id);
    const res = sent?.[i] ?? (await send(probe(op)));
    yield {
      id,
      op,
      res,
      needs,
      held: needs === undefined || permissions.includes(needs),
      what: `${id} with permissions [${permissions.join(', ')}]`,
    };
  }
}

/**
 * The agent's authority equals what `permissions` map to: each probe passes the guard when its permission is held (or it
 * needs none), and is 403 insufficient_scope otherwise, naming the permission (assistants, ERR-SCOPE-1) or either the
 * permission or the API scope (invited agents: the spec names no form). With `rows`, a probe that is not refused 403
 * insufficient_scope is a failure of the case's clause, of the guard's rule (AUTH-SCOPE-4) and of the permission's row
 * too, judged softly so that every probe and case is reached (probes change nothing).
 */
export async function expectAuthority(
  shop: Shop,
  send: Send,
  permissions: readonly string[],
  { clause, naming, rows = false }: { clause: string; naming: 'permission' | 'either'; rows?: boolean },
): Promise<void> {
  for await (const { id, op, res, needs, held, what } of probeEach(send, permissions)) {
    if (rows && !held && (res.status !== 403 || errorOf(res) !== 'insufficient_scope')) {
      failSoft(`${what}: refused for want of ${needs}`, '403 insufficient_scope', brief(res), {
        clause: [...new Set([clause, 'AUTH-SCOPE-4', PERMISSION_ROW[needs!] ?? 'AUTH-SCOPE-4'])],
      });
      continue;
    }
    inCase(what, () => {
      if (held) return expectPassesGuard(res, { what: id, clause });
      expectInsufficientScope(shop, res, {
        clause: naming === 'permission' ? 'ERR-SCOPE-1' : clause,
        scope: naming === 'permission' ? needs! : [needs!, ...op.apiScopes],
      });
    });
  }
}

/** expectAuthority with each refusal judged on its own clauses (`rows`). */
export const expectPermissions = (
  shop: Shop,
  send: Send,
  permissions: readonly string[],
  o: { clause: string; naming: 'permission' | 'either' },
): Promise<void> => expectAuthority(shop, send, permissions, { ...o, rows: true });

export interface Invited {
  sub: string;
  agentId: string;
  forwarder: string;
  context: string;
  headers: Record<string, string>;
}

/** An invited agent: a forwarder token and a context bound to it (docs/tokens.md, "Invited-agent context"). */
export async function invitedAgent(
  shop: Shop,
  o: {
    sub?: string;
    permissions?: readonly string[];
    forwarderScope?: string;
    forwarder?: string;
    context?: Partial<InvitedAgentContextOptions>;
  } = {},
): Promise<Invited> {
  const sub = o.sub ?? shop.subject('inv');
  const agentId = `inv_agent_${freshHex()}`;
  const forwarder =
    o.forwarder ?? (await shop.mint.invitedAgentForwarder(o.forwarderScope !== undefined ? { scope: o.forwarderScope } : {}));
  const context = await shop.mint.invitedAgentContext({
    sub,
    agentId,
    permissions: o.permissions ?? ALL_PERMISSIONS,
    forwarderToken: forwarder,
    ...o.context,
  });
  return { sub, agentId, forwarder, context, headers: { authorization: `Bearer ${forwarder}`, [contextHeader()]: context } };
}

/** Sends a call as the invited agent. */
export const sendInvited =
  (shop: Shop, inv: Pick<Invited, 'headers'>): Send =>
  (call) =>
    shop.http.request(call.method, call.path, { headers: inv.headers, ...(call.json !== undefined ? { json: call.json } : {}) });

/** Sends a call as the assistant, with its own token or `token`; its calls go in turn (the agent keeps the last nonce). */
export const sendAssistant = (agent: AssistantAgent, token?: string): Send =>
  Object.assign(
    async (call: Call) =>
      (
        await agent.request(call.method, call.path, {
          ...(call.json !== undefined ? { json: call.json } : {}),
          ...(token ? { token } : {}),
        })
      ).res,
    { inTurn: true },
  );
