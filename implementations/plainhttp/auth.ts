// Authentication: challenge scheme, access-token verification, caller classification, guest sessions and
// invited-agent contexts.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from './config.js';
import { HttpError, headerValues, validationError, type RequestContext } from './http.js';

export type CallerKind = 'customer' | 'delegated' | 'guest' | 'invited-agent' | 'operator' | 'assistant';
export const ALL_CALLER_KINDS: CallerKind[] = ['customer', 'delegated', 'guest', 'invited-agent', 'operator', 'assistant'];

export interface Caller {
  kind: CallerKind;
  clientId: string;
  /** The account subject, for account-bound kinds; the machine subject otherwise. */
  sub: string;
  scopes: Set<string>;
  claims: JWTPayload;
  token: string;
  audience: 'api' | 'agent';
  channel: 'web' | 'mcp' | 'openapi' | 'storefront' | 'backoffice';
  actChain: string[];
  /** Invited agents: the admission snapshot. */
  agentId?: string;
  permissions?: string[];
  admittedAt?: number;
  /** Guests: the verified cart id, when a Guest-Session was sent and verified. */
  guestCartId?: string | null;
  shopperIp?: string | null;
  operatorId?: string;
}

export const BOTH_CHALLENGES = 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"';

export function challenge(scheme: 'Bearer' | 'DPoP', error: string): string {
  return scheme === 'DPoP' ? `DPoP error="${error}", algs="ES256"` : `Bearer error="${error}"`;
}

export function invalidToken(ctx: RequestContext, detail: string, scheme = ctx.challengeScheme): HttpError {
  return new HttpError(401, 'invalid_token', detail, { headers: { 'WWW-Authenticate': challenge(scheme, 'invalid_token') } });
}

const ASYMMETRIC_ALGS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519'];

const AUTH_RE = /^([A-Za-z]+) +([A-Za-z0-9\-._~+/]+=*)$/;

export function isConversationPath(path: string): boolean {
  return path === '/assistant/conversations' || path.startsWith('/assistant/conversations/');
}

/** The challenge scheme, chosen from the request alone (before any verification). */
export function chooseScheme(req: IncomingMessage, path: string): 'Bearer' | 'DPoP' {
  if (isConversationPath(path)) return 'DPoP';
  const auth = req.headers.authorization;
  if (!auth) return 'Bearer';
  const m = /^(\S+)\s+(\S+)/.exec(auth.trim());
  if (!m) return 'Bearer';
  if (m[1]!.toLowerCase() === 'dpop') return 'DPoP';
  if (m[1]!.toLowerCase() === 'bearer') {
    try {
      const header = decodeProtectedHeader(m[2]!);
      const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
      if (typ === 'signed-out-proxy+jwt') return 'DPoP';
      const payload = decodeJwt(m[2]!);
      const act = payload.act as { sub?: unknown } | undefined;
      if (act && typeof act === 'object' && act.sub === 'personal_agent') return 'DPoP';
    } catch {
      return 'Bearer';
    }
  }
  return 'Bearer';
}

export function freshDpopNonce(): string {
  return randomBytes(32).toString('base64url');
}

export class Authenticator {
  private readonly jwks: ReturnType<typeof createLocalJWKSet>;
  constructor(private readonly config: Config) {
    this.jwks = createLocalJWKSet(config.jwks as Parameters<typeof createLocalJWKSet>[0]);
  }

  /** Reads and verifies the access token and classifies the caller (authenticate stage). */
  async authenticate(req: IncomingMessage, ctx: RequestContext): Promise<Caller> {
    const lines = headerValues(req, 'authorization');
    if (lines.length === 0 || lines[0]!.trim() === '') {
      const header = ctx.challengeScheme === 'DPoP' ? challenge('DPoP', 'invalid_token') : BOTH_CHALLENGES;
      throw new HttpError(401, 'invalid_token', 'No access token was presented.', {
        headers: { 'WWW-Authenticate': header },
      });
    }
    if (lines.length > 1) throw invalidToken(ctx, 'The Authorization header must be sent once.');
    const m = AUTH_RE.exec(lines[0]!.trim());
    if (!m) throw invalidToken(ctx, 'The Authorization header is malformed.');
    const scheme = m[1]!.toLowerCase();
    const token = m[2]!;
    if (scheme === 'dpop') {
      throw invalidToken(ctx, 'Assistant (DPoP) session tokens are not supported by this deployment.', 'DPoP');
    }
    if (scheme !== 'bearer') throw invalidToken(ctx, 'Only the Bearer scheme is accepted.');
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw invalidToken(ctx, 'The access token is not a compact JWS.');
    }
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
    if (typ === 'signed-out-proxy+jwt') {
      throw invalidToken(ctx, 'Signed-out proxy tokens are not supported by this deployment.', 'DPoP');
    }
    let payload: JWTPayload;
    try {
      const result = await jwtVerify(token, this.jwks, {
        issuer: this.config.issuer,
        audience: [this.config.apiAudience, this.config.agentAudience],
        typ: 'at+jwt',
        algorithms: ASYMMETRIC_ALGS,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      payload = result.payload;
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'verification failed';
      throw invalidToken(ctx, `The access token was rejected (${code}).`);
    }
    const clientId = payload.client_id;
    const sub = payload.sub;
    if (typeof clientId !== 'string' || clientId === '') throw invalidToken(ctx, 'The access token has no client_id.');
    if (typeof sub !== 'string' || sub === '') throw invalidToken(ctx, 'The access token has no subject.');
    if (payload.scope !== undefined && typeof payload.scope !== 'string') {
      throw invalidToken(ctx, 'The scope claim must be a string.');
    }
    const scopes = new Set(
      String(payload.scope ?? '')
        .split(' ')
        .filter(Boolean),
    );
    const auds = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const hasApi = auds.includes(this.config.apiAudience);
    const hasAgent = auds.includes(this.config.agentAudience);
    const machine = sub === `${clientId}@clients`;
    const act = payload.act;
    const cnf = payload.cnf;
    const c = this.config.clients;
    if (cnf !== undefined) {
      throw invalidToken(ctx, 'A key-bound token must be presented with DPoP; this deployment takes none.', 'DPoP');
    }
    if (!machine && sub.endsWith('@clients')) {
      throw invalidToken(ctx, 'The machine subject does not belong to the token client.');
    }
    const base = { clientId, sub, scopes, claims: payload, token, actChain: [] as string[] };
    const needApi = (kind: string): void => {
      if (!hasApi) throw invalidToken(ctx, `A ${kind} token must be issued for the API audience.`);
    };
    switch (clientId) {
      case c.website: {
        if (machine) throw new HttpError(403, 'caller_not_allowed', 'The website client has no machine caller kind.');
        if (act !== undefined) throw invalidToken(ctx, 'A website token carrying act is never a customer.');
        needApi('customer');
        return { ...base, kind: 'customer', audience: 'api', channel: 'web' };
      }
      case c.agentProtocol: {
        if (machine) {
          throw new HttpError(403, 'caller_not_allowed', 'The agent-protocol client has no machine caller kind.');
        }
        const chain = actChain(act);
        if (!chain || chain.length === 0) throw invalidToken(ctx, 'A delegated token needs an act claim.');
        if (chain[0] !== clientId) throw invalidToken(ctx, 'The outermost actor is not the agent-protocol client.');
        const audience: 'api' | 'agent' = hasAgent ? 'agent' : 'api';
        return { ...base, actChain: chain, kind: 'delegated', audience, channel: audience === 'agent' ? 'mcp' : 'openapi' };
      }
      case c.storefront: {
        if (!machine) throw invalidToken(ctx, 'The storefront client issues machine tokens only.');
        if (act !== undefined) throw invalidToken(ctx, 'A machine token cannot carry act.');
        needApi('guest');
        return { ...base, kind: 'guest', audience: 'api', channel: 'storefront' };
      }
      case c.backoffice: {
        if (!machine) throw invalidToken(ctx, 'The backoffice client issues machine tokens only.');
        if (act !== undefined) throw invalidToken(ctx, 'A machine token cannot carry act.');
        needApi('operator');
        return { ...base, kind: 'operator', audience: 'api', channel: 'backoffice' };
      }
      case c.webAgentForwarder: {
        if (!machine) throw invalidToken(ctx, 'The web agent forwarder issues machine tokens only.');
        if (act !== undefined) throw invalidToken(ctx, 'A machine token cannot carry act.');
        needApi('forwarder');
        // The artifact decides the kind (admit stage); invited agents are the only one this deployment admits.
        return { ...base, kind: 'invited-agent', audience: 'api', channel: 'web' };
      }
      case c.mcpAgentForwarder: {
        if (!machine) throw invalidToken(ctx, 'The MCP agent forwarder issues machine tokens only.');
        throw invalidToken(ctx, 'Forwarded assistants are not supported by this deployment.');
      }
      case c.personalAgentProxy: {
        if (machine) throw new HttpError(403, 'caller_not_allowed', 'The proxy client has no machine caller kind.');
        throw invalidToken(ctx, 'Assistant tokens must use DPoP; this deployment does not support assistants.', 'DPoP');
      }
      default:
        throw invalidToken(ctx, 'The token client is not a configured client.');
    }
  }

  verifyGuestSession(value: string): string | null {
    const m = /^gs1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!m) return null;
    const id = m[1]!;
    const sig = Buffer.from(m[2]!, 'base64url');
    const ok = (key: string): boolean => {
      const mac = createHmac('sha256', Buffer.from(key, 'utf8')).update(id).digest();
      return mac.length === sig.length && timingSafeEqual(mac, sig);
    };
    if (ok(this.config.guestSessionKey)) return id;
    const prev = this.config.guestSessionKeyPrevious;
    const until = this.config.guestSessionKeyPreviousUntil;
    if (prev && until !== null && Date.now() < until && ok(prev)) return id;
    return null;
  }

  /** Verifies a signed invited-agent context (admit stage) and returns the admission snapshot. */
  async verifyInvitedAgentContext(
    ctx: RequestContext,
    forwarderToken: string,
    value: string,
  ): Promise<{ sub: string; agentId: string; permissions: string[]; admittedAt: number; jti: string }> {
    if (value.length > 8192) throw invalidToken(ctx, 'The invited-agent context is too long.');
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value)) {
      throw invalidToken(ctx, 'The invited-agent context is not a compact JWS.');
    }
    let payload: JWTPayload;
    try {
      const result = await jwtVerify(value, new TextEncoder().encode(this.config.webSessionContextKey), {
        algorithms: ['HS256'],
        typ: 'invited-agent+jwt',
        clockTolerance: 5,
        maxTokenAge: 3600,
        requiredClaims: ['sub', 'agent_id', 'permissions', 'admitted_at', 'iat', 'exp', 'jti', 'ath'],
      });
      payload = result.payload;
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'verification failed';
      throw invalidToken(ctx, `The invited-agent context was rejected (${code}).`);
    }
    const ath = payload.ath;
    const expected = createHash('sha256').update(forwarderToken).digest('base64url');
    if (typeof ath !== 'string') throw invalidToken(ctx, 'The invited-agent context has no ath.');
    const a = createHash('sha256').update(ath).digest();
    const b = createHash('sha256').update(expected).digest();
    if (!timingSafeEqual(a, b)) throw invalidToken(ctx, 'The invited-agent context is bound to another access token (ath).');
    const sub = payload.sub;
    if (typeof sub !== 'string' || sub.length < 1 || sub.length > 256 || sub.endsWith('@clients')) {
      throw invalidToken(ctx, 'The invited-agent context subject is not an account.');
    }
    const agentId = payload.agent_id;
    if (typeof agentId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(agentId)) {
      throw invalidToken(ctx, 'The invited-agent context agent_id is malformed.');
    }
    const permissions = payload.permissions;
    if (
      !Array.isArray(permissions) ||
      permissions.length > 32 ||
      !permissions.every((p) => typeof p === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(p))
    ) {
      throw invalidToken(ctx, 'The invited-agent context permissions are malformed.');
    }
    const jti = payload.jti;
    if (typeof jti !== 'string' || jti === '') throw invalidToken(ctx, 'The invited-agent context jti is malformed.');
    const admittedAt = payload.admitted_at;
    const iat = payload.iat!;
    if (typeof admittedAt !== 'number' || !Number.isInteger(admittedAt) || admittedAt > iat + 5) {
      throw invalidToken(ctx, 'The invited-agent context admitted_at is malformed.');
    }
    return { sub, agentId, permissions: [...new Set(permissions as string[])], admittedAt, jti };
  }
}

function actChain(act: unknown): string[] | null {
  const chain: string[] = [];
  let cur: unknown = act;
  while (cur !== undefined) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return null;
    const sub = (cur as { sub?: unknown }).sub;
    if (typeof sub !== 'string' || sub === '') return null;
    chain.push(sub);
    if (chain.length > 16) return null;
    cur = (cur as { act?: unknown }).act;
  }
  return chain;
}

export function requireValidation(path: string, code: string, message: string): HttpError {
  return validationError([{ path, code, message }]);
}
