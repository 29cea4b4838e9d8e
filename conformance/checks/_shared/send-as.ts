// One request as each caller kind the profile claims, fresh accounts: for the checks whose clause is about every caller
// kind that may call an operation: the members of a caller list of contract/callers.ts the profile claims.
import { mapCases } from '../../engine/runner/cases.js';
import { CALLER_CAPABILITY, CALLER_LISTS, type CallerKind, type CallerListName } from '../../../contract/callers.js';
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { AssistantAgent } from './assistant.js';
import { delegatedToken, guestHeaders } from '../../lib/callers.js';
import { invitedAgent } from './probe-agents.js';

/** Sends one request as one caller. */
export type Send = (method: string, path: string, json?: unknown, headers?: Record<string, string>) => Promise<ShopResponse>;

/** The caller lists of contract/callers.ts a check sends as: `agentCheckout` is the agents acting for an account. */
export type CallerSet = Extract<CallerListName, 'storefront' | 'account' | 'agentCheckout'>;

/** Each caller's one-request sender, on a fresh account of its own. */
const SENDERS: Partial<Record<CallerKind, (shop: Shop) => Promise<Send>>> = {
  customer: async (shop) => {
    const token = await shop.mint.customer({ sub: shop.subject('cust') });
    return (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) });
  },
  delegated: async (shop) => {
    const token = await delegatedToken(shop);
    return (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) });
  },
  guest: async (shop) => {
    const headers = await guestHeaders(shop, shop.guestSession());
    return (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...headers, ...extra }, ...body(json) });
  },
  'invited-agent': async (shop) => {
    const inv = await invitedAgent(shop);
    return (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...inv.headers, ...extra }, ...body(json) });
  },
  assistant: async (shop) => {
    const agent = await AssistantAgent.create(shop);
    return async (method, path, json, extra = {}) => (await agent.request(method, path, { headers: extra, ...body(json) })).res;
  },
};

const body = (json: unknown) => (json !== undefined ? { json } : {});

/** How a report names each caller kind. */
const LABEL: Partial<Record<CallerKind, string>> = { 'invited-agent': 'invited agent' };

/**
 * Each caller kind of the contract's list that the profile claims, each on a fresh account, in the list's order; an
 * assistant sends with DPoP through its own session.
 */
export async function callers(shop: Shop, set: CallerSet): Promise<[string, Send][]> {
  const kinds = CALLER_LISTS[set].members.filter((kind) => {
    const capability = CALLER_CAPABILITY[kind];
    return SENDERS[kind] !== undefined && (capability === undefined || shop.profile.capabilities[capability]);
  });
  // The callers are provisioned as cases of their own (each on an account of its own), listed in the kinds' order.
  return mapCases(kinds, async (kind): Promise<[string, Send]> => [LABEL[kind] ?? kind, await SENDERS[kind]!(shop)]);
}
