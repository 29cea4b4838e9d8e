// Defects of token verification (AUTH-TOKEN-*), sign-in (AUTH-SIGNIN-*) and the challenge's scheme (AUTH-SCHEME-*): mostly
// leniency, the proxy repairs a token the server must refuse and re-signs it with the profile's key, as a lax verifier
// would take it; or the challenge is written in the wrong scheme.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { headerOf, mapHeader, problemCode, refused, repairBearer, type Claims } from './helpers.js';
import { lenient, referenceOnly, wire, type Defect } from './types.js';

const now = () => Math.floor(Date.now() / 1000);

export const challengeAs =
  (scheme: 'Bearer' | 'DPoP', when: (r: ProxyRequest, a: ProxyAnswer) => boolean) =>
  (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer =>
    a.status === 401 && when(r, a)
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^(Bearer|DPoP)/, scheme)) }
      : a;

export const bearerRequest = (r: ProxyRequest) =>
  /^Bearer\s/i.test(headerOf(r.headers, 'authorization') ?? '') && !r.path.startsWith('/assistant/');

export const AUTHENTICATION_TOKEN_VERIFICATION_DEFECTS: readonly Defect[] = [
  lenient(
    'authentication.expired-token-accepted',
    'AUTH-TOKEN-6',
    'an expired token is accepted (re-signed with a future exp)',
    repairBearer((_h, c) => (typeof c.exp === 'number' && c.exp <= now() ? ((c.exp = now() + 300), true) : false)),
  ),
  lenient(
    'authentication.foreign-issuer-accepted',
    'AUTH-TOKEN-2',
    'a token from another issuer is accepted (re-signed with the profile issuer)',
    repairBearer((_h, c, ctx) =>
      typeof c.iss === 'string' && c.iss !== ctx.profile.issuer ? ((c.iss = ctx.profile.issuer), true) : false,
    ),
  ),
  lenient(
    'authentication.foreign-audience-accepted',
    'AUTH-TOKEN-4',
    'a token for another audience is accepted (re-signed with the API audience)',
    repairBearer((_h, c, ctx) => {
      const ours = Object.values(ctx.profile.audiences) as unknown[];
      const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
      if (aud.some((x) => ours.includes(x))) return false;
      c.aud = ctx.profile.audiences.api;
      return true;
    }),
  ),
  lenient(
    'authentication.any-token-type-accepted',
    'AUTH-TOKEN-5',
    'a token whose header type is not at+jwt is accepted (re-signed as at+jwt)',
    repairBearer((h) => (h.typ !== 'at+jwt' && h.alg === 'ES256' ? ((h.typ = 'at+jwt'), true) : false)),
  ),
  lenient(
    'authentication.bad-signature-accepted',
    'AUTH-TOKEN-3',
    'a token that does not verify is accepted (re-signed with the published key)',
    repairBearer(
      (h, c, ctx) =>
        h.alg === 'ES256' &&
        h.typ === 'at+jwt' &&
        c.iss === ctx.profile.issuer &&
        typeof c.exp === 'number' &&
        c.exp > now() &&
        !('act' in c && c.client_id === ctx.profile.clients.personalAgentProxy),
    ),
  ),
  wire('authentication.sign-in-required-as-401', 'AUTH-SIGNIN-1', 'sign_in_required answered 401 instead of 403', (a) =>
    problemCode(a) === 'sign_in_required' ? { ...a, status: 401 } : a,
  ),
  wire(
    'authentication.sign-in-required-challenge-dropped',
    'AUTH-SIGNIN-2',
    'sign_in_required without its WWW-Authenticate challenge',
    (a) =>
      problemCode(a) === 'sign_in_required' ? { ...a, headers: a.headers.filter(([k]) => k.toLowerCase() !== 'www-authenticate') } : a,
  ),
  wire('authentication.conversation-challenge-bearer', 'AUTH-SCHEME-1', 'on conversation paths the challenge is Bearer', (a, r) =>
    r.path.startsWith('/assistant/conversations') && a.status === 401
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^DPoP/, 'Bearer')) }
      : a,
  ),
  wire(
    'authentication.dpop-scheme-challenge-bearer',
    'AUTH-SCHEME-2',
    'a request with the DPoP scheme is challenged with Bearer',
    (a, r) =>
      /^DPoP\s/i.test(headerOf(r.headers, 'authorization') ?? '') && a.status === 401
        ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^DPoP/, 'Bearer')) }
        : a,
  ),
  wire('authentication.bearer-challenge-dpop', 'AUTH-SCHEME-5', 'a plain Bearer request is challenged with DPoP', (a, r) =>
    /^Bearer\s/i.test(headerOf(r.headers, 'authorization') ?? '') && a.status === 401 && !r.path.startsWith('/assistant/')
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^Bearer/, 'DPoP')) }
      : a,
  ),
  lenient(
    'authentication.token-without-client-id-accepted',
    'AUTH-TOKEN-7',
    'a token without client_id is accepted (read as the website client)',
    repairBearer((_h, c, ctx) => (c.client_id === undefined ? ((c.client_id = ctx.profile.clients.website), true) : false)),
  ),
  lenient(
    'authentication.unknown-client-accepted',
    'AUTH-TOKEN-9',
    'a token of an unknown client is accepted (read as the website client)',
    repairBearer((_h, c, ctx) =>
      typeof c.client_id === 'string' &&
      !(Object.values(ctx.profile.clients) as unknown[]).includes(c.client_id) &&
      typeof c.sub === 'string' &&
      !c.sub.endsWith('@clients')
        ? ((c.client_id = ctx.profile.clients.website), true)
        : false,
    ),
  ),
  lenient(
    'authentication.machine-client-without-kind-accepted',
    'AUTH-TOKEN-11',
    'a machine token of a configured client with no machine caller kind (website, agent-protocol, assistant proxy) is accepted (read as the storefront)',
    // A client the profile configures but whose machine tokens no caller kind takes; an unknown client is AUTH-TOKEN-9's.
    repairBearer((_h, c, ctx) =>
      typeof c.client_id === 'string' &&
      [ctx.profile.clients.website, ctx.profile.clients.agentProtocol, ctx.profile.clients.personalAgentProxy].includes(c.client_id) &&
      c.sub === `${c.client_id}@clients` &&
      !('act' in c)
        ? ((c.client_id = ctx.profile.clients.storefront), (c.sub = `${ctx.profile.clients.storefront}@clients`), true)
        : false,
    ),
  ),
  lenient(
    'authentication.foreign-actor-accepted',
    'AUTH-TOKEN-10',
    'an act chain whose outermost actor is not the agent client is accepted (actor replaced)',
    repairBearer((_h, c, ctx) => {
      const act = c.act as Claims | undefined;
      if (!act || c.client_id !== ctx.profile.clients.agentProtocol || act.sub === ctx.profile.clients.agentProtocol) return false;
      act.sub = ctx.profile.clients.agentProtocol;
      return true;
    }),
  ),
  lenient(
    'authentication.website-token-with-act-as-customer',
    'AUTH-TOKEN-12',
    'a website token carrying act is accepted as a customer (act dropped)',
    repairBearer((_h, c, ctx) => (c.client_id === ctx.profile.clients.website && 'act' in c ? (delete c.act, true) : false)),
  ),
  lenient(
    'authentication.token-in-query-accepted',
    'AUTH-TOKEN-1',
    'a token in the query string is used as the Authorization header',
    () => ({
      request(req: ProxyRequest): ProxyRequest {
        const url = new URL(req.path, 'http://x');
        const token = url.searchParams.get('access_token');
        if (!token || headerOf(req.headers, 'authorization')) return req;
        return { ...req, headers: [...req.headers, ['Authorization', `Bearer ${token}`]] };
      },
    }),
  ),
  referenceOnly(
    wire(
      'authentication.typ-marked-assistant-bearer-challenge',
      'AUTH-SCHEME-3',
      'a Bearer token typed as an assistant session is challenged with Bearer',
      challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
    ),
    'the spec names no header type that marks an assistant session token: without a profile that declares one (conventions.credentials.signedOutProxyToken.typ) the spec level does not judge it, and the fixture profile declares none',
  ),
  wire(
    'authentication.act-marked-assistant-bearer-challenge',
    'AUTH-SCHEME-4',
    'a Bearer token whose act marks an assistant session is challenged with Bearer',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'authentication.scheme-after-verification',
    'AUTH-SCHEME-6',
    'an unverifiable token is challenged with Bearer whatever its unverified form',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'authentication.ended-account-validated-first',
    'AUTH-TOKEN-13',
    'an ended account with a body is answered 400 invalid_request',
    (a, r) => (problemCode(a) === 'account_access_ended' && r.method !== 'GET' ? refused(a, 400, 'invalid_request') : a),
  ),
  lenient(
    'authentication.kinds.storefront-client-always-guest',
    'AUTH-TOKEN-8',
    'the caller kind is read from client_id alone for the storefront: a user sub or another machine sub on it is a guest',
    repairBearer((_h, c, ctx) => {
      const guest = `${ctx.profile.clients.storefront}@clients`;
      return c.client_id === ctx.profile.clients.storefront && c.sub !== guest && !('act' in c) ? ((c.sub = guest), true) : false;
    }),
  ),
  // Verifiers that check a claim only when it is there (jose without requiredClaims), or accept every audience of the issuer
  // for every kind. The proxy adds what is missing and re-signs with the profile key.
  lenient(
    'authentication.strength.token-without-exp-accepted',
    'AUTH-TOKEN-6',
    'a token without exp never expires: accepted (re-signed with an exp)',
    repairBearer((_h, c) => (c.exp === undefined ? ((c.exp = Math.floor(Date.now() / 1000) + 300), true) : false)),
  ),
  lenient(
    'authentication.strength.token-without-iss-accepted',
    'AUTH-TOKEN-2',
    'a token without iss passes the issuer check: accepted (re-signed with the profile issuer)',
    repairBearer((_h, c, ctx) => (c.iss === undefined ? ((c.iss = ctx.profile.issuer), true) : false)),
  ),
  lenient(
    'authentication.strength.customer-agent-audience-accepted',
    'AUTH-TOKEN-4',
    'a customer token for the agent audience is accepted as for the API (re-signed for the API audience)',
    repairBearer((_h, c, ctx) => {
      const aud = Array.isArray(c.aud) ? (c.aud as unknown[]) : [c.aud];
      const customer = c.client_id === ctx.profile.clients.website && c.act === undefined;
      if (!customer || aud.includes(ctx.profile.audiences.api) || !aud.includes(ctx.profile.audiences.agent)) return false;
      c.aud = ctx.profile.audiences.api;
      return true;
    }),
  ),
];
