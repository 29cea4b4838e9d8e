// Server-issued DPoP nonces (RFC 9449 §9), stateless and fresh per response: a nonce is its issue time (4 bytes, epoch
// seconds), 12 random bytes and a 16-byte HMAC of both under a server key, so any instance holding the key can issue and
// check one without storage, and no two responses carry the same nonce. A nonce is accepted for the lifetime after its
// issue (and a few seconds before, for instances whose clocks disagree a little). An instance remembers the nonces it
// issued lately only to skip their MAC when they come back. Never imports Express.
import { createHmac, createSecretKey, randomFillSync, timingSafeEqual } from 'node:crypto';
import { remember } from '../bounded.js';

export interface DpopNonces {
  /** A new nonce, issued now: what every response to a DPoP request carries in `DPoP-Nonce`. */
  current(now: Date): string;
  /** True for a nonce this key issued at most `lifetimeSeconds` ago. */
  accepts(nonce: string, now: Date): boolean;
  readonly lifetimeSeconds: number;
}

/** Nonces are 43 base64url characters (32 bytes: issue time, random part, truncated HMAC). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** A nonce issued this far in the future (another instance's clock) is still accepted. */
export const NONCE_FUTURE_SKEW_SECONDS = 5;

export function createDpopNonces(key: string, lifetimeSeconds: number): DpopNonces {
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds <= 0) throw new RangeError('the nonce lifetime must be a positive integer');
  const secret = createSecretKey(Buffer.from(key, 'utf8'));
  const macOf = (head: Buffer) => createHmac('sha256', secret).update('dpop-nonce.v2.').update(head).digest().subarray(0, 16);
  // Every DPoP response carries a new nonce: random parts come from a pool filled 256 at a time.
  const pool = Buffer.alloc(12 * 256);
  let used = pool.length;
  // A client answers with the nonce it was just given: what this instance issued lately is known without a MAC.
  const issued = new Map<string, number>();
  return {
    lifetimeSeconds,
    // [AUTH-ORDER-4] a new nonce per response: no two responses carry the same one.
    current(now) {
      if (used === pool.length) {
        randomFillSync(pool);
        used = 0;
      }
      const head = Buffer.alloc(16);
      const issuedAt = Math.floor(now.getTime() / 1000) >>> 0;
      head.writeUInt32BE(issuedAt, 0);
      pool.copy(head, 4, used, (used += 12));
      const nonce = Buffer.concat([head, macOf(head)]).toString('base64url');
      remember(issued, nonce, issuedAt, MAX_REMEMBERED);
      return nonce;
    },
    accepts(nonce, now) {
      let issuedAt = issued.get(nonce);
      if (issuedAt === undefined) {
        if (!NONCE_PATTERN.test(nonce)) return false;
        const given = Buffer.from(nonce, 'base64url');
        if (given.length !== 32 || given.toString('base64url') !== nonce) return false; // one spelling per nonce
        const head = given.subarray(0, 16);
        if (!timingSafeEqual(given.subarray(16), macOf(head))) return false;
        issuedAt = head.readUInt32BE(0);
      }
      const age = Math.floor(now.getTime() / 1000) - issuedAt;
      return age <= lifetimeSeconds && age >= -NONCE_FUTURE_SKEW_SECONDS;
    },
  };
}

/** Nonces of this instance remembered for `accepts` (the others are checked by their MAC, as another instance's are). */
const MAX_REMEMBERED = 4096;
