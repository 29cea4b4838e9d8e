// Explore-reach defects, family "callers on routes closed to them": a route that admits a caller kind (or a credential)
// the spec closes it to, or refuses a caller it must admit, each for one route and one caller kind only. Written from the
// spec and the contract alone (blind).
import { headerOf, pathOf, problemAnswer, served, tokenClaims, withoutHeader } from '../helpers.js';
import { lenient, wireWith, type Defect } from '../types.js';
import { isCode, isOperation, kindOf } from '../blind/shared.js';

/** The header the identity-provider proxy presents its shared secret in (spec, Public and special routes). */
const PROXY_SECRET_HEADER = 'X-Proxy-Idp-Secret';

export const REACH_CALLERS_DEFECTS: readonly Defect[] = [
  // "`POST /internal/agent-authorization` | header `X-Proxy-Idp-Secret`". Broken: the route also takes the identity-provider
  // proxy's own client-credentials token (client `personalAgentProxy`) as Bearer, as if the proxy's machine identity were
  // its shared secret.
  lenient(
    'reach.callers.agent-authorization-proxy-client-token',
    'END-PUBLIC-13',
    "POST /internal/agent-authorization accepts the identity-provider proxy client's machine token instead of X-Proxy-Idp-Secret",
    (ctx) => ({
      request(r) {
        const secret = ctx.profile.secrets.proxyIdpSecret;
        if (r.method !== 'POST' || pathOf(r) !== '/internal/agent-authorization' || !secret) return r;
        if (headerOf(r.headers, PROXY_SECRET_HEADER) !== undefined) return r;
        const claims = tokenClaims(r);
        const client = ctx.profile.clients.personalAgentProxy;
        if (!claims || claims.client_id !== client || claims.sub !== `${client}@clients`) return r;
        return { ...r, headers: [...withoutHeader(r.headers, 'authorization'), [PROXY_SECRET_HEADER, secret]] };
      },
    }),
  ),
  // Caller lists: "account | storefront without `guest`". Broken on listPaymentMethods: the operation was declared with
  // the storefront list, so a guest gets 200 and an empty list (a guest has no account) instead of 403 caller_not_allowed.
  wireWith(
    'reach.callers.guest-lists-payment-methods',
    'END-LIST-2',
    'listPaymentMethods admits a guest: 200 with an empty list instead of 403 caller_not_allowed',
    (ctx) => (a, r) =>
      isOperation(r, 'listPaymentMethods') && kindOf(ctx.profile, r) === 'guest' && isCode(a, 'caller_not_allowed')
        ? served(a, JSON.stringify({ items: [] }))
        : a,
  ),
  // "`getIdentity` | `GET /v1/me/identity` | ... | checkout list" and "checkout | `customer`, `invited-agent`,
  // `assistant`". Broken: the identity read's list was written as customer and assistant only, so an invited agent (the
  // agent banner of a website session) is refused 403 caller_not_allowed.
  wireWith(
    'reach.callers.identity-refuses-invited-agent',
    'END-OPS-GETIDENTITY-1',
    'getIdentity refuses an invited agent with 403 caller_not_allowed',
    (ctx) => (a, r) =>
      isOperation(r, 'getIdentity') && kindOf(ctx.profile, r) === 'invited-agent' && a.status === 200
        ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden')
        : a,
  ),
];
