// Assistants ready to send DPoP proofs, and cases judged in lanes of one agent each: the request sequences of the DPoP
// checks of part 5 (Assistant authority). Their assertions are in conformance/lib/expect/dpop.ts.
import type { Shop } from '../../engine/runner/check.js';
import { judgeCases, mapCases } from '../../engine/runner/cases.js';
import { expectSuccess } from '../../lib/assert.js';
import { AssistantAgent } from './assistant.js';

/** The path the DPoP checks request: getCart, which every assistant may call. */
export const CART = '/v1/cart';

/** A provisioned agent whose nonce is known: a first correct request (the control) succeeded. */
export async function readyAgent(shop: Shop, { clause }: { clause: string }): Promise<AssistantAgent> {
  const agent = await AssistantAgent.create(shop);
  expectSuccess((await agent.get(CART)).res, { what: 'control: a correct DPoP request', clause });
  return agent;
}

/**
 * `count` agents made ready at once. Requests sent at once through one agent would each carry the nonce it saw last, which a
 * deployment that honours only its newest nonce refuses with use_dpop_nonce; agents share nothing (each its own session,
 * key, account and nonce), so cases that each need the newest nonce go at once on agents of their own. A control that
 * fails is reported in the agents' order.
 */
export function readyAgents(shop: Shop, count: number, { clause }: { clause: string }): Promise<AssistantAgent[]> {
  return mapCases(
    Array.from({ length: count }, (_, i) => i),
    () => readyAgent(shop, { clause }),
  );
}

/**
 * Judges `items` in lanes, one agent each: lane `j` judges items `j`, `j + n`, `j + 2n`… in turn on `agents[j]` (so each
 * request carries its agent's newest nonce, as one agent sending them all in turn would), the lanes at once; one failure
 * per failed item, in the items' order (engine/runner/cases.ts).
 */
export function judgeInLanes<T>(
  agents: readonly AssistantAgent[],
  items: readonly T[],
  judge: (agent: AssistantAgent, item: T) => Promise<void>,
): Promise<void> {
  return judgeCases(items, (item, i) => judge(agents[i % agents.length]!, item), { lane: (_, i) => String(i % agents.length) });
}
