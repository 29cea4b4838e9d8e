// Orders placed through the two checkout operations. The spec shows no payloads: `{ "payment_method_id" }` is the
// reference's checkout body, so a check whose body the service refuses with 400 is not applicable.
import { notApplicable, type Shop } from '../../engine/check.js';
import type { RequestOptions, ShopResponse } from '../../engine/http.js';
import { brief, fail, is2xx } from '../../lib/assert.js';

/** createCheckoutPreview. */
export const PREVIEW = '/v1/checkout-previews';
/** checkoutSavedCard. */
export const CHECKOUT = '/v1/checkouts/saved-card';

/** A checkout request with the reference's body; a 400 is the service refusing that body: the check does not apply. */
export async function checkoutOrSkip(shop: Shop, token: string, body: unknown, headers: RequestOptions['headers'] = {}): Promise<ShopResponse> {
  const res = await shop.http.post(CHECKOUT, { token, json: body, headers });
  if (res.status === 400) throw notApplicable(`the service refused the reference's checkoutSavedCard body {"payment_method_id"} with 400 (payload shapes are not shown by the spec): ${res.text.slice(0, 200)}`);
  return res;
}

/** An order-placing answer: 2xx (201 at the reference level). */
export function expectPlaced(res: ShopResponse, what: string, clause: string): void {
  if (!is2xx(res)) fail(`${what}: an order is placed`, '2xx', brief(res), clause);
}

/** The order id at the end of an order's Location. */
export const orderIdOf = (location: string) => new URL(location, 'http://base.invalid').pathname.split('/').pop() ?? '';
