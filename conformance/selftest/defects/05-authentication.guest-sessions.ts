// Defects of guest sessions (AUTH-GUEST-*): forged, malformed or previous-key sessions accepted or refused, guests sharing
// one cart, the Shopper-IP and Guest-Session headers ignored for the caller kinds that may not send them, and the key
// rotation window configured too long.
import { signGuestSession } from '../../lib/guest-session.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  freshGuestSession,
  guestSessionSignedBy,
  headerOf,
  notAStream,
  pathOf,
  previousKeySession,
  problemCode,
  refusal,
  repairGuestSession,
  tokenClaims,
  usesDpop,
  withGuestSession,
  withHeader,
  withoutHeader,
  type Claims,
} from './helpers.js';
import { lenient, misconfigured, wire, wireWith, type Defect, type DefectContext } from './types.js';

/** Drops `names` from requests whose token's client is not `keepFor` (a lax admission that ignores them). */
export const dropHeaders =
  (names: string[], when: (c: Claims | undefined, ctx: DefectContext, req: ProxyRequest) => boolean) => (ctx: DefectContext) => ({
    request(req: ProxyRequest): ProxyRequest {
      if (!when(tokenClaims(req), ctx, req)) return req;
      return { ...req, headers: names.reduce((h, n) => withoutHeader(h, n), req.headers) };
    },
  });

/** Guest-Session values replaced by one session: every guest shares one cart. */
const oneCart = (id: string, clause: string): Defect =>
  lenient(id, clause, 'every guest session is mapped to one cart', (ctx) => {
    const shared = freshGuestSession(ctx);
    return { request: (req: ProxyRequest) => (headerOf(req.headers, 'guest-session') ? withGuestSession(req, shared) : req) };
  });

const isGuest = (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.storefront;

export const AUTHENTICATION_GUEST_SESSIONS_DEFECTS: readonly Defect[] = [
  lenient(
    'authentication.forged-guest-session-accepted',
    'AUTH-GUEST-5',
    'a guest session with a bad signature is accepted (re-signed with the current key)',
    repairGuestSession((uuid, sig) => uuid === uuid.toLowerCase() && /^[\w-]{43}$/.test(sig)),
  ),
  lenient(
    'authentication.malformed-guest-session-accepted',
    'AUTH-GUEST-6',
    'a malformed guest session is accepted (uppercase id, short or padded signature: re-signed)',
    repairGuestSession((uuid, sig) => uuid !== uuid.toLowerCase() || !/^[\w-]{43}$/.test(sig)),
  ),
  misconfigured(
    'authentication.guest-key-window-90-days',
    'AUTH-GUEST-15',
    'a guest-key rotation configured with a 90-day window: GUEST_SESSION_KEY_PREVIOUS_UNTIL 90 days ahead',
    (p) => ({
      ...p,
      secrets: {
        ...p.secrets,
        guestSessionKeyPrevious: p.secrets.guestSessionKeyPrevious ?? `${p.secrets.guestSessionKey}-previous`,
        guestSessionKeyPreviousUntil: new Date(Date.now() + 90 * 86_400_000).toISOString(),
      },
    }),
  ),
  lenient(
    'authentication.shopper-ip-from-any-caller',
    'AUTH-GUEST-8',
    'Shopper-IP from a non-guest caller is ignored instead of refused',
    dropHeaders(['shopper-ip'], (c, ctx) => c !== undefined && c.client_id !== ctx.profile.clients.storefront),
  ),
  lenient(
    'authentication.shopper-ip-unbounded',
    'AUTH-GUEST-9',
    'a Shopper-IP longer than 64 characters is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => (headerOf(r.headers, 'shopper-ip') ?? '').length > 64),
  ),
  lenient(
    'authentication.guest-headers-on-customer-tokens',
    'AUTH-GUEST-11',
    'Guest-Session and Shopper-IP on website tokens are ignored instead of refused',
    dropHeaders(['guest-session', 'shopper-ip'], (c, ctx) => c?.client_id === ctx.profile.clients.website),
  ),
  // One caller kind alone whose misfitting header is ignored instead of refused.
  lenient(
    'authentication.shopper-ip-ignored-for-assistants',
    'AUTH-GUEST-8',
    'Shopper-IP from an assistant (DPoP) is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => usesDpop(r)),
  ),
  lenient(
    'authentication.shopper-ip-ignored-for-operators',
    'AUTH-GUEST-8',
    'Shopper-IP from an operator is ignored instead of refused',
    dropHeaders(['shopper-ip'], (c, ctx) => c?.client_id === ctx.profile.clients.backoffice),
  ),
  lenient(
    'authentication.guest-cart-write-without-session',
    'AUTH-GUEST-4',
    'a guest cart write without Guest-Session gets a fresh session',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const c = tokenClaims(req);
        if (
          req.method === 'GET' ||
          !pathOf(req).startsWith('/v1/cart') ||
          c?.client_id !== ctx.profile.clients.storefront ||
          headerOf(req.headers, 'guest-session')
        )
          return req;
        return { ...req, headers: [...req.headers, ['Guest-Session', freshGuestSession(ctx)]] };
      },
    }),
  ),
  oneCart('authentication.guests-share-one-cart', 'AUTH-GUEST-17'),
  oneCart('authentication.guest-session-not-the-cart', 'AUTH-GUEST-16'),
  wire('authentication.current-guest-key-refused', 'AUTH-GUEST-12', 'every guest session is refused as invalid', (a, r) =>
    headerOf(r.headers, 'guest-session') && pathOf(r).startsWith('/v1/cart') && a.status < 400
      ? refusal(401, 'invalid_guest_session', 'Unauthorized', 'Bearer error="invalid_token"')
      : a,
  ),
  lenient(
    'authentication.forged-guest-session-checked-on-catalog',
    'AUTH-GUEST-2',
    'a forged Guest-Session on a catalog read is refused',
    (ctx) => ({
      buffer: notAStream,
      response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
        if (!pathOf(r).startsWith('/v1/catalog') || !headerOf(r.headers, 'guest-session')) return a;
        return guestSessionSignedBy(r, ctx.profile.secrets.guestSessionKey)
          ? a
          : refusal(401, 'invalid_guest_session', 'Unauthorized', 'Bearer error="invalid_token"');
      },
    }),
  ),
  lenient(
    'authentication.sessionless-guests-share-a-cart',
    'AUTH-GUEST-3',
    'guests without a Guest-Session share one anonymous cart (which another shopper has filled) instead of an empty one',
    (ctx) => {
      const shared = freshGuestSession(ctx);
      let filled: Promise<unknown> | undefined;
      return {
        async request(req: ProxyRequest): Promise<ProxyRequest> {
          if (req.method !== 'GET' || pathOf(req) !== '/v1/cart' || !isGuest(req, ctx) || headerOf(req.headers, 'guest-session'))
            return req;
          const headers = withHeader(req.headers, 'guest-session', shared);
          // Another shopper's line, added once straight to the target (it would pass this proxy unchanged).
          filled ??= ctx
            .send?.({
              method: 'POST',
              path: '/v1/cart/items',
              headers: {
                authorization: headerOf(req.headers, 'authorization')!,
                'guest-session': shared,
                'content-type': 'application/json',
              },
              // The reference's addCartItem body.
              body: JSON.stringify({ variant_id: ctx.profile.data?.variant ?? 'var_0101', quantity: 1 }),
            })
            .catch(() => undefined);
          await filled;
          return { ...req, headers };
        },
      };
    },
  ),
  wireWith(
    'authentication.expired-guest-key-unchallenged-on-writes',
    'AUTH-GUEST-7',
    'on cart writes, a session of the previous key past its deadline is refused without its Bearer error="invalid_token" challenge',
    (ctx) => (a, r) =>
      r.method !== 'GET' && problemCode(a) === 'invalid_guest_session' && previousKeySession(r, ctx)
        ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') }
        : a,
  ),
  {
    // A server that verifies against the current key only: the session goes upstream with a signature no key verifies,
    // so the server itself refuses it (401 invalid_guest_session) and writes nothing.
    id: 'authentication.previous-guest-key-ignored',
    clause: 'AUTH-GUEST-13',
    kind: 'wire',
    description: 'GUEST_SESSION_KEY_PREVIOUS is not honoured: its sessions are 401 invalid_guest_session before the deadline too',
    rules: (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const uuid = previousKeySession(req, ctx);
        const bad = uuid && signGuestSession(uuid, `${ctx.profile.secrets.guestSessionKey}-not-previous`);
        return bad ? withGuestSession(req, bad) : req;
      },
    }),
  },
  lenient(
    'authentication.previous-guest-key-without-deadline',
    'AUTH-GUEST-14',
    'GUEST_SESSION_KEY_PREVIOUS_UNTIL is not enforced: previous-key sessions still verify after it (re-signed)',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const uuid = previousKeySession(req, ctx);
        const fixed = uuid && signGuestSession(uuid, ctx.profile.secrets.guestSessionKey);
        return fixed ? withGuestSession(req, fixed) : req;
      },
    }),
  ),
];
