// Defects of caller admission (AUTH-TOKEN-*, AUTH-GUEST-*, AUTH-CUST-*, AUTH-SCHEME-*, STA-LIFE-*): tokens repaired and
// re-signed, headers a caller may not send dropped before they reach the server, and challenges in the wrong scheme.
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import { CUSTOMER_SCOPES } from '../../lib/mint.js';
import {
  bareProblem,
  editJson,
  freshGuestSession,
  headerOf,
  mapHeader,
  pathOf,
  problemCode,
  repairBearer,
  tokenClaims,
  usesDpop,
  withoutHeader,
  type Claims,
} from './helpers.js';
import { lenient, wire, type Defect, type DefectContext } from './types.js';

/** Drops `names` from requests whose token's client is not `keepFor` (a lax admission that ignores them). */
const dropHeaders =
  (names: string[], when: (c: Claims | undefined, ctx: DefectContext, req: ProxyRequest) => boolean) => (ctx: DefectContext) => ({
    request(req: ProxyRequest): ProxyRequest {
      if (!when(tokenClaims(req), ctx, req)) return req;
      return { ...req, headers: names.reduce((h, n) => withoutHeader(h, n), req.headers) };
    },
  });

const challengeAs =
  (scheme: 'Bearer' | 'DPoP', when: (r: ProxyRequest, a: ProxyAnswer) => boolean) =>
  (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer =>
    a.status === 401 && when(r, a)
      ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/^(Bearer|DPoP)/, scheme)) }
      : a;
const bearerRequest = (r: ProxyRequest) =>
  /^Bearer\s/i.test(headerOf(r.headers, 'authorization') ?? '') && !r.path.startsWith('/assistant/');

const accessEndedAs403 = (id: string, clause: string): Defect =>
  wire(id, clause, 'account_access_ended answered 403', (a) =>
    problemCode(a) === 'account_access_ended'
      ? editJson({ ...a, status: 403 }, (b) => {
          b.status = 403;
          b.title = 'Forbidden';
        })
      : a,
  );

export const CALLERS_DEFECTS: readonly Defect[] = [
  lenient(
    'auth.token-without-client-id-accepted',
    'AUTH-TOKEN-7',
    'a token without client_id is accepted (read as the website client)',
    repairBearer((_h, c, ctx) => (c.client_id === undefined ? ((c.client_id = ctx.profile.clients.website), true) : false)),
  ),
  lenient(
    'auth.unknown-client-accepted',
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
    'auth.machine-client-without-kind-accepted',
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
    'auth.foreign-actor-accepted',
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
    'auth.website-token-with-act-as-customer',
    'AUTH-TOKEN-12',
    'a website token carrying act is accepted as a customer (act dropped)',
    repairBearer((_h, c, ctx) => (c.client_id === ctx.profile.clients.website && 'act' in c ? (delete c.act, true) : false)),
  ),
  lenient(
    'auth.customer-scopes-unchecked',
    'AUTH-CUST-1',
    'a customer token missing an API scope is accepted (every scope added)',
    repairBearer((_h, c, ctx) =>
      c.client_id === ctx.profile.clients.website && !('act' in c) && c.scope !== CUSTOMER_SCOPES.join(' ')
        ? ((c.scope = CUSTOMER_SCOPES.join(' ')), true)
        : false,
    ),
  ),
  lenient(
    'auth.delegated-scopes-unchecked',
    'AUTH-SCOPE-2',
    'a delegated token missing an API scope is accepted (every scope added)',
    repairBearer((_h, c, ctx) =>
      c.client_id === ctx.profile.clients.agentProtocol && c.scope !== CUSTOMER_SCOPES.join(' ')
        ? ((c.scope = CUSTOMER_SCOPES.join(' ')), true)
        : false,
    ),
  ),
  lenient(
    'auth.forwarder-scope-unchecked',
    'AUTH-SCOPE-5',
    'a forwarder token without agent:forward is accepted (scope added)',
    repairBearer((_h, c, ctx) =>
      [ctx.profile.clients.webAgentForwarder, ctx.profile.clients.mcpAgentForwarder].includes(c.client_id as string) &&
      !String(c.scope ?? '')
        .split(' ')
        .includes('agent:forward')
        ? ((c.scope = `${String(c.scope ?? '')} agent:forward`.trim()), true)
        : false,
    ),
  ),
  lenient('auth.token-in-query-accepted', 'AUTH-TOKEN-1', 'a token in the query string is used as the Authorization header', () => ({
    request(req: ProxyRequest): ProxyRequest {
      const url = new URL(req.path, 'http://x');
      const token = url.searchParams.get('access_token');
      if (!token || headerOf(req.headers, 'authorization')) return req;
      return { ...req, headers: [...req.headers, ['Authorization', `Bearer ${token}`]] };
    },
  })),
  lenient(
    'auth.shopper-ip-from-any-caller',
    'AUTH-GUEST-8',
    'Shopper-IP from a non-guest caller is ignored instead of refused',
    dropHeaders(['shopper-ip'], (c, ctx) => c !== undefined && c.client_id !== ctx.profile.clients.storefront),
  ),
  lenient(
    'auth.shopper-ip-unbounded',
    'AUTH-GUEST-9',
    'a Shopper-IP longer than 64 characters is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => (headerOf(r.headers, 'shopper-ip') ?? '').length > 64),
  ),
  lenient(
    'limits.shopper-ip-unbounded',
    'LIM-SHOPPERIP-1',
    'a Shopper-IP longer than 64 characters is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => (headerOf(r.headers, 'shopper-ip') ?? '').length > 64),
  ),
  lenient(
    'auth.guest-headers-on-customer-tokens',
    'AUTH-GUEST-11',
    'Guest-Session and Shopper-IP on website tokens are ignored instead of refused',
    dropHeaders(['guest-session', 'shopper-ip'], (c, ctx) => c?.client_id === ctx.profile.clients.website),
  ),
  lenient(
    'auth.foreign-headers-ignored',
    'AUTH-ORDER-6',
    'Guest-Session, Shopper-IP and Operator from the wrong caller kinds are ignored instead of refused',
    dropHeaders(
      ['guest-session', 'shopper-ip', 'operator'],
      (c, ctx) => c !== undefined && c.client_id !== ctx.profile.clients.storefront && c.client_id !== ctx.profile.clients.backoffice,
    ),
  ),
  // One caller kind alone whose misfitting header is ignored instead of refused.
  lenient(
    'auth.shopper-ip-ignored-for-assistants',
    'AUTH-GUEST-8',
    'Shopper-IP from an assistant (DPoP) is ignored instead of refused',
    dropHeaders(['shopper-ip'], (_c, _ctx, r) => usesDpop(r)),
  ),
  lenient(
    'auth.shopper-ip-ignored-for-operators',
    'AUTH-GUEST-8',
    'Shopper-IP from an operator is ignored instead of refused',
    dropHeaders(['shopper-ip'], (c, ctx) => c?.client_id === ctx.profile.clients.backoffice),
  ),
  lenient(
    'auth.guest-session-ignored-for-invited-agents',
    'AUTH-ORDER-6',
    'Guest-Session from a forwarded invited agent is ignored instead of refused',
    dropHeaders(['guest-session'], (c, ctx) => c?.client_id === ctx.profile.clients.webAgentForwarder),
  ),
  lenient(
    'auth.operator-header-ignored-for-guests',
    'AUTH-ORDER-6',
    'the Operator header from a guest is ignored instead of refused',
    dropHeaders(['operator'], (c, ctx) => c?.client_id === ctx.profile.clients.storefront),
  ),
  lenient(
    'auth.guest-cart-write-without-session',
    'AUTH-GUEST-4',
    'a guest cart write without Guest-Session gets a fresh session',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const c = tokenClaims(req);
        if (
          req.method === 'GET' ||
          !pathOf(req).startsWith('/v1/cart') ||
          c?.client_id !== ctx.profile.clients.storefront ||
          headerOf(req.headers, 'guest-session')
        )
          return req;
        return { ...req, headers: [...req.headers, ['Guest-Session', freshGuestSession(ctx)]] };
      },
    }),
  ),
  wire(
    'auth.assistant-bearer-challenge',
    'ERR-TABLE-3',
    'an assistant token sent as Bearer is challenged with Bearer',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'auth.typ-marked-assistant-bearer-challenge',
    'AUTH-SCHEME-3',
    'a Bearer token typed as an assistant session is challenged with Bearer',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'auth.act-marked-assistant-bearer-challenge',
    'AUTH-SCHEME-4',
    'a Bearer token whose act marks an assistant session is challenged with Bearer',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire(
    'auth.scheme-after-verification',
    'AUTH-SCHEME-6',
    'an unverifiable token is challenged with Bearer whatever its unverified form',
    challengeAs('Bearer', (r, a) => bearerRequest(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '')),
  ),
  wire('auth.rejected-token-no-challenge', 'ERR-TABLE-2', 'a malformed, expired or rejected token answered without a challenge', (a, r) =>
    problemCode(a) === 'invalid_token' && headerOf(r.headers, 'authorization')
      ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') }
      : a,
  ),
  wire('auth.access-ended-no-challenge', 'ERR-TABLE-5', 'account_access_ended without its invalid_token challenge', (a) =>
    problemCode(a) === 'account_access_ended' ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') } : a,
  ),
  accessEndedAs403('states.deleting-as-403', 'STA-LIFE-1'),
  accessEndedAs403('states.deleted-as-403', 'STA-LIFE-2'),
  accessEndedAs403('states.contact-transition-as-403', 'STA-LIFE-3'),
  accessEndedAs403('auth.inactive-account-as-403', 'AUTH-ACTIVE-1'),
  wire('auth.shop-session-read', 'AUTH-CUST-2', 'a Shop-Session header makes the customer request 401', (a, r) =>
    headerOf(r.headers, 'shop-session') && a.status < 400
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a,
  ),
  wire('auth.session-claims-read', 'AUTH-CUST-3', 'a customer token carrying sid is refused', (a, r) =>
    tokenClaims(r)?.sid !== undefined &&
    !r.path.startsWith('/assistant/') &&
    headerOf(r.headers, 'authorization')?.startsWith('Bearer') &&
    a.status < 400
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a,
  ),
];
