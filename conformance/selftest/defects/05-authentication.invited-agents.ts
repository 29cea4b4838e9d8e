// Defects of invited agents (the AUTH-* clauses their checks judge: 05-authentication.invited-agents.*): the invited-agent
// context accepted unbound, of another type or beside any token, resolved to the agent, or acting with a live grant
// instead of its admission snapshot. Leniency defects re-sign the context with WEB_SESSION_CONTEXT_KEY.
import { createHmac } from 'node:crypto';
import { accessTokenHash, signWith } from '../../lib/jws.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  bearerChallenge,
  bearerOf,
  editJson,
  headerOf,
  jsonSegment,
  mapHeader,
  notAStream,
  pathOf,
  problemAnswer,
  tokenClaims,
  withHeader,
  withoutHeader,
  type Claims,
} from './helpers.js';
import { lenient, wireWith, type Defect, type DefectContext } from './types.js';

interface Jws {
  header: Claims;
  claims: Claims;
}

const CONTEXT = 'invited-agent-context';

const TYP = 'invited-agent+jwt';

const hmac = (input: string, key: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(input).digest('base64url');

const fromForwarder = (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.webAgentForwarder;

/** A compact HS256 JWS that verifies with `key` (the context key), decoded; undefined otherwise (forgeries stay refused). */
function verifiedHs256(value: string | undefined, key: string): Jws | undefined {
  const m = /^([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(value ?? '');
  if (!m || hmac(`${m[1]}.${m[2]}`, key) !== m[3]) return undefined;
  const header = jsonSegment(m[1]!);
  const claims = jsonSegment(m[2]!);
  return header?.alg === 'HS256' && claims ? { header, claims } : undefined;
}

/**
 * A request whose genuine invited-agent context `fix` repairs (editing it in place and returning the request to send, or
 * undefined when there is nothing to repair); the context is then re-signed with the context key.
 */
const repairContext =
  (fix: (c: Jws, r: ProxyRequest, ctx: DefectContext) => ProxyRequest | undefined | Promise<ProxyRequest | undefined>) =>
  (ctx: DefectContext) =>
  async (req: ProxyRequest): Promise<ProxyRequest> => {
    const key = ctx.profile.secrets.webSessionContextKey;
    const c = verifiedHs256(headerOf(req.headers, CONTEXT), key);
    const sent = c && (await fix(c, req, ctx));
    if (!c || !sent) return req;
    const signed = await signWith(c.claims, c.header, key);
    return { ...sent, headers: mapHeader(sent.headers, CONTEXT, () => signed) };
  };

const contextDefect = (id: string, clause: string, description: string, fix: Parameters<typeof repairContext>[0]): Defect =>
  lenient(id, clause, description, (ctx) => ({ request: repairContext(fix)(ctx) }));

export const AUTHENTICATION_INVITED_AGENTS_DEFECTS: readonly Defect[] = [
  {
    // The admission snapshot ignored: once the identity-provider proxy reports a decision for (sub, agent), the server
    // acts with that live grant instead of the permissions signed into the context.
    id: 'authentication.agents.invited-live-grant-over-snapshot',
    clause: 'AUTH-KIND-10',
    kind: 'leniency',
    description: "an invited agent acts with the account's latest reported grant, not its context's admission snapshot",
    rules: (ctx) => {
      const grants = new Map<string, unknown[]>();
      const request = repairContext((c, r) => {
        const live = grants.get(`${String(c.claims.sub)} ${String(c.claims.agent_id)}`);
        return live ? ((c.claims.permissions = live), r) : undefined;
      })(ctx);
      return {
        buffer: notAStream,
        request,
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          if (pathOf(r) === '/internal/agent-authorization' && a.status === 200)
            editJson(a, (b) => {
              grants.set(`${String(b.subject)} ${String(b.agent_id)}`, b.decision === 'granted' ? (b.permissions as unknown[]) : []);
            });
          return a;
        },
      };
    },
  },
  wireWith(
    'authentication.agents.invited-refused-on-account-routes',
    'AUTH-CRED-5',
    'an invited agent (forwarder token plus context) is served on cart routes only: on /v1/me/* it is 401 invalid_token',
    (ctx) => (a, r) =>
      a.status < 400 && pathOf(r).startsWith('/v1/me/') && headerOf(r.headers, CONTEXT) && fromForwarder(r, ctx)
        ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', bearerChallenge)
        : a,
  ),
  contextDefect(
    'authentication.agents.invited-context-not-bearer-bound',
    'AUTH-CRED-6',
    'a context bound to another forwarder token (or to none) is accepted: its ath is not compared (re-bound)',
    (c, r, ctx) => {
      const bearer = bearerOf(r);
      if (!bearer || !fromForwarder(r, ctx) || c.claims.ath === accessTokenHash(bearer)) return undefined;
      c.claims.ath = accessTokenHash(bearer);
      return r;
    },
  ),
  contextDefect(
    'authentication.agents.invited-context-any-typ',
    'AUTH-CRED-7',
    'a context of another typ (JWT, at+jwt, none) is accepted when its signature verifies (re-signed as invited-agent+jwt)',
    (c, r) => (c.header.typ === TYP ? undefined : ((c.header.typ = TYP), r)),
  ),
  lenient(
    'authentication.context-key-verifies-access-tokens',
    'AUTH-CUST-8',
    'an HS256 access token that verifies with WEB_SESSION_CONTEXT_KEY is accepted as customer (re-signed ES256)',
    (ctx) => ({
      async request(req: ProxyRequest): Promise<ProxyRequest> {
        const t = verifiedHs256(bearerOf(req), ctx.profile.secrets.webSessionContextKey);
        if (!t || typeof t.claims.client_id !== 'string') return req;
        const token = await ctx.mint.sign({ header: { ...t.header, alg: 'ES256' }, payload: t.claims });
        return { ...req, headers: mapHeader(req.headers, 'authorization', () => `Bearer ${token}`) };
      },
    }),
  ),
  contextDefect(
    'authentication.agents.invited-context-beside-any-token',
    'AUTH-CUST-9',
    'a context bound to any valid bearer (storefront, website, MCP forwarder, …) acts as an invited agent, not only beside the web-agent forwarder',
    async (c, r, ctx) => {
      const bearer = bearerOf(r);
      if (!bearer || fromForwarder(r, ctx) || c.claims.ath !== accessTokenHash(bearer)) return undefined;
      const forwarder = await ctx.mint.invitedAgentForwarder();
      c.claims.ath = accessTokenHash(forwarder);
      const headers = ['guest-session', 'operator', 'shopper-ip'].reduce(withoutHeader, r.headers);
      return { ...r, headers: withHeader(headers, 'authorization', `Bearer ${forwarder}`) };
    },
  ),
  contextDefect(
    'authentication.agents.invited-resolved-to-agent',
    'AUTH-ORDER-5',
    'an invited agent is resolved to itself (its agent_id as the account), not to the customer it speaks for',
    (c, r, ctx) =>
      fromForwarder(r, ctx) && typeof c.claims.agent_id === 'string' && c.claims.sub !== c.claims.agent_id
        ? ((c.claims.sub = c.claims.agent_id), r)
        : undefined,
  ),
];
