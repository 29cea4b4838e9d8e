// The Location header field: a URI reference resolved against the target URI of the request (RFC 9110 §10.2.2, by
// RFC 3986 §5), once. A deployment may answer a full URL, an absolute path (which, behind a path prefix, includes the
// prefix) or a relative reference; every check that reads Location goes through here, so that none adds the base URL a
// second time. Pure.

/** The absolute URL a Location value names, resolved against the URL of the request that got it; null when it does not parse. */
export function resolveLocation(location: string, requestUrl: string): URL | null {
  try {
    return new URL(location.trim(), requestUrl);
  } catch {
    return null;
  }
}

/**
 * The path of `url` below the base URL (`/v1/me/orders/ord_1` for `http://h/shop/v1/me/orders/ord_1` under
 * `http://h/shop`), with its query; undefined when the URL lies outside the base (another origin, another prefix).
 * Origins compare as URL normalises them (scheme and host lowercased, default ports dropped).
 */
export function pathBelowBase(url: URL, baseUrl: string): string | undefined {
  const base = new URL(baseUrl);
  if (url.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return undefined;
  return (url.pathname.slice(prefix.length) || '/') + url.search;
}

/** The last non-empty path segment of a URL, percent-decoded (an id a create names in its Location). */
export function lastSegment(url: URL): string | undefined {
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  if (last === undefined) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
