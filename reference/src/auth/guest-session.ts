// Guest session values `gs1.<uuid>.<sig>` (spec, Resources > Guest session value; Authentication > Guest sessions).
// Pure: the clock comes in as an argument.
import { createHmac, timingSafeEqual } from 'node:crypto';

const FORMAT = /^gs1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export interface GuestKeys {
  current: string;
  previous: string | null;
  /** The previous key verifies only strictly before this instant. */
  previousUntil: Date | null;
}

export type GuestSessionResult =
  { ok: true; cartId: string; key: 'current' | 'previous' } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired_key' };

export function signGuestId(id: string, key: string): string {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(id, 'utf8').digest('base64url');
}

function sameMac(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function verifyGuestSession(value: string, keys: GuestKeys, now: Date): GuestSessionResult {
  const m = FORMAT.exec(value);
  // [RES-GUEST-1] [RES-GUEST-2] gs1.<lowercase uuid>.<43 base64url characters>; any other shape is malformed.
  if (!m) return { ok: false, reason: 'malformed' };
  const [, id, sig] = m as unknown as [string, string, string];
  // [RES-GUEST-3] [AUTH-GUEST-12] the HMAC-SHA256 of the id under GUEST_SESSION_KEY verifies.
  if (sameMac(sig, signGuestId(id, keys.current))) return { ok: true, cartId: id, key: 'current' };
  if (keys.previous !== null && sameMac(sig, signGuestId(id, keys.previous))) {
    // [AUTH-GUEST-13] the previous key verifies strictly before its deadline; [AUTH-GUEST-14] not at or after it.
    if (keys.previousUntil !== null && now.getTime() < keys.previousUntil.getTime()) return { ok: true, cartId: id, key: 'previous' };
    return { ok: false, reason: 'expired_key' };
  }
  // [AUTH-GUEST-5] any other signature is forged.
  return { ok: false, reason: 'bad_signature' };
}
