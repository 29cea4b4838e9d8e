// Credentials of the caller kinds the caller-kind × operation checks try (agents have their own checks): fresh subjects,
// fresh guest carts and shopper addresses, so that no two checks share an account, a cart or a rate-limit budget.
import type { CallerKind } from '../../../contract/callers.js';
import { audienceOf } from '../../lib/mint.js';
import { freshShopperIp } from '../../lib/shopper.js';
import { operatorAttribution } from '../../lib/credential-formats.js';
import type { Shop } from './check.js';
import type { RequestOptions } from '../transport/http.js';

export const KINDS = [
  { kind: 'customer', capability: undefined },
  { kind: 'delegated', capability: 'delegated' },
  { kind: 'guest', capability: 'guests' },
  { kind: 'operator', capability: 'operators' },
] as const satisfies readonly { kind: CallerKind; capability: keyof Shop['profile']['capabilities'] | undefined }[];

export type Kind = (typeof KINDS)[number]['kind'];

export async function credentialsOf(shop: Shop, kind: Kind): Promise<Pick<RequestOptions, 'token' | 'headers'>> {
  switch (kind) {
    case 'customer':
      return { token: await shop.mint.customer({ sub: shop.subject('cust') }) };
    case 'delegated':
      // The API audience (channel openapi): the audience the service itself is addressed by, unless the profile declares
      // delegated tokens for the agent audience only.
      return { token: await shop.mint.delegated({ sub: shop.subject('cust'), audience: audienceOf(shop.profile, 'delegated', 'api') }) };
    case 'guest':
      return { token: await shop.mint.guest(), headers: { 'guest-session': shop.guestSession(), 'shopper-ip': freshShopperIp() } };
    case 'operator':
      return { token: await shop.mint.operator(), headers: { operator: operatorAttribution(shop.profile) } };
  }
}

/** Credentials of each kind of KINDS, except those named, whose capability the profile claims (in KINDS order). */
export async function credentialsOfClaimedKinds(
  shop: Shop,
  except: readonly Kind[] = [],
): Promise<[Kind, Pick<RequestOptions, 'token' | 'headers'>][]> {
  const out: [Kind, Pick<RequestOptions, 'token' | 'headers'>][] = [];
  for (const { kind, capability } of KINDS) {
    if (except.includes(kind) || (capability && !shop.profile.capabilities[capability])) continue;
    out.push([kind, await credentialsOf(shop, kind)]);
  }
  return out;
}
