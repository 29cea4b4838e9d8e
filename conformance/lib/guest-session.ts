// Guest session values (spec, Resources > Guest session value; docs/tokens.md): `gs1.<uuid>.<sig>`, where <sig> is the
// unpadded base64url (43 characters) of HMAC-SHA256(key = UTF-8 bytes of the guest key, message = the UUID as written).
// The storefront mints them and the service only verifies them, so the suite mints like a storefront and forges like an attacker.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** The only shape a verifier may accept (lowercase UUID, 43-character unpadded base64url signature). */
export const GUEST_SESSION_FORMAT = /^gs1\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/;

export function guestSessionSignature(uuid: string, key: string | Uint8Array): string {
  return createHmac('sha256', typeof key === 'string' ? Buffer.from(key, 'utf8') : key)
    .update(uuid, 'utf8')
    .digest('base64url');
}

/** Signs `uuid` as written: a caller that passes an uppercase UUID gets a correctly signed but malformed value. */
export function signGuestSession(uuid: string, key: string | Uint8Array): string {
  return `gs1.${uuid}.${guestSessionSignature(uuid, key)}`;
}

/** A fresh session for a new cart: a random lowercase UUID (randomness injectable for reproducible runs). */
export function newGuestSession(key: string | Uint8Array, opts: { randomUUID?: () => string } = {}): string {
  return signGuestSession((opts.randomUUID ?? randomUUID)(), key);
}

/**
 * Forged values: the first three are well-formed (they match GUEST_SESSION_FORMAT) and only a real HMAC check refuses
 * them; the others break the format.
 */
export const GUEST_SESSION_FORGERIES = [
  'bad-signature', // one signature character changed
  'wrong-key', // signed with a key the server does not hold
  'other-uuid', // a genuine signature, but of another cart's id (the capability is the id)
  'uppercase-uuid', // signed over the uppercase id, which the format refuses
  'missing-part', // `gs1.<uuid>` with no signature
  'short-signature', // 42 characters
  'wrong-prefix', // `gs2.`
  'padded-signature', // base64url with `=` padding
] as const;
export type GuestSessionForgery = (typeof GUEST_SESSION_FORGERIES)[number];

export function forgeGuestSession(forgery: GuestSessionForgery, key: string | Uint8Array, uuid: string = randomUUID()): string {
  const valid = signGuestSession(uuid, key);
  const sig = guestSessionSignature(uuid, key);
  switch (forgery) {
    case 'bad-signature':
      // Change the first character: it carries six full bits, whereas the last one has two spare bits a lax decoder ignores.
      return `gs1.${uuid}.${otherChar(sig[0] ?? 'A')}${sig.slice(1)}`;
    case 'wrong-key':
      return signGuestSession(uuid, randomBytes(32).toString('base64url'));
    case 'other-uuid':
      return `gs1.${uuid}.${guestSessionSignature(randomUUID(), key)}`;
    case 'uppercase-uuid':
      return signGuestSession(uuid.toUpperCase(), key);
    case 'missing-part':
      return `gs1.${uuid}`;
    case 'short-signature':
      return valid.slice(0, -1);
    case 'wrong-prefix':
      return `gs2${valid.slice(3)}`;
    case 'padded-signature':
      return `${valid}=`;
  }
}

function otherChar(c: string): string {
  return c === 'A' ? 'B' : 'A';
}
