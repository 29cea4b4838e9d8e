// A bounded cache of verified access tokens, keyed by the token itself: verifying a signature is most of an authenticated
// read's cost, and clients send the same token many times. Only successes are kept, never longer than the token's `exp`
// nor than the key set itself is cached (so a key removed from the set stops verifying no later than it would without
// this cache). A hit re-checks expiry against the request's clock, so an expired token is refused as before.
import { remember } from '../bounded.js';
import type { TokenVerifier, VerifiedToken } from './verify-token.js';

export interface VerificationCacheOptions {
  /** Entries kept at most; the oldest goes first. */
  readonly maxEntries: number;
  /** How long a success is reused at most (the key set's cache lifetime). */
  readonly maxAgeSeconds: number;
}

export function withVerificationCache(inner: TokenVerifier, o: VerificationCacheOptions): TokenVerifier {
  const entries = new Map<string, { token: VerifiedToken; from: number; until: number }>();
  return {
    async verify(token, now) {
      const at = now.getTime();
      const hit = entries.get(token);
      if (hit !== undefined) {
        // A clock before the verification (a test's clock, a step back) verifies afresh.
        if (at >= hit.from && at < hit.until) return hit.token;
        entries.delete(token);
      }
      const verified = await inner.verify(token, now);
      const exp = typeof verified.claims.exp === 'number' ? verified.claims.exp * 1000 : at;
      const until = Math.min(exp, at + o.maxAgeSeconds * 1000);
      if (until > at) {
        remember(entries, token, { token: verified, from: at, until }, o.maxEntries);
      }
      return verified;
    },
  };
}
