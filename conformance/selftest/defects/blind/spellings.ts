// Blind defects of request-target spellings: a server whose router reads the target one way (decoded, normalised, from
// the absolute form) while another of its parts reads it another way (the raw request-target). Written from the spec
// alone: "Challenge scheme (chosen before verification)", the Errors part's boundary sentences and its table.
//
// The proxy forwards to the reference, which routes some of these spellings itself and not others: each defect forwards
// the spelling it is about in its normal form (RFC 3986 §6.2.2: percent-encoded unreserved characters decoded, dot
// segments removed; the absolute form as origin form, RFC 9112 §3.2.2), as the buggy router would route it, and then
// answers as the buggy server would. A DPoP request goes on as it was sent for the escaped and dot-segment spellings: its
// proof names the URL as the client wrote it.
import { randomUUID } from 'node:crypto';
import { ROUTES } from '../../../../contract/operations.js';
import { CONVERSATIONS_PATH } from '../../../../contract/routes.js';
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../../proxy.js';
import { headerOf, notAStream, tokenClaims, tokenHeader, usesBearer, usesDpop, withoutHeader } from '../helpers.js';
import type { Defect, DefectContext } from '../types.js';

// ------------------------------------------------------------------------------------------------ request-target forms

/** A request-target split: whether it came in absolute form, its path (as written) and its query (with its `?`). */
interface Target {
  readonly absolute: boolean;
  readonly path: string;
  readonly query: string;
}

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

function parseTarget(raw: string): Target {
  const m = ABSOLUTE_FORM.exec(raw);
  const rest = m ? raw.slice(m[0].length) || '/' : raw;
  const q = rest.search(/[?#]/);
  return { absolute: m !== null, path: q < 0 ? rest : rest.slice(0, q), query: q < 0 ? '' : rest.slice(q) };
}

/** RFC 3986 §6.2.2.2: a percent-encoded unreserved character (ALPHA, DIGIT, `-`, `.`, `_`, `~`) decoded; the rest kept. */
const decodeUnreserved = (path: string): string =>
  path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(c) ? c : escape;
  });

/** RFC 3986 §5.2.4, for an absolute path: `.` and `..` segments removed. */
function removeDotSegments(path: string): string {
  const segments = path.split('/').slice(1);
  const out: string[] = [];
  segments.forEach((s, i) => {
    const last = i === segments.length - 1;
    if (s === '.' || s === '..') {
      if (s === '..') out.pop();
      if (last) out.push('');
      return;
    }
    out.push(s);
  });
  return `/${out.join('/')}`;
}

/**
 * One spelling of a request-target: `origin` is the target in origin form with only this spelling normalised, or
 * undefined when the target does not use this spelling.
 */
interface Spelling {
  readonly origin: (t: Target, r: ProxyRequest) => string | undefined;
}

const hasDpop = (r: ProxyRequest): boolean => usesDpop(r) || headerOf(r.headers, 'dpop') !== undefined;

/** A path with an unreserved character percent-encoded (`/assistant/%63onversations`, `/%761/cart`). */
const ESCAPED: Spelling = {
  origin(t, r) {
    if (t.absolute || hasDpop(r)) return undefined;
    const decoded = decodeUnreserved(t.path);
    return decoded === t.path ? undefined : decoded + t.query;
  },
};

/** The absolute form of the request-target (`GET http://host/assistant/conversations`). */
const ABSOLUTE: Spelling = { origin: (t) => (t.absolute ? t.path + t.query : undefined) };

/** A path with dot segments (`/assistant/./conversations`, `/assistant/x/../conversations`). */
const DOTTED: Spelling = {
  origin(t, r) {
    if (t.absolute || hasDpop(r)) return undefined;
    const removed = removeDotSegments(t.path);
    return removed === t.path ? undefined : removed + t.query;
  },
};

/** The target's base path (a deployment served under a prefix); '' at the root. */
const basePathOf = (ctx: DefectContext): string => (ctx.target ? new URL(ctx.target).pathname.replace(/\/+$/, '') : '');

/** A path relative to the base path (unchanged when it does not start with it). */
const relative = (path: string, base: string): string =>
  base && (path === base || path.startsWith(`${base}/`)) ? path.slice(base.length) || '/' : path;

/** The raw request-target as a buggy part of the server sees it: the path as written, relative to the base path. */
const rawPath = (r: ProxyRequest, base: string): string => {
  const t = parseTarget(r.path);
  return t.absolute ? r.path : relative(t.path, base);
};

/**
 * A defect triggered by one spelling: `triggers(raw, routed)` says, from the raw path (as the buggy part sees it) and the
 * path the router routes (both relative to the base path), whether the buggy server answers otherwise; the request then
 * goes upstream as routed, and `answer` rewrites what comes back.
 */
function spelled(
  id: string,
  clause: string,
  description: string,
  spelling: Spelling,
  triggers: (raw: string, routed: string, r: ProxyRequest) => boolean,
  answer: (ctx: DefectContext, a: ProxyAnswer, r: ProxyRequest) => ProxyAnswer,
): Defect {
  return {
    id,
    clause,
    description,
    kind: 'wire',
    rules(ctx): ProxyRules {
      const base = basePathOf(ctx);
      const hit = new WeakSet<ProxyRequest>();
      const routedOf = (r: ProxyRequest): string | undefined => {
        const origin = spelling.origin(parseTarget(r.path), r);
        if (origin === undefined) return undefined;
        const routed = relative(parseTarget(origin).path, base);
        return triggers(rawPath(r, base), routed, r) ? origin : undefined;
      };
      return {
        buffer: notAStream,
        request(r) {
          const origin = routedOf(r);
          if (origin === undefined) return r;
          hit.add(r);
          return { ...r, path: origin };
        },
        // The proxy hands `response` the request as the client sent it (the raw target).
        response: (a, r) => (hit.has(r) ? answer(ctx, a, r) : a),
      };
    },
  };
}

// ------------------------------------------------------------------------------------------------------- challenges

const isConversationPath = (path: string): boolean => path === CONVERSATIONS_PATH || path.startsWith(`${CONVERSATIONS_PATH}/`);
const isV1Path = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');

/**
 * The scheme the spec's rules choose from the Authorization header alone (the path left out, as the buggy server's
 * choice is when its raw-target test says "not a conversation path"): DPoP for the DPoP scheme, or a Bearer token whose
 * unverified header type or `act` claim marks an assistant session token (docs/tokens.md); Bearer otherwise.
 */
function schemeFromAuthorization(r: ProxyRequest): 'Bearer' | 'DPoP' {
  if (usesDpop(r)) return 'DPoP';
  if (!usesBearer(r)) return 'Bearer';
  const typ = tokenHeader(r)?.typ;
  if (typeof typ === 'string' && typ.toLowerCase() === 'signed-out-proxy+jwt') return 'DPoP';
  const act = tokenClaims(r)?.act as Record<string, unknown> | undefined;
  return act && typeof act === 'object' && act.sub === 'personal_agent' ? 'DPoP' : 'Bearer';
}

/** A DPoP challenge re-issued in the Bearer scheme with the same `error` (no `algs`: a Bearer challenge has none). */
function dpopChallengeAsBearer(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
  const challenge = headerOf(a.headers, 'www-authenticate');
  if (!challenge || !/^DPoP(\s|$)/i.test(challenge) || schemeFromAuthorization(r) !== 'Bearer') return a;
  const error = /error="([^"]*)"/.exec(challenge)?.[1] ?? 'invalid_token';
  return { ...a, headers: [...withoutHeader(a.headers, 'www-authenticate'), ['WWW-Authenticate', `Bearer error="${error}"`]] };
}

/** The no-token challenge of /v1 (both schemes) cut to its Bearer part, as on any path the server does not see as /v1. */
function bothChallengesAsBearer(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
  const challenge = headerOf(a.headers, 'www-authenticate');
  if (a.status !== 401 || headerOf(r.headers, 'authorization') !== undefined || !challenge || !/\bDPoP\b/.test(challenge)) return a;
  if (!/^Bearer\s/i.test(challenge)) return a;
  return { ...a, headers: [...withoutHeader(a.headers, 'www-authenticate'), ['WWW-Authenticate', 'Bearer error="invalid_token"']] };
}

// ------------------------------------------------------------------------------------------------ path parameter limit

/** Every route template with a path parameter, as a pattern capturing the parameters as written. */
const PARAMETRIC = ROUTES.filter((row) => row.path.includes('{')).map((row) => ({
  method: row.method,
  regex: new RegExp(`^${row.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
}));

/** Whether a path (as written) matches some route template of the contract, whatever the method. */
const matchesRoute = (path: string): boolean => ROUTES.some((row) => new RegExp(`^${row.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));

/** The router's own bound: a path parameter over 100 characters (as written in the target) is refused before routing. */
const MAX_PARAM_LENGTH = 100;

function paramTooLong(r: ProxyRequest, base: string): boolean {
  const t = parseTarget(r.path);
  const path = relative(t.path, base);
  const method = r.method === 'HEAD' ? 'GET' : r.method;
  return PARAMETRIC.some((p) => {
    if (p.method !== method) return false;
    const m = p.regex.exec(path);
    return m !== null && m.slice(1).some((v) => v.length > MAX_PARAM_LENGTH);
  });
}

/** A defect of the router's parameter bound: the upstream answer to such a request is replaced by `answer`. */
const longParam = (
  id: string,
  clause: string,
  description: string,
  answer: (ctx: DefectContext, a: ProxyAnswer) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules(ctx): ProxyRules {
    const base = basePathOf(ctx);
    return { buffer: notAStream, response: (a, r) => (paramTooLong(r, base) ? answer(ctx, a) : a) };
  },
});

const URI_TOO_LONG_MESSAGE = `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`;

// ----------------------------------------------------------------------------------------------------------- defects

export const SPELLINGS_DEFECTS: Defect[] = [
  // Challenge scheme: "`DPoP` when the path is a conversation path". Broken for a percent-encoded letter: the scheme is
  // chosen from the raw target (`/assistant/%63onversations` is not a conversation path there), the router decodes it.
  spelled(
    'blind.spellings.conversation-escaped-bearer-challenge',
    'AUTH-SCHEME-1',
    'a conversation path with a percent-encoded unreserved character is routed to the conversations but challenged in Bearer',
    ESCAPED,
    (raw, routed) => !isConversationPath(raw) && isConversationPath(routed),
    (_ctx, a, r) => dpopChallengeAsBearer(a, r),
  ),
  // Same sentence. Broken for the absolute form of the request-target (`GET http://host/assistant/conversations`): the
  // scheme test reads the raw target, which does not start with the conversation path.
  spelled(
    'blind.spellings.conversation-absolute-form-bearer-challenge',
    'AUTH-SCHEME-1',
    'a conversation path sent in absolute form is routed to the conversations but challenged in Bearer',
    ABSOLUTE,
    (_raw, routed) => isConversationPath(routed),
    (_ctx, a, r) => dpopChallengeAsBearer(a, r),
  ),
  // Same sentence. Broken for dot segments (`/assistant/./conversations`): the router removes them, the scheme test
  // does not.
  spelled(
    'blind.spellings.conversation-dot-segment-bearer-challenge',
    'AUTH-SCHEME-1',
    'a conversation path spelled with dot segments is routed to the conversations but challenged in Bearer',
    DOTTED,
    (raw, routed) => !isConversationPath(raw) && isConversationPath(routed),
    (_ctx, a, r) => dpopChallengeAsBearer(a, r),
  ),
  // Errors table: "| no token on `/v1` | 401 | `invalid_token` | `WWW-Authenticate: Bearer error="invalid_token", DPoP
  // error="invalid_token", algs="ES256"` |". Broken for an escape in the prefix (`/%761/cart`): "is this /v1" is a
  // prefix test of the raw target; the router decodes it to /v1/cart; the challenge is Bearer only.
  spelled(
    'blind.spellings.v1-escaped-prefix-bearer-only',
    'ERR-TABLE-1',
    'a /v1 path whose prefix is percent-encoded (/%761/cart) is routed, and without a token challenged in Bearer only',
    ESCAPED,
    (raw, routed) => !isV1Path(raw) && isV1Path(routed),
    (_ctx, a, r) => bothChallengesAsBearer(a, r),
  ),
  // Same row. Broken for an escape after the prefix (`/v1/%63art`): the route's group (which gives the /v1 challenge) is
  // looked up in the route table with the raw target, which matches no route; the router decodes it and serves the cart.
  spelled(
    'blind.spellings.v1-escaped-segment-bearer-only',
    'ERR-TABLE-1',
    'a /v1 path with a percent-encoded letter after the prefix (/v1/%63art) is routed, and without a token challenged in Bearer only',
    ESCAPED,
    (raw, routed) => isV1Path(raw) && !matchesRoute(raw) && isV1Path(routed),
    (_ctx, a, r) => bothChallengesAsBearer(a, r),
  ),
  // Same row. Broken for the absolute form (`GET http://host/v1/cart`): the prefix test reads the raw target.
  spelled(
    'blind.spellings.v1-absolute-form-bearer-only',
    'ERR-TABLE-1',
    'a /v1 path sent in absolute form is routed, and without a token challenged in Bearer only',
    ABSOLUTE,
    (_raw, routed) => isV1Path(routed),
    (_ctx, a, r) => bothChallengesAsBearer(a, r),
  ),
  // Errors: "All failures ... use the problem document of the Resources part." Broken for the router's own bound on a
  // path parameter (over 100 characters): its 414 body is the framework's plain JSON, not a problem document (the
  // boundary's hooks still set the media type, no-store and X-Request-Id).
  longParam(
    'blind.spellings.long-param-414-plain-body',
    'ERR-PROBLEM-1',
    "a path parameter over 100 characters is refused 414 with the router's own JSON body, not a problem document",
    (_ctx, a) => ({
      status: 414,
      headers: [
        ['Content-Type', 'application/problem+json'],
        ['Cache-Control', 'no-store'],
        ...a.headers.filter(([k]) => /^x-request-id$/i.test(k)),
      ],
      body: JSON.stringify({ statusCode: 414, error: 'URI Too Long', message: URI_TOO_LONG_MESSAGE }),
    }),
  ),
  // Errors: "... and writes `X-Request-Id` on every response." Broken for the same bound: the router refuses before the
  // request stage runs, so the 414 (a problem document from the error handler, its `instance` an id of its own) carries
  // no X-Request-Id.
  longParam(
    'blind.spellings.long-param-414-no-request-id',
    'ERR-PROBLEM-7',
    'a path parameter over 100 characters is refused 414 (a problem document) without X-Request-Id',
    (ctx) => ({
      status: 414,
      headers: [
        ['Content-Type', 'application/problem+json'],
        ['Cache-Control', 'no-store'],
      ],
      body: JSON.stringify({
        type: `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/uri_too_long`,
        title: 'URI Too Long',
        status: 414,
        error: 'uri_too_long',
        detail: URI_TOO_LONG_MESSAGE,
        instance: randomUUID(),
      }),
    }),
  ),
];
