// Shared secrets of the internal routes (spec, Public and special routes): where each is presented and how it is compared.
// Pure; never imports Express. Comparison is constant-time over equal-length digests, so neither the content nor the length
// of the configured secret leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** True when `presented` equals `expected`, compared in constant time (SHA-256 digests of both, then timingSafeEqual). */
export function secretsEqual(presented: string, expected: string): boolean {
  // Both digests are 32 bytes whatever the inputs, so timingSafeEqual never throws and the time does not depend on them.
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Where a route's caller presents its secret. */
export type SecretCarrier = { kind: 'bearer' } | { kind: 'header'; name: string };

/**
 * The credential a request presents in `carrier`, or undefined when it presents none (or a malformed one). `get` reads a
 * request header by name (case-insensitive, as Express's `req.get`).
 */
export function presentedSecret(carrier: SecretCarrier, get: (name: string) => string | undefined): string | undefined {
  if (carrier.kind === 'header') {
    const value = get(carrier.name);
    return value === undefined || value === '' ? undefined : value;
  }
  // `Bearer <secret>`: the scheme is case-insensitive; the secret is taken as is (a configured secret need not be token68).
  const m = /^bearer +(\S+) *$/i.exec(get('authorization') ?? '');
  return m ? m[1] : undefined;
}

export type SecretVerdict = 'not_configured' | 'missing' | 'wrong' | 'ok';

/** The verdict for one request: the route is closed when its secret is not configured (null). */
export function checkSharedSecret(
  expected: string | null,
  carrier: SecretCarrier,
  get: (name: string) => string | undefined,
): SecretVerdict {
  // [END-PUBLIC-17] a route whose secret is not configured is closed.
  if (expected === null) return 'not_configured';
  const presented = presentedSecret(carrier, get);
  // [END-PUBLIC-18] only the route's own credential opens it: any other secret or token is wrong.
  if (presented === undefined) return 'missing';
  return secretsEqual(presented, expected) ? 'ok' : 'wrong';
}
