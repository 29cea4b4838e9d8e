// The defects' one set of helpers, for the section files and the blind tree alike: header fields, the unverified claims of
// a request's token (and its repair, re-signed), guest sessions, and answers rewritten or made up.
import { randomUUID } from 'node:crypto';
import { guestSessionSignature, signGuestSession } from '../../lib/guest-session.js';
import { headerOf, mapHeader, withHeader, withoutHeader, type Fields, type ProxyAnswer, type ProxyRequest } from '../proxy.js';
import type { DefectContext } from './types.js';

// ------------------------------------------------------------------------------------------------------ header fields

export { headerOf, mapHeader, withHeader, withoutHeader };

/** Replaces every line of `name` by one line at the end of the fields. */
export const withHeaderLast = (fields: Fields, name: string, value: string): Fields => [...withoutHeader(fields, name), [name, value]];

/** The request's path without its query. */
export const pathOf = (r: ProxyRequest): string => r.path.split('?')[0]!;

const authorization = (r: ProxyRequest): string => headerOf(r.headers, 'authorization') ?? '';
/** The request's Authorization uses the DPoP scheme (an assistant presenting its token directly). */
export const usesDpop = (r: ProxyRequest): boolean => /^DPoP\s/i.test(authorization(r));
/** The request's Authorization uses the Bearer scheme. */
export const usesBearer = (r: ProxyRequest): boolean => /^Bearer\s/i.test(authorization(r));

// --------------------------------------------------------------------------------------------------------- token claims

export type Claims = Record<string, unknown>;

/** A base64url JSON segment of a JWS, parsed; undefined when it is not a JSON object. */
export function jsonSegment(segment: string): Claims | undefined {
  try {
    const v = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/** The claims of the request's bearer (or DPoP) access token, unverified; undefined when it carries none. */
export function tokenClaims(r: ProxyRequest): Claims | undefined {
  const m = /^(?:Bearer|DPoP)\s+([\w-]+)\.([\w-]+)\.[\w-]*$/i.exec(authorization(r));
  return m ? jsonSegment(m[2]!) : undefined;
}

/** The JOSE header of the request's access token, whatever its scheme (unverified). */
export function tokenHeader(r: ProxyRequest): Claims | undefined {
  const m = /^\S+\s+([\w-]+)\.[\w-]+\.[\w-]*$/.exec(authorization(r));
  return m ? jsonSegment(m[1]!) : undefined;
}

/** The bearer token of the request, if any. */
export const bearerOf = (r: ProxyRequest): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization(r))?.[1];

/**
 * A Bearer access token repaired by `fix` (which returns false when there is nothing to repair) and re-signed with the
 * profile's signing key. DPoP-bound requests are left alone (their proof is bound to the token).
 */
export const repairBearer = (fix: (header: Claims, claims: Claims, ctx: DefectContext) => boolean) => (ctx: DefectContext) => ({
  async request(req: ProxyRequest): Promise<ProxyRequest> {
    const m = /^Bearer\s+([\w-]+)\.([\w-]+)\.([\w-]*)$/i.exec(headerOf(req.headers, 'authorization') ?? '');
    if (!m) return req;
    const header = jsonSegment(m[1]!);
    const claims = jsonSegment(m[2]!);
    if (!header || !claims || !fix(header, claims, ctx)) return req;
    const token = await ctx.mint.sign({ header: { ...header, alg: 'ES256' }, payload: claims });
    return { ...req, headers: mapHeader(req.headers, 'authorization', () => `Bearer ${token}`) };
  },
});

// ------------------------------------------------------------------------------------------------------- guest sessions

/** A fresh guest session for a new cart, signed with the current key. */
export const freshGuestSession = (ctx: DefectContext): string => signGuestSession(randomUUID(), ctx.profile.secrets.guestSessionKey);

/** The cart id of the request's `gs1.<uuid>.<sig>` session when `key` signed it (a lowercase id); undefined otherwise. */
export function guestSessionSignedBy(r: ProxyRequest, key: string | null | undefined): string | undefined {
  const m = /^gs1\.([0-9a-f-]{36})\.(.+)$/.exec(headerOf(r.headers, 'guest-session') ?? '');
  return m && key && guestSessionSignature(m[1]!, key) === m[2] ? m[1] : undefined;
}

/** The cart id of the request's session when the previous guest key signed it. */
export const previousKeySession = (r: ProxyRequest, ctx: DefectContext): string | undefined =>
  guestSessionSignedBy(r, ctx.profile.secrets.guestSessionKeyPrevious);

/** The request's Guest-Session replaced by `value` (every line of it, where the first was). */
export const withGuestSession = (req: ProxyRequest, value: string): ProxyRequest => ({
  ...req,
  headers: mapHeader(req.headers, 'guest-session', () => value),
});

/** A Guest-Session value re-signed with the current key when `accept` says a lax server would take it. */
export const repairGuestSession = (accept: (uuid: string, sig: string) => boolean) => (ctx: DefectContext) => ({
  request(req: ProxyRequest): ProxyRequest {
    const value = headerOf(req.headers, 'guest-session');
    const m = /^gs1\.([0-9a-fA-F-]{36})\.(.*)$/.exec(value ?? '');
    if (!m || !accept(m[1]!, m[2]!)) return req;
    const fixed = signGuestSession(m[1]!.toLowerCase(), ctx.profile.secrets.guestSessionKey);
    return fixed === value ? req : withGuestSession(req, fixed);
  },
});

// --------------------------------------------------------------------------------------------------- answers and bodies

/** Buffers every answer but an event stream (so that JSON and problem bodies can be edited). */
export const notAStream = (answer: ProxyAnswer): boolean => !/^text\/event-stream/i.test(headerOf(answer.headers, 'content-type') ?? '');

/** The answer's JSON body edited by `edit` (which mutates it); answers without a JSON object body are left alone. */
export function editJson(a: ProxyAnswer, edit: (body: Record<string, unknown>) => void): ProxyAnswer {
  if (a.body === undefined || !/json/i.test(headerOf(a.headers, 'content-type') ?? '')) return a;
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return a;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return a;
  edit(body as Record<string, unknown>);
  return { ...a, body: JSON.stringify(body) };
}

/** The `error` member of a problem answer, if it is one. */
export function problemCode(a: ProxyAnswer): string | undefined {
  if (a.status < 400 || a.body === undefined) return undefined;
  try {
    const code = (JSON.parse(a.body) as { error?: unknown }).error;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A problem document answer of `status` and `error` (its `type` under the profile's `docsUrl`), keeping the upstream
 * answer's X-Request-Id as its `instance`.
 */
export function problemAnswer(
  ctx: DefectContext,
  a: ProxyAnswer,
  status: number,
  error: string,
  title: string,
  extra: Fields = [],
): ProxyAnswer {
  const requestId = headerOf(a.headers, 'x-request-id');
  return {
    status,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Cache-Control', 'no-store'],
      ...a.headers.filter(([k]) => /^(x-request-id|dpop-nonce|traceparent)$/i.test(k)),
      ...extra,
    ],
    body: JSON.stringify({
      type: `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/${error}`,
      title,
      status,
      error,
      ...(requestId ? { instance: requestId } : {}),
    }),
  };
}

/**
 * A bare problem answer (`error`, `status`, `title` only, no `type`): a refusal a lax or strict server makes up. With
 * `from`, the upstream answer's X-Request-Id is kept.
 */
export function bareProblem(status: number, error: string, title: string, o: { www?: string; from?: ProxyAnswer } = {}): ProxyAnswer {
  return {
    status,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Cache-Control', 'no-store'],
      ...(o.www ? [['WWW-Authenticate', o.www] as [string, string]] : []),
      ...(o.from?.headers.filter(([k]) => /^x-request-id$/i.test(k)) ?? []),
    ],
    body: JSON.stringify({ error, status, title }),
  };
}

/**
 * A JSON answer of `status` and `body` in place of `a` (a refusal served), keeping the upstream header fields `keep`
 * names (X-Request-Id by default).
 */
export function jsonAnswer(a: ProxyAnswer, status: number, body: string, o: { keep?: RegExp; contentType?: string } = {}): ProxyAnswer {
  const keep = o.keep ?? /^x-request-id$/i;
  return {
    status,
    headers: [
      ['Content-Type', o.contentType ?? 'application/json'],
      ['Cache-Control', 'no-store'],
      ...a.headers.filter(([k]) => keep.test(k)),
    ],
    body,
  };
}

/**
 * A JSON request body edited by `edit` (which mutates it): re-serialised unless `edit` returns false; a body that is not a
 * JSON object goes on as it came.
 */
export function editJsonBody(body: string, edit: (b: Record<string, unknown>) => boolean | void): string {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return body;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return body;
  return edit(v as Record<string, unknown>) === false ? body : JSON.stringify(v);
}

/** A refusal served instead: a 200 (or `status`) JSON answer keeping the request id and the DPoP nonce. */
export const served = (a: ProxyAnswer, body = '{}', status = 200): ProxyAnswer =>
  jsonAnswer(a, status, body, { keep: /^(x-request-id|dpop-nonce)$/i });

/** A refusal served instead, keeping the trace context besides the request id and the DPoP nonce. */
export const servedWithTrace = (a: ProxyAnswer, body = '{}'): ProxyAnswer =>
  jsonAnswer(a, 200, body, { keep: /^(x-request-id|dpop-nonce|traceparent)$/i });

/** A bare refusal made up from nothing of the upstream answer. */
export const refusal = (status: number, error: string, title: string, www?: string): ProxyAnswer =>
  bareProblem(status, error, title, www ? { www } : {});

/** A bare refusal in place of `a` (its request id kept), titled by its status. */
export const refused = (a: ProxyAnswer, status: number, error: string, www?: string): ProxyAnswer =>
  bareProblem(
    status,
    error,
    status === 401 ? 'Unauthorized' : status === 429 ? 'Too Many Requests' : status === 400 ? 'Bad Request' : 'Forbidden',
    { ...(www ? { www } : {}), from: a },
  );

/** The challenge of a refused access token, as extra header fields of problemAnswer. */
export const bearerChallenge: Fields = [['WWW-Authenticate', 'Bearer error="invalid_token"']];

/**
 * The JSON request bodies of a defect's requests, kept for its `response` rule: the proxy hands `requestBody` and
 * `response` the same request object when no `request` rule replaces it. `requestBody` passes the body on unchanged.
 */
export function keptBodies(): {
  requestBody(req: ProxyRequest, body: string): string;
  of(req: ProxyRequest): Record<string, unknown> | undefined;
} {
  const bodies = new WeakMap<ProxyRequest, Record<string, unknown>>();
  return {
    requestBody(req, body) {
      try {
        const v = JSON.parse(body) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) bodies.set(req, v as Record<string, unknown>);
      } catch {
        // Not JSON: nothing kept.
      }
      return body;
    },
    of: (req) => bodies.get(req),
  };
}
