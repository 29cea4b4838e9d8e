// Spec part 8, Limits > Rate limiting: guests are counted exactly per operation id (not per path, not per path prefix),
// and exceeding a budget gives 429 rate_limited with Retry-After. Numeric budgets and windows are not shown: the profile
// claims them (rateLimits), and without that claim the checks are not applicable. Assistant callers have a per-session
// budget and a per-client budget, each judged on its own (below).
import { check, learned, test, type Shop, notApplicable } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { brief, expectProblem, expectStatus, expectSuccess, fail, failSoft } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { freshShopperIp } from '../lib/shopper.js';
import { AssistantAgent } from './_shared/assistant.js';
import { cartLine } from './_shared/expect-cart.js';
import { expectDpopNonce, expectProblemMembers, expectRequestId } from './_shared/expect-request-headers.js';
import { ADJUSTABLE_VARIANT, PRODUCT_HANDLE } from './_shared/seed-data.js';
import { SPEND_IN_FLIGHT, spendAsAssistant, spendConcurrently, spendWithinWindow } from './_shared/spend-budget.js';

interface Spent {
  ip: string;
  token: string;
  limited: ShopResponse;
}

/** One operation's guest reads: its id and the paths its requests go to, in turn. */
interface Reads {
  operation: string;
  paths: readonly string[];
}
const GET_CART: Reads = { operation: 'getCart', paths: ['/v1/cart'] };

/**
 * Spends the profile's guest budget of one operation from one fresh Shopper-IP (its paths in turn, several requests at
 * once), then sends one more. Budgets are per window (the reference uses fixed windows): when the spending straddles a
 * window boundary the extra request may pass, so one more attempt is made from another fresh address before concluding,
 * and a spending longer than the window proves nothing (_shared/spend-budget.ts).
 */
async function spendGuestBudget(shop: Shop, reads: Reads = GET_CART): Promise<Spent> {
  const limits = shop.profile.rateLimits;
  if (!limits)
    throw notApplicable(
      'the profile gives no rateLimits (guestBudget, guestWindowSeconds): the suite cannot know how many requests exceed the guest budget',
    );
  const token = await shop.mint.guest();
  const { operation, paths } = reads;
  const { limited, value } = await spendWithinWindow(limits.guestWindowSeconds, async () => {
    const ip = freshShopperIp();
    const spent = await spendConcurrently(limits.guestBudget, (i) =>
      shop.http.get(paths[(i + 1) % paths.length]!, { token, headers: { 'shopper-ip': ip } }),
    );
    spent.forEach((res, i) => {
      if (res.status === 429) {
        fail(
          `${operation} request ${i + 1} of a fresh Shopper-IP (the profile claims a budget of ${limits.guestBudget} per operation and shopper)`,
          'not yet limited',
          res.status,
          { clause: 'LIM-RATE-1' },
        );
      }
      expectSuccess(res, { what: `guest ${operation} request ${i + 1}`, clause: 'LIM-RATE-1' });
    });
    const last = await shop.http.get(paths[(limits.guestBudget + 1) % paths.length]!, { token, headers: { 'shopper-ip': ip } });
    return { limited: last.status === 429, value: { ip, token, limited: last } };
  });
  if (limited) return value;
  // Never limited: the guest's operation is not counted per operation (LIM-RATE-1), and exceeding the budget gave no 429.
  return fail(
    `${operation} request ${limits.guestBudget + 1} from one Shopper-IP (twice, from two fresh addresses${paths.length > 1 ? `, over ${paths.join(' and ')}` : ''})`,
    429,
    value.limited.status,
    { clause: ['LIM-RATE-1', 'LIM-RATE-4'] },
  );
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date. */
const isRetryAfter = (v: string) =>
  /^\d+$/.test(v) || (/[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT/.test(v) && !Number.isNaN(Date.parse(v)));

test(
  ...check(
    {
      id: 'limits.rate.guest',
      everyResponse: true,
      title: 'guests over their budget of one operation get 429 rate_limited with Retry-After, and another operation still passes',
      clauses: [
        'LIM-RATE-1',
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
      ],
      requires: ['guests'],
    },
    async (shop) => {
      const { ip, token, limited } = await spendGuestBudget(shop);
      expectProblem(limited, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-12' });
      expectRequestId(limited, 'a guest request past its budget');
      expectProblemMembers(shop.docsUrl, limited, 'a guest request past its budget');
      const retryAfter = limited.headers.get('retry-after');
      if (retryAfter === null || !isRetryAfter(retryAfter.trim()))
        fail('Retry-After on 429', 'delay-seconds or an HTTP-date', retryAfter, { clause: 'LIM-RATE-4' });
      // Counted per operation id: the same shopper's search is not limited by the spent getCart budget.
      const search = await shop.http.get('/v1/catalog/products', { token, headers: { 'shopper-ip': ip } });
      expectSuccess(search, { what: 'searchProducts from the Shopper-IP whose getCart budget is spent', clause: 'LIM-RATE-1' });
      // Not per path prefix either: addCartItem, under /v1/cart too, has its own budget. Its body may be refused (payload
      // shapes are not shown), but not as rate limited.
      const add = await shop.http.post('/v1/cart/items', {
        token,
        headers: { 'shopper-ip': ip, 'guest-session': shop.guestSession() },
        json: cartLine(),
      });
      if (add.status === 429)
        fail('addCartItem from the Shopper-IP whose getCart budget is spent', 'not 429', add.status, { clause: 'LIM-RATE-1' });
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.rate.guest.one-budget-per-operation',
      everyResponse: true,
      title: "a guest budget is the operation's, not its path's: getProduct over two handles is limited after one budget in all",
      clauses: ['LIM-RATE-1'],
      requires: ['guests'],
      seed: true,
    },
    async (shop) => {
      const handles = [PRODUCT_HANDLE, ADJUSTABLE_VARIANT.handle];
      await spendGuestBudget(shop, { operation: 'getProduct', paths: handles.map((h) => `/v1/catalog/products/${h}`) });
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.rate.guest.reference',
      title: 'the 429 carries Retry-After in whole seconds, between 1 and the window',
      clauses: ['LIM-RATE-4', 'ERR-TABLE-12'],
      level: 'reference',
      requires: ['guests'],
    },
    async (shop) => {
      const { limited } = await spendGuestBudget(shop);
      expectProblem(limited, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-12' });
      const window = shop.profile.rateLimits?.guestWindowSeconds ?? Infinity;
      const retryAfter = limited.headers.get('retry-after') ?? '';
      const seconds = /^\d+$/.test(retryAfter) ? Number(retryAfter) : NaN;
      if (!(seconds >= 1 && seconds <= window))
        fail('Retry-After (seconds left in the window)', `an integer from 1 to ${window}`, retryAfter, { clause: 'LIM-RATE-4' });
    },
  ),
);

// --- assistant budgets ---------------------------------------------------------------------------------------------------
//
// "Assistant callers have a per-session budget and a per-client budget" (Limits): two budgets, each judged on its own. The
// session budget is spent by one session while its client's budget still has room, and another session of the same client
// must still be served; the client budget is spent by several sessions of one client, each kept under its own budget, so
// that only a budget of the client can refuse. The numbers are the profile's (rateLimits).

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
 * answer past it is the refusal of a spent budget; and the budget is one for every route, so a conversation route of the
 * spent caller is refused too. Returns the last try.
 */
async function expectBudgetSpent(
  shop: Shop,
  budget: { clause: string; attempt: () => Promise<Attempt>; past: string; refusal: string; spentCaller: string },
): Promise<Attempt> {
  const { clause } = budget;
  // A spending longer than the window proves nothing (_shared/spend-budget.ts).
  const { value: last } = await spendWithinWindow(shop.profile.rateLimits?.assistantWindowSeconds, async () => {
    const value = await budget.attempt();
    return { limited: value.limited.status === 429, value };
  });
  expectStatus(last!.limited, 429, { what: budget.past, clause });
  expectBudgetRefusal(shop, last!.limited, { what: budget.refusal, clause });
  if (learned().has('listConversations')) {
    const list = learned().operation('listConversations');
    const res = (await last!.spent.request(list.method, list.path)).res;
    expectStatus(res, 429, { what: `${list.method} ${list.path} ${budget.spentCaller}`, clause });
  }
  return last!;
}

test(
  ...check(
    {
      id: 'agents.assistant.session-budget',
      everyResponse: true,
      title:
        'an assistant session has a budget of its own: past it, 429 rate_limited with Retry-After, while another session of the same client is still served',
      clauses: [
        'LIM-RATE-2',
        'LIM-RATE-4',
        'ERR-TABLE-12',
        'AUTH-ORDER-4',
        'AUTH-ORDER-2',
        'ERR-PROBLEM-7',
        'RES-PROBLEM-1',
        'RES-PROBLEM-2',
        'RES-PROBLEM-3',
        'RES-PROBLEM-4',
        'RES-PROBLEM-5',
        'RES-PROBLEM-8',
      ],
      requires: ['assistants'],
    },
    async (shop) => {
      const budgets = assistantBudgets(shop);
      const { other } = await expectBudgetSpent(shop, {
        clause: 'LIM-RATE-2',
        attempt: async () => {
          const clientId = `asst_client_${freshHex()}`;
          const [spender, other] = await Promise.all([
            AssistantAgent.create(shop, { clientId }),
            AssistantAgent.create(shop, { clientId }),
          ]);
          const limited = await spendThenOneMore([spender], budgets.session, spender, {
            what: 'one session within its budget',
            clause: 'LIM-RATE-2',
          });
          return { limited, spent: spender, other };
        },
        past: `request ${budgets.session + 1} of one session (twice, with fresh sessions; the profile claims a session budget of ${budgets.session})`,
        refusal: 'the request past the session budget',
        // One budget for the session's requests, whatever the route: its conversation routes are spent too.
        spentCaller: 'by the session whose budget is spent',
      });
      // Per session, not per client: the client's budget still has room, so another of its sessions is served.
      if (budgets.client > budgets.session + 1) {
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
      id: 'agents.assistant.client-budget',
      everyResponse: true,
      title:
        'an assistant client has a budget across its sessions: sessions each under their own budget are limited together past the client budget',
      clauses: [
        'LIM-RATE-3',
        'LIM-RATE-4',
        'ERR-TABLE-12',
        'AUTH-ORDER-4',
        'AUTH-ORDER-2',
        'ERR-PROBLEM-7',
        'RES-PROBLEM-1',
        'RES-PROBLEM-2',
        'RES-PROBLEM-3',
        'RES-PROBLEM-4',
        'RES-PROBLEM-5',
        'RES-PROBLEM-8',
      ],
      requires: ['assistants'],
    },
    async (shop) => {
      const budgets = assistantBudgets(shop);
      // Each session stays strictly under its own budget, even with the extra request.
      const perSession = budgets.session - 1;
      if (perSession < 1) return notApplicable('a session budget of 1 leaves no room to spend a client budget over sessions');
      const needed = Math.ceil((budgets.client + 1) / perSession) + 1;
      if (needed > 20) return notApplicable(`spending the client budget under the session budget would take ${needed} sessions`);
      // More sessions than needed spend the same budget sooner: each is a lane of its own (spendThenOneMore).
      const sessions = Math.min(20, Math.max(needed, SPEND_IN_FLIGHT + 1));
      await expectBudgetSpent(shop, {
        clause: 'LIM-RATE-3',
        attempt: async () => {
          const clientId = `asst_client_${freshHex()}`;
          const [fresh, ...agents] = await Promise.all(
            Array.from({ length: sessions + 1 }, () => AssistantAgent.create(shop, { clientId })),
          );
          // The last session has sent nothing yet: the extra request cannot be its session's budget.
          const limited = await spendThenOneMore(agents.slice(0, -1), budgets.client, agents.at(-1)!, {
            what: `${sessions - 1} sessions of one client`,
            clause: 'LIM-RATE-3',
          });
          return { limited, spent: fresh! };
        },
        past: `request ${budgets.client + 1} of one client over ${sessions} sessions, each under its session budget of ${budgets.session} (twice)`,
        refusal: 'the request past the client budget',
        // One budget for the client's requests, whatever the route: a conversation route of a fresh session is spent too.
        spentCaller: 'by a fresh session of the spent client',
      });
    },
  ),
);
