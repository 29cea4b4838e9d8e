// Location of an answer, resolved once against the URL of the request that got it (conformance/lib/location.ts).
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { pathBelowBase, resolveLocation } from '../../lib/location.js';

export interface Located {
  /** The field value as sent. */
  value: string;
  /** The absolute URL it names (a request to it goes there as is, with no base URL added). */
  url: URL;
  /** Its path below the base URL (`/v1/me/orders/ord_1`), with its query; undefined when it lies outside the base. */
  path: string | undefined;
}

/**
 * The Location of `res`, the answer to a request for `requestPath` (a path below the base URL, or a full URL); undefined
 * when the answer has none, null when its value is not a URI reference.
 */
export function locationOf(shop: Shop, res: Pick<ShopResponse, 'headers'>, requestPath: string): Located | null | undefined {
  const value = res.headers.get('location');
  if (value === null) return undefined;
  const url = resolveLocation(value, shop.http.url(requestPath));
  if (url === null) return null;
  return { value, url, path: pathBelowBase(url, shop.params.baseUrl) };
}

/** Where a request for `requestPath` went and the base URL: what expectCreated resolves a Location against. */
export const requestedAt = (shop: Shop, requestPath: string) => ({ requestUrl: shop.http.url(requestPath), baseUrl: shop.params.baseUrl });
