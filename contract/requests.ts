// Pure lookups on one request, shared by the suite's rule book (conformance/rules/), its judges and `explore`: the route
// of a request (path-template matching, one implementation), the credentials it presents, whether it is a DPoP request,
// and its challenge scheme (spec, Authentication > Challenge scheme (chosen before verification)). No network, no state.
import { OPERATIONS, type Operation } from './operations.js';
import { CONVERSATIONS_PATH } from './routes.js';

/** Request headers as any part of the suite holds them: a plain record (any case, `[]` for a removed one) or a `Headers`. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

/** One header of a bag, names compared without case; a repeated header's values joined with ", "; undefined when absent. */
export function headerOf(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    if (typeof value === 'string') return value;
    return value.length === 0 ? undefined : value.join(', ');
  }
  return undefined;
}

// --- Routes ------------------------------------------------------------------------------------------------------------

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The regular expression of a path template (`/v1/me/orders/{id}`): each `{param}` one non-empty segment, the rest
 * literal. `trailingSlash` also admits one trailing slash; `capture` captures each parameter in order.
 */
export function templatePattern(template: string, o: { trailingSlash?: boolean; capture?: boolean } = {}): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map(escapeRegExp)
    .join(o.capture ? '([^/]+)' : '[^/]+');
  return new RegExp(`^${source}${o.trailingSlash ? '/?' : ''}$`);
}

const patterns = new Map<string, RegExp>();

/** Whether a path (no query) is one of the template's URLs. */
export function matchesTemplate(template: string, path: string): boolean {
  let re = patterns.get(template);
  if (!re) patterns.set(template, (re = templatePattern(template)));
  return re.test(path);
}

/** The operation a method and path (no query) reach by the operations table's templates (HEAD as GET); undefined for none. */
export function routeOf(method: string, path: string): Operation | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return OPERATIONS.find((o) => o.method === m && matchesTemplate(o.path, path));
}

/** Whether any operation's template matches the path, whatever the method. */
export const isOperationPath = (path: string): boolean => OPERATIONS.some((o) => matchesTemplate(o.path, path));

/** A conversation path: /assistant/conversations or below it (spec, Challenge scheme). */
export const isConversationPath = (path: string): boolean => path === CONVERSATIONS_PATH || path.startsWith(`${CONVERSATIONS_PATH}/`);

// --- Credentials -------------------------------------------------------------------------------------------------------

/** What a request presents, as the rules of the spec read it before any verification. */
export interface Credentials {
  /** The `Authorization` scheme, lower-cased; undefined without the header. */
  scheme: string | undefined;
  /** Whether a `DPoP` proof header is sent. */
  proof: boolean;
  /** Whether the token's unverified header type or `act` claim marks an assistant session token. */
  assistantToken: boolean;
}

/**
 * What marks an assistant session token before verification (docs/tokens.md): the header `typ` of a signed-out proxy
 * token, the `act` subject of a personal-agent token exchange.
 */
export const ASSISTANT_TOKEN_MARKERS = { typ: 'signed-out-proxy+jwt', actor: 'personal_agent' } as const;

/** Decodes one JWS segment as a JSON object without verifying anything; undefined on any failure. */
export function peekSegment(token: string, index: 0 | 1): Record<string, unknown> | undefined {
  const part = token.split('.')[index];
  if (!part || !/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a token's unverified `typ` or `act` marks an assistant session token. */
export function marksAssistantToken(token: string): boolean {
  const typ = peekSegment(token, 0)?.typ;
  if (typeof typ === 'string' && typ.toLowerCase() === ASSISTANT_TOKEN_MARKERS.typ) return true;
  const act = peekSegment(token, 1)?.act as { sub?: unknown } | undefined;
  return Boolean(act && typeof act === 'object' && act.sub === ASSISTANT_TOKEN_MARKERS.actor);
}

/** The credentials of a request's headers. */
export function credentialsOf(headers: HeaderBag): Credentials {
  const authorization = headerOf(headers, 'authorization')?.trim();
  const m = authorization ? /^(\S+)(?:\s+(\S+))?/.exec(authorization) : null;
  return {
    scheme: m ? m[1]!.toLowerCase() : undefined,
    proof: headerOf(headers, 'dpop') !== undefined,
    assistantToken: m?.[2] !== undefined && marksAssistantToken(m[2]),
  };
}

/**
 * A DPoP request (spec, Request processing order: "a DPoP request gets a fresh DPoP-Nonce on every response"): a proof
 * presented with the `DPoP` scheme. A `DPoP` header beside a Bearer token or without a credential, or the `DPoP` scheme
 * without a proof, is a DPoP request in one reading of the spec and not in the other (docs/ambiguities.md, 4): not one here.
 */
export const isDpopRequest = (c: Credentials): boolean => c.scheme === 'dpop' && c.proof;

/** A DPoP request in either reading of the spec (docs/ambiguities.md, 4): a `DPoP` header, or the `DPoP` scheme. */
export const mayBeDpopRequest = (c: Credentials): boolean => c.scheme === 'dpop' || c.proof;

export type ChallengeScheme = 'DPoP' | 'Bearer';

/**
 * The challenge scheme of a request, chosen from the request alone before verification (spec, Challenge scheme): `DPoP`
 * on a conversation path (AUTH-SCHEME-1), with the `DPoP` Authorization scheme (AUTH-SCHEME-2), or for a Bearer token
 * whose unverified `typ` or `act` marks an assistant session token (AUTH-SCHEME-3, -4); `Bearer` otherwise (AUTH-SCHEME-5).
 */
export function challengeSchemeOf(path: string, c: Credentials): ChallengeScheme {
  if (isConversationPath(path)) return 'DPoP';
  if (c.scheme === 'dpop') return 'DPoP';
  if (c.scheme === 'bearer' && c.assistantToken) return 'DPoP';
  return 'Bearer';
}
