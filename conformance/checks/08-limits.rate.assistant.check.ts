// Spec part 8, Limits > Rate limiting, the assistant budgets.
//
// "Assistant callers have a per-session budget and a per-client budget" (Limits): two budgets, each judged on its own. The
// session budget is spent by one session while its client's budget still has room, and another session of the same client
// must still be served; the client budget is spent by several sessions of one client, each kept under its own budget, so
// that only a budget of the client can refuse. The numbers are the profile's (rateLimits). Whether the conversation routes
// share the budget of the operations is not shown: the reference's single budget is judged at its level.
import { check, learned, test, type Shop, notApplicable } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectProblem, expectStatus, expectSuccess, fail, failSoft } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { AssistantAgent } from './_shared/assistant.js';
import { expectDpopNonce, expectProblemMembers, expectRequestId } from '../lib/expect/every-response.js';
import {
  isRetryAfter,
  RATE_LIMITED_CLAUSES,
  SPEND_IN_FLIGHT,
  spendAsAssistant,
  spendConcurrently,
  spendWithinWindow,
} from './_shared/spend-budget.js';

interface AssistantBudgets {
  session: number;
  client: number;
}

/** The declared assistant budgets, or a skip: the spec shows no numbers. */
function assistantBudgets(shop: Shop): AssistantBudgets {
  const limits = shop.profile.rateLimits;
  const session = limits?.assistantSessionBudget;
  const client = limits?.assistantClientBudget;
  if (session === undefined || client === undefined)
    return notApplicable(
      'the profile declares no assistant rate-limit budgets (rateLimits.assistantSessionBudget, assistantClientBudget); the spec shows no numbers',
    );
  if (session > 500 || client > 1000)
    return notApplicable(`the assistant budgets (${session}, ${client}) are too large to spend in a check`);
  return { session, client };
}

/** The request the budget checks spend: listCollections, which every assistant may call and which changes nothing. */
const spendOne = spendAsAssistant;

/** A refusal for a spent budget: 429 rate_limited, Retry-After, and the headers of every response of a DPoP request. */
function expectBudgetRefusal(shop: Shop, res: ShopResponse, { what, clause }: { what: string; clause: string }): void {
  expectProblem(res, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-12' });
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter === null || !isRetryAfter(retryAfter.trim()))
    failSoft(`${what}: Retry-After`, 'delay-seconds or an HTTP-date', retryAfter, { clause: ['LIM-RATE-4', 'ERR-TABLE-12', clause] });
  expectDpopNonce(res, what);
  expectRequestId(res, what);
  expectProblemMembers(shop.docsUrl, res, what);
}

/**
 * Sends `count` requests round robin over `agents` (each served, else a failure of `clause`: the profile claims more
 * room), then one more from `last`, several requests at once (spendAsAssistant: a session's nonce refusals spend
 * nothing). Budgets are per window: when the run straddles a window boundary the extra request may pass, so the caller
 * tries again with fresh sessions.
 */
async function spendThenOneMore(
  agents: readonly AssistantAgent[],
  count: number,
  last: AssistantAgent,
  { what, clause }: { what: string; clause: string },
): Promise<ShopResponse> {
  const answers = await spendConcurrently(count, (i) => spendOne(agents[i % agents.length]!));
  answers.forEach((res, i) => {
    if (res.status === 429) fail(`${what}: request ${i + 1} of ${count}`, 'not yet limited', brief(res), { clause });
    expectSuccess(res, { what: `${what}: request ${i + 1} of ${count}`, clause });
  });
  return spendOne(last);
}

/** One try at spending a budget with fresh sessions: the answer past it, and the session whose budget it spent. */
interface Attempt {
  limited: ShopResponse;
  spent: AssistantAgent;
  other?: AssistantAgent;
}

/**
 * A budget spent (`clause`): tried twice, with fresh sessions (a window boundary may let the extra request pass); the
 * answer past it is the refusal of a spent budget. With `conversations` (the reference: one budget for every route), a
 * conversation route of the spent caller is refused too; the spec does not show whether the conversation group shares the
 * budget of the operations. Returns the last try.
 */
async function expectBudgetSpent(
  shop: Shop,
  budget: { clause: string; attempt: () => Promise<Attempt>; past: string; refusal: string; spentCaller: string },
  { conversations }: { conversations: boolean },
): Promise<Attempt> {
  const { clause } = budget;
  // A spending longer than the window proves nothing (_shared/spend-budget.ts).
  const { value: last } = await spendWithinWindow(shop.profile.rateLimits?.assistantWindowSeconds, async () => {
    const value = await budget.attempt();
    return { limited: value.limited.status === 429, value };
  });
  expectStatus(last!.limited, 429, { what: budget.past, clause });
  expectBudgetRefusal(shop, last!.limited, { what: budget.refusal, clause });
  if (conversations && learned().has('listConversations')) {
    const list = learned().operation('listConversations');
    const res = (await last!.spent.request(list.method, list.path)).res;
    expectStatus(res, 429, { what: `${list.method} ${list.path} ${budget.spentCaller}`, clause });
  }
  return last!;
}

type Budget = Parameters<typeof expectBudgetSpent>[1];

/** The session budget spent by one session, while another session of its client (`other`) has sent nothing. */
const sessionBudget = (shop: Shop, budgets: AssistantBudgets): Budget => ({
  clause: 'LIM-RATE-2',
  attempt: async () => {
    const clientId = `asst_client_${freshHex()}`;
    const [spender, other] = await Promise.all([AssistantAgent.create(shop, { clientId }), AssistantAgent.create(shop, { clientId })]);
    const limited = await spendThenOneMore([spender], budgets.session, spender, {
      what: 'one session within its budget',
      clause: 'LIM-RATE-2',
    });
    return { limited, spent: spender, other };
  },
  past: `request ${budgets.session + 1} of one session (twice, with fresh sessions; the profile claims a session budget of ${budgets.session})`,
  refusal: 'the request past the session budget',
  spentCaller: 'by the session whose budget is spent',
});

/** The client budget spent by sessions each under its own budget; `spent` is a fresh session of that client. */
function clientBudget(shop: Shop, budgets: AssistantBudgets): Budget {
  // Each session stays strictly under its own budget, even with the extra request.
  const perSession = budgets.session - 1;
  if (perSession < 1) return notApplicable('a session budget of 1 leaves no room to spend a client budget over sessions');
  // The budget's client is the reported agent client by default; keyed by the token's client, it is one budget for every
  // direct assistant of the run, and spending it would refuse other checks' assistants (rateLimits.assistantClient).
  if (shop.profile.rateLimits?.assistantClient === 'token')
    return notApplicable(
      "the client budget belongs to the token's client (rateLimits.assistantClient: token), shared by every assistant of the run: spending it would refuse the other checks' assistants",
    );
  const needed = Math.ceil((budgets.client + 1) / perSession) + 1;
  if (needed > 20) return notApplicable(`spending the client budget under the session budget would take ${needed} sessions`);
  // More sessions than needed spend the same budget sooner: each is a lane of its own (spendThenOneMore).
  const sessions = Math.min(20, Math.max(needed, SPEND_IN_FLIGHT + 1));
  return {
    clause: 'LIM-RATE-3',
    attempt: async () => {
      const clientId = `asst_client_${freshHex()}`;
      const [fresh, ...agents] = await Promise.all(Array.from({ length: sessions + 1 }, () => AssistantAgent.create(shop, { clientId })));
      // The last session has sent nothing yet: the extra request cannot be its session's budget.
      const limited = await spendThenOneMore(agents.slice(0, -1), budgets.client, agents.at(-1)!, {
        what: `${sessions - 1} sessions of one client`,
        clause: 'LIM-RATE-3',
      });
      return { limited, spent: fresh! };
    },
    past: `request ${budgets.client + 1} of one client over ${sessions} sessions, each under its session budget of ${budgets.session} (twice)`,
    refusal: 'the request past the client budget',
    spentCaller: 'by a fresh session of the spent client',
  };
}

test(
  ...check(
    {
      id: 'limits.agents.assistant.session-budget',
      long: true,
      everyResponse: true,
      title:
        'an assistant session has a budget of its own: past it, 429 rate_limited with Retry-After, while another session of the same client is still served',
      clauses: ['LIM-RATE-2', ...RATE_LIMITED_CLAUSES, 'AUTH-ORDER-4'],
      requires: ['assistants'],
    },
    async (shop) => {
      const budgets = assistantBudgets(shop);
      const { other } = await expectBudgetSpent(shop, sessionBudget(shop, budgets), { conversations: false });
      // Per session, not per client: the client's budget still has room, so another of its sessions is served.
      // Keyed by the token's client, the client budget is shared with every other assistant of the run: not judged.
      if (budgets.client > budgets.session + 1 && shop.profile.rateLimits?.assistantClient !== 'token') {
        expectSuccess(await spendOne(other!), {
          what: `another session of the same client, after the first spent its budget (client budget ${budgets.client})`,
          clause: 'LIM-RATE-2',
        });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.agents.assistant.client-budget',
      long: true,
      everyResponse: true,
      title:
        'an assistant client has a budget across its sessions: sessions each under their own budget are limited together past the client budget',
      clauses: ['LIM-RATE-3', ...RATE_LIMITED_CLAUSES, 'AUTH-ORDER-4'],
      requires: ['assistants'],
    },
    async (shop) => {
      await expectBudgetSpent(shop, clientBudget(shop, assistantBudgets(shop)), { conversations: false });
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.agents.assistant.budgets.conversations.reference',
      long: true,
      title:
        'one assistant budget for every route: a session or client that spent its budget on the operations is refused on the conversation routes too',
      clauses: ['LIM-RATE-2', 'LIM-RATE-3'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const budgets = assistantBudgets(shop);
      if (!learned().has('listConversations')) notApplicable('the assistant description documents no listConversations');
      await expectBudgetSpent(shop, sessionBudget(shop, budgets), { conversations: true });
      await expectBudgetSpent(shop, clientBudget(shop, budgets), { conversations: true });
    },
  ),
);
