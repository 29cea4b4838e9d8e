import type { FastifyRequest } from 'fastify';
import type { JWTPayload } from 'jose';
import type { Config } from './config.js';
import type { Store, Account } from './store.js';
import { ApiError, invalidToken, invalidRequest, type Scheme } from './problems.js';
import {
  type Caller,
  type CallerKind,
  type Verifier,
  headerLines,
  isConversationPath,
  unverified,
  normTyp,
  tokenScopes,
  permissionsOfScopes,
  scopesOfPermissions,
  PERMISSION_SCOPES,
} from './auth.js';

export type Group = 'catalog' | 'cart' | 'account' | 'checkout' | 'diagnostic' | 'operator' | 'conversation';

export interface OpMeta {
  id: string;
  group: Group;
  callers: CallerKind[];
  apiScopes: string[];
  agentScopes: string[];
}

export interface Actor {
  kind: CallerKind;
  origin: 'oauth' | 'assistant' | null;
  channel: string;
  account: Account | null;
  cartKey: string | null;
  permissions: string[] | null;
  scopes: string[];
  actorChain: string[];
}

export interface Ctx {
  requestId: string;
  path: string;
  scheme: Scheme;
  caller?: Caller;
  actor?: Actor;
  rawToken?: string;
}

export class Pipeline {
  private counters = new Map<string, { start: number; count: number }>();
  constructor(
    private cfg: Config,
    private store: Store,
    private verifier: Verifier,
  ) {}

  requestUrl(req: FastifyRequest): string {
    const path = req.url.split('?')[0] ?? '/';
    if (this.cfg.publicBaseUrl) {
      const base = new URL(this.cfg.publicBaseUrl);
      return `${base.origin}${base.pathname.replace(/\/+$/, '')}${path}`;
    }
    const proto = (req.raw.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    return `${proto}://${req.headers.host ?? 'localhost'}${path}`;
  }

  private audienceOk(claims: JWTPayload, allowed: ('api' | 'agent')[]): 'api' | 'agent' | null {
    const aud = Array.isArray(claims.aud) ? claims.aud : claims.aud ? [claims.aud] : [];
    for (const a of allowed) {
      const v = a === 'api' ? this.cfg.apiAudience : this.cfg.agentAudience;
      if (aud.includes(v)) return a;
    }
    return null;
  }

  /** Validates the claims of an assistant session token (direct or carried in Assistant-Subject). */
  private assistantClaims(claims: JWTPayload, signedOut: boolean, scheme: Scheme): { sid: string; jkt: string } {
    const P = this.cfg.clients.personalAgentProxy;
    if (claims.client_id !== P) throw invalidToken('The token is not an assistant token.', scheme);
    const cnf = claims.cnf as Record<string, unknown> | undefined;
    const jkt = cnf && typeof cnf === 'object' ? cnf.jkt : undefined;
    if (typeof jkt !== 'string' || jkt === '') throw invalidToken('The token is not key-bound (cnf.jkt).', scheme);
    const sid = (claims as Record<string, unknown>).sid;
    if (typeof sid !== 'string' || !/^[\x20-\x7e]{1,128}$/.test(sid))
      throw invalidToken('The token names no assistant session (sid).', scheme);
    if (!signedOut) {
      const sub = claims.sub ?? '';
      if (sub.endsWith('@clients')) throw invalidToken('An assistant token names an account.', scheme);
      const act = claims.act as Record<string, unknown> | undefined;
      if (!act || typeof act !== 'object' || act.sub !== 'personal_agent' || Object.keys(act).length !== 1) {
        throw invalidToken('An assistant token carries exactly act {sub: personal_agent}.', scheme);
      }
    }
    if (!this.audienceOk(claims, ['api', 'agent'])) throw invalidToken('Audience not accepted for assistants.', scheme);
    return { sid, jkt };
  }

  private async verifyAny(token: string, scheme: Scheme): Promise<{ claims: JWTPayload; signedOut: boolean }> {
    const u = unverified(token);
    if (u && normTyp(u.header.typ) === 'signed-out-proxy+jwt') {
      return { claims: await this.verifier.signedOutProxyToken(token), signedOut: true };
    }
    return { claims: await this.verifier.accessToken(token, scheme), signedOut: false };
  }

  /** Stage "authenticate": verifies the token and classifies the caller. */
  async authenticate(req: FastifyRequest, ctx: Ctx): Promise<Caller> {
    const lines = headerLines(req.raw, 'authorization');
    const path = ctx.path;
    if (lines.length === 0) {
      const scheme = isConversationPath(path) ? 'DPoP' : path.startsWith('/v1/') || path === '/v1' ? 'both' : ctx.scheme;
      throw invalidToken('No access token was presented.', scheme);
    }
    if (lines.length > 1) throw invalidToken('More than one Authorization header.', ctx.scheme);
    const m = /^(\S+) +(\S+)\s*$/.exec(lines[0]!.trim());
    if (!m) throw invalidToken('Malformed Authorization header.', ctx.scheme);
    const schemeName = m[1]!.toLowerCase();
    const token = m[2]!;
    if (schemeName !== 'bearer' && schemeName !== 'dpop') throw invalidToken('Unsupported authorization scheme.', ctx.scheme);
    ctx.rawToken = token;
    const { claims, signedOut } = await this.verifyAny(token, ctx.scheme);
    const C = this.cfg.clients;
    const cid = claims.client_id as string;
    const sub = claims.sub as string;
    const machine = sub.endsWith('@clients');
    const act = claims.act as Record<string, unknown> | undefined;
    const cnf = claims.cnf as Record<string, unknown> | undefined;
    const assistantLike =
      signedOut ||
      cnf !== undefined ||
      (act && typeof act === 'object' && act.sub === 'personal_agent') ||
      (cid === C.personalAgentProxy && !machine);
    const scopes = tokenScopes(claims);
    const exp = typeof claims.exp === 'number' ? claims.exp : undefined;

    if (schemeName === 'dpop') {
      if (!cnf || typeof cnf !== 'object' || typeof cnf.jkt !== 'string')
        throw invalidToken('A DPoP request needs a key-bound token.', 'DPoP');
      if (!assistantLike || cid !== C.personalAgentProxy)
        throw invalidToken('Only assistant session tokens are accepted with DPoP.', 'DPoP');
      const { sid, jkt } = this.assistantClaims(claims, signedOut, 'DPoP');
      await this.verifier.dpopProof(headerLines(req.raw, 'dpop'), req.method, this.requestUrl(req), token, jkt);
      return {
        kind: 'assistant',
        clientId: cid,
        tokenScopes: scopes,
        claims,
        sub: signedOut ? null : sub,
        via: 'direct',
        sessionId: sid,
        channel: 'assistant',
        exp,
      };
    }
    // Bearer from here on.
    if (assistantLike) throw invalidToken('An assistant session token is accepted only with DPoP and a proof.', 'DPoP');
    if (machine && sub !== `${cid}@clients`) throw invalidToken('A machine token names another client.', 'Bearer');
    const noKind = (): ApiError => new ApiError(403, 'caller_not_allowed', 'This client has no caller kind for machine tokens.');
    const wrongAud = (): ApiError => invalidToken('The token audience is not accepted for this caller kind.', 'Bearer');
    switch (cid) {
      case C.website: {
        if (machine) throw noKind();
        if (act !== undefined) throw invalidToken('A website token carrying act is an invited-agent login, never a customer.', 'Bearer');
        if (!this.audienceOk(claims, ['api'])) throw wrongAud();
        return { kind: 'customer', clientId: cid, tokenScopes: scopes, claims, sub, channel: 'web', exp };
      }
      case C.agentProtocol: {
        if (machine) throw noKind();
        if (!act || typeof act !== 'object' || act.sub !== cid)
          throw invalidToken('A delegated token needs act whose outermost subject is the agent client.', 'Bearer');
        const aud = this.audienceOk(claims, ['agent', 'api']);
        if (!aud) throw wrongAud();
        const chain: string[] = [];
        let a: unknown = act;
        while (a && typeof a === 'object' && chain.length < 16) {
          const s = (a as Record<string, unknown>).sub;
          if (typeof s !== 'string') throw invalidToken('Malformed act chain.', 'Bearer');
          chain.push(s);
          a = (a as Record<string, unknown>).act;
        }
        return {
          kind: 'delegated',
          clientId: cid,
          tokenScopes: scopes,
          claims,
          sub,
          channel: aud === 'agent' ? 'mcp' : 'openapi',
          actorChain: chain,
          exp,
        };
      }
      case C.storefront: {
        if (!machine) throw invalidToken('The storefront client issues machine tokens only.', 'Bearer');
        if (!this.audienceOk(claims, ['api'])) throw wrongAud();
        return { kind: 'guest', clientId: cid, tokenScopes: scopes, claims, sub: null, channel: 'storefront', exp };
      }
      case C.backoffice: {
        if (!machine) throw invalidToken('The backoffice client issues machine tokens only.', 'Bearer');
        if (!this.audienceOk(claims, ['api'])) throw wrongAud();
        return { kind: 'operator', clientId: cid, tokenScopes: scopes, claims, sub: null, channel: 'backoffice', exp };
      }
      case C.webAgentForwarder:
      case C.mcpAgentForwarder:
        return this.forwarded(req, ctx, cid, claims, scopes, machine, token);
      case C.personalAgentProxy:
        throw noKind();
      default:
        throw invalidToken('Unknown client_id.', 'Bearer');
    }
  }

  private async forwarded(
    req: FastifyRequest,
    _ctx: Ctx,
    cid: string,
    claims: JWTPayload,
    scopes: string[],
    machine: boolean,
    token: string,
  ): Promise<Caller> {
    const C = this.cfg.clients;
    if (!machine) throw invalidToken('Forwarders use machine tokens.', 'Bearer');
    if (claims.act !== undefined) throw invalidToken('A forwarder token carries no act.', 'Bearer');
    const web = cid === C.webAgentForwarder;
    if (!this.audienceOk(claims, web ? ['api'] : ['api', 'agent']))
      throw invalidToken('The token audience is not accepted for this caller kind.', 'Bearer');
    const ctxLines = headerLines(req.raw, 'invited-agent-context');
    const subjLines = headerLines(req.raw, 'assistant-subject');
    const cookie = this.browserCookie(req);
    const count = (ctxLines.length > 0 ? 1 : 0) + (subjLines.length > 0 ? 1 : 0) + (cookie !== null ? 1 : 0);
    if (count === 0) throw invalidToken('A forwarder must carry exactly one original artifact; none was sent.', 'Bearer');
    if (count > 1) throw invalidToken('A forwarder must carry exactly one original artifact; several were sent.', 'Bearer');
    const base = {
      clientId: cid,
      tokenScopes: scopes,
      claims,
      forwarderScopes: scopes,
      exp: typeof claims.exp === 'number' ? claims.exp : undefined,
    };
    if (web) {
      if (subjLines.length > 0) throw invalidToken('Assistant-Subject is accepted only from the agent-protocol forwarder.', 'Bearer');
      if (ctxLines.length > 0) {
        if (ctxLines.length !== 1 || ctxLines[0]!.includes(',') || ctxLines[0]!.trim() === '')
          throw invalidToken('Exactly one invited-agent context is required.', 'Bearer');
        const ic = await this.verifier.invitedAgentContext(ctxLines[0]!.trim(), token);
        return {
          ...base,
          kind: 'invited-agent',
          sub: ic.sub,
          agentId: ic.agentId,
          permissions: ic.permissions,
          admittedAt: ic.admittedAt,
          channel: 'web',
          exp: Math.min(ic.exp, base.exp ?? ic.exp),
        };
      }
      const sid = this.verifier.browserSession(cookie!);
      if (sid === null) throw invalidToken('The assistant browser session is not valid.', 'Bearer');
      return { ...base, kind: 'assistant', sub: null, via: 'browser', sessionId: sid, channel: 'web' };
    }
    // MCP agent forwarder
    if (ctxLines.length > 0) throw invalidToken('Invited-agent contexts are accepted only with the web-agent forwarder.', 'Bearer');
    if (cookie !== null) throw invalidToken('Browser sessions are accepted only with the web-agent forwarder.', 'Bearer');
    if (subjLines.length !== 1 || subjLines[0]!.includes(',')) throw invalidToken('Exactly one Assistant-Subject is required.', 'Bearer');
    const subject = subjLines[0]!.trim().replace(/^(DPoP|Bearer)\s+/i, '');
    let verified: { claims: JWTPayload; signedOut: boolean };
    try {
      verified = await this.verifyAny(subject, 'Bearer');
    } catch {
      throw invalidToken('The Assistant-Subject token was rejected.', 'Bearer');
    }
    const { sid } = this.assistantClaims(verified.claims, verified.signedOut, 'Bearer');
    return { ...base, kind: 'assistant', sub: null, via: 'mcp-forwarder', sessionId: sid, channel: 'mcp' };
  }

  browserCookie(req: FastifyRequest): string | null {
    const raw = headerLines(req.raw, 'cookie').join('; ');
    if (!raw) return null;
    const name = this.cfg.browserSessionCookie;
    for (const part of raw.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
    return null;
  }

  /** Stage "admit caller": only headers that fit the caller kind. */
  admit(req: FastifyRequest, ctx: Ctx, caller: Caller, op: OpMeta): void {
    const present = (n: string): boolean => headerLines(req.raw, n).length > 0;
    const issue = (name: string, msg: string): ApiError =>
      invalidRequest(
        [{ path: `headers.${name}`, code: 'header_not_allowed', message: msg }],
        `The ${name} header is not accepted from this caller.`,
      );
    if (caller.kind !== 'guest') {
      if (present('guest-session')) throw issue('Guest-Session', 'Only guest callers send Guest-Session.');
      if (present('shopper-ip')) throw issue('Shopper-IP', 'Only guest callers send Shopper-IP.');
    }
    if (caller.kind !== 'operator' && present('operator')) throw issue('Operator', 'Only operators send Operator.');
    const forwarded = caller.kind === 'invited-agent' || (caller.kind === 'assistant' && caller.via !== 'direct');
    if (!forwarded) {
      if (present('invited-agent-context'))
        throw issue('Invited-Agent-Context', 'Only the web-agent forwarder sends an invited-agent context.');
      if (present('assistant-subject')) throw issue('Assistant-Subject', 'Only the agent-protocol forwarder sends Assistant-Subject.');
      if (this.browserCookie(req) !== null)
        throw issue('Cookie', `The ${this.cfg.browserSessionCookie} cookie is sent only by the web-agent forwarder.`);
    }
    if (caller.kind === 'operator') {
      const ol = headerLines(req.raw, 'operator');
      if (ol.length !== 1 || !/^[\x21-\x7e][\x20-\x7e]{0,255}$/.test(ol[0]!.trim())) {
        throw invalidRequest([
          {
            path: 'headers.Operator',
            code: ol.length === 0 ? 'required' : 'invalid',
            message: 'Exactly one Operator attribution header (1-256 printable characters) is required.',
          },
        ]);
      }
      caller.operatorId = ol[0]!.trim();
    }
    if (caller.kind === 'guest') {
      const ipl = headerLines(req.raw, 'shopper-ip');
      if (ipl.length > 1 || (ipl[0] !== undefined && (ipl[0].length > 64 || ipl[0].trim() === ''))) {
        throw invalidRequest([
          { path: 'headers.Shopper-IP', code: 'too_long', message: 'Shopper-IP is one value of at most 64 characters.' },
        ]);
      }
      caller.shopperIp = ipl[0] !== undefined ? normalizeIp(ipl[0]) : null;
      caller.guestCartId = null;
      if (op.group === 'cart') {
        const gl = headerLines(req.raw, 'guest-session');
        if (gl.length > 1)
          throw new ApiError(401, 'invalid_guest_session', 'More than one Guest-Session header.', {
            challenge: 'invalid_token',
            challengeScheme: 'Bearer',
          });
        if (gl.length === 1) caller.guestCartId = this.verifier.guestSession(gl[0]!.trim());
      }
    }
    void ctx;
  }

  private ensureActive(account: Account, ctx: Ctx): void {
    if (account.state !== 'active') {
      throw new ApiError(401, 'account_access_ended', 'Access to this account has ended.', {
        challenge: 'invalid_token',
        challengeScheme: ctx.scheme,
      });
    }
  }

  /** Stage "actor": live authority (lifecycle, delegation, assistant sessions). */
  actor(ctx: Ctx, caller: Caller, op: OpMeta): Actor {
    const scopes = caller.tokenScopes;
    switch (caller.kind) {
      case 'customer':
      case 'delegated': {
        const account = this.store.account(caller.sub!, caller.claims as { name?: unknown; email?: unknown });
        this.ensureActive(account, ctx);
        return {
          kind: caller.kind,
          origin: caller.kind === 'delegated' ? 'oauth' : null,
          channel: caller.channel ?? 'web',
          account,
          cartKey: `account:${account.sub}`,
          permissions: null,
          scopes,
          actorChain: caller.actorChain ?? [],
        };
      }
      case 'invited-agent': {
        const account = this.store.account(caller.sub!, {});
        this.ensureActive(account, ctx);
        const rec = this.store.authorizations.get(`${account.sub}\0${caller.agentId}`);
        if (rec && rec.decision === 'revoked') throw invalidToken('The account revoked this agent.', 'Bearer');
        return {
          kind: 'invited-agent',
          origin: 'oauth',
          channel: 'web',
          account,
          cartKey: `account:${account.sub}`,
          permissions: caller.permissions ?? [],
          scopes: scopesOfPermissions(caller.permissions ?? []),
          actorChain: [caller.agentId!],
        };
      }
      case 'guest':
        return {
          kind: 'guest',
          origin: null,
          channel: 'storefront',
          account: null,
          cartKey: caller.guestCartId ? `guest:${caller.guestCartId}` : null,
          permissions: null,
          scopes,
          actorChain: [],
        };
      case 'operator':
        return {
          kind: 'operator',
          origin: null,
          channel: 'backoffice',
          account: null,
          cartKey: null,
          permissions: null,
          scopes,
          actorChain: [],
        };
      case 'assistant': {
        const scheme: Scheme = caller.via === 'direct' ? 'DPoP' : 'Bearer';
        const session = this.store.sessions.get(caller.sessionId!);
        if (!session) throw invalidToken('Unknown assistant session.', scheme);
        if (op.group === 'conversation' && caller.via !== 'direct') {
          throw new ApiError(
            403,
            'caller_not_allowed',
            'Conversations need the assistant’s own DPoP session; forwarded assistants and browser sessions are refused.',
          );
        }
        caller.agentClientId = session.clientId;
        const rec =
          session.accountSub && session.agentId ? this.store.authorizations.get(`${session.accountSub}\0${session.agentId}`) : undefined;
        let signedIn = session.state === 'signed_in' && session.accountSub !== null && !(rec && rec.decision === 'revoked');
        let perms: string[] = [];
        if (caller.via === 'direct') {
          if (caller.sub === null || caller.sub !== session.accountSub) signedIn = false;
          if (signedIn) perms = permissionsOfScopes(caller.tokenScopes).filter((p) => session.scopes.includes(p));
        } else if (caller.via === 'browser') {
          if (signedIn) perms = session.scopes.filter((p) => p in PERMISSION_SCOPES);
        } else {
          signedIn = false; // a forwarded session token acts signed out
        }
        caller.signedIn = signedIn;
        let account: Account | null = null;
        if (signedIn) {
          account = this.store.account(session.accountSub!, {});
          this.ensureActive(account, ctx);
        }
        return {
          kind: 'assistant',
          origin: 'assistant',
          channel: caller.channel ?? 'assistant',
          account,
          cartKey: account ? `account:${account.sub}` : `session:${session.id}`,
          permissions: perms,
          scopes: scopesOfPermissions(perms),
          actorChain: ['personal_agent'],
        };
      }
    }
  }

  /** Stage "guard": declared callers, forwarder authority, scopes. */
  guard(ctx: Ctx, caller: Caller, actor: Actor, op: OpMeta): void {
    if (!op.callers.includes(caller.kind)) {
      throw new ApiError(403, 'caller_not_allowed', `Callers of kind ${caller.kind} may not use ${op.id}.`);
    }
    const insufficient = (scope: string): ApiError => new ApiError(403, 'insufficient_scope', `The scope ${scope} is required.`, { scope });
    if (caller.kind === 'customer' || caller.kind === 'delegated' || caller.kind === 'guest' || caller.kind === 'operator') {
      for (const s of op.apiScopes) if (!caller.tokenScopes.includes(s)) throw insufficient(s);
      return;
    }
    const forwarded = caller.kind === 'invited-agent' || caller.via !== 'direct';
    if (forwarded && !(caller.forwarderScopes ?? []).includes('agent:forward')) throw insufficient('agent:forward');
    if (caller.kind === 'assistant' && !['catalog', 'cart', 'diagnostic'].includes(op.group) && !caller.signedIn) {
      const scheme: Scheme = caller.via === 'direct' ? 'DPoP' : 'Bearer';
      throw new ApiError(403, 'sign_in_required', 'This operation needs an assistant session signed in to the account.', {
        challenge: 'sign_in_required',
        challengeScheme: scheme,
      });
    }
    const perms = actor.permissions ?? [];
    const unlocked = scopesOfPermissions(perms);
    for (const s of op.apiScopes) {
      if (!unlocked.includes(s)) {
        const p = Object.entries(PERMISSION_SCOPES).find(([, v]) => v.includes(s))?.[0] ?? s;
        throw insufficient(p);
      }
    }
    for (const p of op.agentScopes) if (!perms.includes(p)) throw insufficient(p);
    void ctx;
  }

  private hit(key: string, budget: number, windowSec: number, now: number): number | null {
    const w = windowSec * 1000;
    let c = this.counters.get(key);
    if (!c || now - c.start >= w) {
      c = { start: now, count: 0 };
      this.counters.set(key, c);
    }
    if (c.count >= budget) return Math.max(1, Math.ceil((c.start + w - now) / 1000));
    c.count += 1;
    return null;
  }

  /** Stage "rate limit": guest counters per operation id; assistant session and client budgets. */
  rateLimit(caller: Caller, op: OpMeta): void {
    const now = Date.now();
    const limited = (retry: number, policy: string): ApiError =>
      new ApiError(429, 'rate_limited', 'Too many requests; retry later.', {
        headers: { 'Retry-After': String(retry), 'RateLimit-Policy': policy },
      });
    if (caller.kind === 'guest') {
      const who = caller.shopperIp ?? (caller.guestCartId ? `cart:${caller.guestCartId}` : 'anonymous');
      const r = this.hit(`g|${op.id}|${who}`, this.cfg.guestBudget, this.cfg.guestWindowSeconds, now);
      if (r !== null) throw limited(r, `"guest";q=${this.cfg.guestBudget};w=${this.cfg.guestWindowSeconds}`);
    }
    if (caller.kind === 'assistant') {
      const w = this.cfg.assistantWindowSeconds;
      const r1 = this.hit(`as|${caller.sessionId}`, this.cfg.assistantSessionBudget, w, now);
      if (r1 !== null) throw limited(r1, `"assistant-session";q=${this.cfg.assistantSessionBudget};w=${w}`);
      const r2 = this.hit(`ac|${caller.agentClientId ?? caller.clientId}`, this.cfg.assistantClientBudget, w, now);
      if (r2 !== null) throw limited(r2, `"assistant-client";q=${this.cfg.assistantClientBudget};w=${w}`);
    }
  }
}

export function normalizeIp(v: string): string {
  let s = v.trim().toLowerCase();
  if (s.startsWith('[') && s.includes(']')) s = s.slice(1, s.indexOf(']'));
  if (s.startsWith('::ffff:') && /^\d+\.\d+\.\d+\.\d+$/.test(s.slice(7))) s = s.slice(7);
  return s;
}
