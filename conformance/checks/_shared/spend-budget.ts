// Spending a rate-limit budget (spec part 8, Limits > Rate limiting) the same way at any round trip. The requests that
// spend a budget do not depend on each other, so they go several at once (the transport's in-flight cap still holds),
// which keeps the spending far shorter than any window even against a deployment far away. Budgets are per window and the
// spec shows neither the windows nor their kind (fixed or sliding): a spending that straddles a window boundary may be let
// through (with fixed windows, a spending of T seconds straddles one with a chance of T / window), so an attempt that sees
// no 429 is tried again afresh, and an attempt is evidence of a missing limit only when the check's own clock, around the
// whole exchange, shows it fitted in one window.
import { notApplicable } from '../../engine/runner/check.js';
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { mapConcurrent } from '../../engine/transport/in-flight.js';
import type { AssistantAgent } from './assistant.js';

/**
 * Requests of one spending in flight at once (the count is what a budget counts, not the order). More than a worker's
 * own places: past them it borrows from the run's pool (engine/runner/in-flight-pool.ts), which the cap bounds.
 */
export const SPEND_IN_FLIGHT = 16;

/** The answers of `count` requests, in the order sent, at most SPEND_IN_FLIGHT at once. */
export function spendConcurrently(count: number, send: (i: number) => Promise<ShopResponse>): Promise<ShopResponse[]> {
  return mapConcurrent(
    Array.from({ length: count }, (_, i) => i),
    SPEND_IN_FLIGHT,
    send,
  );
}

/**
 * One request of an assistant's spending (listCollections, which every assistant may call and which changes nothing).
 * Requests a session sends at once each carry the last nonce it saw, which a deployment that honours only its newest
 * nonce refuses with use_dpop_nonce: that refusal comes from the authenticate stage, before the rate limit (Request
 * processing order), so it spends nothing, and the request is sent again with the nonce it names (a few times at most).
 */
export async function spendAsAssistant(agent: AssistantAgent): Promise<ShopResponse> {
  let res = (await agent.get('/v1/catalog/collections')).res;
  for (let i = 0; i < 4 && res.status === 401 && res.body?.error === 'use_dpop_nonce'; i++)
    res = (await agent.get('/v1/catalog/collections')).res;
  return res;
}

/** One attempt at spending a budget: whether its answers showed the limit, and what it found. */
export interface SpendAttempt<T> {
  limited: boolean;
  value: T;
}

/**
 * Runs `attempt` (each with fresh counters: a fresh shopper, session or client) until one shows the limit, at most
 * `tries` times (three: a conforming deployment with fixed windows is let through each time only by a boundary). Returns the last attempt and whether it is conclusive: limited, or timed on the check's clock within one
 * window (`windowSeconds`; a spending longer than that may have crossed into a fresh window, so its pass proves nothing).
 * When no attempt is conclusive, the check cannot judge at this round trip: not applicable, with the reason.
 */
export async function spendWithinWindow<T>(
  windowSeconds: number | undefined,
  attempt: () => Promise<SpendAttempt<T>>,
  tries = 3,
): Promise<SpendAttempt<T>> {
  let last: SpendAttempt<T> | undefined;
  let conclusive = false;
  let longestMs = 0;
  for (let i = 0; i < tries; i++) {
    const started = performance.now();
    last = await attempt();
    const ms = performance.now() - started;
    longestMs = Math.max(longestMs, ms);
    if (last.limited) return last;
    if (windowSeconds === undefined || ms < windowSeconds * 1000) conclusive = true;
  }
  if (!conclusive)
    return notApplicable(
      `each spending of the budget took longer than its window (${(longestMs / 1000).toFixed(1)} s against ${windowSeconds} s): the round trip to the deployment is too long to judge it (raise --max-in-flight)`,
    );
  return last!;
}

/** The guest budget the profile declares, or a skip: the spec shows no numbers. */
export function guestBudget(shop: Shop): number {
  const budget = shop.profile.rateLimits?.guestBudget;
  if (budget === undefined) return notApplicable('the profile declares no guest rate-limit budget (rateLimits.guestBudget)');
  if (budget > 500) return notApplicable(`the guest budget ${budget} is too large to spend in a check`);
  return budget;
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date. */
export const isRetryAfter = (v: string) =>
  /^\d+$/.test(v) || (/[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT/.test(v) && !Number.isNaN(Date.parse(v)));

/**
 * What a refusal past a budget is judged on, beyond the budget's own clause: 429 rate_limited with Retry-After (LIM-RATE-4,
 * ERR-TABLE-12), and, as every response, X-Request-Id (AUTH-ORDER-2, ERR-PROBLEM-7) and the problem document's members.
 */
export const RATE_LIMITED_CLAUSES = [
  'LIM-RATE-4',
  'ERR-TABLE-12',
  'AUTH-ORDER-2',
  'ERR-PROBLEM-7',
  'RES-PROBLEM-1',
  'RES-PROBLEM-2',
  'RES-PROBLEM-3',
  'RES-PROBLEM-4',
  'RES-PROBLEM-5',
  'RES-PROBLEM-8',
];
