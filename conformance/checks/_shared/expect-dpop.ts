// DPoP failures as the spec's error table and RFC 9449 describe them, and an assistant ready to send proofs: the DPoP
// checks of part 5 (Assistant authority) compose these.
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { judgeCases, mapCases } from '../../engine/runner/cases.js';
import { AssistantAgent } from './assistant.js';
import { errorOf } from '../../lib/expect/dpop.js';
import { expectChallenge, expectDpopNonce, expectProblem, expectSuccess, fail } from '../../lib/assert.js';
import { challengesOf } from '../../lib/expect/refusals.js';

/** The path the DPoP checks request: getCart, which every assistant may call. */
export const CART = '/v1/cart';

/** A proof failure, and a proof or nonce failure (RFC 9449 lets a server answer some defects with a nonce challenge). */
export const PROOF = ['invalid_dpop_proof'] as const;
export const PROOF_OR_NONCE = ['invalid_dpop_proof', 'use_dpop_nonce'] as const;

/** Exactly one challenge, in the DPoP scheme (a client library retries a nonce challenge only when it stands alone). */
export function expectSingleDpopChallenge(res: ShopResponse, error: string, { clause }: { clause: string }): void {
  expectChallenge(res, { scheme: 'DPoP', error, clause });
  const challenges = challengesOf(res, { clause });
  if (challenges.length !== 1)
    fail('WWW-Authenticate: a single DPoP challenge', 'one challenge', res.headers.get('www-authenticate'), { clause });
}

/**
 * A DPoP-Nonce header (Request processing order: every response to a DPoP request carries a fresh one). On a DPoP failure
 * (401 invalid_dpop_proof or use_dpop_nonce) the error table's row requires it too (ERR-TABLE-4): its absence there
 * blames both.
 */
export function expectNonceHeader(res: ShopResponse, { clause }: { clause: string }): void {
  const dpopFailure = res.status === 401 && (PROOF_OR_NONCE as readonly string[]).includes(errorOf(res) ?? '');
  expectDpopNonce(res, { clause: dpopFailure ? [...new Set([clause, 'ERR-TABLE-4'])] : clause });
}

/**
 * A DPoP failure (spec, Errors): 401 with one of `allowed` as the problem's error, the same error in a single DPoP
 * challenge, and a DPoP-Nonce header (Request processing order: every response to a DPoP request carries one).
 */
export function expectDpopFailure(
  shop: Shop,
  res: ShopResponse,
  allowed: readonly string[],
  { clause, ...o }: { clause: string; nonce?: boolean; algs?: boolean },
): void {
  const error = errorOf(res) ?? '<missing>';
  if (res.status !== 401 || !allowed.includes(error))
    fail('answer', `401 ${allowed.join(' or ')}`, `${res.status} ${error} ${res.text.slice(0, 200)}`, { clause });
  expectProblem(res, { status: 401, error, docsUrl: shop.docsUrl, clause });
  expectSingleDpopChallenge(res, error, { clause });
  if (o.algs) expectChallenge(res, { scheme: 'DPoP', error, params: { algs: 'ES256' }, clause });
  if (o.nonce ?? true) expectNonceHeader(res, { clause: 'AUTH-ORDER-4' });
}

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
