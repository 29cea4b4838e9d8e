// Reach defects of guest sessions (spec, Resources > Guest session value; Authentication > Guest sessions), written blind:
// a verifier that compares only part of the signature, one that compares it without regard to case, and an add-to-cart
// handler that honours a Guest-Session beside a customer token. Each is a leniency: the proxy repairs what the lax server
// would take (re-signing the session, or presenting the storefront's token), so the reference answers as that server would.
import { createLocalJWKSet, jwtVerify } from 'jose';
import { guestSessionSignature } from '../../../lib/guest-session.js';
import { publicJwks } from '../../../lib/mint.js';
import type { ProxyRequest } from '../../proxy.js';
import { bearerOf, headerOf, mapHeader, withGuestSession } from '../helpers.js';
import { isOperation } from '../blind/shared.js';
import { lenient, type Defect, type DefectContext } from '../types.js';

/** A well-formed `gs1.<lowercase uuid>.<43 base64url characters>` value: only its signature is judged below. */
const WELL_FORMED = /^gs1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

/** How many leading characters of the signature the truncating verifier compares (of 43). */
const COMPARED_CHARS = 32;

/** The guest keys a server of this profile verifies with: the current one, then the previous one (its deadline is upstream's). */
const guestKeys = (ctx: DefectContext): string[] =>
  [ctx.profile.secrets.guestSessionKey, ctx.profile.secrets.guestSessionKeyPrevious].filter((k): k is string => !!k);

/**
 * The request's well-formed Guest-Session re-signed with the key whose true signature `lax(given, true)` takes although it
 * differs from it; the request unchanged when the value is genuine, malformed, or not taken. The previous key's deadline
 * stays upstream's to judge.
 */
const laxSignature = (lax: (given: string, genuine: string) => boolean) => (ctx: DefectContext) => ({
  request(req: ProxyRequest): ProxyRequest {
    const m = WELL_FORMED.exec(headerOf(req.headers, 'guest-session') ?? '');
    if (!m) return req;
    const [, id, given] = m as unknown as [string, string, string];
    for (const key of guestKeys(ctx)) {
      const genuine = guestSessionSignature(id, key);
      if (given === genuine) return req;
      if (lax(given, genuine)) return withGuestSession(req, `gs1.${id}.${genuine}`);
    }
    return req;
  },
});

/** The cart id of a genuine (well-formed, correctly signed) Guest-Session value, or undefined. */
const genuineSession = (value: string | undefined, ctx: DefectContext): string | undefined => {
  const m = WELL_FORMED.exec(value ?? '');
  return m && guestKeys(ctx).some((k) => guestSessionSignature(m[1]!, k) === m[2]) ? m[1] : undefined;
};

/** A website user token (no `act`) that the profile's issuer signed and that has not expired, as its verifier checks it. */
async function isCustomerToken(token: string | undefined, ctx: DefectContext): Promise<boolean> {
  if (!token) return false;
  const { profile } = ctx;
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(publicJwks(profile)), {
      issuer: profile.issuer,
      audience: [profile.audiences.api, profile.audiences.agent],
      typ: 'at+jwt',
    });
    return payload.client_id === profile.clients.website && payload.act === undefined && typeof payload.sub === 'string';
  } catch {
    return false;
  }
}

export const REACH_SESSIONS_DEFECTS: readonly Defect[] = [
  // "A forged, malformed, or expired-key session yields 401 `invalid_guest_session`". Broken: the HMAC is compared over its
  // first 32 characters only (a fixed-size buffer), so a session whose last 11 signature characters are wrong is taken.
  lenient(
    'reach.sessions.signature-tail-uncompared',
    'AUTH-GUEST-5',
    'a guest session whose signature is right in its first 32 characters but wrong in the last 11 is accepted',
    laxSignature((given, genuine) => given.slice(0, COMPARED_CHARS) === genuine.slice(0, COMPARED_CHARS)),
  ),
  // "`<signature>` is a 43-character base64url HMAC-SHA256 over the id using the shared guest key". Broken: the signature is
  // compared case-insensitively (as if it were a hex digest), so a signature with its letters' case changed is taken.
  lenient(
    'reach.sessions.signature-case-folded',
    'RES-GUEST-3',
    'a guest session whose signature differs from the HMAC only in the case of its letters is accepted',
    laxSignature((given, genuine) => given.toLowerCase() === genuine.toLowerCase()),
  ),
  // "Both guest headers are refused on website tokens." Broken on addCartItem only: a customer request carrying a genuine
  // Guest-Session is served as that guest (the line goes to the browser cart) instead of being refused.
  lenient(
    'reach.sessions.customer-add-goes-to-guest-cart',
    'AUTH-GUEST-11',
    'addCartItem with a customer token and a genuine Guest-Session adds the line to that guest cart instead of refusing',
    (ctx) => ({
      async request(req: ProxyRequest): Promise<ProxyRequest> {
        if (!isOperation(req, 'addCartItem') || genuineSession(headerOf(req.headers, 'guest-session'), ctx) === undefined) return req;
        if (!(await isCustomerToken(bearerOf(req), ctx))) return req;
        const storefront = await ctx.mint.guest();
        return { ...req, headers: mapHeader(req.headers, 'authorization', () => `Bearer ${storefront}`) };
      },
    }),
  ),
];
