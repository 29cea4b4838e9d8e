// The plainhttp server: node:http, in memory. Request processing follows the spec's stages:
// request -> route -> decode -> authenticate -> admit caller -> actor -> guard -> rate limit -> validation -> handler.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Authenticator, chooseScheme, challenge, freshDpopNonce, invalidToken, isConversationPath, type Caller } from './auth.js';
import { loadConfig, type Config } from './config.js';
import {
  HttpError,
  headerValues,
  sendEmpty,
  sendJson,
  sendProblem,
  validationError,
  zodIssues,
  type Issue,
  type RequestContext,
} from './http.js';
import { BODY_CAP, BodyReader, decodeJson } from './body.js';
import { handleInternal, handleWebhook, INTERNAL_ROUTES } from './internal.js';
import { buildDocuments } from './openapi.js';
import { BASE_API_SCOPES, PERMISSION_SCOPES, operations, weakEtag, type Operation } from './operations.js';
import { Store } from './store.js';

export const CONVERSATION_WRITE_CAP = 64 * 1024;

const TRACEPARENT_RE = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Headers that carry a caller artifact, and the caller kinds each is admitted from. */
const ARTIFACT_HEADERS: Record<string, string[]> = {
  'guest-session': ['guest'],
  'shopper-ip': ['guest'],
  operator: ['operator'],
  'invited-agent-context': ['invited-agent'],
  'assistant-subject': [],
  'assistant-browser-session': [],
};

interface Route {
  method: string;
  segments: string[];
  op: Operation;
}

function compile(path: string): string[] {
  return path.split('/').slice(1);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith('{')) {
      if (v === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(v);
      } catch {
        return null;
      }
      params[p.slice(1, -1)] = decoded;
    } else if (p !== v) return null;
  }
  return params;
}

interface RateWindow {
  start: number;
  count: number;
}

export class App {
  readonly store = new Store();
  readonly auth: Authenticator;
  private readonly routes: Route[];
  private readonly documents: { general: string; assistant: string };
  private readonly rate = new Map<string, RateWindow>();

  constructor(readonly config: Config) {
    this.auth = new Authenticator(config);
    if (config.seedPath) this.store.loadSeed(config.seedPath);
    this.routes = operations.map((op) => ({ method: op.method, segments: compile(op.path), op }));
    const docs = buildDocuments(config);
    this.documents = { general: JSON.stringify(docs.general), assistant: JSON.stringify(docs.assistant) };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctx: RequestContext = {
      requestId: randomUUID(),
      traceparent: null,
      dpopNonce: null,
      challengeScheme: 'Bearer',
      started: Date.now(),
    };
    try {
      const tp = headerValues(req, 'traceparent');
      if (tp.length === 1 && TRACEPARENT_RE.test(tp[0]!.trim())) ctx.traceparent = tp[0]!.trim();
      const rawUrl = req.url ?? '/';
      let path: string;
      let search: URLSearchParams;
      try {
        const u = new URL(rawUrl.startsWith('/') ? rawUrl : `/${rawUrl}`, 'http://service.invalid');
        path = u.pathname;
        search = u.searchParams;
      } catch {
        throw new HttpError(400, 'invalid_request', 'The request target is malformed.');
      }
      ctx.challengeScheme = chooseScheme(req, path);
      if (ctx.challengeScheme === 'DPoP') ctx.dpopNonce = freshDpopNonce();
      await this.dispatch(req, res, ctx, path, search);
    } catch (e) {
      if (e instanceof HttpError) {
        if (e.status >= 500 && e.code === 'internal_error') this.logError(ctx, e);
        sendProblem(res, ctx, this.config.docsUrl, e);
      } else {
        this.logError(ctx, e);
        sendProblem(res, ctx, this.config.docsUrl, new HttpError(500, 'internal_error'));
      }
    }
  }

  private logError(ctx: RequestContext, e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'api_error', request_id: ctx.requestId, error: message })}\n`);
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    path: string,
    search: URLSearchParams,
  ): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const effective = method === 'HEAD' ? 'GET' : method;

    // Public and special routes.
    if (path === '/health') {
      if (effective !== 'GET') throw methodNotAllowed(['GET', 'HEAD']);
      await BodyReader.read(req, BODY_CAP);
      return sendJson(res, ctx, 200, { status: 'ok' });
    }
    if (path === '/openapi.json' || path === '/assistant/openapi.json') {
      if (effective !== 'GET') throw methodNotAllowed(['GET', 'HEAD']);
      await BodyReader.read(req, BODY_CAP);
      const text = path === '/openapi.json' ? this.documents.general : this.documents.assistant;
      res.setHeader('Cache-Control', 'public, max-age=300');
      return sendJson(res, ctx, 200, JSON.parse(text) as unknown);
    }
    if (path === '/webhooks/stripe') {
      if (method !== 'POST') throw methodNotAllowed(['POST']);
      return handleWebhook(this, req, res, ctx);
    }
    const internal = INTERNAL_ROUTES.find((r) => matchSegments(compile(r.path), path.split('/').slice(1)) !== null);
    if (internal) {
      if (method !== 'POST') throw methodNotAllowed(['POST']);
      const params = matchSegments(compile(internal.path), path.split('/').slice(1))!;
      return handleInternal(this, internal, params, req, res, ctx);
    }
    if (isConversationPath(path)) return this.conversation(req, res, ctx, path, method);

    // Operations.
    const parts = path.split('/').slice(1);
    let matched: { op: Operation; params: Record<string, string> } | null = null;
    const allowed = new Set<string>();
    for (const r of this.routes) {
      const params = matchSegments(r.segments, parts);
      if (!params) continue;
      allowed.add(r.method);
      if (r.method === effective) matched = { op: r.op, params };
    }
    if (!matched) {
      if (allowed.size > 0) {
        if (allowed.has('GET')) allowed.add('HEAD');
        throw methodNotAllowed([...allowed]);
      }
      await BodyReader.drain(req);
      throw new HttpError(404, 'not_found', 'No route matches this path.');
    }
    await this.runOperation(req, res, ctx, matched.op, matched.params, search);
  }

  private async runOperation(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    op: Operation,
    rawParams: Record<string, string>,
    search: URLSearchParams,
  ): Promise<void> {
    // decode
    const raw = await BodyReader.read(req, BODY_CAP);
    const decoded = op.method === 'GET' ? { present: false, value: undefined } : decodeJson(req, raw);

    // authenticate
    const caller = await this.auth.authenticate(req, ctx);

    // admit caller
    await this.admit(req, ctx, caller, op);

    // actor
    const account = this.resolveActor(ctx, caller);

    // guard
    this.guard(caller, op);

    // rate limit
    if (caller.kind === 'guest') this.rateLimitGuest(op, caller);

    if (op.guestSession === 'write' && caller.kind === 'guest' && !caller.guestCartId) {
      throw new HttpError(400, 'guest_session_required', 'Guest cart writes need a Guest-Session.');
    }

    // input validation
    const issues: Issue[] = [];
    const params = op.params.safeParse(rawParams);
    if (!params.success) issues.push(...zodIssues('params', params.error));
    const queryObj: Record<string, string> = {};
    const dupes = new Set<string>();
    for (const [k, v] of search) {
      if (k in queryObj) dupes.add(k);
      queryObj[k] = v;
    }
    for (const d of dupes) issues.push({ path: `query.${d}`, code: 'duplicate', message: 'Given more than once.' });
    const query = op.query.safeParse(queryObj);
    if (!query.success) issues.push(...zodIssues('query', query.error));
    let body: unknown = undefined;
    if (op.body) {
      if (!decoded.present) {
        if (op.bodyRequired) issues.push({ path: 'body', code: 'required', message: 'A JSON body is required.' });
      } else {
        const b = op.body.safeParse(decoded.value);
        if (!b.success) issues.push(...zodIssues('body', b.error));
        else body = b.data;
      }
    } else if (decoded.present) {
      issues.push({ path: 'body', code: 'unexpected_body', message: 'This operation takes no body.' });
    }
    if (issues.length > 0) throw validationError(issues);

    let cartKey: string | null = null;
    if (caller.kind === 'guest') cartKey = caller.guestCartId ? `guest:${caller.guestCartId}` : null;
    else if (account) cartKey = `account:${account.sub}`;

    const result = op.handler({
      caller,
      account,
      cartKey,
      params: params.data as Record<string, any>,
      query: query.data as Record<string, any>,
      body,
      req,
      store: this.store,
    });

    if (result.status === 204) return sendEmpty(res, ctx, 204, result.headers);
    if (result.cacheable) {
      const text = JSON.stringify(result.body);
      const etag = weakEtag(text);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'private, no-cache');
      if (etagMatches(req.headers['if-none-match'], etag)) return sendEmpty(res, ctx, 304);
    }
    sendJson(res, ctx, result.status, result.body, result.headers);
  }

  /** Admit caller: the headers must fit the caller kind; forwarded agents are resolved. */
  private async admit(req: IncomingMessage, ctx: RequestContext, caller: Caller, op: Operation): Promise<void> {
    const forwarder = caller.clientId === this.config.clients.webAgentForwarder;
    if (forwarder) {
      const artifacts = ['invited-agent-context', 'assistant-subject', 'assistant-browser-session'].filter(
        (h) => headerValues(req, h).length > 0,
      );
      if (artifacts.length !== 1) {
        throw invalidToken(ctx, 'A forwarder token needs exactly one original artifact.');
      }
      if (artifacts[0] !== 'invited-agent-context') {
        throw invalidToken(ctx, 'Forwarded assistant browsers are not supported by this deployment.');
      }
      const lines = headerValues(req, 'invited-agent-context');
      if (lines.length !== 1 || lines[0]!.trim() === '' || lines[0]!.includes(',')) {
        throw invalidToken(ctx, 'Exactly one Invited-Agent-Context value is needed.');
      }
      const snapshot = await this.auth.verifyInvitedAgentContext(ctx, caller.token, lines[0]!.trim());
      caller.sub = snapshot.sub;
      caller.agentId = snapshot.agentId;
      caller.permissions = snapshot.permissions;
      caller.admittedAt = snapshot.admittedAt;
      const account = this.store.accounts.get(snapshot.sub);
      const ended = account && account.state !== 'active';
      const record = this.store.authorizations.get(this.store.authorizationKey(snapshot.sub, snapshot.agentId));
      if (!ended && record?.decision === 'revoked') {
        throw invalidToken(ctx, 'The account revoked this agent.');
      }
    }
    const issues: Issue[] = [];
    for (const [name, kinds] of Object.entries(ARTIFACT_HEADERS)) {
      if (headerValues(req, name).length === 0) continue;
      if (!kinds.includes(caller.kind)) {
        issues.push({
          path: `headers.${name}`,
          code: 'header_not_admitted',
          message: `The ${name} header is not accepted from a ${caller.kind} caller.`,
        });
      }
    }
    if (issues.length > 0) throw validationError(issues, 'A header does not fit the caller kind.');
    if (caller.kind === 'operator') {
      const lines = headerValues(req, 'operator');
      const value = lines[0]?.trim() ?? '';
      if (lines.length !== 1 || !/^[\x21-\x7e]{1,128}$/.test(value)) {
        throw validationError(
          [
            {
              path: 'headers.operator',
              code: 'required',
              message: 'An Operator attribution header (1-128 visible characters) is required.',
            },
          ],
          'Operator requests need the Operator attribution header.',
        );
      }
      caller.operatorId = value;
    }
    if (caller.kind === 'guest') {
      const ipLines = headerValues(req, 'shopper-ip');
      if (ipLines.length > 1 || (ipLines[0] !== undefined && (ipLines[0].length > 64 || ipLines[0].trim() === ''))) {
        throw validationError([
          { path: 'headers.shopper-ip', code: 'too_long', message: 'Shopper-IP is one value of at most 64 characters.' },
        ]);
      }
      caller.shopperIp = ipLines[0] ? normalizeIp(ipLines[0]) : null;
      caller.guestCartId = null;
      if (op.group === 'cart') {
        const gs = headerValues(req, 'guest-session');
        if (gs.length > 0) {
          const id = gs.length === 1 ? this.auth.verifyGuestSession(gs[0]!.trim()) : null;
          if (!id) {
            throw new HttpError(401, 'invalid_guest_session', 'The Guest-Session is forged, malformed or expired.', {
              headers: { 'WWW-Authenticate': challenge('Bearer', 'invalid_token') },
            });
          }
          caller.guestCartId = id;
        }
      }
    }
  }

  /** Actor: lifecycle of the account behind account-bound callers; unknown subjects are provisioned. */
  private resolveActor(ctx: RequestContext, caller: Caller) {
    if (caller.kind !== 'customer' && caller.kind !== 'delegated' && caller.kind !== 'invited-agent') return null;
    const account = this.store.accountFor(caller.sub, caller.claims);
    if (account.state !== 'active') {
      throw new HttpError(401, 'account_access_ended', 'Access to this account has ended.', {
        headers: { 'WWW-Authenticate': challenge(ctx.challengeScheme, 'invalid_token') },
      });
    }
    return account;
  }

  /** Guard: declared callers, then scopes (delegated: translated API scopes; invited agents: permissions). */
  private guard(caller: Caller, op: Operation): void {
    if (!op.callers.includes(caller.kind)) {
      throw new HttpError(403, 'caller_not_allowed', `This operation does not serve ${caller.kind} callers.`);
    }
    if (caller.kind === 'invited-agent') {
      if (!caller.scopes.has('agent:forward')) {
        throw new HttpError(403, 'insufficient_scope', 'The forwarder is not allowed to forward agents.', {
          extra: { scope: 'agent:forward' },
        });
      }
      const permissions = caller.permissions ?? [];
      const unlocked = new Set(BASE_API_SCOPES);
      for (const p of permissions) for (const s of PERMISSION_SCOPES[p] ?? []) unlocked.add(s);
      for (const s of op.apiScopes) {
        if (!unlocked.has(s)) {
          const perm = Object.entries(PERMISSION_SCOPES).find(([, scopes]) => scopes.includes(s))?.[0] ?? s;
          throw new HttpError(403, 'insufficient_scope', `The agent lacks the permission ${perm}.`, {
            extra: { scope: perm },
          });
        }
      }
      for (const s of op.agentScopes) {
        if (!permissions.includes(s)) {
          throw new HttpError(403, 'insufficient_scope', `The agent lacks the permission ${s}.`, { extra: { scope: s } });
        }
      }
      return;
    }
    for (const s of op.apiScopes) {
      if (!caller.scopes.has(s)) {
        throw new HttpError(403, 'insufficient_scope', `The token lacks the scope ${s}.`, { extra: { scope: s } });
      }
    }
  }

  private rateLimitGuest(op: Operation, caller: Caller): void {
    const shopper = caller.shopperIp ?? (caller.guestCartId ? `cart:${caller.guestCartId}` : 'anonymous');
    const key = `${op.id}\u0000${shopper}`;
    const windowMs = this.config.guestRateLimitWindowSeconds * 1000;
    const budget = this.config.guestRateLimitBudget;
    const now = Date.now();
    let w = this.rate.get(key);
    if (!w || now - w.start >= windowMs) {
      w = { start: now, count: 0 };
      this.rate.set(key, w);
      if (this.rate.size > 100_000) {
        for (const [k, v] of this.rate) if (now - v.start >= windowMs) this.rate.delete(k);
      }
    }
    w.count += 1;
    if (w.count > budget) {
      const reset = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
      throw new HttpError(429, 'rate_limited', 'The guest budget of this operation is spent.', {
        headers: {
          'Retry-After': String(reset),
          RateLimit: `"guest";r=0;t=${reset}`,
          'RateLimit-Policy': `"guest";q=${budget};w=${this.config.guestRateLimitWindowSeconds}`,
        },
      });
    }
  }

  /** Assistant conversation routes: this deployment holds no assistant sessions, so nothing is admitted. */
  private async conversation(req: IncomingMessage, _res: ServerResponse, ctx: RequestContext, path: string, method: string): Promise<void> {
    const parts = path.split('/').slice(1);
    const tail = parts.slice(2);
    const known =
      (tail.length === 0 && (method === 'GET' || method === 'HEAD' || method === 'POST')) ||
      (tail.length === 1 && (method === 'GET' || method === 'HEAD')) ||
      (tail.length === 2 && tail[1] === 'messages' && method === 'POST') ||
      (tail.length === 2 && tail[1] === 'events' && (method === 'GET' || method === 'HEAD')) ||
      (tail.length === 2 && tail[1] === 'close' && method === 'POST');
    const shapeOk = tail.length <= 2 && (tail.length < 2 || ['messages', 'events', 'close'].includes(tail[1]!));
    if (!shapeOk) {
      await BodyReader.drain(req);
      throw new HttpError(404, 'not_found', 'No route matches this path.');
    }
    if (!known) {
      const allow = tail.length === 0 ? ['GET', 'HEAD', 'POST'] : tail.length === 1 || tail[1] === 'events' ? ['GET', 'HEAD'] : ['POST'];
      throw methodNotAllowed(allow);
    }
    const cap = method === 'POST' ? CONVERSATION_WRITE_CAP : BODY_CAP;
    const raw = await BodyReader.read(req, cap);
    if (method === 'POST') decodeJson(req, raw);
    const caller = await this.auth.authenticate(req, ctx);
    throw new HttpError(403, 'caller_not_allowed', `Conversation routes serve assistant sessions only, not ${caller.kind} callers.`);
  }
}

export function methodNotAllowed(allow: string[]): HttpError {
  return new HttpError(405, 'method_not_allowed', 'The route does not support this method.', {
    headers: { Allow: [...new Set(allow)].join(', ') },
  });
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

function normalizeIp(value: string): string {
  let v = value.trim().toLowerCase();
  if (v.startsWith('[') && v.includes(']')) v = v.slice(1, v.indexOf(']'));
  if (v.startsWith('::ffff:')) v = v.slice(7);
  return v;
}

export async function startServer(opts: { port?: number; host?: string } = {}): Promise<{
  url: string;
  close(): Promise<void>;
}> {
  const app = new App(loadConfig());
  const server = createServer((req, res) => {
    void app.handle(req, res);
  });
  server.keepAliveTimeout = 5000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
