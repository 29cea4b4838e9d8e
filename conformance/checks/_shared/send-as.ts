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
  const body = (json: unknown) => (json !== undefined ? { json } : {});
  // The callers are provisioned at once (each on an account of its own); their order is the list's.
  const kinds: Promise<[string, Send]>[] = [];
  if (set !== 'agents')
    kinds.push(
      (async () => {
        const token = await shop.mint.customer({ sub: shop.subject('cust') });
        return ['customer', (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) })];
      })(),
    );
  if (caps.delegated)
    kinds.push(
      (async () => {
        const token = await delegatedToken(shop);
        return ['delegated', (method, path, json, extra = {}) => shop.http.request(method, path, { token, headers: extra, ...body(json) })];
      })(),
    );
  if (set === 'storefront' && caps.guests)
    kinds.push(
      (async () => {
        const headers = await guestHeaders(shop, shop.guestSession());
        return [
          'guest',
          (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...headers, ...extra }, ...body(json) }),
        ];
      })(),
    );
  if (caps.invitedAgents)
    kinds.push(
      (async () => {
        const inv = await invitedAgent(shop);
        return [
          'invited agent',
          (method, path, json, extra = {}) => shop.http.request(method, path, { headers: { ...inv.headers, ...extra }, ...body(json) }),
        ];
      })(),
    );
  if (caps.assistants)
    kinds.push(
      (async () => {
        const agent = await AssistantAgent.create(shop);
        return [
          'assistant',
          async (method, path, json, extra = {}) => (await agent.request(method, path, { headers: extra, ...body(json) })).res,
        ];
      })(),
    );
  return Promise.all(kinds);
}
