// Reach defects of invited-agent contexts (spec, Credentials per consumer; Customer authority; Scope translation), written
// blind: a context verifier that checks `typ` only when it is present, a cache of verified contexts that forgets the
// bearer binding, and a permission map in which `assistant:write` also grants reading. Each is a leniency: the proxy
// re-signs the genuine context (WEB_SESSION_CONTEXT_KEY) into what the lax server would have made of it. Contexts whose
// claims a deployment places elsewhere (profile conventions) are left alone.
import { createHmac } from 'node:crypto';
import { artifactFormat } from '../../../lib/credential-formats.js';
import { accessTokenHash, signWith } from '../../../lib/jws.js';
import type { ProxyAnswer, ProxyRequest } from '../../proxy.js';
import { bearerOf, headerOf, jsonSegment, mapHeader, type Claims } from '../helpers.js';
import { lenient, type Defect, type DefectContext } from '../types.js';

interface Context {
  readonly value: string;
  readonly header: Claims;
  readonly claims: Claims;
}

const contextHeader = (ctx: DefectContext): string => ctx.profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';

/** The request's invited-agent context when it is a compact HS256 JWS that the context key signed; undefined otherwise. */
function genuineContext(req: ProxyRequest, ctx: DefectContext): Context | undefined {
  const value = headerOf(req.headers, contextHeader(ctx))?.trim() ?? '';
  const m = /^([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(value);
  if (!m) return undefined;
  const key = ctx.profile.secrets.webSessionContextKey;
  const mac = createHmac('sha256', Buffer.from(key, 'utf8')).update(`${m[1]}.${m[2]}`).digest('base64url');
  if (mac !== m[3]) return undefined;
  const header = jsonSegment(m[1]!);
  const claims = jsonSegment(m[2]!);
  return header?.alg === 'HS256' && claims ? { value, header, claims } : undefined;
}

/** The request with its context replaced by `c` re-signed with the context key. */
async function resigned(req: ProxyRequest, ctx: DefectContext, c: Pick<Context, 'header' | 'claims'>): Promise<ProxyRequest> {
  const signed = await signWith(c.claims, c.header, ctx.profile.secrets.webSessionContextKey);
  return { ...req, headers: mapHeader(req.headers, contextHeader(ctx), () => signed) };
}

/** The context is bound (`ath`) to the bearer token it travels with. */
const boundToBearer = (c: Context, req: ProxyRequest): boolean => {
  const bearer = bearerOf(req);
  return bearer !== undefined && c.claims.ath === accessTokenHash(bearer);
};

/** The context was taken: the answer is not a refusal of its credentials. */
const taken = (a: ProxyAnswer): boolean => a.status < 400;

export const REACH_CONTEXTS_DEFECTS: readonly Defect[] = [
  // "a bearer-bound signed invited-agent context (token type `invited-agent+jwt`)". Broken: the verifier compares `typ` only
  // when the header has one, so a genuine context whose header carries no `typ` is taken (another `typ` is still refused).
  lenient(
    'reach.contexts.typ-absent-accepted',
    'AUTH-CRED-7',
    'a genuine invited-agent context whose JOSE header has no typ at all is accepted',
    (ctx) => ({
      async request(req: ProxyRequest): Promise<ProxyRequest> {
        const c = genuineContext(req, ctx);
        if (!c || 'typ' in c.header) return req;
        const typ = artifactFormat(ctx.profile.conventions, 'invitedAgentContext').typ;
        return resigned(req, ctx, { header: { ...c.header, typ }, claims: c.claims });
      },
    }),
  ),
  // "a bearer-bound signed invited-agent context". Broken: a context once taken is cached by its value, and a cache hit
  // skips the `ath` binding, so the same context later lifted onto another forwarder token is taken.
  lenient(
    'reach.contexts.cached-context-unbound',
    'AUTH-CRED-6',
    'an invited-agent context already accepted with its own forwarder token is accepted with any other forwarder token',
    (ctx) => {
      const verified = new Set<string>();
      return {
        async request(req: ProxyRequest): Promise<ProxyRequest> {
          const c = genuineContext(req, ctx);
          const bearer = bearerOf(req);
          if (!c || !bearer || !verified.has(c.value) || boundToBearer(c, req)) return req;
          return resigned(req, ctx, { header: c.header, claims: { ...c.claims, ath: accessTokenHash(bearer) } });
        },
        response(a: ProxyAnswer, req: ProxyRequest): ProxyAnswer {
          const c = genuineContext(req, ctx);
          if (c && taken(a) && boundToBearer(c, req)) verified.add(c.value);
          return a;
        },
      };
    },
  ),
  // "| `assistant:write` | `account:write`, `orders:write` |". Broken for invited agents: their permission map treats
  // `assistant:write` as including `assistant:read`, so a write-only context reads the account (profile, orders, cards).
  lenient(
    'reach.contexts.write-permission-reads',
    'AUTH-SCOPE-8',
    'an invited agent whose context holds assistant:write without assistant:read is allowed the account reads',
    (ctx) => ({
      async request(req: ProxyRequest): Promise<ProxyRequest> {
        const c = genuineContext(req, ctx);
        const permissions = c?.claims.permissions;
        if (!c || !Array.isArray(permissions) || !permissions.includes('assistant:write') || permissions.includes('assistant:read'))
          return req;
        return resigned(req, ctx, { header: c.header, claims: { ...c.claims, permissions: [...permissions, 'assistant:read'] } });
      },
    }),
  ),
];
