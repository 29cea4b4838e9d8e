// Shopper-IP values. A fresh one is a shopper address no other check uses: a random IPv6 of the documentation prefix,
// alone in its /64, so that guest rate-limit budgets (counted per operation id and shopper) are never shared between
// checks, workers or runs.
import { randomBytes } from 'node:crypto';

export function freshShopperIp(): string {
  const h = randomBytes(6).toString('hex');
  return `2001:db8:${h.slice(0, 4)}:${h.slice(4, 8)}:${h.slice(8, 12)}::1`;
}

/** A Shopper-IP value of exactly `n` characters that is still an IP address: a scoped IPv6 address (RFC 4007 §11). */
export function shopperIpOfLength(n: number): string {
  const base = `fe80::${randomBytes(2).toString('hex')}%`;
  return base + 'z'.repeat(n - base.length);
}
