// Defects of caller recognition and credentials (AUTH-KIND-*, AUTH-CRED-*, AUTH-CUST-*, AUTH-ACTIVE-*): a caller kind not
// recognized, a credential taken from the wrong place or client, a customer acting on other accounts, a first request
// refused. Assistant and invited-agent recognition live in their own files.
import { CUSTOMER_SCOPES } from '../../lib/mint.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  bareProblem,
  headerOf,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  refusal,
  refused,
  repairBearer,
  served,
  tokenClaims,
  type Claims,
} from './helpers.js';
import { lenient, referenceOnly, wire, wireWith, type Defect, type DefectContext } from './types.js';
import { accessEndedAs403 } from './03-states.js';
import { admitsAny, othersRowServed } from './04-endpoints.js';

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

export const signInServed = (id: string, clause: string, what: string): Defect =>
  wire(id, clause, `${what}: sign_in_required answered 200 {}`, (a) => (problemCode(a) === 'sign_in_required' ? served(a) : a));

export const AUTHENTICATION_CALLER_KINDS_DEFECTS: readonly Defect[] = [
  lenient(
    'authentication.customer-scopes-unchecked',
    'AUTH-CUST-1',
    'a customer token missing an API scope is accepted (every scope added)',
    repairBearer((_h, c, ctx) =>
      c.client_id === ctx.profile.clients.website && !('act' in c) && c.scope !== CUSTOMER_SCOPES.join(' ')
        ? ((c.scope = CUSTOMER_SCOPES.join(' ')), true)
        : false,
    ),
  ),
  accessEndedAs403('authentication.inactive-account-as-403', 'AUTH-ACTIVE-1'),
  wire('authentication.shop-session-read', 'AUTH-CUST-2', 'a Shop-Session header makes the customer request 401', (a, r) =>
    headerOf(r.headers, 'shop-session') && a.status < 400
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a,
  ),
  wire('authentication.session-claims-read', 'AUTH-CUST-3', 'a customer token carrying sid is refused', (a, r) =>
    tokenClaims(r)?.sid !== undefined &&
    !r.path.startsWith('/assistant/') &&
    headerOf(r.headers, 'authorization')?.startsWith('Bearer') &&
    a.status < 400
      ? bareProblem(401, 'invalid_token', 'Unauthorized', { www: 'Bearer error="invalid_token"' })
      : a,
  ),
  admitsAny('AUTH-ACTIVE-3', 'an operator is admitted to customer routes', (r) => !pathOf(r).startsWith('/v1/ops/'), 'authentication'),
  {
    id: 'authentication.first-request-refused',
    clause: 'AUTH-CUST-4',
    kind: 'wire',
    description: 'the first request of each customer token is refused (a server that needs a sign-in registration)',
    rules: () => {
      const seen = new Set<string>();
      return {
        buffer: notAStream,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          const auth = headerOf(r.headers, 'authorization');
          if (!auth || !/^Bearer /.test(auth) || seen.has(auth) || a.status >= 400) return a;
          seen.add(auth);
          return refusal(401, 'invalid_token', 'Unauthorized', 'Bearer error="invalid_token"');
        },
      };
    },
  },
  unrecognized('authentication.kinds.customer-unrecognized', 'AUTH-KIND-2', 'a customer token', customer),
  unrecognized('authentication.kinds.customer-credential-refused', 'AUTH-CRED-2', 'a customer with its own token', customer),
  unrecognized('authentication.kinds.delegated-unrecognized', 'AUTH-KIND-5', 'a delegated token', delegated),
  unrecognized(
    'authentication.kinds.agent-protocol-credential-refused',
    'AUTH-CRED-3',
    'the on-behalf-of token of the agent-protocol server',
    delegated,
  ),
  unrecognized('authentication.kinds.guest-unrecognized', 'AUTH-KIND-9', 'a storefront token with Guest-Session', guest),
  unrecognized('authentication.kinds.guest-credential-refused', 'AUTH-CRED-1', 'a guest (storefront token plus Guest-Session)', guest),
  unrecognized('authentication.kinds.operator-unrecognized', 'AUTH-KIND-11', 'a backoffice token with Operator', operator),
  lenient(
    'authentication.kinds.operator-without-attribution',
    'AUTH-CRED-4',
    'a backoffice token without Operator is served as an operator (header added)',
    (ctx) => ({
      request: (req: ProxyRequest) =>
        tokenClaims(req)?.client_id === ctx.profile.clients.backoffice && !headerOf(req.headers, 'operator')
          ? { ...req, headers: [...req.headers, ['Operator', 'selftest-operator']] }
          : req,
    }),
  ),
  signInServed('authentication.signed-out-keeps-account', 'AUTH-ACTIVE-2', 'guests and signed-out sessions reach account data'),
  othersRowServed('authentication.kinds.customer-acts-on-other-accounts', 'AUTH-KIND-3'),
  referenceOnly(
    {
      id: 'authentication.kinds.operator-header-missing-as-validation',
      clause: 'AUTH-CRED-4',
      kind: 'wire',
      description:
        'a backoffice token without the Operator header answered 400 invalid_request (a validation error), not as no caller kind',
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
    'a missing Operator header may be refused as a request that lacks a required header (400) or as no caller kind (401 or 403): the spec pins neither (docs/ambiguities.md)',
  ),
  lenient(
    'authentication.kinds.delegated-cart-per-agent',
    'AUTH-KIND-6',
    "a delegated caller's cart is its own (keyed by sub and agent), not the account cart the customer sees",
    (ctx) => {
      const repair = repairBearer((_h, c, x) =>
        c.client_id === x.profile.clients.agentProtocol && 'act' in c && typeof c.sub === 'string'
          ? ((c.sub = `${c.sub}.agent`), true)
          : false,
      )(ctx);
      return { request: (req: ProxyRequest) => (pathOf(req).startsWith('/v1/cart') ? repair.request(req) : req) };
    },
  ),
  // An account-wide cutoff: customer tokens issued before the sub's latest token seen here are refused, expiry or not.
  wireWith(
    'authentication.strength.customer-cutoff-at-newest-token',
    'AUTH-CUST-5',
    "a customer token older than its sub's newest one is refused 401",
    (ctx) => {
      const newest = new Map<string, number>();
      return (a, r) => {
        const c = tokenClaims(r);
        if (c?.client_id !== ctx.profile.clients.website || typeof c.sub !== 'string' || typeof c.iat !== 'number' || 'act' in c) return a;
        const latest = Math.max(newest.get(c.sub) ?? 0, c.iat);
        newest.set(c.sub, latest);
        return c.iat < latest || c.iat < Date.now() / 1000 - 30 * 60
          ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', [['WWW-Authenticate', 'Bearer error="invalid_token"']])
          : a;
      };
    },
  ),
];
