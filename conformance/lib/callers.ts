// The credentials of the caller kinds a check presents, one home keyed by the contract's caller kinds
// (contract/callers.ts): fresh subjects, fresh guest carts and shopper addresses, so that no two checks share an account,
// a cart or a rate-limit budget. Agents (invited agents, assistants) have sessions of their own
// (conformance/checks/_shared/probe-agents.ts, assistant.ts).
import { CALLER_CAPABILITY, type CallerKind } from '../../contract/callers.js';
import type { Profile } from '../../contract/profile.js';
import { operatorAttribution } from './credential-formats.js';
import { audienceOf, scopeWith, type Minter } from './mint.js';
import { freshShopperIp } from './shopper.js';

/** What credentials are made from: a check's minter, profile, fresh subjects and guest sessions. */
export interface CallerSource {
  readonly mint: Minter;
  readonly profile: Profile;
  subject(prefix?: string): string;
  guestSession(): string;
}

/** The credentials of one request: a token, and the headers the kind sends with it. */
export interface CallerCredentials {
  token: string;
  headers?: Record<string, string>;
}

/** The kinds whose credentials are a token (and headers), with the capability the profile must claim for each. */
export const KINDS = (['customer', 'delegated', 'guest', 'operator'] as const).map((kind) => ({
  kind,
  capability: CALLER_CAPABILITY[kind],
}));

export type Kind = (typeof KINDS)[number]['kind'] & CallerKind;

/**
 * The credentials of a caller kind on a fresh subject (a fresh guest cart and shopper). With `scopes`, the token carries
 * the kind's default scopes plus these (the API scopes of the operations it will call); without, the minter's defaults.
 */
export async function credentialsOf(shop: CallerSource, kind: Kind, o: { scopes?: readonly string[] } = {}): Promise<CallerCredentials> {
  const scope = o.scopes === undefined ? {} : { scope: scopeWith(kind, o.scopes) };
  switch (kind) {
    case 'customer':
      return { token: await shop.mint.customer({ sub: shop.subject('cust'), ...scope }) };
    case 'delegated':
      // The API audience (channel openapi): the audience the service itself is addressed by, unless the profile declares
      // delegated tokens for the agent audience only.
      return {
        token: await shop.mint.delegated({ sub: shop.subject('cust'), audience: audienceOf(shop.profile, 'delegated', 'api'), ...scope }),
      };
    case 'guest':
      return {
        token: await shop.mint.guest({ ...scope }),
        headers: { 'guest-session': shop.guestSession(), 'shopper-ip': freshShopperIp() },
      };
    case 'operator':
      return { token: await shop.mint.operator({ ...scope }), headers: { operator: operatorAttribution(shop.profile) } };
  }
}

/** Credentials of each kind of KINDS, except those named, whose capability the profile claims (in KINDS order). */
export async function credentialsOfClaimedKinds(shop: CallerSource, except: readonly Kind[] = []): Promise<[Kind, CallerCredentials][]> {
  const out: [Kind, CallerCredentials][] = [];
  for (const { kind, capability } of KINDS) {
    if (except.includes(kind) || (capability && !shop.profile.capabilities[capability])) continue;
    out.push([kind, await credentialsOf(shop, kind)]);
  }
  return out;
}

/** A customer token of `sub` (a fresh subject by default), with the default customer scopes or `scope`. */
export const customerToken = (
  shop: CallerSource,
  sub: string = shop.subject('cust'),
  scope?: string | readonly string[],
): Promise<string> => shop.mint.customer({ sub, ...(scope !== undefined ? { scope } : {}) });

/**
 * A delegated token of `sub` for the API audience (channel openapi) unless the profile declares delegated tokens for the
 * agent audience only (audiences.callers.delegated), with the default scopes or `scope`.
 */
export const delegatedToken = (
  shop: CallerSource,
  sub: string = shop.subject('cust'),
  scope?: string | readonly string[],
): Promise<string> =>
  shop.mint.delegated({ sub, audience: audienceOf(shop.profile, 'delegated', 'api'), ...(scope !== undefined ? { scope } : {}) });

/** Headers of a guest request: a new storefront token, a fresh shopper, and the session when given. */
export async function guestHeaders(
  shop: CallerSource,
  session?: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await shop.mint.guest()}`,
    'shopper-ip': freshShopperIp(),
    ...(session !== undefined ? { 'guest-session': session } : {}),
    ...extra,
  };
}
