import Fastify, { type FastifyReply, type FastifyRequest, type FastifyInstance } from 'fastify';
import { createHash, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { z } from 'zod';
import { loadConfig, type Config } from './config.js';
import { Store, hexId } from './store.js';
import { ApiError, invalidRequest, invalidToken, notFound, problemBody, zodIssues, type Scheme } from './problems.js';
import { Verifier, chooseScheme, headerLines, isConversationPath, safeEqual } from './auth.js';
import { Pipeline, type Ctx } from './pipeline.js';
import { OPERATIONS, type OpDef, appendEvent, endConversation, conversationView } from './ops.js';
import { buildDocuments, INTERNAL_ROUTES } from './openapi.js';

declare module 'fastify' {
  interface FastifyRequest {
    shopCtx: Ctx;
    rawBody?: Buffer;
    badContentType?: boolean;
  }
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
function validTraceparent(v: string | undefined): string | null {
  if (!v) return null;
  const m = TRACEPARENT.exec(v.trim());
  if (!m) return null;
  if (m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return null;
  if (m[1] === '00' && v.trim().length !== 55) return null;
  return v.trim();
}

function challengeHeader(code: string, scheme: Scheme | 'both'): string {
  if (scheme === 'both') return `Bearer error="${code}", DPoP error="${code}", algs="ES256"`;
  return scheme === 'DPoP' ? `DPoP error="${code}", algs="ES256"` : `Bearer error="${code}"`;
}

const pathOf = (url: string): string => url.split('?')[0] ?? '/';
const toFastifyPath = (p: string): string => p.replace(/\{([^}]+)\}/g, ':$1');

export function buildApp(cfg: Config = loadConfig()): { app: FastifyInstance; store: Store } {
  const store = new Store(cfg.seedPath);
  const verifier = new Verifier(cfg, store);
  const pipeline = new Pipeline(cfg, store, verifier);
  const documents = buildDocuments(cfg);
  const stripe = new Stripe('sk_test_unused_by_this_server', { apiVersion: undefined as never });
  const app = Fastify({
    logger: false,
    bodyLimit: 256 * 1024,
    exposeHeadRoutes: false,
    genReqId: () => randomUUID(),
    return503OnClosing: false,
  });

  // ------------------------------------------------------------ decoding
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    const buf = body as Buffer;
    req.rawBody = buf;
    const ct = String(req.headers['content-type'] ?? '').toLowerCase();
    const mediaType = ct.split(';')[0]!.trim();
    const isJson = mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
    if (!isJson) {
      req.badContentType = buf.length > 0;
      done(null, undefined);
      return;
    }
    if (buf.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(buf.toString('utf8')));
    } catch {
      done(
        invalidRequest(
          [{ path: 'body', code: 'invalid_json', message: 'The body is not valid JSON.' }],
          'The request body could not be decoded.',
        ),
        undefined,
      );
    }
  });

  // ------------------------------------------------------------ request stage
  app.addHook('onRequest', async (req, reply) => {
    const path = pathOf(req.url);
    const auth = headerLines(req.raw, 'authorization')[0];
    req.shopCtx = { requestId: req.id, path, scheme: chooseScheme(path, auth, cfg) };
    // Conversation writes: 64 KiB, checked via Content-Length before the body is read.
    if (isConversationPath(path) && req.method !== 'GET' && req.method !== 'HEAD') {
      const len = Number(req.headers['content-length'] ?? NaN);
      if (Number.isFinite(len) && len > 65536) {
        reply.header('Connection', 'close');
        return sendProblem(reply, req, new ApiError(413, 'payload_too_large', 'Conversation writes are limited to 64 KiB.'));
      }
    }
    return undefined;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const ctx = req.shopCtx;
    reply.header('X-Request-Id', req.id);
    const tp = validTraceparent(req.headers.traceparent as string | undefined);
    if (tp) reply.header('traceparent', tp);
    if (ctx?.scheme === 'DPoP') reply.header('DPoP-Nonce', verifier.nonces.issue());
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    if (reply.statusCode >= 400) {
      reply.header('Content-Type', 'application/problem+json');
      reply.header('Cache-Control', 'no-store');
    }
    return payload;
  });

  function sendProblem(reply: FastifyReply, req: FastifyRequest, e: ApiError): FastifyReply {
    const ctx = req.shopCtx;
    if (e.challenge) reply.header('WWW-Authenticate', challengeHeader(e.challenge, e.challengeScheme ?? ctx?.scheme ?? 'Bearer'));
    for (const [k, v] of Object.entries(e.headers)) {
      if (['retry-after', 'ratelimit', 'ratelimit-policy', 'allow', 'connection'].includes(k.toLowerCase())) reply.header(k, v);
    }
    reply.code(e.status).type('application/problem+json').header('Cache-Control', 'no-store');
    return reply.send(JSON.stringify(problemBody(cfg.docsUrl, req.id, e)));
  }

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) return sendProblem(reply, req, err);
    const fe = err as { code?: string; statusCode?: number; message?: string };
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendProblem(reply, req, new ApiError(413, 'payload_too_large', 'The request body exceeds 256 KiB.'));
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return sendProblem(reply, req, new ApiError(415, 'unsupported_media_type', 'Request bodies must be application/json.'));
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendProblem(
        reply,
        req,
        new ApiError(
          fe.statusCode,
          fe.statusCode === 413 ? 'payload_too_large' : 'invalid_request',
          'The request could not be read.',
          fe.statusCode === 400 ? { issues: [{ path: 'body', code: 'unreadable', message: 'The request could not be read.' }] } : {},
        ),
      );
    }
    console.error(JSON.stringify({ event: 'api_error', request_id: req.id, message: fe.message }));
    return sendProblem(reply, req, new ApiError(500, 'internal_error'));
  });

  // ------------------------------------------------------------ unmatched routes
  const known: { re: RegExp; method: string }[] = [];
  const register = (method: string, path: string): void => {
    known.push({ method, re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) });
  };
  app.setNotFoundHandler((req, reply) => {
    const path = pathOf(req.url);
    const allowed = [...new Set(known.filter((k) => k.re.test(path)).map((k) => k.method))];
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        req,
        new ApiError(405, 'method_not_allowed', `${req.method} is not allowed here.`, { headers: { Allow: allowed.join(', ') } }),
      );
    }
    return sendProblem(reply, req, notFound(`No route ${req.method} ${path}.`));
  });

  // ------------------------------------------------------------ public routes
  app.get('/health', async (_req, reply) => reply.code(200).send({ status: 'ok' }));
  register('GET', '/health');
  for (const [path, doc] of [
    ['/openapi.json', documents.general],
    ['/assistant/openapi.json', documents.assistant],
  ] as const) {
    const body = JSON.stringify(doc);
    app.get(path, async (_req, reply) =>
      reply.code(200).header('Cache-Control', 'public, max-age=300').type('application/json').send(body),
    );
    register('GET', path);
  }

  // ------------------------------------------------------------ operations
  function validate(
    def: OpDef,
    req: FastifyRequest,
  ): { params: Record<string, string>; query: Record<string, unknown>; body: Record<string, unknown> } {
    const issues = [];
    let params: Record<string, string> = (req.params ?? {}) as Record<string, string>;
    let query: Record<string, unknown> = {};
    let body: Record<string, unknown> = {};
    if (def.params) {
      const r = def.params.safeParse(params);
      if (r.success) params = r.data as Record<string, string>;
      else issues.push(...zodIssues('params', r.error.issues));
    }
    if (def.query) {
      const r = def.query.safeParse(req.query ?? {});
      if (r.success) query = r.data as Record<string, unknown>;
      else issues.push(...zodIssues('query', r.error.issues));
    }
    if (def.body) {
      const raw = req.body;
      if (raw === undefined && !def.bodyRequired) body = {};
      else if (raw === undefined) issues.push({ path: 'body', code: 'required', message: 'A JSON body is required.' });
      else if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
        issues.push({ path: 'body', code: 'invalid_type', message: 'The body must be a JSON object.' });
      else {
        const r = def.body.safeParse(raw);
        if (r.success) body = r.data as Record<string, unknown>;
        else issues.push(...zodIssues('body', r.error.issues));
      }
    }
    if (issues.length > 0) throw invalidRequest(issues.slice(0, 20));
    return { params, query, body };
  }

  for (const def of OPERATIONS) {
    register(def.method, def.path);
    app.route({
      method: def.method,
      url: toFastifyPath(def.path),
      handler: async (req, reply) => {
        if (req.badContentType) throw new ApiError(415, 'unsupported_media_type', 'Request bodies must be application/json.');
        const ctx = req.shopCtx;
        const caller = await pipeline.authenticate(req, ctx);
        ctx.caller = caller;
        pipeline.admit(req, ctx, caller, def);
        const actor = pipeline.actor(ctx, caller, def);
        ctx.actor = actor;
        pipeline.guard(ctx, caller, actor, def);
        pipeline.rateLimit(caller, def);
        const { params, query, body } = validate(def, req);
        if (def.stream) return streamConversation(req, reply, ctx, params.id!, caller.sessionId!, actor.account!.sub, caller.exp);
        const result = await def.handler({ req, reply, ctx, caller, actor, params, query, body, store, cfg });
        if (!result) throw new ApiError(500, 'internal_error');
        for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
        if (result.etag) {
          const json = JSON.stringify(result.body);
          const etag = `W/"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
          reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
          const inm = req.headers['if-none-match'];
          if (
            typeof inm === 'string' &&
            (inm.trim() === '*' ||
              inm
                .split(',')
                .map((s) => s.trim().replace(/^W\//, ''))
                .includes(etag.replace(/^W\//, '')))
          ) {
            return reply.code(304).send();
          }
          return reply.code(result.status).type('application/json').send(json);
        }
        if (result.status === 204) return reply.code(204).send();
        return reply.code(result.status).type('application/json').send(JSON.stringify(result.body));
      },
    });
  }

  // ------------------------------------------------------------ event stream
  function streamConversation(
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: Ctx,
    id: string,
    sessionId: string,
    accountSub: string,
    exp: number | undefined,
  ): Promise<void> {
    const c = store.conversations.get(id);
    if (!c || c.sessionId !== sessionId || c.accountSub !== accountSub) throw notFound('No such conversation for this session.');
    const lei = req.headers['last-event-id'];
    let last = typeof lei === 'string' && /^\d+$/.test(lei.trim()) ? Number(lei.trim()) : 0;
    reply.hijack();
    const res = reply.raw;
    const headers: Record<string, string> = {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Request-Id': req.id,
    };
    if (ctx.scheme === 'DPoP') headers['DPoP-Nonce'] = verifier.nonces.issue();
    const tp = validTraceparent(req.headers.traceparent as string | undefined);
    if (tp) headers.traceparent = tp;
    res.writeHead(200, headers);
    res.write(': keep-alive\n\n');
    return new Promise<void>((resolve) => {
      let done = false;
      let unsubscribe = (): void => {};
      const timers: NodeJS.Timeout[] = [];
      const finish = (): void => {
        if (done) return;
        done = true;
        unsubscribe();
        for (const t of timers) clearTimeout(t);
        clearInterval(beat);
        if (!res.writableEnded) res.end();
        resolve();
      };
      const flush = (): void => {
        if (done) return;
        for (const ev of c.events) {
          if (ev.seq <= last) continue;
          last = ev.seq;
          const data =
            ev.kind === 'message'
              ? { id: ev.messageId, seq: ev.seq, author: ev.author, text: ev.text, sent_at: ev.at }
              : { status: ev.status, at: ev.at };
          res.write(`id: ${ev.seq}\nevent: ${ev.kind}\ndata: ${JSON.stringify(data)}\n\n`);
          if (ev.kind === 'status') {
            finish();
            return;
          }
        }
        if (c.status !== 'open') finish();
      };
      const beat = setInterval(() => {
        if (!done) res.write(': keep-alive\n\n');
        flush();
      }, cfg.keepAliveMs);
      unsubscribe = store.subscribe(c.id, flush);
      if (exp !== undefined) {
        const ms = exp * 1000 - Date.now();
        timers.push(setTimeout(finish, Math.max(0, Math.min(ms, 2_147_000_000))));
      }
      res.on('close', finish);
      req.raw.on('close', () => {
        if (res.writableEnded || res.destroyed) finish();
      });
      flush();
    });
  }

  // ------------------------------------------------------------ internal routes
  const bearerSecret = (req: FastifyRequest, secret: string | null, what: string): void => {
    if (!secret) throw new ApiError(404, 'not_configured', `${what} is not configured on this deployment.`);
    const lines = headerLines(req.raw, 'authorization');
    const m = lines.length === 1 ? /^Bearer +(\S+)\s*$/i.exec(lines[0]!) : null;
    if (!m || !safeEqual(m[1]!, secret)) throw invalidToken(`The ${what} credential is missing or wrong.`, 'Bearer');
  };
  const proxySecret = (req: FastifyRequest): void => {
    const secret = cfg.proxyIdpSecret;
    if (!secret) throw new ApiError(404, 'not_configured', 'The identity-provider proxy is not configured on this deployment.');
    const lines = headerLines(req.raw, 'x-proxy-idp-secret');
    if (lines.length !== 1 || !safeEqual(lines[0]!.trim(), secret))
      throw new ApiError(401, 'invalid_credentials', 'X-Proxy-Idp-Secret is missing or wrong.');
  };
  const capBody = (req: FastifyRequest, limit: number): void => {
    const len = Number(req.headers['content-length'] ?? NaN);
    if ((Number.isFinite(len) && len > limit) || (req.rawBody && req.rawBody.length > limit))
      throw new ApiError(413, 'payload_too_large', `This route accepts at most ${limit} bytes.`);
  };
  const parseBody = <T extends z.ZodType>(schema: T, req: FastifyRequest): z.infer<T> => {
    if (req.badContentType) throw new ApiError(415, 'unsupported_media_type', 'Request bodies must be application/json.');
    const raw = req.body;
    if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw invalidRequest([{ path: 'body', code: 'invalid_type', message: 'A JSON object body is required.' }]);
    const r = schema.safeParse(raw);
    if (!r.success) throw invalidRequest(zodIssues('body', r.error.issues));
    return r.data;
  };
  const internal = (method: 'POST', path: string, h: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): void => {
    register(method, path);
    app.route({ method, url: toFastifyPath(path), handler: h });
  };
  const perms = z
    .union([z.array(z.string().min(1).max(64)).max(32), z.string().max(2048)])
    .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/).filter(Boolean)));

  internal('POST', '/internal/account/security-intents', async (req, reply) => {
    capBody(req, 8192);
    bearerSecret(req, cfg.idpActionSecret, 'identity-provider action');
    const b = parseBody(
      z
        .object({
          freshIntentId: z.string().min(1).max(128),
          subject: z.string().min(1).max(256),
          purpose: z.enum(['email', 'delete']),
          operationId: z.string().min(1).max(128).optional(),
        })
        .strict(),
      req,
    );
    store.securityIntents.set(b.freshIntentId, {
      freshIntentId: b.freshIntentId,
      subject: b.subject,
      purpose: b.purpose,
      receivedAt: new Date().toISOString(),
    });
    return reply.code(202).send({ accepted: true, freshIntentId: b.freshIntentId });
  });

  internal('POST', '/internal/assistant/sessions/signed-out', async (req, reply) => {
    proxySecret(req);
    const b = parseBody(
      z
        .object({
          session_id: z
            .string()
            .min(1)
            .max(128)
            .regex(/^[\x20-\x7e]+$/),
          client_id: z.string().min(1).max(256),
          scopes: perms.optional(),
        })
        .passthrough(),
      req,
    );
    const prev = store.sessions.get(b.session_id);
    store.sessions.set(b.session_id, {
      id: b.session_id,
      state: 'signed_out',
      accountSub: null,
      agentId: prev?.agentId ?? null,
      clientId: b.client_id,
      scopes: [],
    });
    return reply.code(200).send({ session_id: b.session_id, state: 'signed_out' });
  });

  internal('POST', '/internal/assistant/agents/connected', async (req, reply) => {
    proxySecret(req);
    const b = parseBody(
      z
        .object({
          subject: z.string().min(1).max(256),
          agent_id: z.string().min(1).max(128),
          client_id: z.string().min(1).max(256),
          permissions: perms,
          session_id: z
            .string()
            .min(1)
            .max(128)
            .regex(/^[\x20-\x7e]+$/),
        })
        .passthrough(),
      req,
    );
    store.sessions.set(b.session_id, {
      id: b.session_id,
      state: 'signed_in',
      accountSub: b.subject,
      agentId: b.agent_id,
      clientId: b.client_id,
      scopes: [...new Set(b.permissions)],
    });
    store.authorizations.set(`${b.subject}\0${b.agent_id}`, {
      subject: b.subject,
      agentId: b.agent_id,
      permissions: [...new Set(b.permissions)],
      decision: 'granted',
    });
    return reply
      .code(200)
      .send({ session_id: b.session_id, state: 'signed_in', subject: b.subject, agent_id: b.agent_id, permissions: b.permissions });
  });

  internal('POST', '/internal/agent-authorization', async (req, reply) => {
    proxySecret(req);
    const b = parseBody(
      z
        .object({
          subject: z.string().min(1).max(256),
          agent_id: z.string().min(1).max(128),
          permissions: perms.optional(),
          decision: z.enum(['granted', 'revoked']),
        })
        .passthrough(),
      req,
    );
    const permissions = b.permissions ?? [];
    store.authorizations.set(`${b.subject}\0${b.agent_id}`, { subject: b.subject, agentId: b.agent_id, permissions, decision: b.decision });
    if (b.decision === 'granted' && b.permissions) {
      for (const s of store.sessions.values())
        if (s.accountSub === b.subject && s.agentId === b.agent_id) s.scopes = [...new Set(permissions)];
    }
    return reply.code(200).send({ subject: b.subject, agent_id: b.agent_id, decision: b.decision, permissions });
  });

  const hubId = z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._:-]+$/);
  internal('POST', '/internal/conversations/{id}/turn', async (req, reply) => {
    capBody(req, 65536);
    bearerSecret(req, cfg.conversationHubSecret, 'conversation hub');
    const id = hubId.safeParse((req.params as Record<string, string>).id);
    if (!id.success)
      throw invalidRequest(
        zodIssues(
          'params',
          id.error.issues.map((i) => ({ ...i, path: ['id', ...i.path] })),
        ),
      );
    const b = parseBody(
      z
        .object({
          turn_id: z.string().min(1).max(128),
          author: z.enum(['agent', 'operator', 'system']),
          text: z.string().min(1).max(16000),
          sent_at: z.string().max(64).optional(),
        })
        .strict(),
      req,
    );
    const c = store.conversations.get(id.data);
    if (!c) throw notFound('No such conversation.');
    if (c.turnIds.has(b.turn_id)) return reply.code(202).send({ accepted: true, duplicate: true });
    if (c.status !== 'open') throw notFound('The conversation is no longer open.');
    c.turnIds.add(b.turn_id);
    const ev = appendEvent(store, c, { kind: 'message', messageId: hexId('msg_'), author: b.author, text: b.text, turnId: b.turn_id });
    return reply.code(202).send({ accepted: true, seq: ev.seq });
  });

  internal('POST', '/internal/conversations/{id}/handoff-timeout', async (req, reply) => {
    capBody(req, 65536);
    bearerSecret(req, cfg.conversationHubSecret, 'conversation hub');
    const id = hubId.safeParse((req.params as Record<string, string>).id);
    if (!id.success)
      throw invalidRequest(
        zodIssues(
          'params',
          id.error.issues.map((i) => ({ ...i, path: ['id', ...i.path] })),
        ),
      );
    const b = parseBody(z.object({ handoff_id: z.string().min(1).max(128), timed_out_at: z.string().max(64).optional() }).strict(), req);
    const c = store.conversations.get(id.data);
    if (!c || c.mode !== 'handoff') throw notFound('No such handoff conversation.');
    if (c.status === 'open') {
      c.handoffId = b.handoff_id;
      endConversation(store, c, 'timed_out');
    }
    return reply.code(202).send({ accepted: true, conversation: conversationView(c, false) });
  });

  internal('POST', '/internal/account/recover', async (req, reply) => {
    bearerSecret(req, cfg.accountRecoverySecret, 'account recovery');
    const b = parseBody(
      z
        .object({ subject: z.string().min(1).max(256), operationId: z.string().min(1).max(128), purpose: z.enum(['email', 'delete']) })
        .strict(),
      req,
    );
    const op = store.recovery.get(b.operationId);
    if (!op || op.subject !== b.subject || op.purpose !== b.purpose || op.phase === 'proof_pending') {
      throw new ApiError(404, 'recovery_not_found', 'No resumable authorization matches this subject, operation and purpose.');
    }
    const account = store.accounts.get(op.subject);
    switch (op.phase) {
      case 'complete':
        return reply.code(200).send({ operationId: op.operationId, status: 'complete' });
      case 'cancelled':
        return reply.code(200).send({ operationId: op.operationId, status: 'cancelled' });
      case 'provider_pending':
        return reply.code(200).send({ operationId: op.operationId, status: 'pending' });
      case 'approved':
      case 'resuming': {
        if (op.phase === 'resuming')
          throw new ApiError(409, 'recovery_pending', 'This recovery is still being applied; retry the same operation.');
        op.phase = 'resuming';
        if (account) {
          if (op.purpose === 'email') {
            if (op.pendingEmail) account.email = op.pendingEmail;
            if (account.state === 'contact_transition') account.state = 'active';
          } else {
            account.state = 'deleted';
            for (const a of store.authorizations.values()) if (a.subject === account.sub) a.decision = 'revoked';
          }
        }
        op.phase = 'complete';
        return reply.code(200).send({ operationId: op.operationId, status: 'complete' });
      }
      default:
        throw new ApiError(409, 'recovery_pending', 'The recovery is still incomplete.');
    }
  });

  // ------------------------------------------------------------ payment webhook
  internal('POST', '/webhooks/stripe', async (req, reply) => {
    if (!cfg.paymentWebhookEnabled) throw new ApiError(404, 'not_configured', 'The payment webhook is not configured.');
    if (!cfg.stripeWebhookSecret)
      throw new ApiError(503, 'webhook_secret_missing', 'The webhook signing secret is not configured.', {
        headers: { 'Retry-After': '5' },
      });
    const sig = headerLines(req.raw, 'stripe-signature');
    if (sig.length === 0 || sig[0]!.trim() === '') throw new ApiError(400, 'missing_signature', 'The Stripe-Signature header is absent.');
    const raw = req.rawBody ?? Buffer.alloc(0);
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(raw, sig.join(','), cfg.stripeWebhookSecret);
    } catch {
      throw new ApiError(400, 'invalid_signature', 'The webhook signature does not verify.');
    }
    let outcome: string;
    try {
      outcome = processEvent(event);
    } catch {
      console.error(JSON.stringify({ event: 'webhook', type: event.type, id: event.id, outcome: 'failed' }));
      throw new ApiError(500, 'processing_failed', 'The delivery could not be processed.');
    }
    console.log(JSON.stringify({ event: 'webhook', type: event.type, id: event.id, outcome }));
    return reply.code(200).send({ received: true });
  });

  function processEvent(event: Stripe.Event): string {
    const obj = (event.data?.object ?? {}) as unknown as Record<string, unknown>;
    const metadata = (obj.metadata ?? {}) as Record<string, unknown>;
    const findOrder = () => {
      const ref = typeof obj.id === 'string' ? obj.id : null;
      const byMeta = typeof metadata.order_id === 'string' ? store.orders.get(metadata.order_id) : undefined;
      if (byMeta) return byMeta;
      for (const o of store.orders.values()) if (o.paymentRef === ref) return o;
      return undefined;
    };
    switch (event.type) {
      case 'payment_intent.succeeded': {
        if (typeof obj.id !== 'string') throw new Error('payment intent without id');
        const o = findOrder();
        if (!o) return 'unknown_payment';
        if (o.status === 'pending_payment' || o.status === 'payment_failed') o.status = 'paid';
        return 'settled';
      }
      case 'payment_intent.payment_failed':
      case 'payment_intent.canceled': {
        if (typeof obj.id !== 'string') throw new Error('payment intent without id');
        const o = findOrder();
        if (!o) return 'unknown_payment';
        if (o.status === 'pending_payment') {
          o.status = event.type === 'payment_intent.canceled' ? 'cancelled' : 'payment_failed';
          for (const l of o.lines) {
            const v = store.variants.get(l.variantId);
            if (v) v.stock += l.quantity;
          }
        }
        return 'failed_payment';
      }
      case 'setup_intent.succeeded': {
        if (typeof obj.id !== 'string') throw new Error('setup intent without id');
        const setup = store.cardSetups.get(obj.id);
        if (!setup) return 'not_admitted';
        if (setup.completed) return 'already_completed';
        const account = store.accounts.get(setup.accountSub);
        if (!account) throw new Error('setup of an unknown account');
        const pmObj = obj.payment_method;
        const pmId =
          typeof pmObj === 'string'
            ? pmObj
            : pmObj && typeof pmObj === 'object' && typeof (pmObj as Record<string, unknown>).id === 'string'
              ? ((pmObj as Record<string, unknown>).id as string)
              : `pm_${setup.id}`;
        const card =
          (pmObj && typeof pmObj === 'object'
            ? ((pmObj as Record<string, unknown>).card as Record<string, unknown> | undefined)
            : undefined) ?? {};
        account.paymentMethods.push({
          id: hexId('pm_'),
          brand: typeof card.brand === 'string' ? card.brand : 'visa',
          last4: typeof card.last4 === 'string' ? card.last4 : '4242',
          expMonth: typeof card.exp_month === 'number' ? card.exp_month : 12,
          expYear: typeof card.exp_year === 'number' ? card.exp_year : new Date().getFullYear() + 3,
          providerRef: pmId,
          createdSeq: Date.now() * 1000,
        });
        setup.completed = true;
        return 'card_saved';
      }
      default:
        return 'ignored';
    }
  }

  // Clean expired DPoP proof records (the job clean_dpop_proofs).
  const job = setInterval(() => store.cleanDpopProofs(Math.floor(Date.now() / 1000)), 60_000);
  job.unref();
  app.addHook('onClose', async () => clearInterval(job));
  void INTERNAL_ROUTES;
  return { app, store };
}

export async function startServer(opts: { port?: number; host?: string } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const { app } = buildApp();
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port ?? 0, host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 0);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    close: async () => {
      app.server.closeAllConnections?.();
      await app.close();
    },
  };
}
