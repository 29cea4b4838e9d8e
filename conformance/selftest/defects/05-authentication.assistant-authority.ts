// Defects of assistants (the AUTH-* clauses their checks judge: assistant authority, forwarders, DPoP): assistants present
// DPoP-bound session tokens (the proxy cannot re-sign their proofs, so those defects act on what it sees: the scheme, the
// token's claims, the answer) or are brought by a forwarder (Bearer machine token plus one artifact).
import { PERMISSIONS } from '../../../contract/scopes.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  editJsonBody,
  headerOf,
  jsonAnswer,
  jsonSegment,
  mapHeader,
  pathOf,
  problemAnswer,
  problemCode,
  served,
  tokenClaims,
  tokenHeader,
  usesBearer,
  usesDpop,
  withHeader,
  withoutHeader,
  type Claims,
} from './helpers.js';
import { lenient, wire, wireWith, type Defect, type DefectContext } from './types.js';
import { signInServed } from './05-authentication.caller-kinds.js';
import { scopeUnenforced } from './05-authentication.scope-translation.js';

const SUBJECT = 'assistant-subject';

const BROWSER = 'assistant-browser-session';

const CONTEXT = 'invited-agent-context';

const DPOP_CHALLENGE = (error: string) => `DPoP error="${error}", algs="ES256"`;

const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

const authorization = (r: ProxyRequest) => headerOf(r.headers, 'authorization') ?? '';

const is2xx = (a: ProxyAnswer) => a.status >= 200 && a.status < 300;

/** A token-exchange assistant token (ES256, the proxy client) presented directly with a proof. */
const exchangeToken = (r: ProxyRequest, ctx: DefectContext): Claims | undefined => {
  const c = tokenClaims(r);
  return c && usesDpop(r) && tokenHeader(r)?.alg !== 'HS256' && c.client_id === ctx.profile.clients.personalAgentProxy ? c : undefined;
};

/** A signed-out proxy token (HS256, keyed with the proxy secret) presented directly with a proof. */
const signedOutToken = (r: ProxyRequest) => usesDpop(r) && tokenHeader(r)?.alg === 'HS256';

const forwarder = (r: ProxyRequest, ctx: DefectContext, which: 'web' | 'mcp' | 'any'): boolean => {
  const id = tokenClaims(r)?.client_id;
  const { webAgentForwarder: web, mcpAgentForwarder: mcp } = ctx.profile.clients;
  return usesBearer(r) && (which === 'web' ? id === web : which === 'mcp' ? id === mcp : id === web || id === mcp);
};

const unauthorized = (ctx: DefectContext, a: ProxyAnswer, error: string, challenge: string, title = 'Unauthorized') =>
  problemAnswer(ctx, a, 401, error, title, [['WWW-Authenticate', challenge]]);

/** A refusal served instead: 201 to a POST, else 200, with an empty object. */
const servedAs2xx = (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer => jsonAnswer(a, r.method === 'POST' ? 201 : 200, '{}');

/** A successful answer to the requests `when` picks refused 401 (the server does not recognize or serve that credential). */
const refusesServed = (
  id: string,
  clause: string,
  description: string,
  when: (r: ProxyRequest, ctx: DefectContext) => boolean,
  refuse: (ctx: DefectContext, a: ProxyAnswer) => ProxyAnswer,
): Defect => wireWith(id, clause, description, (ctx) => (a, r) => (is2xx(a) && when(r, ctx) ? refuse(ctx, a) : a));

/** The query's `access_token` (or the `access_token` cookie) moved into `Authorization: DPoP` when a proof travels. */
const tokenMovedToHeader =
  (from: 'query' | 'cookie', where: (r: ProxyRequest) => boolean = () => true) =>
  () => ({
    request(req: ProxyRequest): ProxyRequest {
      if (!headerOf(req.headers, 'dpop') || headerOf(req.headers, 'authorization') || !where(req)) return req;
      if (from === 'query') {
        const url = new URL(req.path, 'http://x');
        const token = url.searchParams.get('access_token');
        if (!token) return req;
        url.searchParams.delete('access_token');
        const path = `${url.pathname}${url.search}`;
        return { ...req, path, headers: [...req.headers, ['Authorization', `DPoP ${token}`]] };
      }
      const cookie = headerOf(req.headers, 'cookie') ?? '';
      const token = /(?:^|;\s*)access_token=([^;]+)/.exec(cookie)?.[1];
      if (!token) return req;
      return { ...req, headers: [...withoutHeader(req.headers, 'cookie'), ['Authorization', `DPoP ${token}`]] };
    },
  });

/** A fresh DPoP proof refused as a replay of itself where `where` holds (401 invalid_dpop_proof, DPoP challenge). */
function recordedTwice(id: string, where: string, applies: (r: ProxyRequest) => boolean): Defect {
  return {
    id,
    clause: 'AUTH-ORDER-12',
    kind: 'wire',
    description: `${where} a fresh DPoP proof is refused as a replay of itself (401 invalid_dpop_proof, DPoP challenge)`,
    rules: (ctx) => {
      const seen = new Set<string>();
      return {
        buffer: () => true,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          const jti = jsonSegment((headerOf(r.headers, 'dpop') ?? '').split('.')[1] ?? '')?.jti;
          if (!usesDpop(r) || !applies(r) || typeof jti !== 'string' || seen.has(jti) || !is2xx(a)) return a;
          seen.add(jti);
          return unauthorized(ctx, a, 'invalid_dpop_proof', DPOP_CHALLENGE('invalid_dpop_proof'));
        },
      };
    },
  };
}

export const AUTHENTICATION_ASSISTANT_AUTHORITY_DEFECTS: readonly Defect[] = [
  scopeUnenforced('AUTH-ASST-6'),
  scopeUnenforced('AUTH-ASST-7'),
  signInServed('authentication.signed-out-token-acts-signed-in', 'AUTH-ASST-8', 'a signed-out token on a signed-in session'),
  signInServed('authentication.signed-out-session-acts-signed-in', 'AUTH-ASST-9', 'a signed-in token on a signed-out session'),
  signInServed('authentication.stale-token-served', 'AUTH-ASST-10', 'a stale assistant token'),
  signInServed('authentication.empty-scope-widened', 'AUTH-ASST-14', 'a signed-out assistant token with empty scope'),
  wire(
    'authentication.assistant-token-as-bearer-served-on-account',
    'AUTH-ASST-2',
    'on account routes (/v1/me/*) alone, an assistant token sent as Bearer is served (401 answered 200 {})',
    (a, r) =>
      a.status === 401 && usesBearer(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') && pathOf(r).startsWith('/v1/me/')
        ? served(a)
        : a,
  ),
  wire(
    'authentication.assistant-token-as-bearer-served',
    'AUTH-ASST-2',
    'an assistant token sent as Bearer is served (401 answered 200 {})',
    (a, r) =>
      a.status === 401 &&
      usesBearer(r) &&
      /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') &&
      !pathOf(r).startsWith('/assistant/')
        ? served(a)
        : a,
  ),
  wire(
    'authentication.assistant-refusal-without-error',
    'AUTH-ASST-5',
    'a refused assistant token is challenged without error="invalid_token"',
    (a, r) =>
      problemCode(a) === 'invalid_token' && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') && usesDpop(r)
        ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/,?\s*error="invalid_token"/, '')) }
        : a,
  ),
  wire(
    'authentication.dpop-replay-accepted',
    'AUTH-ASST-11',
    'a replayed DPoP proof is served (invalid_dpop_proof answered 200 {})',
    (a) => (problemCode(a) === 'invalid_dpop_proof' ? served(a) : a),
  ),
  // Recognition keyed on the audience: the token exchange is taken for the agent audience (the MCP side) only.
  refusesServed(
    'authentication.assistant.api-audience-exchange-unrecognized',
    'AUTH-KIND-12',
    'a token-exchange assistant token of the API audience is not recognized as an assistant (401 invalid_token); the agent audience is',
    (r, ctx) => {
      const aud = exchangeToken(r, ctx)?.aud;
      return (Array.isArray(aud) ? aud : [aud]).includes(ctx.profile.audiences.api);
    },
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', DPOP_CHALLENGE('invalid_token')),
  ),
  // The same, the other way round: only the API audience is taken (the agent-protocol side was never wired).
  refusesServed(
    'authentication.assistant.agent-audience-exchange-unrecognized',
    'AUTH-KIND-12',
    'a token-exchange assistant token of the agent audience is not recognized as an assistant (401 invalid_token); the API audience is',
    (r, ctx) => {
      const aud = exchangeToken(r, ctx)?.aud;
      return (Array.isArray(aud) ? aud : [aud]).includes(ctx.profile.audiences.agent);
    },
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', DPOP_CHALLENGE('invalid_token')),
  ),
  // The browser session is looked for in a Cookie only: in its header it is missed, the forwarder seems to carry nothing.
  refusesServed(
    'authentication.assistant.browser-session-header-missed',
    'AUTH-CRED-8',
    'the web agent forwarder with an assistant browser session is refused 401 invalid_token (the session header is not read)',
    (r, ctx) => forwarder(r, ctx, 'web') && headerOf(r.headers, BROWSER) !== undefined,
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', BEARER_CHALLENGE),
  ),
  // Assistant-Subject verified as an identity-provider access token only: the signed-out proxy token (HS256) never is.
  refusesServed(
    'authentication.assistant.forwarded-signed-out-token-refused',
    'AUTH-CRED-9',
    "the MCP agent forwarder with a signed-out assistant's original token in Assistant-Subject is refused 401 invalid_token",
    (r, ctx) => forwarder(r, ctx, 'mcp') && jsonSegment((headerOf(r.headers, SUBJECT) ?? '').split('.')[0]!)?.alg === 'HS256',
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', BEARER_CHALLENGE),
  ),
  // Account data kept for the forwarders: an assistant's own credential reaches the catalog and the cart, not the account.
  wireWith(
    'authentication.assistant.direct-credential-kept-from-account',
    'AUTH-CRED-10',
    "an assistant's own credential presented directly is refused 403 caller_not_allowed on /v1/me/* (account data)",
    (ctx) => (a, r) =>
      is2xx(a) && exchangeToken(r, ctx) && /^\/v1\/me\/./.test(pathOf(r))
        ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden')
        : a,
  ),
  // The conversation variant of the actor stage is skipped: a browser session reaches the conversations.
  wireWith(
    'authentication.assistant.conversations-admit-browser-sessions',
    'AUTH-ORDER-7',
    'an assistant browser session on /assistant/conversations is served (403 caller_not_allowed answered 2xx {})',
    () => (a, r) =>
      problemCode(a) === 'caller_not_allowed' && pathOf(r).startsWith('/assistant/conversations') && headerOf(r.headers, BROWSER)
        ? servedAs2xx(a, r)
        : a,
  ),
  // The cart router mounts the DPoP stage a second time: the proof the first run recorded is a "replay" to the second.
  recordedTwice('authentication.assistant.cart-proof-recorded-twice', 'on /v1/cart', (r) => pathOf(r).startsWith('/v1/cart')),
  // Only the write routes run the stage twice (a read would show it at once).
  recordedTwice(
    'authentication.assistant.write-proof-recorded-twice',
    'on writes (POST, PATCH, DELETE)',
    (r) => r.method !== 'GET' && r.method !== 'HEAD',
  ),
  // RFC 9110 auth schemes are case-insensitive; this server matches "DPoP" exactly and finds no credential otherwise.
  refusesServed(
    'authentication.assistant.dpop-scheme-case-sensitive',
    'AUTH-ASST-1',
    'an assistant token under the scheme "dpop" or "DPOP" (with a correct proof) is refused 401 invalid_token',
    (r) => usesDpop(r) && !authorization(r).startsWith('DPoP '),
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', DPOP_CHALLENGE('invalid_token')),
  ),
  // htu compared as a whole string: a proof naming the query (RFC 9449 §4.3: ignored) does not match the URL without it.
  wireWith(
    'authentication.assistant.proof-htu-query-refused',
    'AUTH-ASST-1',
    'a proof whose htu carries the query or fragment is refused 401 invalid_dpop_proof',
    (ctx) => (a, r) =>
      is2xx(a) && usesDpop(r) && /[?#]/.test(String(jsonSegment((headerOf(r.headers, 'dpop') ?? '').split('.')[1] ?? '')?.htu ?? ''))
        ? unauthorized(ctx, a, 'invalid_dpop_proof', DPOP_CHALLENGE('invalid_dpop_proof'))
        : a,
  ),
  lenient(
    'authentication.assistant.token-in-query-accepted',
    'AUTH-ASST-3',
    'an assistant token in the access_token query parameter, with a proof, is used as Authorization: DPoP',
    tokenMovedToHeader('query'),
  ),
  lenient(
    'authentication.assistant.token-in-cookie-accepted',
    'AUTH-ASST-4',
    'an assistant token in the access_token cookie, with a proof, is used as Authorization: DPoP',
    tokenMovedToHeader('cookie'),
  ),
  lenient(
    'authentication.assistant.token-in-cookie-accepted-on-account',
    'AUTH-ASST-4',
    'on account routes (/v1/me/*) alone, an assistant token in the access_token cookie, with a proof, is used as Authorization: DPoP',
    tokenMovedToHeader('cookie', (r) => pathOf(r).startsWith('/v1/me/')),
  ),
  lenient(
    'authentication.assistant.token-in-cookie-accepted-on-conversations',
    'AUTH-ASST-4',
    'on conversation routes alone, an assistant token in the access_token cookie, with a proof, is used as Authorization: DPoP',
    tokenMovedToHeader('cookie', (r) => pathOf(r).startsWith('/assistant/conversations')),
  ),
  lenient(
    'authentication.assistant.token-in-query-accepted-on-writes',
    'AUTH-ASST-3',
    'on writes (POST) alone, an assistant token in the access_token query parameter, with a proof, is used as Authorization: DPoP',
    tokenMovedToHeader('query', (r) => r.method === 'POST'),
  ),
  // Only the outermost actor is read: personal_agent acting for another agent passes as a single-level exchange.
  wireWith(
    'authentication.assistant.outer-actor-only',
    'AUTH-ASST-15',
    'a direct assistant token with a two-level act chain (outer actor personal_agent) is served (its refusal answered 200 {})',
    (ctx) => (a, r) => {
      const act = exchangeToken(r, ctx)?.act as Claims | undefined;
      return a.status >= 400 && act?.sub === 'personal_agent' && act.act !== undefined ? servedAs2xx(a, r) : a;
    },
  ),
  // Every assistant token verified against the identity provider's keys: a signed-out proxy token (HS256) never verifies.
  refusesServed(
    'authentication.assistant.signed-out-proxy-token-refused',
    'AUTH-ASST-16',
    'a genuine signed-out proxy token presented directly with a proof is refused 401 invalid_token',
    signedOutToken,
    (ctx, a) => unauthorized(ctx, a, 'invalid_token', DPOP_CHALLENGE('invalid_token')),
  ),
  // A forwarder with nothing to forward is taken as a machine client with the base catalog and cart authority.
  wireWith(
    'authentication.assistant.lone-forwarder-served',
    'AUTH-ASST-17',
    'a web or MCP agent forwarder token with no forwarded artifact is served (its refusal answered 2xx {})',
    (ctx) => (a, r) =>
      a.status >= 400 && forwarder(r, ctx, 'any') && ![SUBJECT, BROWSER, CONTEXT].some((h) => headerOf(r.headers, h) !== undefined)
        ? servedAs2xx(a, r)
        : a,
  ),
  // The forwarder's fitting artifact wins and the others are ignored: MCP keeps Assistant-Subject, web the browser session,
  // else the invited-agent context.
  lenient(
    'authentication.assistant.second-artifact-ignored',
    'AUTH-ASST-18',
    'a forwarder with two original artifacts is served with the one that fits it',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const present = [SUBJECT, BROWSER, CONTEXT].filter((h) => headerOf(req.headers, h) !== undefined);
        if (present.length < 2 || !forwarder(req, ctx, 'any')) return req;
        const keep = forwarder(req, ctx, 'mcp') ? SUBJECT : present.includes(BROWSER) ? BROWSER : CONTEXT;
        const value = headerOf(req.headers, keep);
        const rest = present.reduce((h, name) => withoutHeader(h, name), req.headers);
        return { ...req, headers: value === undefined ? rest : withHeader(rest, keep, value) };
      },
    }),
  ),
  // Grants merged instead of replaced: a narrower grant reported after the token was minted leaves every permission live.
  lenient(
    'authentication.strength.live-grant-only-widens',
    'AUTH-ASST-6',
    "a granted report never narrows a session's live scopes",
    () => ({
      requestBody(req, body) {
        if (req.method !== 'POST' || pathOf(req) !== '/internal/agent-authorization') return body;
        return editJsonBody(body, (report) => report.decision === 'granted' && ((report.permissions = [...PERMISSIONS]), true));
      },
    }),
  ),
];
