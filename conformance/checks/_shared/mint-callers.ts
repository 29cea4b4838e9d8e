// Credentials of one caller, as the checks of several parts present them: a customer token, a delegated token for the API
// audience, the headers of a guest. Fresh subjects and shopper addresses unless a check names a seed account.
import type { Shop } from '../../engine/runner/check.js';
import { audienceOf } from '../../lib/mint.js';
import { freshShopperIp } from '../../lib/shopper.js';

/** A customer token of `sub` (a fresh subject by default), with the default customer scopes or `scope`. */
export const customerToken = (shop: Shop, sub: string = shop.subject('cust'), scope?: string | readonly string[]): Promise<string> =>
  shop.mint.customer({ sub, ...(scope !== undefined ? { scope } : {}) });

/**
 * A delegated token of `sub` for the API audience (channel openapi) unless the profile declares delegated tokens for the
 * agent audience only (audiences.callers.delegated), with the default scopes or `scope`.
 */
export const delegatedToken = (shop: Shop, sub: string = shop.subject('cust'), scope?: string | readonly string[]): Promise<string> =>
  shop.mint.delegated({ sub, audience: audienceOf(shop.profile, 'delegated', 'api'), ...(scope !== undefined ? { scope } : {}) });

/** Headers of a guest request: a new storefront token, a fresh shopper, and the session when given. */
export async function guestHeaders(shop: Shop, session?: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await shop.mint.guest()}`,
    'shopper-ip': freshShopperIp(),
    ...(session !== undefined ? { 'guest-session': session } : {}),
    ...extra,
  };
}
