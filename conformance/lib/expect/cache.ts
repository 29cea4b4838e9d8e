// Caching headers: Cache-Control directives, a freshness lifetime by RFC 9111, weak entity tags.
import { describeFreshness, freshnessLifetime, type Freshness } from '../freshness.js';
import { fail, type ClauseOption } from './failure.js';
import type { HttpResult } from './response.js';

/** Cache-Control directives as name (lowercased) -> value (unquoted; '' when the directive has none). */
export function parseCacheControl(header: string | null): Map<string, string> {
  const directives = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...rest] = part.split('=');
    if (name.trim() === '') continue;
    directives.set(
      name.trim().toLowerCase(),
      rest
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  return directives;
}

/**
 * Every directive listed (`private`, `no-cache`, `max-age=300`) is present, with the same value when one is given.
 * With `exact`, no other directive may appear.
 */
export function expectCacheControl(
  res: Pick<HttpResult, 'headers'>,
  directives: readonly string[],
  opts: ClauseOption & { exact?: boolean } = {},
): void {
  const header = res.headers.get('cache-control');
  const actual = parseCacheControl(header);
  const wanted = parseCacheControl(directives.join(','));
  for (const [name, value] of wanted) {
    if (actual.get(name) !== value) fail(`Cache-Control directive ${name}`, directives.join(', '), header, opts);
  }
  if (opts.exact && actual.size !== wanted.size) fail('Cache-Control directives (exactly)', directives.join(', '), header, opts);
}

/**
 * "Cached `seconds` seconds": every cache that may store the response (a client's private cache, and a shared one unless
 * the response is `private`) gets that freshness lifetime from it, by RFC 9111 §4.2.1 (`max-age`, else `Expires` minus
 * `Date`; `s-maxage` for shared caches), and may reuse it without validation (no `no-store`, no `no-cache`). Which
 * fields state it is the server's choice. A lifetime from `Expires` may be one second off: HTTP-dates have whole seconds.
 */
export function expectFreshFor(res: Pick<HttpResult, 'headers'>, seconds: number, opts: ClauseOption & { what?: string } = {}): void {
  const shown = ['cache-control', 'expires', 'date']
    .map((n) => [n, res.headers.get(n)] as const)
    .filter(([, v]) => v !== null)
    .map(([n, v]) => `${n}: ${v}`)
    .join('; ');
  const judge = (f: Freshness, cache: string) => {
    const ok = f.stored && !f.revalidate && f.lifetime !== undefined && Math.abs(f.lifetime - seconds) <= (f.source === 'expires' ? 1 : 0);
    if (!ok)
      fail(
        `${opts.what ? `${opts.what}: ` : ''}freshness lifetime for a ${cache} cache (RFC 9111 §4.2.1), ${describeFreshness(f)}`,
        `${seconds} s, reusable without validation`,
        shown || '(no caching fields)',
        opts,
      );
  };
  judge(freshnessLifetime(res.headers), 'private');
  const shared = freshnessLifetime(res.headers, { shared: true });
  if (shared.stored) judge(shared, 'shared');
}

export function expectNoStore(res: Pick<HttpResult, 'headers'>, opts: ClauseOption = {}): void {
  expectCacheControl(res, ['no-store'], opts);
}

/** A weak entity tag, `W/"<etagc>"` (RFC 9110 §8.8.3); returns it for a later If-None-Match. */
export function expectWeakEtag(res: Pick<HttpResult, 'headers'>, opts: ClauseOption = {}): string {
  const etag = res.headers.get('etag');
  if (etag === null || !/^W\/"[\x21\x23-\x7e\x80-\xff]*"$/.test(etag)) fail('ETag', 'a weak entity tag W/"…"', etag, opts);
  return etag;
}
