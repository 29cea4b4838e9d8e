// Defects of caller recognition and of what each caller kind is served (AUTH-KIND-*, AUTH-CRED-*, AUTH-ASST-*, END-ME-*,
// END-IDENT-*), of rate budgets (LIM-RATE-*) and of discovery (PUR-HUMAN-4, VER-PREFIX-2).
import { signGuestSession } from '../../lib/guest-session.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  editJson,
  headerOf,
  refused,
  served,
  mapHeader,
  notAStream,
  pathOf,
  problemCode,
  tokenClaims,
  usesBearer,
  usesDpop,
  withGuestSession,
  type Claims,
} from './helpers.js';
import { lenient, wire, type Defect, type DefectContext } from './types.js';

/** A caller kind the server does not recognize: its successful answers become 401 invalid_token. */
const unrecognized = (
  id: string,
  clause: string,
  what: string,
  is: (c: Claims, ctx: DefectContext, r: ProxyRequest) => boolean,
): Defect => ({
  id,
  clause,
  kind: 'wire',
  description: `${what} not recognized (401 invalid_token)`,
  rules: (ctx) => ({
    response: (a: ProxyAnswer, r: ProxyRequest) => {
      const c = tokenClaims(r);
      return c && a.status < 400 && is(c, ctx, r) ? refused(a, 401, 'invalid_token', 'Bearer error="invalid_token"') : a;
    },
  }),
});
const customer = (c: Claims, ctx: DefectContext) => c.client_id === ctx.profile.clients.website && !('act' in c);
const delegated = (c: Claims, ctx: DefectContext) => c.client_id === ctx.profile.clients.agentProtocol && 'act' in c;
const guest = (c: Claims, ctx: DefectContext, r: ProxyRequest) =>
  c.client_id === ctx.profile.clients.storefront && headerOf(r.headers, 'guest-session') !== undefined;
const operator = (c: Claims, ctx: DefectContext, r: ProxyRequest) =>
  c.client_id === ctx.profile.clients.backoffice && headerOf(r.headers, 'operator') !== undefined;

const signInServed = (id: string, clause: string, what: string): Defect =>
  wire(id, clause, `${what}: sign_in_required answered 200 {}`, (a) => (problemCode(a) === 'sign_in_required' ? served(a) : a));
const budgetUnenforced = (id: string, clause: string, what: string, when: (r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${what}: 429 answered 200 {}`, (a, r) => (a.status === 429 && when(r) ? served(a) : a));
const othersRowServed = (id: string, clause: string): Defect =>
  wire(id, clause, "another account's order or address by id is served (404 answered 200 {})", (a, r) =>
    a.status === 404 && /^\/v1\/me\/(orders|addresses)\/[^/]+/.test(pathOf(r)) ? served(a, '{"id":"x"}') : a,
  );

export const KINDS_DEFECTS: readonly Defect[] = [
  unrecognized('kinds.customer-unrecognized', 'AUTH-KIND-2', 'a customer token', customer),
  unrecognized('kinds.customer-credential-refused', 'AUTH-CRED-2', 'a customer with its own token', customer),
  unrecognized('kinds.delegated-unrecognized', 'AUTH-KIND-5', 'a delegated token', delegated),
  unrecognized('kinds.agent-protocol-credential-refused', 'AUTH-CRED-3', 'the on-behalf-of token of the agent-protocol server', delegated),
  unrecognized('kinds.guest-unrecognized', 'AUTH-KIND-9', 'a storefront token with Guest-Session', guest),
  unrecognized('kinds.guest-credential-refused', 'AUTH-CRED-1', 'a guest (storefront token plus Guest-Session)', guest),
  unrecognized('kinds.operator-unrecognized', 'AUTH-KIND-11', 'a backoffice token with Operator', operator),
  lenient(
    'kinds.operator-without-attribution',
    'AUTH-CRED-4',
    'a backoffice token without Operator is served as an operator (header added)',
    (ctx) => ({
      request: (req: ProxyRequest) =>
        tokenClaims(req)?.client_id === ctx.profile.clients.backoffice && !headerOf(req.headers, 'operator')
          ? { ...req, headers: [...req.headers, ['Operator', 'selftest-operator']] }
          : req,
    }),
  ),
  lenient(
    'auth.misshapen-guest-session-accepted',
    'RES-GUEST-1',
    'a guest session of another shape (gs2., missing signature) is accepted (re-signed)',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const v = headerOf(req.headers, 'guest-session');
        const m = /^gs\d\.([0-9a-f-]{36})(?:\.(.*))?$/.exec(v ?? '');
        if (!m || (v!.startsWith('gs1.') && m[2] !== undefined)) return req;
        return withGuestSession(req, signGuestSession(m[1]!, ctx.profile.secrets.guestSessionKey));
      },
    }),
  ),
  signInServed('auth.signed-out-keeps-account', 'AUTH-ACTIVE-2', 'guests and signed-out sessions reach account data'),
  signInServed('auth.signed-out-token-acts-signed-in', 'AUTH-ASST-8', 'a signed-out token on a signed-in session'),
  signInServed('auth.signed-out-session-acts-signed-in', 'AUTH-ASST-9', 'a signed-in token on a signed-out session'),
  signInServed('auth.stale-token-served', 'AUTH-ASST-10', 'a stale assistant token'),
  signInServed('auth.empty-scope-widened', 'AUTH-ASST-14', 'a signed-out assistant token with empty scope'),
  wire(
    'auth.assistant-token-as-bearer-served-on-account',
    'AUTH-ASST-2',
    'on account routes (/v1/me/*) alone, an assistant token sent as Bearer is served (401 answered 200 {})',
    (a, r) =>
      a.status === 401 && usesBearer(r) && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') && pathOf(r).startsWith('/v1/me/')
        ? served(a)
        : a,
  ),
  wire(
    'auth.assistant-token-as-bearer-served',
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
    'auth.conversation-bearer-served',
    'END-PUBLIC-19',
    'a conversation route served with a Bearer token (401 answered 200 {})',
    (a, r) => (a.status === 401 && pathOf(r).startsWith('/assistant/conversations') && usesBearer(r) ? served(a) : a),
  ),
  wire(
    'auth.assistant-refusal-without-error',
    'AUTH-ASST-5',
    'a refused assistant token is challenged without error="invalid_token"',
    (a, r) =>
      problemCode(a) === 'invalid_token' && /^DPoP/.test(headerOf(a.headers, 'www-authenticate') ?? '') && usesDpop(r)
        ? { ...a, headers: mapHeader(a.headers, 'www-authenticate', (v) => v.replace(/,?\s*error="invalid_token"/, '')) }
        : a,
  ),
  wire('auth.dpop-replay-accepted', 'AUTH-ASST-11', 'a replayed DPoP proof is served (invalid_dpop_proof answered 200 {})', (a) =>
    problemCode(a) === 'invalid_dpop_proof' ? served(a) : a,
  ),
  wire('auth.ended-account-validated-first', 'AUTH-TOKEN-13', 'an ended account with a body is answered 400 invalid_request', (a, r) =>
    problemCode(a) === 'account_access_ended' && r.method !== 'GET' ? refused(a, 400, 'invalid_request') : a,
  ),
  {
    // A rate limit that runs before the guard: once a shopper's budget of an operation is spent (a 429 seen), the requests
    // of that shopper to that operation the guard refuses (caller_not_allowed, insufficient_scope) are answered 429 too.
    id: 'auth.rate-limit-before-guard',
    clause: 'AUTH-ORDER-8',
    kind: 'wire',
    description: 'over a spent budget, a request the guard refuses is answered 429 with Retry-After (the rate limit runs first)',
    rules: () => {
      const spent = new Set<string>();
      const keyOf = (r: ProxyRequest) => `${headerOf(r.headers, 'shopper-ip') ?? String(tokenClaims(r)?.sub)} ${r.method} ${pathOf(r)}`;
      return {
        buffer: notAStream,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          if (a.status === 429) spent.add(keyOf(r));
          else if (spent.has(keyOf(r)) && ['caller_not_allowed', 'insufficient_scope'].includes(problemCode(a) ?? '')) {
            const limited = refused(a, 429, 'rate_limited');
            return { ...limited, headers: [...limited.headers, ['Retry-After', '1']] };
          }
          return a;
        },
      };
    },
  },
  budgetUnenforced('limits.guest-budget-unenforced', 'LIM-RATE-1', 'guest budgets', (r) => !pathOf(r).startsWith('/assistant/')),
  budgetUnenforced('limits.session-budget-unenforced', 'LIM-RATE-2', 'assistant session budgets', () => true),
  budgetUnenforced('limits.client-budget-unenforced', 'LIM-RATE-3', 'assistant client budgets', () => true),
  othersRowServed('account.others-rows-served', 'END-ME-2'),
  ...(
    [
      ['assistants', (r: ProxyRequest) => usesDpop(r)],
      ['delegated', (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.agentProtocol],
      ['invited-agents', (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.webAgentForwarder],
    ] as const
  ).map(([kind, is]): Defect => ({
    id: `account.others-rows-served-to-${kind}`,
    clause: 'END-ME-2',
    kind: 'wire',
    description: `another account's order or address by id is served to ${kind} alone (404 answered 200 {})`,
    rules: (ctx) => ({
      buffer: notAStream,
      response: (a, r) =>
        a.status === 404 && /^\/v1\/me\/(orders|addresses)\/[^/]+/.test(pathOf(r)) && is(r, ctx) ? served(a, '{"id":"x"}') : a,
    }),
  })),
  othersRowServed('account.others-data-served', 'END-ME-1'),
  othersRowServed('kinds.customer-acts-on-other-accounts', 'AUTH-KIND-3'),
  wire('account.identity-without-eligibility', 'END-IDENT-1', 'the identity read lacks its eligibility boolean', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          for (const [k, v] of Object.entries(b)) if (typeof v === 'boolean') delete b[k];
        })
      : a,
  ),
  wire(
    'account.identity-carries-idp-url',
    'END-IDENT-2',
    'the identity read carries a self-service URL of the identity provider',
    (a, r) =>
      pathOf(r) === '/v1/me/identity' && a.status === 200
        ? editJson(a, (b) => {
            b.self_service_url = 'https://idp.example/account';
          })
        : a,
  ),
  wire(
    'purpose.human-only-operation-described',
    'PUR-HUMAN-4',
    'the general description document lists an operation requiring account:security',
    (a, r) =>
      pathOf(r) === '/openapi.json'
        ? editJson(a, (b) => {
            const paths = (b.paths ?? {}) as Record<string, unknown>;
            paths['/v1/me/security-methods'] = {
              get: {
                operationId: 'listSecurityMethods',
                'x-scopes': ['account:security'],
                security: [{ bearer: ['account:security'] }],
                responses: { 200: { description: 'ok' } },
              },
            };
            b.paths = paths;
          })
        : a,
  ),
  wire('versioning.documents-under-v1', 'VER-PREFIX-2', '/openapi.json answers 404 (the documents moved under /v1)', (a, r) =>
    pathOf(r) === '/openapi.json' ? refused(a, 404, 'not_found') : a,
  ),
  {
    id: 'kinds.operator-header-missing-as-validation',
    clause: 'AUTH-CRED-4',
    kind: 'wire',
    description: 'a backoffice token without the Operator header answered 400 invalid_request (a validation error), not as no caller kind',
    rules: (ctx) => ({
      buffer: () => true,
      response: (a: ProxyAnswer, r: ProxyRequest) => {
        const c = tokenClaims(r);
        return c && c.client_id === ctx.profile.clients.backoffice && headerOf(r.headers, 'operator') === undefined && a.status === 403
          ? refused(a, 400, 'invalid_request')
          : a;
      },
    }),
  },
];
