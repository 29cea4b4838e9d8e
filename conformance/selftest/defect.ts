// A defect of the self-test: one clause broken subtly, as data. A proxy in front of the target applies it (proxy.ts):
// wire defects rewrite answers (a status, a header, a member of a JSON body); leniency defects emulate a server that
// accepts what it must refuse by repairing the request before it goes on (the suite holds the profile's keys and
// secrets, so it can re-sign what the server should have refused). `rulesOf` turns the data into proxy rules.
import { createHmac } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Profile } from '../../contract/profile.js';
import { createMinter, type TokenDraft } from '../lib/mint.js';
import type { JsonObject } from '../lib/jws.js';
import { headerOf, isJsonMediaType, withHeader, withoutHeader, type ProxyAnswer, type ProxyRequest, type ProxyRules } from './proxy.js';

/** Which exchanges a defect touches; every member given must match. */
export interface Match {
  method?: string;
  /** A regular expression (source) over the request path, query included. */
  path?: string;
  /** `error`: any status ≥ 400; `success`: any status < 400; or one status. */
  status?: number | 'error' | 'success';
  /** The `error` member of a problem document. */
  error?: string;
  /** A request header that must be present. */
  requestHeader?: string;
}

export interface ResponseEdit {
  status?: number;
  /** Header names removed. */
  drop?: readonly string[];
  /** Headers set (replacing every line of that name). */
  set?: Readonly<Record<string, string>>;
  /** Members of a JSON object body set (dotted paths one level deep are enough here) or removed. */
  body?: { set?: Readonly<Record<string, unknown>>; drop?: readonly string[] };
}

/** Named repairs of leniency defects: what the emulated server fails to refuse. */
export const REPAIRS = {
  /** A bearer token without `exp` is re-signed with one: the server accepts tokens that never expire. */
  'token-without-exp': 'token-without-exp',
  /** A bearer token without `iss` is re-signed with the profile's issuer: the server ignores `iss`. */
  'token-without-iss': 'token-without-iss',
  /** An expired bearer token is re-signed with a fresh `exp`: the server ignores expiry. */
  'expired-token': 'expired-token',
  /** A bearer token for another audience is re-signed for the API audience: the server ignores `aud`. */
  'token-other-audience': 'token-other-audience',
  /** A Guest-Session whose MAC does not verify is re-signed with the current key: the server ignores the signature. */
  'forged-guest-session': 'forged-guest-session',
} as const;
export type RepairName = keyof typeof REPAIRS;

export interface Defect {
  /** Stable, kebab-case: `drop-request-id`. */
  readonly id: string;
  /** The clause it breaks; the checks citing it must catch it. */
  readonly clause: string;
  /** What the defective server does wrong, in one line. */
  readonly breaks: string;
  readonly when?: Match;
  readonly response?: ResponseEdit;
  readonly repair?: RepairName;
}

const matches = (m: Match | undefined, req: ProxyRequest, answer?: ProxyAnswer): boolean => {
  if (!m) return true;
  if (m.method && m.method !== req.method) return false;
  if (m.path && !new RegExp(m.path).test(req.path)) return false;
  if (m.requestHeader && headerOf(req.headers, m.requestHeader) === undefined) return false;
  if (answer) {
    if (m.status === 'error' && answer.status < 400) return false;
    if (m.status === 'success' && answer.status >= 400) return false;
    if (typeof m.status === 'number' && answer.status !== m.status) return false;
    if (m.error !== undefined) {
      const error = answer.body ? (safeJson(answer.body) as { error?: unknown } | undefined)?.error : undefined;
      if (error !== m.error) return false;
    }
  }
  return true;
};

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

function editBody(body: string | undefined, edit: ResponseEdit['body']): string | undefined {
  if (!edit || body === undefined) return body;
  const doc = safeJson(body);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return body;
  const out = { ...(doc as Record<string, unknown>) };
  for (const k of edit.drop ?? []) delete out[k];
  Object.assign(out, edit.set ?? {});
  return JSON.stringify(out);
}

function bearerOf(req: ProxyRequest): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(headerOf(req.headers, 'authorization') ?? '');
  return m?.[1];
}

/** The request as the lenient server would see it after the repair, or unchanged when the repair does not apply. */
async function repair(name: RepairName, req: ProxyRequest, profile: Profile): Promise<ProxyRequest> {
  if (name === 'forged-guest-session') {
    const value = headerOf(req.headers, 'guest-session');
    const m = value ? /^gs1\.([^.]+)\.([^.]+)$/.exec(value) : null;
    if (!m) return req;
    const mac = (key: string) => createHmac('sha256', key).update(`gs1.${m[1]}`).digest('base64url');
    const keys = [profile.secrets.guestSessionKey, profile.secrets.guestSessionKeyPrevious].filter((k): k is string => !!k);
    if (keys.some((k) => mac(k) === m[2])) return req;
    return { ...req, headers: withHeader(req.headers, 'Guest-Session', `gs1.${m[1]}.${mac(profile.secrets.guestSessionKey)}`) };
  }
  const token = bearerOf(req);
  if (!token) return req;
  let claims: JsonObject;
  let header: JsonObject;
  try {
    claims = decodeJwt(token) as JsonObject;
    header = decodeProtectedHeader(token) as JsonObject;
  } catch {
    return req;
  }
  const now = Math.floor(Date.now() / 1000);
  const fixed: JsonObject = { ...claims };
  if (name === 'token-without-exp' && claims.exp === undefined) fixed.exp = now + 300;
  else if (name === 'token-without-iss' && claims.iss === undefined) fixed.iss = profile.issuer;
  else if (name === 'expired-token' && typeof claims.exp === 'number' && claims.exp <= now) fixed.exp = now + 300;
  else if (name === 'token-other-audience' && claims.aud !== profile.audiences.api && claims.aud !== profile.audiences.agent) fixed.aud = profile.audiences.api;
  else return req;
  const draft: TokenDraft = { header: { ...header, alg: 'ES256', kid: profile.signingKeys[0]?.kid }, payload: fixed };
  const resigned = await createMinter(profile).sign(draft);
  return { ...req, headers: withHeader(req.headers, 'Authorization', `Bearer ${resigned}`) };
}

/** The proxy rules that make a conforming target show the defect. */
export function rulesOf(defect: Defect, profile: Profile): ProxyRules {
  return {
    ...(defect.repair
      ? { request: (req: ProxyRequest) => (matches({ ...defect.when, status: undefined, error: undefined }, req) ? repair(defect.repair!, req, profile) : req) }
      : {}),
    ...(defect.response
      ? {
          // Event streams pass live; everything else is buffered when the edit needs the body or the match the error.
          buffer: (answer: ProxyAnswer) =>
            !/^text\/event-stream/i.test(headerOf(answer.headers, 'content-type') ?? '') && isJsonMediaType(headerOf(answer.headers, 'content-type')),
          response: (answer: ProxyAnswer, req: ProxyRequest): ProxyAnswer => {
            if (!matches(defect.when, req, answer)) return answer;
            const edit = defect.response!;
            let headers = answer.headers;
            for (const name of edit.drop ?? []) headers = withoutHeader(headers, name);
            for (const [name, value] of Object.entries(edit.set ?? {})) headers = withHeader(headers, name, value);
            return { status: edit.status ?? answer.status, headers, body: editBody(answer.body, edit.body) };
          },
        }
      : {}),
  };
}
