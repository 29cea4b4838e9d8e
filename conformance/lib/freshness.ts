// How long a cache may reuse a response without asking the origin again: RFC 9111 §4.2.1, computed from the response's
// own header fields. "Cached 300 seconds" (spec, Public and special routes; Limits) is a freshness lifetime, which a
// server may state with `max-age` or with `Expires` (and `Date`): both are judged through this one function. Pure.

/** What one kind of cache does with a response. */
export type Freshness =
  /** The cache does not store it (`no-store`; `private` for a shared cache). */
  | { stored: false; why: string }
  /**
   * Stored, fresh for `lifetime` seconds (`undefined`: no explicit lifetime, only a heuristic one, RFC 9111 §4.2.2).
   * `revalidate`: `no-cache` makes every reuse wait for a validation, so the response is never served from the cache alone.
   */
  | { stored: true; lifetime: number | undefined; source: 'max-age' | 's-maxage' | 'expires' | 'heuristic'; revalidate: boolean };

export interface FreshnessOptions {
  /** A shared cache (a CDN, a proxy): honours `s-maxage` and `private` (RFC 9111 §5.2.2.7, §5.2.2.10). Default: private. */
  shared?: boolean;
  /** When the response arrived (ms since the epoch): stands in for a missing `Date` (RFC 9110 §6.6.1). Default: now. */
  receivedAt?: number;
}

type FieldSource = Pick<Headers, 'get'>;

/** Cache-Control directives in order, names lowercased, values unquoted (`undefined` when a directive has none). */
export function cacheDirectives(header: string | null): [name: string, value: string | undefined][] {
  const out: [string, string | undefined][] = [];
  // A quoted value may hold a comma (`no-cache="a, b"`): split on commas outside quotes only.
  for (const part of (header ?? '').match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === '') continue;
    const raw = eq < 0 ? undefined : part.slice(eq + 1).trim();
    out.push([name, raw === undefined ? undefined : raw.replace(/^"((?:[^"\\]|\\.)*)"$/, (_, v: string) => v.replace(/\\(.)/g, '$1'))]);
  }
  return out;
}

/**
 * A delta-seconds directive (RFC 9111 §1.2.2): its value, or `null` when it is present but unusable (no value, not
 * digits, or given twice with different values: "the response should be considered stale", §4.2.1). Quoted values are
 * accepted (§5.2: recipients accept both forms).
 */
function deltaSeconds(directives: [string, string | undefined][], name: string): number | null | undefined {
  const values = directives.filter(([n]) => n === name).map(([, v]) => v);
  if (values.length === 0) return undefined;
  if (values.some((v) => v === undefined || !/^\d+$/.test(v)) || new Set(values).size > 1) return null;
  return Math.min(Number(values[0]), 2 ** 31);
}

/** An HTTP-date (RFC 9110 §5.6.7), in ms since the epoch, or null when it does not parse. */
function httpDate(value: string): number | null {
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The freshness lifetime RFC 9111 §4.2.1 gives a response: `s-maxage` (shared caches only), else `max-age`, else
 * `Expires` minus `Date` (the time of receipt when `Date` is absent); an unusable value of the one that applies means
 * "already stale" (0), as does an `Expires` that does not parse. It does not judge `Age` (the response's current age
 * is the cache's business, not the lifetime the origin gave it) nor the heuristic a cache may apply when no lifetime is
 * given.
 */
export function freshnessLifetime(headers: FieldSource, opts: FreshnessOptions = {}): Freshness {
  const directives = cacheDirectives(headers.get('cache-control'));
  const has = (name: string) => directives.some(([n]) => n === name);
  if (has('no-store')) return { stored: false, why: 'no-store' };
  // `private` with field names only restricts those fields; bare `private` keeps the whole response out of shared caches.
  if (opts.shared && directives.some(([n, v]) => n === 'private' && v === undefined)) return { stored: false, why: 'private' };
  const revalidate = directives.some(([n, v]) => n === 'no-cache' && v === undefined);
  const stored = (lifetime: number | undefined, source: 'max-age' | 's-maxage' | 'expires' | 'heuristic'): Freshness => ({
    stored: true,
    lifetime,
    source,
    revalidate,
  });
  if (opts.shared) {
    const s = deltaSeconds(directives, 's-maxage');
    if (s !== undefined) return stored(s ?? 0, 's-maxage');
  }
  const maxAge = deltaSeconds(directives, 'max-age');
  if (maxAge !== undefined) return stored(maxAge ?? 0, 'max-age');
  const expires = headers.get('expires');
  if (expires === null) return stored(undefined, 'heuristic');
  // Two Expires lines arrive joined by a comma, which an HTTP-date also holds: a value that does not parse as one date
  // is invalid, hence stale.
  const until = httpDate(expires);
  if (until === null) return stored(0, 'expires');
  const dateField = headers.get('date');
  const date = dateField === null ? null : httpDate(dateField);
  const base = date ?? Math.floor((opts.receivedAt ?? Date.now()) / 1000) * 1000;
  return stored(Math.max(0, Math.round((until - base) / 1000)), 'expires');
}

/** The lifetime in words, for failure messages. */
export function describeFreshness(f: Freshness): string {
  if (!f.stored) return `not stored (${f.why})`;
  const lifetime = f.lifetime === undefined ? 'no explicit lifetime' : `${f.lifetime} s from ${f.source}`;
  return f.revalidate ? `${lifetime}, revalidated before every reuse (no-cache)` : lifetime;
}
