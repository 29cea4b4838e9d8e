// Addresses as the account checks add them. The spec shows no payloads: the addAddress body is the reference's
// (docs/account.md), so a spec-level check whose body the service refuses with a 4xx is not applicable.
import { notApplicable, type Shop } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import { expectSuccess, is4xx } from '../../lib/assert.js';

/** The reference's addAddress body. */
export const ADDRESS = { name: 'Conformance Probe', line1: '1 Check Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };

/** Adds an address with the reference's body; a 4xx means the service names its members otherwise: not applicable. */
export async function addAddressOrSkip(shop: Shop, token: string, clause: string): Promise<ShopResponse> {
  const res = await shop.http.post('/v1/me/addresses', { token, json: ADDRESS });
  if (is4xx(res)) {
    throw notApplicable(`the service refused the reference's addAddress body with ${res.status} (payload shapes are not shown by the spec), so no address could be made`);
  }
  expectSuccess(res, 'addAddress with a valid body', clause);
  return res;
}

/** The id of a created address: the body's `id`, else the last segment of Location; none means not applicable. */
export function createdAddressId(res: ShopResponse): string {
  if (typeof res.body?.id === 'string' && res.body.id !== '') return res.body.id;
  const location = res.headers.get('location');
  const last = location ? new URL(location, 'http://base.invalid').pathname.split('/').filter(Boolean).at(-1) : undefined;
  if (last) return decodeURIComponent(last);
  throw notApplicable('the addAddress answer names no id (neither an `id` member nor a Location), so the address cannot be addressed');
}
