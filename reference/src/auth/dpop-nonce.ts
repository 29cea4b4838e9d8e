// Server-issued DPoP nonces (RFC 9449 §9), stateless: a nonce is the HMAC of a time slot under a server key, so any
// instance holding the key can issue and check one without storage. A nonce is accepted in the slot it was issued in and
// the next one: for at least one slot length, at most two. Pure; never imports Express.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface DpopNonces {
  /** The nonce of the current slot: what every response to a DPoP request carries in `DPoP-Nonce`. */
  current(now: Date): string;
  /** True for the nonce of the current or the previous slot. */
  accepts(nonce: string, now: Date): boolean;
  readonly lifetimeSeconds: number;
}

/** Nonces are 43 base64url characters (an unpadded SHA-256 HMAC). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function createDpopNonces(key: string, lifetimeSeconds: number): DpopNonces {
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds <= 0) throw new RangeError('the nonce lifetime must be a positive integer');
  const slotOf = (now: Date) => Math.floor(now.getTime() / 1000 / lifetimeSeconds);
  const nonceOf = (slot: number) => createHmac('sha256', key).update(`dpop-nonce.v1.${slot}`).digest();
  return {
    lifetimeSeconds,
    current: (now) => nonceOf(slotOf(now)).toString('base64url'),
    accepts(nonce, now) {
      if (!NONCE_PATTERN.test(nonce)) return false;
      const given = Buffer.from(nonce, 'base64url');
      if (given.toString('base64url') !== nonce) return false; // one spelling per nonce
      const slot = slotOf(now);
      let ok = false;
      // Both slots are always compared, so the timing does not tell which one matched.
      for (const s of [slot, slot - 1]) if (timingSafeEqual(given, nonceOf(s))) ok = true;
      return ok;
    },
  };
}
