// Every HTTP exchange of a check, kept for the failure report: the request as a curl command (credentials and secrets
// redacted unless --show-secrets) and the response status, headers and body.
import type { Profile } from '../../../contract/profile.js';
import { cellContext, classify, pointsOf } from '../report/cells.js';

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  error?: string;
  ms: number;
}

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'dpop',
  'guest-session',
  'invited-agent-context',
  'assistant-subject',
  'x-proxy-idp-secret',
  'stripe-signature',
  'cookie',
  'assistant-browser-session',
]);

/** Credentials wherever they appear (URLs, bodies, failure messages): each pattern with what stands in for it. */
const CREDENTIAL_PATTERNS: readonly [RegExp, (m: string, ...g: string[]) => string][] = [
  // Credentials in query strings.
  [/([?&](?:access_token|token|id_token|refresh_token|code|secret|key|signature|sig)=)[^&#\s'"]+/gi, (_m, name) => `${name}<redacted>`],
  // JWTs: access tokens, signed-out proxy tokens, invited-agent contexts, DPoP proofs.
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, (m) => `<redacted jwt ${m.length} chars>`],
  // Guest sessions (gs1.<uuid>.<signature>) and assistant browser sessions (asb1.<session id>.<signature>).
  [/\b(gs1|asb1)\.[^\s.'"&]+\.[\w-]+/g, (_m, kind) => `<redacted ${kind === 'gs1' ? 'guest session' : 'browser session'}>`],
  // Private parts of JWKs (a DPoP key in a body).
  [/("(?:d|p|q|dp|dq|qi|k)"\s*:\s*)"[^"]+"/g, (_m, member) => `${member}"<redacted>"`],
];

/** `text` with every credential pattern and every given secret replaced. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('<redacted secret>');
  for (const [pattern, by] of CREDENTIAL_PATTERNS) out = out.replace(pattern, by as (m: string, ...g: string[]) => string);
  return out;
}

/** Replaces credential headers, credentials wherever they appear, and any profile secret (header name null: any text). */
export function redactor(profile: Profile, show: boolean): (name: string | null, value: string) => string {
  // Every secret but the previous guest key's deadline, a date the messages quote (AUTH-GUEST-15).
  const { guestSessionKeyPreviousUntil: _deadline, ...keys } = profile.secrets;
  const secrets = Object.values(keys).filter((s): s is string => typeof s === 'string' && s.length >= 8);
  // A deployment's own artifact header names and browser-session prefix (profile conventions) are credentials too.
  const headers = new Set([...CREDENTIAL_HEADERS, ...Object.values(profile.conventions?.headers ?? {}).map((h) => h.toLowerCase())]);
  const prefix = profile.conventions?.credentials?.browserSession?.prefix;
  const session = prefix ? new RegExp(`\\b${prefix}\\.[^\\s.'"&]+\\.[\\w-]+`, 'g') : undefined;
  return (name, value) => {
    if (show) return value;
    if (name && headers.has(name.toLowerCase())) {
      const m = /^(Bearer|DPoP)\s+(.+)$/i.exec(value);
      return m ? `${m[1]} <redacted ${m[2]!.length} chars>` : `<redacted ${value.length} chars>`;
    }
    const out = scrub(value, secrets);
    return session ? out.replace(session, '<redacted browser session>') : out;
  };
}

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function toCurl(x: Exchange, redact: (name: string | null, value: string) => string): string {
  const parts = ['curl', '-i', '-X', x.method];
  for (const [k, v] of Object.entries(x.requestHeaders)) parts.push('-H', shellQuote(`${k}: ${redact(k, v)}`));
  if (x.requestBody !== undefined) {
    const body = x.requestBody.length > 2000 ? `${x.requestBody.slice(0, 2000)}… (${x.requestBody.length} bytes)` : x.requestBody;
    parts.push('--data-raw', shellQuote(redact(null, body)));
  }
  parts.push(shellQuote(redact(null, x.url)));
  return parts.join(' ');
}

export function formatExchange(x: Exchange, redact: (name: string | null, value: string) => string): string {
  const lines = [`$ ${toCurl(x, redact)}`];
  if (x.error) {
    lines.push(`!! ${x.error}`);
    return lines.join('\n');
  }
  lines.push(`< ${x.status} (${x.ms} ms)`);
  for (const [k, v] of Object.entries(x.responseHeaders ?? {})) lines.push(`< ${k}: ${redact(k, v)}`);
  if (x.responseBody) lines.push('', redact(null, x.responseBody.length > 4000 ? x.responseBody.slice(0, 4000) + '…' : x.responseBody));
  return lines.join('\n');
}

/** The heading of exchange `n` (from 1) of a transcript file: what the failure report finds an exchange by. */
export const exchangeHeading = (n: number, of: number) => `### exchange ${n} of ${of}`;

/** A check's whole transcript, each exchange under its numbered heading. */
export function formatTranscript(exchanges: readonly Exchange[], redact: (name: string | null, value: string) => string): string {
  if (exchanges.length === 0) return '(no exchange)';
  return exchanges.map((x, i) => `${exchangeHeading(i + 1, exchanges.length)}\n${formatExchange(x, redact)}`).join('\n\n');
}

/** Exchange `n` (from 1) of a transcript file's text, or undefined. */
export function exchangeOf(transcript: string, n: number): string | undefined {
  const parts = transcript.split(/^### exchange (\d+) of \d+\n/m);
  for (let i = 1; i < parts.length; i += 2) if (Number(parts[i]) === n) return parts[i + 1]!.replace(/\n+$/, '');
  return undefined;
}

/**
 * The cells of a clause's domain (contract/clauses/domains.ts) these exchanges fell in, one encoded point per distinct
 * combination (engine/report/cells.ts): what a check records so that the run can tell the cells its checks tried.
 */
export function exchangePoints(exchanges: readonly Exchange[], profile: Profile, baseUrl: string): string[] {
  const ctx = cellContext(profile, baseUrl);
  return pointsOf(
    exchanges.flatMap((x) => {
      if (!URL.canParse(x.url)) return [];
      const url = new URL(x.url);
      return classify(
        {
          method: x.method,
          path: url.pathname + url.search,
          headers: x.requestHeaders,
          ...(x.status !== undefined ? { status: x.status } : {}),
          ...(x.responseBody !== undefined ? { body: x.responseBody } : {}),
        },
        ctx,
      );
    }),
  );
}
