// Blind defects of "Authentication" (spec part 5): guest sessions, token verification, processing order, challenge
// scheme, customer authority and scope translation, each broken for one caller kind, route or status.
import { guestSessionSignature, newGuestSession, signGuestSession } from '../../../lib/guest-session.js';
import { headerOf, mapHeader, pathOf, problemAnswer, tokenClaims, withHeader, withoutHeader } from '../helpers.js';
import { lenient, wire, wireWith, type Defect } from '../types.js';
import { isCode, isDpop, isOperation, kindOf, scopesOf, subOf } from './shared.js';

const withBearer = (r: Parameters<NonNullable<ReturnType<Defect['rules']>['request']>>[0], token: string) => ({
  ...r,
  headers: withHeader(r.headers, 'Authorization', `Bearer ${token}`),
});

export const BLIND_AUTHENTICATION_DEFECTS: readonly Defect[] = [
  // Guest sessions 5: "Both guest headers are refused on website tokens." Broken on getCart: a Guest-Session beside a
  // customer token is ignored.
  lenient(
    'blind.authentication.guest-session-ignored-on-customer-cart',
    'AUTH-GUEST-11',
    'getCart ignores a Guest-Session beside a customer token',
    (ctx) => ({
      request: (r) =>
        isOperation(r, 'getCart') && kindOf(ctx.profile, r) === 'customer'
          ? { ...r, headers: withoutHeader(r.headers, 'guest-session') }
          : r,
    }),
  ),
  // Guest sessions 5: "`Shopper-IP` is for guests only". Broken for delegated callers: the header is ignored.
  lenient(
    'blind.authentication.shopper-ip-ignored-for-delegated',
    'AUTH-GUEST-8',
    'a delegated caller may send Shopper-IP (it is ignored)',
    (ctx) => ({
      request: (r) => (kindOf(ctx.profile, r) === 'delegated' ? { ...r, headers: withoutHeader(r.headers, 'shopper-ip') } : r),
    }),
  ),
  // Guest sessions 5: "`Shopper-IP` ... at most 64 characters". Broken: a longer value is cut to 64 and accepted.
  lenient('blind.authentication.shopper-ip-truncated', 'AUTH-GUEST-9', 'a Shopper-IP over 64 characters is truncated, not refused', () => ({
    request: (r) => ({ ...r, headers: mapHeader(r.headers, 'shopper-ip', (v) => (v.length > 64 ? v.slice(0, 64) : v)) }),
  })),
  // Guest sessions 6: "the previous key verifies only before that deadline." Broken: it verifies for ever.
  lenient(
    'blind.authentication.previous-key-after-deadline',
    'AUTH-GUEST-14',
    'a session signed with the previous guest key verifies after its deadline',
    (ctx) => ({
      request(r) {
        const previous = ctx.profile.secrets.guestSessionKeyPrevious;
        if (!previous) return r;
        return {
          ...r,
          headers: mapHeader(r.headers, 'guest-session', (v) => {
            const m = /^gs1\.([0-9a-f-]{36})\.([\w-]{43})$/.exec(v);
            return m && guestSessionSignature(m[1]!, previous) === m[2] ? signGuestSession(m[1]!, ctx.profile.secrets.guestSessionKey) : v;
          }),
        };
      },
    }),
  ),
  // Guest sessions 3: "Every guest cart write requires a session, else 400 `guest_session_required`." Broken on
  // addCartItem: a guest without a session gets a fresh cart.
  lenient(
    'blind.authentication.guest-add-without-session',
    'AUTH-GUEST-4',
    'addCartItem by a guest without Guest-Session opens a new cart',
    (ctx) => ({
      request: (r) =>
        isOperation(r, 'addCartItem') && kindOf(ctx.profile, r) === 'guest' && headerOf(r.headers, 'guest-session') === undefined
          ? { ...r, headers: [...r.headers, ['Guest-Session', newGuestSession(ctx.profile.secrets.guestSessionKey)]] }
          : r,
    }),
  ),
  // Token verification 1: "The token is read from the `Authorization` header only." Broken: an `access_token` query
  // parameter (RFC 6750 2.3) is taken when there is no header.
  lenient(
    'blind.authentication.token-in-query',
    'AUTH-TOKEN-1',
    'an access_token query parameter is used when no Authorization header is sent',
    () => ({
      request(r) {
        if (headerOf(r.headers, 'authorization') !== undefined) return r;
        const url = new URL(r.path, 'http://x');
        const token = url.searchParams.get('access_token');
        if (!token) return r;
        url.searchParams.delete('access_token');
        return { ...r, path: `${url.pathname}${url.search}`, headers: [...r.headers, ['Authorization', `Bearer ${token}`]] };
      },
    }),
  ),
  // Token verification 2: "The service verifies ... audience". Broken for customers: a customer token for an audience
  // of neither the API nor the agent-protocol server is accepted.
  lenient(
    'blind.authentication.customer-foreign-audience',
    'AUTH-TOKEN-4',
    'a customer token for a foreign audience is accepted',
    (ctx) => ({
      async request(r) {
        const sub = subOf(r);
        const aud = tokenClaims(r)?.aud;
        const ours = [ctx.profile.audiences.api, ctx.profile.audiences.agent];
        const audiences = Array.isArray(aud) ? aud : [aud];
        if (kindOf(ctx.profile, r) !== 'customer' || !sub || audiences.some((x) => ours.includes(x as string))) return r;
        return withBearer(r, await ctx.mint.customer({ sub, scope: scopesOf(r) }));
      },
    }),
  ),
  // Token verification 2: "... and expiry". Broken for customers: an expired customer token is still accepted.
  lenient('blind.authentication.customer-expired-accepted', 'AUTH-TOKEN-6', 'an expired customer token is accepted', (ctx) => ({
    async request(r) {
      const sub = subOf(r);
      const exp = tokenClaims(r)?.exp;
      if (kindOf(ctx.profile, r) !== 'customer' || !sub || typeof exp !== 'number' || exp * 1000 > Date.now()) return r;
      return withBearer(r, await ctx.mint.customer({ sub, scope: scopesOf(r) }));
    },
  })),
  // Token verification 4: "A user token from the website client that carries `act` ... is never accepted as `customer`."
  // Broken: the act claim is ignored.
  lenient(
    'blind.authentication.website-act-as-customer',
    'AUTH-TOKEN-12',
    'a website token with an act claim is served as the customer',
    (ctx) => ({
      async request(r) {
        const claims = tokenClaims(r);
        const sub = subOf(r);
        if (!claims || claims.client_id !== ctx.profile.clients.website || claims.act === undefined || !sub) return r;
        if (claims.aud !== ctx.profile.audiences.api) return r;
        return withBearer(r, await ctx.mint.customer({ sub, scope: scopesOf(r) }));
      },
    }),
  ),
  // Customer authority: "no `Shop-Session` header (a stale one is ignored)". Broken on account reads: a Shop-Session
  // header makes the service answer 401 as if the web session had ended.
  wireWith(
    'blind.authentication.shop-session-read',
    'AUTH-CUST-2',
    'a customer account read with a Shop-Session header is refused 401',
    (ctx) => (a, r) =>
      headerOf(r.headers, 'shop-session') !== undefined &&
      /^\/v1\/me\//.test(pathOf(r)) &&
      kindOf(ctx.profile, r) === 'customer' &&
      a.status < 400
        ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', [['WWW-Authenticate', 'Bearer error="invalid_token"']])
        : a,
  ),
  // Scope translation: "The translation returns ... scopes only if every required API scope is granted, otherwise
  // nothing." Broken on cancelOrder: a delegated token without orders:write gets through.
  lenient(
    'blind.authentication.delegated-cancel-without-scope',
    'AUTH-SCOPE-2',
    'a delegated token without orders:write may cancel an order',
    (ctx) => ({
      async request(r) {
        const sub = subOf(r);
        const scopes = scopesOf(r);
        if (!isOperation(r, 'cancelOrder') || kindOf(ctx.profile, r) !== 'delegated' || !sub || scopes.includes('orders:write')) return r;
        const channel = tokenClaims(r)?.aud === ctx.profile.audiences.api ? 'openapi' : 'mcp';
        return withBearer(r, await ctx.mint.delegated({ sub, channel, scope: [...scopes, 'orders:write'] }));
      },
    }),
  ),
  // Request processing order: "echoes a valid `traceparent`". Broken on POST requests: it is not echoed.
  wire('blind.authentication.traceparent-not-echoed-on-post', 'AUTH-ORDER-3', 'answers to POST requests do not echo traceparent', (a, r) =>
    r.method === 'POST' ? { ...a, headers: withoutHeader(a.headers, 'traceparent') } : a,
  ),
  // "a DPoP request gets a fresh `DPoP-Nonce` on every response". Broken on 403 answers.
  wire('blind.authentication.nonce-missing-on-403', 'AUTH-ORDER-4', '403 answers to DPoP requests carry no DPoP-Nonce', (a, r) =>
    a.status === 403 && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  // Challenge scheme: "`DPoP` when ... the `Authorization` scheme is `DPoP`". Broken for expired tokens only: the
  // challenge comes back as Bearer.
  wire(
    'blind.authentication.expired-dpop-bearer-challenge',
    'AUTH-SCHEME-2',
    'an expired token sent with the DPoP scheme is challenged in Bearer',
    (a, r) => {
      const exp = tokenClaims(r)?.exp;
      if (
        a.status !== 401 ||
        !/^DPoP\s/i.test(headerOf(r.headers, 'authorization') ?? '') ||
        typeof exp !== 'number' ||
        exp * 1000 > Date.now()
      )
        return a;
      return { ...a, headers: withHeader(a.headers, 'WWW-Authenticate', 'Bearer error="invalid_token"') };
    },
  ),
  // "`sign_in_required`: 403 ... with `WWW-Authenticate: <scheme> error="sign_in_required"`". Broken for DPoP requests:
  // the challenge is always Bearer.
  wire(
    'blind.authentication.sign-in-required-bearer-for-dpop',
    'AUTH-SIGNIN-2',
    'sign_in_required to a DPoP request is challenged in Bearer',
    (a, r) =>
      a.status === 403 && isDpop(r) && /sign_in_required/.test(headerOf(a.headers, 'www-authenticate') ?? '')
        ? { ...a, headers: withHeader(a.headers, 'WWW-Authenticate', 'Bearer error="sign_in_required"') }
        : a,
  ),
  // Credentials: "backoffice | backoffice machine token plus an `Operator` attribution header". Broken: without the header
  // the backoffice token is still an operator (attributed to its client).
  lenient(
    'blind.authentication.operator-without-header',
    'AUTH-CRED-4',
    'a backoffice token without Operator is served as an operator',
    (ctx) => ({
      request: (r) =>
        kindOf(ctx.profile, r) === 'operator' && headerOf(r.headers, 'operator') === undefined
          ? { ...r, headers: [...r.headers, ['Operator', 'backoffice']] }
          : r,
    }),
  ),
  // Request processing order: "admits only headers that fit the caller kind". Broken for customers: an Operator header is
  // ignored instead of refused.
  lenient(
    'blind.authentication.operator-header-ignored-for-customer',
    'AUTH-ORDER-6',
    'a customer request with an Operator header is served',
    (ctx) => ({
      request: (r) => (kindOf(ctx.profile, r) === 'customer' ? { ...r, headers: withoutHeader(r.headers, 'operator') } : r),
    }),
  ),
  // Guest sessions 2: "Guest reads without a session see an empty cart." Broken: refused with guest_session_required.
  wireWith(
    'blind.authentication.guest-read-without-session-refused',
    'AUTH-GUEST-3',
    'getCart by a guest without Guest-Session is refused 400',
    (ctx) => (a, r) =>
      isOperation(r, 'getCart') &&
      kindOf(ctx.profile, r) === 'guest' &&
      headerOf(r.headers, 'guest-session') === undefined &&
      a.status === 200
        ? problemAnswer(ctx, a, 400, 'guest_session_required', 'Bad Request')
        : a,
  ),
  // "a DPoP request gets a fresh `DPoP-Nonce` on every response". Broken on 429 (the rate limiter answers on its own).
  wire('blind.authentication.nonce-missing-on-429', 'AUTH-ORDER-4', '429 answers to DPoP requests carry no DPoP-Nonce', (a, r) =>
    a.status === 429 && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  // Same sentence. Broken on the conversation routes' successes only.
  wire(
    'blind.authentication.nonce-missing-on-conversation-success',
    'AUTH-ORDER-4',
    'successful answers on /assistant/conversations carry no DPoP-Nonce',
    (a, r) =>
      a.status < 400 && pathOf(r).startsWith('/assistant/conversations') ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  // Same sentence. Broken on 304 (a conditional catalog read by an assistant): the not-modified answer has no nonce.
  wire('blind.authentication.nonce-missing-on-304', 'AUTH-ORDER-4', '304 answers to DPoP requests carry no DPoP-Nonce', (a, r) =>
    a.status === 304 && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a,
  ),
  // "a DPoP request gets a fresh `DPoP-Nonce` on every response". Broken on 401 invalid_token (the token is refused
  // before the nonce is issued).
  wire(
    'blind.authentication.nonce-missing-on-invalid-token',
    'AUTH-ORDER-4',
    '401 invalid_token answers to DPoP requests carry no DPoP-Nonce',
    (a, r) => (isCode(a, 'invalid_token') && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'dpop-nonce') } : a),
  ),
];
