import { createHash, createHmac, createPublicKey, randomBytes, timingSafeEqual, verify as cryptoVerify } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, jwtVerify, decodeProtectedHeader, decodeJwt, calculateJwkThumbprint, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import type { Config } from './config.js';
import type { Store } from './store.js';
import { ApiError, invalidToken, invalidRequest, type Scheme } from './problems.js';

export type CallerKind = 'customer' | 'delegated' | 'guest' | 'invited-agent' | 'operator' | 'assistant';

export interface Caller {
  kind: CallerKind;
  clientId: string;
  tokenScopes: string[];
  claims: JWTPayload;
  /** account subject named by the credential (user kinds) */
  sub: string | null;
  channel?: 'web' | 'mcp' | 'openapi' | 'backoffice' | 'storefront' | 'assistant';
  actorChain?: string[];
  operatorId?: string;
  guestCartId?: string | null;
  shopperIp?: string | null;
  agentId?: string;
  permissions?: string[];
  admittedAt?: number;
  forwarderScopes?: string[];
  /** assistant: how it came */
  via?: 'direct' | 'mcp-forwarder' | 'browser';
  sessionId?: string;
  signedIn?: boolean;
  agentClientId?: string;
  /** seconds since epoch at which the credential expires */
  exp?: number;
}

export const PERMISSION_SCOPES: Record<string, string[]> = {
  'assistant:read': ['account:read', 'payment_methods:read', 'orders:read'],
  'assistant:write': ['account:write', 'orders:write'],
  checkout: ['checkout'],
};
export const BASE_SCOPES = ['catalog:read', 'cart:read', 'cart:write'];

export const b64url = (b: Buffer): string => b.toString('base64url');
export const sha256b64 = (s: string): string => b64url(createHash('sha256').update(s).digest());

export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export function headerLines(raw: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  const lower = name.toLowerCase();
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]!.toLowerCase() === lower) out.push(raw.rawHeaders[i + 1] ?? '');
  }
  return out;
}

export const isConversationPath = (path: string): boolean =>
  path === '/assistant/conversations' || path.startsWith('/assistant/conversations/');

export function unverified(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } | null {
  try {
    const header = decodeProtectedHeader(token) as Record<string, unknown>;
    let payload: Record<string, unknown> = {};
    try {
      payload = decodeJwt(token) as Record<string, unknown>;
    } catch {
      payload = {};
    }
    return { header, payload };
  } catch {
    return null;
  }
}

export const normTyp = (t: unknown): string | null => (typeof t === 'string' ? t.toLowerCase().replace(/^application\//, '') : null);

function marksAssistant(token: string, cfg: Config): boolean {
  const u = unverified(token);
  if (!u) return false;
  if (normTyp(u.header.typ) === 'signed-out-proxy+jwt') return true;
  const act = u.payload.act as Record<string, unknown> | undefined;
  if (act && typeof act === 'object' && act.sub === 'personal_agent') return true;
  const cnf = u.payload.cnf as Record<string, unknown> | undefined;
  if (cnf && typeof cnf === 'object' && 'jkt' in cnf) return true;
  const sub = u.payload.sub;
  if (u.payload.client_id === cfg.clients.personalAgentProxy && !(typeof sub === 'string' && sub.endsWith('@clients'))) return true;
  return false;
}

/** Challenge scheme, chosen from the request alone, before any verification. */
export function chooseScheme(path: string, authorization: string | undefined, cfg: Config): Scheme {
  if (isConversationPath(path)) return 'DPoP';
  if (!authorization) return 'Bearer';
  const m = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (!m) return 'Bearer';
  if (m[1]!.toLowerCase() === 'dpop') return 'DPoP';
  if (m[1]!.toLowerCase() === 'bearer' && marksAssistant(m[2]!, cfg)) return 'DPoP';
  return 'Bearer';
}

// ---------------------------------------------------------------- nonces
export class NonceIssuer {
  private key = randomBytes(32);
  constructor(private lifetime: number) {}
  issue(nowSec = Math.floor(Date.now() / 1000)): string {
    const head = Buffer.alloc(16);
    head.writeUInt32BE(nowSec >>> 0, 0);
    randomBytes(12).copy(head, 4);
    const mac = createHmac('sha256', this.key).update('fastify-dpop-nonce.1.').update(head).digest().subarray(0, 16);
    return b64url(Buffer.concat([head, mac]));
  }
  valid(nonce: string, nowSec = Math.floor(Date.now() / 1000)): boolean {
    if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return false;
    const buf = Buffer.from(nonce, 'base64url');
    if (buf.length !== 32) return false;
    const head = buf.subarray(0, 16);
    const mac = createHmac('sha256', this.key).update('fastify-dpop-nonce.1.').update(head).digest().subarray(0, 16);
    if (!timingSafeEqual(mac, buf.subarray(16))) return false;
    const issued = head.readUInt32BE(0);
    return nowSec - issued <= this.lifetime && issued - nowSec <= 5;
  }
}

// ---------------------------------------------------------------- verifiers
export class Verifier {
  private jwks: ReturnType<typeof createLocalJWKSet>;
  nonces: NonceIssuer;
  constructor(
    private cfg: Config,
    private store: Store,
  ) {
    this.jwks = createLocalJWKSet(cfg.jwks);
    this.nonces = new NonceIssuer(cfg.dpopNonceLifetimeSeconds);
  }

  async accessToken(token: string, scheme: Scheme): Promise<JWTPayload> {
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) throw invalidToken('The token is not a compact JWS.', scheme);
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.cfg.issuer,
        audience: [this.cfg.apiAudience, this.cfg.agentAudience],
        typ: 'at+jwt',
        algorithms: ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'],
        requiredClaims: ['exp', 'iat', 'client_id'],
      });
      if (typeof payload.client_id !== 'string' || payload.client_id === '') throw invalidToken('client_id is missing.', scheme);
      if (typeof payload.sub !== 'string' || payload.sub === '') throw invalidToken('sub is missing.', scheme);
      return payload;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if (e instanceof joseErrors.JOSEError) throw invalidToken(`The access token was rejected (${e.code}).`, scheme);
      throw invalidToken('The access token was rejected.', scheme);
    }
  }

  async signedOutProxyToken(token: string): Promise<JWTPayload> {
    const secret = this.cfg.proxyIdpSecret;
    if (!secret) throw invalidToken('Signed-out proxy tokens are not accepted here.', 'DPoP');
    const u = unverified(token);
    if (!u || 'crit' in u.header) throw invalidToken('The signed-out proxy token is malformed.', 'DPoP');
    try {
      const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        typ: 'signed-out-proxy+jwt',
        audience: [this.cfg.apiAudience, this.cfg.agentAudience],
        requiredClaims: ['exp', 'iat', 'sid', 'cnf', 'client_id', 'sub'],
        clockTolerance: 0,
      });
      const p = this.cfg.clients.personalAgentProxy;
      if (payload.client_id !== p || payload.sub !== `${p}@clients`) throw new Error('client');
      if (payload.act !== undefined) {
        const act = payload.act as Record<string, unknown>;
        if (!act || typeof act !== 'object' || act.sub !== 'personal_agent' || Object.keys(act).length !== 1) throw new Error('act');
      }
      if (payload.scope !== undefined && typeof payload.scope !== 'string') throw new Error('scope');
      return payload;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw invalidToken('The signed-out proxy token was rejected.', 'DPoP');
    }
  }

  guestSession(value: string): string {
    const m = /^gs1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(value);
    const fail = (): ApiError =>
      new ApiError(401, 'invalid_guest_session', 'The guest session is not valid.', {
        challenge: 'invalid_token',
        challengeScheme: 'Bearer',
      });
    if (!m) throw fail();
    const id = m[1]!;
    const sig = m[2]!;
    const mac = (key: string): string => b64url(createHmac('sha256', Buffer.from(key, 'utf8')).update(id).digest());
    if (safeEqual(mac(this.cfg.guestSessionKey), sig)) return id;
    const prev = this.cfg.guestSessionKeyPrevious;
    const until = this.cfg.guestSessionKeyPreviousUntil;
    if (prev && until && !Number.isNaN(until.getTime()) && Date.now() < until.getTime() && safeEqual(mac(prev), sig)) return id;
    throw fail();
  }

  browserSession(value: string): string | null {
    const prefix = this.cfg.browserSessionPrefix;
    if (!value.startsWith(`${prefix}.`)) return null;
    const last = value.lastIndexOf('.');
    if (last <= prefix.length) return null;
    const sid = value.slice(prefix.length + 1, last);
    const sig = value.slice(last + 1);
    if (!/^[\x21-\x7e]{1,128}$/.test(sid) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return null;
    const mac = b64url(createHmac('sha256', Buffer.from(this.cfg.webSessionContextKey, 'utf8')).update(`${prefix}.${sid}`).digest());
    return safeEqual(mac, sig) ? sid : null;
  }

  async invitedAgentContext(
    value: string,
    forwarderToken: string,
  ): Promise<{ sub: string; agentId: string; permissions: string[]; admittedAt: number; exp: number }> {
    const bad = (d: string): ApiError => invalidToken(`Invited-agent context refused: ${d}.`, 'Bearer');
    if (value.length === 0 || value.length > 8192) throw bad('size');
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value)) throw bad('not a compact JWS');
    const u = unverified(value);
    if (!u || 'crit' in u.header) throw bad('header');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(value, new TextEncoder().encode(this.cfg.webSessionContextKey), {
        algorithms: ['HS256'],
        typ: 'invited-agent+jwt',
        clockTolerance: 5,
        maxTokenAge: 3600,
        requiredClaims: ['sub', 'agent_id', 'permissions', 'admitted_at', 'iat', 'exp', 'jti', 'ath'],
      }));
    } catch (e) {
      throw bad(e instanceof joseErrors.JOSEError ? e.code : 'signature');
    }
    if (typeof payload.ath !== 'string' || !safeEqual(payload.ath, sha256b64(forwarderToken)))
      throw bad('bound to another access token (ath)');
    const sub = payload.sub;
    if (typeof sub !== 'string' || sub.length < 1 || sub.length > 256 || sub.endsWith('@clients')) throw bad('sub');
    const agentId = payload.agent_id;
    if (typeof agentId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(agentId)) throw bad('agent_id');
    const perms = payload.permissions;
    if (
      !Array.isArray(perms) ||
      perms.length > 32 ||
      !perms.every((p) => typeof p === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(p))
    )
      throw bad('permissions');
    if (typeof payload.jti !== 'string' || payload.jti === '') throw bad('jti');
    const admittedAt = payload.admitted_at;
    if (typeof admittedAt !== 'number' || !Number.isInteger(admittedAt) || admittedAt > (payload.iat ?? 0) + 5) throw bad('admitted_at');
    return { sub, agentId, permissions: [...new Set(perms as string[])], admittedAt, exp: payload.exp ?? 0 };
  }

  /** RFC 9449 proof checks, in a fixed order; the first failure answers. */
  async dpopProof(lines: string[], method: string, url: string, token: string, jkt: string): Promise<void> {
    const fail = (d: string): ApiError =>
      new ApiError(401, 'invalid_dpop_proof', `DPoP proof refused: ${d}.`, { challenge: 'invalid_dpop_proof', challengeScheme: 'DPoP' });
    if (lines.length !== 1) throw fail(lines.length === 0 ? 'no DPoP header' : 'more than one DPoP header');
    const proof = lines[0]!.trim();
    if (proof.includes(',')) throw fail('more than one proof');
    if (proof.length === 0 || proof.length > 8192) throw fail('size');
    const parts = proof.split('.');
    if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) throw fail('not a compact JWS');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw fail('header or claims are not JSON');
    }
    if (!header || typeof header !== 'object' || Array.isArray(header) || !claims || typeof claims !== 'object' || Array.isArray(claims))
      throw fail('header or claims are not objects');
    if (header.typ !== 'dpop+jwt') throw fail('typ');
    if (header.alg !== 'ES256') throw fail('alg');
    if ('crit' in header || 'b64' in header) throw fail('crit/b64');
    const jwk = header.jwk as Record<string, unknown> | undefined;
    if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk) || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || 'd' in jwk) throw fail('jwk');
    if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(jwk.x) || !/^[A-Za-z0-9_-]{43}$/.test(jwk.y))
      throw fail('jwk coordinates');
    if (jwk.alg !== undefined && jwk.alg !== 'ES256') throw fail('jwk alg');
    let key;
    try {
      key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
    } catch {
      throw fail('jwk is not a P-256 point');
    }
    const sig = Buffer.from(parts[2]!, 'base64url');
    if (sig.length !== 64) throw fail('signature');
    let ok: boolean;
    try {
      ok = cryptoVerify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key, dsaEncoding: 'ieee-p1363' }, sig);
    } catch {
      ok = false;
    }
    if (!ok) throw fail('signature');
    const { jti, htm, htu, iat, nonce, ath } = claims;
    if (typeof jti !== 'string' || jti.length < 1 || jti.length > 256) throw fail('jti');
    if (typeof htm !== 'string' || typeof htu !== 'string' || typeof iat !== 'number' || !Number.isFinite(iat)) throw fail('claims');
    if (nonce !== undefined && typeof nonce !== 'string') throw fail('nonce');
    if (ath !== undefined && typeof ath !== 'string') throw fail('ath');
    if (htm !== method) throw fail('htm');
    const normHtu = normalizeHtu(htu);
    if (normHtu === null || normHtu !== normalizeHtu(url)) throw fail('htu');
    if (typeof ath !== 'string' || ath !== sha256b64(token)) throw fail('ath');
    const thumb = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, 'sha256');
    if (thumb !== jkt) throw fail('key is not the one the token is bound to (cnf.jkt)');
    const now = Math.floor(Date.now() / 1000);
    if (typeof nonce !== 'string' || !this.nonces.valid(nonce, now)) {
      throw new ApiError(401, 'use_dpop_nonce', 'A current DPoP-Nonce is required in the proof.', {
        challenge: 'use_dpop_nonce',
        challengeScheme: 'DPoP',
      });
    }
    const w = this.cfg.dpopIatWindowSeconds;
    if (Math.abs(now - iat) > w) throw fail('iat outside the accepted window');
    const replayKey = createHash('sha256').update(`${thumb}\0${jti}`).digest('base64url');
    if (this.store.dpopProofs.has(replayKey)) throw fail('proof already used');
    this.store.dpopProofs.set(replayKey, Math.floor(iat) + w + 60);
  }
}

export function normalizeHtu(u: string): string | null {
  if (/\s/.test(u)) return null;
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  const port =
    url.port && !((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443'))
      ? `:${url.port}`
      : '';
  return `${url.protocol}//${url.hostname.toLowerCase()}${port}${url.pathname}`;
}

export function tokenScopes(claims: JWTPayload): string[] {
  const s = claims.scope;
  if (typeof s === 'string') return s.split(/\s+/).filter(Boolean);
  const scp = (claims as Record<string, unknown>).scp;
  if (Array.isArray(scp)) return scp.filter((x): x is string => typeof x === 'string');
  return [];
}

/** Permissions a set of API scopes holds: all the scopes a permission unlocks must be present. */
export function permissionsOfScopes(scopes: string[]): string[] {
  return Object.entries(PERMISSION_SCOPES)
    .filter(([, needed]) => needed.every((s) => scopes.includes(s)))
    .map(([p]) => p);
}

export function scopesOfPermissions(perms: string[]): string[] {
  const out = new Set(BASE_SCOPES);
  for (const p of perms) for (const s of PERMISSION_SCOPES[p] ?? []) out.add(s);
  return [...out];
}

export { invalidRequest };
