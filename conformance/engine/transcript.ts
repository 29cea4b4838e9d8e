// Every HTTP exchange of a check, kept for the failure report: the request as a curl command (credentials and secrets
// redacted unless --show-secrets) and the response status, headers and body.
import type { Profile } from '../../contract/profile.js';

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
]);

/** Replaces credential headers and any profile secret wherever it appears. */
export function redactor(profile: Profile, show: boolean): (name: string | null, value: string) => string {
  const secrets = Object.values(profile.secrets).filter((s): s is string => typeof s === 'string' && s.length >= 8);
  return (name, value) => {
    if (show) return value;
    if (name && CREDENTIAL_HEADERS.has(name.toLowerCase())) {
      const m = /^(Bearer|DPoP)\s+(.+)$/i.exec(value);
      return m ? `${m[1]} <redacted ${m[2]!.length} chars>` : `<redacted ${value.length} chars>`;
    }
    let out = value;
    for (const s of secrets) out = out.split(s).join('<redacted secret>');
    return out;
  };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function toCurl(x: Exchange, redact: (name: string | null, value: string) => string): string {
  const parts = ['curl', '-i', '-X', x.method];
  for (const [k, v] of Object.entries(x.requestHeaders)) parts.push('-H', shellQuote(`${k}: ${redact(k, v)}`));
  if (x.requestBody !== undefined) {
    const body = x.requestBody.length > 2000 ? `${x.requestBody.slice(0, 2000)}… (${x.requestBody.length} bytes)` : x.requestBody;
    parts.push('--data-raw', shellQuote(redact(null, body)));
  }
  parts.push(shellQuote(x.url));
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
  if (x.responseBody) lines.push('', x.responseBody.length > 4000 ? x.responseBody.slice(0, 4000) + '…' : x.responseBody);
  return lines.join('\n');
}
