// Spec part 8, Limits > Rate limiting: guests are counted exactly per operation id (not per path, not per path prefix),
// and exceeding a budget gives 429 rate_limited with Retry-After. Numeric budgets and windows are not shown: the profile
// claims them (rateLimits), and without that claim the checks are not applicable. Assistant callers have a per-session
// budget and a per-client budget, each judged on its own (below).
import { check, test, type Shop, notApplicable } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectProblem, expectSuccess, fail } from '../lib/assert.js';
import { freshShopperIp } from '../lib/shopper.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectProblemMembers, expectRequestId } from '../lib/expect/every-response.js';
import { ADJUSTABLE_VARIANT, PRODUCT_HANDLE } from './_shared/seed-data.js';
import { isRetryAfter, RATE_LIMITED_CLAUSES, spendConcurrently, spendWithinWindow } from './_shared/spend-budget.js';

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
 * Spends the profile's guest budget of one operation from one fresh Shopper-IP and guest session (its paths in turn,
 * several requests at once), then sends one more. Budgets are per window (the reference uses fixed windows): when the spending straddles a
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
    // The spec does not say what a guest counter is keyed by besides the operation id (the Shopper-IP, the guest cart):
    // one address and, on cart routes (where sessions are verified), one guest session for the whole spending.
    const session = shop.guestSession();
    const headersOf = (path: string) => ({ 'shopper-ip': ip, ...(path.startsWith('/v1/cart') ? { 'guest-session': session } : {}) });
    const read = (path: string) => shop.http.get(path, { token, headers: headersOf(path) });
    const spent = await spendConcurrently(limits.guestBudget, (i) => read(paths[(i + 1) % paths.length]!));
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
    const last = await read(paths[(limits.guestBudget + 1) % paths.length]!);
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

test(
  ...check(
    {
      id: 'limits.rate.guest',
      everyResponse: true,
      title: 'guests over their budget of one operation get 429 rate_limited with Retry-After, and another operation still passes',
      clauses: ['LIM-RATE-1', ...RATE_LIMITED_CLAUSES],
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
      // Counted per operation id: the same shopper's search is not limited by the spent getCart budget. Not per path prefix
      // either: addCartItem, under /v1/cart too, has its own budget. Each is the first request of its own operation's
      // budget (the add of a fresh guest cart), so the two go at once and are judged in turn.
      const [search, add] = await Promise.all([
        shop.http.get('/v1/catalog/products', { token, headers: { 'shopper-ip': ip } }),
        shop.http.post('/v1/cart/items', {
          token,
          headers: { 'shopper-ip': ip, 'guest-session': shop.guestSession() },
          json: cartLine(),
        }),
      ]);
      expectSuccess(search, { what: 'searchProducts from the Shopper-IP whose getCart budget is spent', clause: 'LIM-RATE-1' });
      // The add's body may be refused (payload shapes are not shown), but not as rate limited.
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
