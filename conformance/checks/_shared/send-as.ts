// One request as each caller kind the profile claims, fresh accounts: for the checks whose clause is about every caller
// kind that may call an operation (the storefront list; the account list without guests; agents only).
import type { Shop } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import { AssistantAgent } from './assistant.js';
import { delegatedToken, guestHeaders } from './mint-callers.js';
import { invitedAgent } from './probe-agents.js';

/** Sends one request as one caller. */
export type Send = (method: string, path: string, json?: unknown, headers?: Record<string, string>) => Promise<ShopResponse>;

export type CallerSet = 'storefront' | 'account' | 'agents';

/**
 * Each caller kind of the set the profile claims, each on a fresh account: customer (not among agents), delegated, guest
 * (storefront only), invited agent, assistant (DPoP, its own session).
 */
export async function callers(shop: Shop, set: CallerSet): Promise<[string, Send][]> {
  const caps = shop.profile.capabilities;
  const out: [string, Send][] = [];
  const body = (json: unknown) => (json !== undefined ? { json } : {});
  if (set !== 'agents') {
    const token = await shop.mint.customer({ sub: shop.subject('cust') });
    out.push(['customer', (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) })]);
  }
  if (caps.delegated) {
    const token = await delegatedToken(shop);
    out.push(['delegated', (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) })]);
  }
  if (set === 'storefront' && caps.guests) {
    const headers = await guestHeaders(shop, shop.guestSession());
    out.push([
      'guest',
      (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...headers, ...extra }, ...body(json) }),
    ]);
  }
  if (caps.invitedAgents) {
    const inv = await invitedAgent(shop);
    out.push([
      'invited agent',
      (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...inv.headers, ...extra }, ...body(json) }),
    ]);
  }
  if (caps.assistants) {
    const agent = await AssistantAgent.create(shop);
    out.push([
      'assistant',
      async (method, path, json, extra = {}) => (await agent.request(method, path, { headers: extra, ...body(json) })).res,
    ]);
  }
  return out;
}
