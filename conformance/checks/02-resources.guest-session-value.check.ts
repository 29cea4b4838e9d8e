// Spec part 2, Resources > Guest session value: `gs1.<uuid>.<signature>`, a lowercase UUID and a 43-character base64url
// HMAC-SHA256 of the id with the shared guest key. A value in the format is taken, values outside it are refused.
import { randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectProblem, expectStatus, fail } from '../lib/assert.js';
import {
  forgeGuestSession,
  GUEST_SESSION_FORMAT,
  guestSessionSignature,
  signGuestSession,
  type GuestSessionForgery,
} from '../lib/guest-session.js';
import { freshShopperIp } from '../lib/shopper.js';

async function readCartAsGuest(shop: Shop, session: string): Promise<ShopResponse> {
  return shop.http.get('/v1/cart', {
    token: await shop.mint.guest(),
    headers: { 'guest-session': session, 'shopper-ip': freshShopperIp() },
  });
}

/**
 * A cart read with the session refused. Each is a read by a guest of its own (a new token and shopper), so the variants of a
 * check are cases of no shared state (judgeCases: each failed variant is one failure, in their order).
 */
async function expectSessionRefused(shop: Shop, session: string, variant: string, { clause }: { clause: string }): Promise<void> {
  const res = await readCartAsGuest(shop, session);
  if (res.status !== 401) fail(`Guest-Session ${variant}`, '401 invalid_guest_session', brief(res), { clause });
  expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: shop.docsUrl, clause });
}

test(
  ...check(
    {
      id: 'resources.guest-session.well-formed',
      title: 'a Guest-Session gs1.<lowercase uuid>.<43-character base64url HMAC> is taken on a cart read',
      clauses: ['RES-GUEST-1', 'RES-GUEST-2', 'RES-GUEST-3'],
      requires: ['guests'],
    },
    async (shop) => {
      const session = shop.guestSession();
      if (!GUEST_SESSION_FORMAT.test(session)) throw new Error(`the suite minted a malformed session ${session}`);
      expectStatus(await readCartAsGuest(shop, session), 200, { clause: 'RES-GUEST-1' });
    },
  ),
);

const key = (shop: Shop) => shop.profile.secrets.guestSessionKey;
const forged = (shop: Shop, forgery: GuestSessionForgery) => forgeGuestSession(forgery, key(shop));

test(
  ...check(
    {
      id: 'resources.guest-session.shape',
      title: 'Guest-Session values not of the shape gs1.<uuid>.<signature> are 401 invalid_guest_session',
      clauses: ['RES-GUEST-1'],
      requires: ['guests'],
    },
    async (shop) => {
      const uuid = randomUUID();
      const valid = signGuestSession(uuid, key(shop));
      const sig = guestSessionSignature(uuid, key(shop));
      const variants: [string, string][] = [
        ['without its signature', forged(shop, 'missing-part')],
        ['with prefix gs2', forged(shop, 'wrong-prefix')],
        ['with prefix GS1', `GS1${valid.slice(3)}`],
        ['with a fourth part', `${valid}.extra`],
        ['with an empty id', `gs1..${sig}`],
        ['with a hyphen-less id (signed as written)', signGuestSession(uuid.replace(/-/g, ''), key(shop))],
        ['that is only the id', uuid],
        ['garbage', 'not-a-guest-session'],
      ];
      await judgeCases(variants, ([what, session]) => expectSessionRefused(shop, session, what, { clause: 'RES-GUEST-1' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.guest-session.uuid',
      title: 'the id of a Guest-Session is a lowercase UUID: uppercase, braced or non-UUID ids are refused even when signed',
      clauses: ['RES-GUEST-2'],
      requires: ['guests'],
    },
    async (shop) => {
      const uuid = randomUUID();
      const mixed = uuid.replace(/[a-f]/, (c) => c.toUpperCase());
      const variants: [string, string][] = [
        ['with an uppercase UUID (signed over it)', forged(shop, 'uppercase-uuid')],
        ['with a mixed-case UUID (signed over it)', signGuestSession(mixed === uuid ? uuid.toUpperCase() : mixed, key(shop))],
        ['with a braced UUID (signed over it)', signGuestSession(`{${uuid}}`, key(shop))],
        ['with a non-UUID id (signed over it)', signGuestSession('cart-of-the-conformance-suite', key(shop))],
      ];
      await judgeCases(variants, ([what, session]) => expectSessionRefused(shop, session, what, { clause: 'RES-GUEST-2' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.guest-session.signature',
      title: 'the signature of a Guest-Session is the 43-character unpadded base64url HMAC-SHA256 of the id; anything else is refused',
      clauses: ['RES-GUEST-3'],
      requires: ['guests'],
    },
    async (shop) => {
      // A signature holding a base64url-only character, so that its standard-base64 spelling differs from it.
      let uuid = randomUUID();
      for (let i = 0; i < 200 && !/[-_]/.test(guestSessionSignature(uuid, key(shop))); i++) uuid = randomUUID();
      const sig = guestSessionSignature(uuid, key(shop));
      const hmacHex = Buffer.from(sig, 'base64url').toString('hex');
      const variants: [string, string][] = [
        ['with one signature character changed', forged(shop, 'bad-signature')],
        ['signed with another key', forged(shop, 'wrong-key')],
        ['with the signature of another id', forged(shop, 'other-uuid')],
        ['with a 42-character signature', forged(shop, 'short-signature')],
        ['with = padding', forged(shop, 'padded-signature')],
        ['with a 44th character', `gs1.${uuid}.${sig}A`],
        ['with the hex HMAC', `gs1.${uuid}.${hmacHex}`],
      ];
      if (/[-_]/.test(sig)) variants.push(['in standard base64 (+/)', `gs1.${uuid}.${sig.replace(/-/g, '+').replace(/_/g, '/')}`]);
      await judgeCases(variants, ([what, session]) => expectSessionRefused(shop, session, what, { clause: 'RES-GUEST-3' }));
    },
  ),
);
