// Spec part 8, Limits > Rate limiting, over its whole domain: "guests are counted exactly per operation id", so every
// operation a guest may call has a budget of its own, each spent here from a fresh Shopper-IP and guest session; and the guard precedes
// the rate limit (Request processing order) for every caller kind with a budget, assistants included. Numeric budgets are
// not shown: the profile claims them (rateLimits), and without that claim the checks are not applicable.
import { CALLER_LISTS } from '../../contract/callers.js';
import { OPERATIONS } from '../../contract/operations.js';
import { check, learned, notApplicable, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, expectProblem, fail, inCase } from '../lib/assert.js';
import { freshHex } from '../lib/fresh-id.js';
import { freshShopperIp } from '../lib/shopper.js';
import { AssistantAgent } from './_shared/assistant.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import { ADJUSTABLE_VARIANT, PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';
import { spendAsAssistant, spendConcurrently, spendWithinWindow, guestBudget } from './_shared/spend-budget.js';

/** Requests in flight at once while a budget is spent (the count is what matters, not the order). */
const IN_FLIGHT = 8;

/**
 * The operations a guest may call: those whose caller list the spec shows with guests (the storefront list), and GET
 * /v1/me where the deployment's description names guests in its `x-callers` (the spec does not show the diagnostic list:
 * a deployment whose list leaves guests out refuses them at the guard, before any rate limit).
 */
function guestOperations(): string[] {
  const shown = OPERATIONS.filter((o) => CALLER_LISTS[o.callers].shownInSpec && CALLER_LISTS[o.callers].members.includes('guest'));
  const paths = (learned().documents.general.paths ?? {}) as Record<string, Record<string, Record<string, unknown>> | undefined>;
  const me = learned().has('getMe') ? paths[learned().operation('getMe').path]?.get?.['x-callers'] : undefined;
  const meForGuests = Array.isArray(me) && me.includes('guest');
  return [...shown.map((o) => o.operationId), ...(meForGuests ? ['getMe'] : [])];
}

type Send = (shop: Shop, headers: Record<string, string>, i: number) => Promise<ShopResponse>;

/** Two values of a path parameter, in turn: one budget per operation, not per path (the `i`-th request's value). */
const handle = (i: number) => [PRODUCT_HANDLE, ADJUSTABLE_VARIANT.handle][i % 2]!;
const variant = (i: number) => [VARIANT, ADJUSTABLE_VARIANT.id][i % 2]!;

/** The headers without the guest session: the service verifies sessions on cart routes only (Guest sessions, 1). */
const noSession = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'guest-session'));

/**
 * A request a guest sends to each of its operations. The spec does not say what a guest's counter is keyed by besides the
 * operation id (the Shopper-IP, the guest cart, the storefront): each spending uses one Shopper-IP and, on the cart
 * routes, one Guest-Session (`headers`), so that a counter keyed by either one sees the whole spending.
 */
const GUEST_REQUESTS: Readonly<Record<string, Send>> = {
  searchProducts: (shop, headers) => shop.http.get(learned().path('searchProducts'), { headers: noSession(headers) }),
  getProduct: (shop, headers, i) => shop.http.get(learned().path('getProduct', handle(i)), { headers: noSession(headers) }),
  listCollections: (shop, headers) => shop.http.get(learned().path('listCollections'), { headers: noSession(headers) }),
  getMe: (shop, headers) => shop.http.get(learned().path('getMe'), { headers: noSession(headers) }),
  getCart: (shop, headers) => shop.http.get(learned().path('getCart'), { headers }),
  addCartItem: (shop, headers) => shop.http.post(learned().path('addCartItem'), { headers, json: cartLine() }),
  updateCartItem: (shop, headers, i) => shop.http.patch(learned().path('updateCartItem', variant(i)), { headers, json: cartQuantity(1) }),
  removeCartItem: (shop, headers, i) => shop.http.delete(learned().path('removeCartItem', variant(i)), { headers }),
};

/** `n` requests, at most IN_FLIGHT at once; the answers in the order they were sent. */
async function sendAll(n: number, send: (i: number) => Promise<ShopResponse>): Promise<ShopResponse[]> {
  const out: ShopResponse[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await send(i);
      }
    }),
  );
  return out;
}

/**
 * Spends one operation's guest budget from a fresh Shopper-IP and a fresh guest session (none of those requests limited:
 * the budget is the operation's own), then sends one more, which must be 429. Budgets are per window: when the run
 * straddles a window boundary the extra request may pass, so one more attempt is made from another fresh address and
 * session before concluding.
 */
async function spendOperationBudget(shop: Shop, operation: string, budget: number): Promise<ShopResponse> {
  const send = GUEST_REQUESTS[operation];
  if (!send) throw new TypeError(`no guest request for ${operation}`);
  const token = await shop.mint.guest();
  // A spending longer than the window proves nothing (_shared/spend-budget.ts).
  const { limited, value: last } = await spendWithinWindow(shop.profile.rateLimits?.guestWindowSeconds, async () => {
    const headers = { authorization: `Bearer ${token}`, 'shopper-ip': freshShopperIp(), 'guest-session': shop.guestSession() };
    const spent = await sendAll(budget, (i) => send(shop, headers, i));
    const early = spent.findIndex((res) => res.status === 429 || res.status >= 500);
    if (early >= 0)
      fail(
        `${operation}: request ${early + 1} of ${budget} from a fresh Shopper-IP and guest session`,
        'not limited, not a 5xx',
        brief(spent[early]!),
        {
          clause: 'LIM-RATE-1',
        },
      );
    const last = await send(shop, headers, budget);
    return { limited: last.status === 429, value: last };
  });
  if (limited) return last;
  return fail(
    `${operation}: request ${budget + 1} from one Shopper-IP and guest session (twice, from two fresh ones)`,
    429,
    last && brief(last),
    {
      clause: ['LIM-RATE-1', 'LIM-RATE-4'],
    },
  );
}

test(
  ...check(
    {
      id: 'limits.rate.guest.every-operation',
      long: true,
      everyResponse: true,
      title: 'every operation a guest may call has a guest budget of its own: past it, 429 rate_limited with Retry-After',
      clauses: ['LIM-RATE-1', 'LIM-RATE-4', 'ERR-TABLE-12'],
      requires: ['guests'],
      seed: true,
    },
    async (shop) => {
      const budget = guestBudget(shop);
      // Each operation's budget is a case of its own (a fresh Shopper-IP and session each, one operation id each), so spending
      // one cannot touch another's: they go at once. Their requests share the worker's places in flight and what it may
      // borrow, so the whole stays far shorter than the window (_shared/spend-budget.ts).
      await judgeCases(guestOperations(), (operation) =>
        inCase(operation, async () => {
          const limited = await spendOperationBudget(shop, operation, budget);
          expectProblem(limited, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-12' });
          if (!limited.headers.get('retry-after'))
            fail(`${operation}: Retry-After on 429`, 'present', null, { clause: ['LIM-RATE-4', 'ERR-TABLE-12'] });
        }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.auth.order.guard-before-rate-limit.assistant',
      long: true,
      everyResponse: true,
      title: "with an assistant session's budget spent, an operation its permissions do not cover is still 403 insufficient_scope, not 429",
      clauses: ['AUTH-ORDER-8', 'ERR-TABLE-9'],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      const budget = shop.profile.rateLimits?.assistantSessionBudget;
      if (budget === undefined)
        return notApplicable('the profile declares no assistant session budget (rateLimits.assistantSessionBudget)');
      if (budget > 500) return notApplicable(`the assistant session budget ${budget} is too large to spend in a check`);
      // The session's budget spent several requests at once, then up to two more; tried afresh when a window boundary
      // may have let it through (_shared/spend-budget.ts).
      const { limited: spent, value: agent } = await spendWithinWindow(shop.profile.rateLimits?.assistantWindowSeconds, async () => {
        // A session without assistant:read: the guard refuses getProfile whatever its budget (spec, Scope translation).
        const agent = await AssistantAgent.create(shop, { clientId: `asst_client_${freshHex()}`, permissions: [] });
        const answers = await spendConcurrently(budget, () => spendAsAssistant(agent));
        let spent = answers.some((res) => res.status === 429);
        for (let i = 0; i < 2 && !spent; i++) spent = (await spendAsAssistant(agent)).status === 429;
        return { limited: spent, value: agent };
      });
      if (!spent) fail('the session budget is spent', 'a 429 within budget + 2 requests', 'no 429', { clause: 'AUTH-ORDER-8' });
      const refused = (await agent.get(learned().path('getProfile'))).res;
      expectProblem(refused, { status: 403, error: 'insufficient_scope', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-8' });
    },
  ),
);
