// Defects of the Authentication part (AUTH-*), mostly leniency: the proxy repairs what the server must refuse (re-signs a
// token or a guest session with the profile's keys) so that the server behind accepts it, as a lax server would.
import { headerOf, mapHeader, problemCode, repairBearer, repairGuestSession } from './helpers.js';
import { lenient, misconfigured, wire, type Defect } from './types.js';

const now = () => Math.floor(Date.now() / 1000);

export const AUTHENTICATION_DEFECTS: readonly Defect[] = [
  lenient(
    'auth.expired-token-accepted',
    'AUTH-TOKEN-6',
    'an expired token is accepted (re-signed with a future exp)',
    repairBearer((_h, c) => (typeof c.exp === 'number' && c.exp <= now() ? ((c.exp = now() + 300), true) : false)),
  ),
  lenient(
    'auth.foreign-issuer-accepted',
    'AUTH-TOKEN-2',
    'a token from another issuer is accepted (re-signed with the profile issuer)',
    repairBearer((_h, c, ctx) =>
      typeof c.iss === 'string' && c.iss !== ctx.profile.issuer ? ((c.iss = ctx.profile.issuer), true) : false,
    ),
  ),
  lenient(
    'auth.foreign-audience-accepted',
    'AUTH-TOKEN-4',
    'a token for another audience is accepted (re-signed with the API audience)',
    repairBearer((_h, c, ctx) => {
      const ours = Object.values(ctx.profile.audiences) as unknown[];
      const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
      if (aud.some((x) => ours.includes(x))) return false;
      c.aud = ctx.profile.audiences.api;
      return true;
    }),
  ),
  lenient(
    'auth.any-token-type-accepted',
    'AUTH-TOKEN-5',
    'a token whose header type is not at+jwt is accepted (re-signed as at+jwt)',
    repairBearer((h) => (h.typ !== 'at+jwt' && h.alg === 'ES256' ? ((h.typ = 'at+jwt'), true) : false)),
  ),
  lenient(
    'auth.bad-signature-accepted',
    'AUTH-TOKEN-3',
    'a token that does not verify is accepted (re-signed with the published key)',
    repairBearer(
      (h, c, ctx) =>
        h.alg === 'ES256' &&
        h.typ === 'at+jwt' &&
        c.iss === ctx.profile.issuer &&
        typeof c.exp === 'number' &&
        c.exp > now() &&
        !('act' in c && c.client_id === ctx.profile.clients.personalAgentProxy),
    ),
  ),
  lenient(
    'auth.forged-guest-session-accepted',
    'AUTH-GUEST-5',
    'a guest session with a bad signature is accepted (re-signed with the current key)',
    repairGuestSession((uuid, sig) => uuid === uuid.toLowerCase() && /^[\w-]{43}$/.test(sig)),
  ),
  lenient(
    'auth.malformed-guest-session-accepted',
    'AUTH-GUEST-6',
    'a malformed guest session is accepted (uppercase id, short or padded signature: re-signed)',
    repairGuestSession((uuid, sig) => uuid !== uuid.toLowerCase() || !/^[\w-]{43}$/.test(sig)),
  ),
  lenient(
    'auth.uppercase-guest-id-accepted',
    'RES-GUEST-2',
    'a guest session over an uppercase id is accepted (re-signed over the lowercase id)',
    repairGuestSession((uuid) => uuid !== uuid.toLowerCase()),
  ),
  lenient(
    'auth.lax-guest-signature-accepted',
    'RES-GUEST-3',
    'a guest session with a padded or short signature is accepted (re-signed)',
    repairGuestSession((_uuid, sig) => !/^[\w-]{43}$/.test(sig)),
  ),
  wire('auth.sign-in-required-as-401', 'AUTH-SIGNIN-1', 'sign_in_required answered 401 instead of 403', (a) =>
    problemCode(a) === 'sign_in_required' ? { ...a, status: 401 } : a,
  ),
  wire('auth.sign-in-required-challenge-dropped', 'AUTH-SIGNIN-2', 'sign_in_required without its WWW-Authenticate challenge', (a) =>
    problemCode(a) === 'sign_in_required' ? { ...a, headers: a.headers.filter(([k]) => k.toLowerCase() !== 'www-authenticate') } : a,
  ),
  wire('auth.conversation-challenge-bearer', 'AUTH-SCHEME-1', 'on conversation paths the challenge is Bearer', (a, r) =>
    r.path.startsWith('/assistant/conversations') && a.status === 401
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^DPoP/, 'Bearer')) }
      : a,
  ),
  wire('auth.dpop-scheme-challenge-bearer', 'AUTH-SCHEME-2', 'a request with the DPoP scheme is challenged with Bearer', (a, r) =>
    /^DPoP\s/i.test(headerOf(r.headers, 'authorization') ?? '') && a.status === 401
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^DPoP/, 'Bearer')) }
      : a,
  ),
  wire('auth.bearer-challenge-dpop', 'AUTH-SCHEME-5', 'a plain Bearer request is challenged with DPoP', (a, r) =>
    /^Bearer\s/i.test(headerOf(r.headers, 'authorization') ?? '') && a.status === 401 && !r.path.startsWith('/assistant/')
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^Bearer/, 'DPoP')) }
      : a,
  ),
  misconfigured(
    'auth.guest-key-window-90-days',
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
];
