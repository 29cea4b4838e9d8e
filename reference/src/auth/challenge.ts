// Challenge scheme [AUTH-SCHEME-6]: chosen from the request alone, before any verification, so
// that a missing, malformed or rejected token is answered in one scheme. Pure; never imports Express.
import { CONVERSATIONS_PATH } from '../../../contract/routes.js';
import { peekSegment } from '../../../contract/requests.js';
import { memoize } from '../bounded.js';

export type Scheme = 'Bearer' | 'DPoP';

/** The actor subject of single-level personal-agent token exchanges (docs/tokens.md). */
export const PERSONAL_AGENT_ACTOR = 'personal_agent';
/** Header `typ` of the separately verified signed-out proxy tokens (docs/tokens.md). */
export const SIGNED_OUT_PROXY_TYP = 'signed-out-proxy+jwt';

export function isConversationPath(path: string): boolean {
  return path === CONVERSATIONS_PATH || path.startsWith(CONVERSATIONS_PATH + '/');
}

/** Splits `Authorization` into scheme and credential; undefined when it is not `<scheme> <token>`. */
export function parseAuthorization(value: string | undefined): { scheme: string; credential: string } | undefined {
  if (value === undefined) return undefined;
  const m = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +([A-Za-z0-9\-._~+/]+=*) *$/.exec(value);
  return m ? { scheme: m[1]!, credential: m[2]! } : undefined;
}

/** Decodes one JWS segment as a JSON object without verifying anything (contract/requests.ts, shared with the suite). */
export { peekSegment };

/**
 * True when the unverified header type or `act` claim marks an assistant session token. Only these two markers: a `cnf`
 * binding alone does not change the scheme ([AUTH-SCHEME-5]: "Bearer otherwise").
 */
export function looksLikeAssistantToken(token: string): boolean {
  return marked(token);
}

// A client sends one token many times: its two segments are decoded once per token.
const marked = memoize(1000, markedAsAssistant);

function markedAsAssistant(token: string): boolean {
  const header = peekSegment(token, 0);
  if (typeof header?.typ === 'string' && header.typ.toLowerCase() === SIGNED_OUT_PROXY_TYP) return true;
  const act = peekSegment(token, 1)?.act as Record<string, unknown> | undefined;
  return Boolean(act && typeof act === 'object' && act.sub === PERSONAL_AGENT_ACTOR);
}

export function chooseScheme(path: string, authorization: string | undefined): Scheme {
  // [AUTH-SCHEME-1] a conversation path is challenged in DPoP, whatever the Authorization header.
  if (isConversationPath(path)) return 'DPoP';
  const parsed = parseAuthorization(authorization);
  if (!parsed) return 'Bearer';
  // [AUTH-SCHEME-2] the DPoP scheme is challenged in DPoP.
  if (parsed.scheme.toLowerCase() === 'dpop') return 'DPoP';
  // [AUTH-SCHEME-3] [AUTH-SCHEME-4] a Bearer token whose unverified typ or act marks an assistant token: DPoP.
  if (parsed.scheme.toLowerCase() === 'bearer' && looksLikeAssistantToken(parsed.credential)) return 'DPoP';
  // [AUTH-SCHEME-5] otherwise Bearer.
  return 'Bearer';
}

export type ChallengeSpec =
  | { kind: 'chosen' | 'both' | 'bearer'; error: string }
  /** A shared secret carried in a header of its own (X-Proxy-Idp-Secret): the header's name is the scheme (RFC 9110 §11.6.1). */
  | { kind: 'secret-header'; error: string; header: string };

/** The WWW-Authenticate value. Error codes are fixed tokens of ours, so nothing needs escaping. */
export function formatChallenge(spec: ChallengeSpec, scheme: Scheme): string {
  const dpop = `DPoP error="${spec.error}", algs="ES256"`;
  const bearer = `Bearer error="${spec.error}"`;
  switch (spec.kind) {
    // [ERR-TABLE-1] no token on a /v1 route: both challenges, the DPoP one with algs="ES256".
    case 'both':
      return `${bearer}, ${dpop}`;
    case 'bearer':
      return bearer;
    // [ERR-TABLE-2] a malformed, expired or rejected token: one challenge, in the scheme chosen from the request.
    case 'chosen':
      return scheme === 'DPoP' ? dpop : bearer;
    case 'secret-header':
      return `${spec.header} realm="internal"`;
  }
}
