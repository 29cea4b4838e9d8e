// Addresses as the account checks add them. The spec shows no payloads: the addAddress body is the target's own example
// (its description document), and a refusal of it fails addAddress's clause.
import { learned, notApplicable, type Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { expectSuccess, is4xx } from '../../lib/assert.js';
import { lastSegment } from '../../lib/location.js';
import { locationOf } from './location.js';

/** The reference's addAddress body (reference-level checks vary it member by member). */
export const ADDRESS = {
  name: 'Conformance Probe',
  line1: '1 Check Street',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
};

/** An addAddress body, as the target describes it. */
export const addressBody = (): unknown => learned().body('addAddress');

/** Adds an address with the target's own body; a refusal of the body its document describes fails addAddress's clause. */
export async function addAddress(shop: Shop, token: string, { clause }: { clause: string }): Promise<ShopResponse> {
  const res = await shop.http.post('/v1/me/addresses', { token, json: addressBody() });
  if (is4xx(res)) learned().refusedAnswer('addAddress', res, 'END-OPS-ADDADDRESS-1');
  expectSuccess(res, { what: 'addAddress with a valid body', clause });
  return res;
}

/** The id of a created address: the body's `id`, else the last segment of Location; none means not applicable. */
export function createdAddressId(shop: Shop, res: ShopResponse): string {
  if (typeof res.body?.id === 'string' && res.body.id !== '') return res.body.id;
  const location = locationOf(shop, res, '/v1/me/addresses');
  const last = location ? lastSegment(location.url) : undefined;
  if (last) return last;
  throw notApplicable('the addAddress answer names no id (neither an `id` member nor a Location), so the address cannot be addressed');
}
