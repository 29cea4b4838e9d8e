// Server-issued DPoP nonces (RFC 9449 §9), stateless and fresh per response: a nonce is its issue time (4 bytes, epoch
// seconds), 12 random bytes and a 16-byte HMAC of both under a server key, so any instance holding the key can issue and
// check one without storage, and no two responses carry the same nonce. A nonce is accepted for the lifetime after its
// issue (and a few seconds before, for instances whose clocks disagree a little). Pure; never imports Express.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
  const macOf = (head: Buffer) => createHmac('sha256', key).update('dpop-nonce.v2.').update(head).digest().subarray(0, 16);
  return {
    lifetimeSeconds,
    current(now) {
      const head = Buffer.alloc(16);
      head.writeUInt32BE(Math.floor(now.getTime() / 1000) >>> 0, 0);
      randomBytes(12).copy(head, 4);
      return Buffer.concat([head, macOf(head)]).toString('base64url');
    },
    accepts(nonce, now) {
      if (!NONCE_PATTERN.test(nonce)) return false;
      const given = Buffer.from(nonce, 'base64url');
      if (given.length !== 32 || given.toString('base64url') !== nonce) return false; // one spelling per nonce
      const head = given.subarray(0, 16);
      if (!timingSafeEqual(given.subarray(16), macOf(head))) return false;
      const age = Math.floor(now.getTime() / 1000) - head.readUInt32BE(0);
      return age <= lifetimeSeconds && age >= -NONCE_FUTURE_SKEW_SECONDS;
    },
  };
}
