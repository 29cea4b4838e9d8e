// The internal routes (spec, Public and special routes): callers are other components holding a shared secret, not token
// holders, so these routes are a group of their own, outside the operations' caller guard (STAGE_TABLE.internal in
// pipeline/groups.ts, which wires them):
//   request (app-wide) → domain → shared secret → bounded body → input validation → handler.
// The secret is checked before a byte of the body is read; a route whose secret is not configured is closed (404
// not_configured). Bodies are read by a bounded reader that stops at the route's limit + 1 byte, with or without
// Content-Length. Mounted by app.ts before the JSON decoding of operations. docs/internal-routes.md describes every route.
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';
import { ERRORS, REASON_PHRASES, type ErrorCode } from '../../../contract/errors.js';
import type { Config } from '../config.js';
import type { Domain } from '../domain.js';
import { checkSharedSecret, type SecretCarrier } from '../auth/shared-secret.js';
import { domainStage } from '../pipeline/02-domain.js';
import { contextAt, contextOf, type HandlerResult } from '../pipeline/context.js';
import { toIssues } from '../pipeline/08-input-validation.js';
import { invalidRequest, ProblemError, type ProblemIssue } from '../problem.js';
import { resumeRecovery } from '../store/recovery.js';
import { discardRestOfBody } from '../drain.js';
import { authorizeAgent, connectAgent, recordSecurityIntent, registerSignedOutSession } from '../store/internal.js';
import { recordHandoffTimeout, recordHubTurn } from '../store/conversations.js';
import { toJsonSchema, type Json } from '../json-schema.js';
import { expressPath } from './define.js';
import {
  agentAuthorizationResponseSchema,
  agentAuthorizationSchema,
  agentConnectedResponseSchema,
  agentConnectedSchema,
  assistantSessionResponseSchema,
  conversationParamsSchema,
  conversationTurnSchema,
  handoffTimeoutSchema,
  recoveryRequestSchema,
  recoveryResponseSchema,
  securityIntentResponseSchema,
  securityIntentSchema,
  signedOutSessionSchema,
} from '../schemas/internal.js';

// ------------------------------------------------------------------------------------------------------------ the table

/** Who holds a route's secret: the configuration field, its variable, and where the caller presents it. */
interface SecretDef {
  /** Name of the security scheme in the description document. */
  scheme: 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';
  env: string;
  carrier: SecretCarrier;
  value: (c: Config) => string | null;
}

const SECRETS = {
  idpAction: { scheme: 'idpActionSecret', env: 'IDP_ACTION_SECRET', carrier: { kind: 'bearer' }, value: (c) => c.idpActionSecret },
  proxyIdp: {
    scheme: 'proxyIdpSecret',
    env: 'PROXY_IDP_SECRET',
    carrier: { kind: 'header', name: 'X-Proxy-Idp-Secret' },
    value: (c) => c.proxyIdpSecret,
  },
  conversationHub: {
    scheme: 'conversationHubSecret',
    env: 'CONVERSATION_HUB_SECRET',
    carrier: { kind: 'bearer' },
    value: (c) => c.conversationHubSecret,
  },
  accountRecovery: {
    scheme: 'accountRecoverySecret',
    env: 'ACCOUNT_RECOVERY_SECRET',
    carrier: { kind: 'bearer' },
    value: (c) => c.accountRecoverySecret,
  },
} as const satisfies Record<string, SecretDef>;

interface Success {
  status: number;
  schema: z.ZodType | null;
  description: string;
}

export interface InternalRoute {
  operationId: string;
  /** OpenAPI path template. */
  path: string;
  summary: string;
  description: string;
  secret: SecretDef;
  /** The bounded reader's limit in bytes. */
  bodyLimit: number;
  params?: z.ZodType;
  body: z.ZodType;
  successes: readonly Success[];
  /** Domain errors of the handler, beyond those of the group's stages. */
  errors: readonly ErrorCode[];
  handle(args: { domain: Domain; params: any; body: any; req: Request }): HandlerResult | Promise<HandlerResult>;
}

const conversationNotFound = () => new ProblemError('not_found', { detail: 'No conversation has this id.' });

export const INTERNAL_ROUTES: readonly InternalRoute[] = [
  {
    operationId: 'recordSecurityIntent',
    path: '/internal/account/security-intents',
    summary: "Record a security intent of the identity provider's action script",
    description:
      "Called by the identity provider's action script (`Authorization: Bearer <IDP_ACTION_SECRET>`); not exposed by the storefront proxy. The body is read through a bounded reader of 8 KiB. Recorded once per `intent_id`.",
    secret: SECRETS.idpAction,
    bodyLimit: LIMITS.securityIntentBytes,
    body: securityIntentSchema,
    successes: [
      { status: 202, schema: securityIntentResponseSchema, description: 'Recorded.' },
      { status: 200, schema: securityIntentResponseSchema, description: 'Already recorded under this intent_id: nothing changed.' },
    ],
    errors: [],
    handle: ({ domain, body }) => {
      const r = recordSecurityIntent(domain.db, body, domain.clock());
      return {
        status: r.created ? 202 : 200,
        body: { intent_id: body.intent_id, status: r.created ? 'recorded' : 'duplicate', received_at: r.receivedAt },
      };
    },
  },
  {
    operationId: 'registerSignedOutAssistantSession',
    path: '/internal/assistant/sessions/signed-out',
    summary: 'Register a signed-out assistant session (identity-provider proxy)',
    description: 'The proxy reports an assistant session that is signed out (a new one, or one that signed out), with its live scopes.',
    secret: SECRETS.proxyIdp,
    bodyLimit: LIMITS.requestBodyBytes,
    body: signedOutSessionSchema,
    successes: [
      { status: 201, schema: assistantSessionResponseSchema, description: 'A new session.' },
      { status: 200, schema: assistantSessionResponseSchema, description: 'A known session, now signed out with these scopes.' },
    ],
    errors: [],
    handle: ({ domain, body }) => {
      const r = registerSignedOutSession(domain.db, body, domain.clock());
      return {
        status: r.created ? 201 : 200,
        body: { session_id: r.session.session_id, state: r.session.state, scopes: r.session.scopes },
      };
    },
  },
  {
    operationId: 'recordConnectedAgent',
    path: '/internal/assistant/agents/connected',
    summary: 'Record that a customer connected an agent (identity-provider proxy)',
    description:
      'Records the connection and a `granted` authorization; with `session_id`, that assistant session is signed in to the account with the permissions as its live scopes.',
    secret: SECRETS.proxyIdp,
    bodyLimit: LIMITS.requestBodyBytes,
    body: agentConnectedSchema,
    successes: [
      { status: 201, schema: agentConnectedResponseSchema, description: 'A new connection.' },
      { status: 200, schema: agentConnectedResponseSchema, description: 'A known connection, updated.' },
    ],
    errors: [],
    handle: ({ domain, body }) => {
      const r = connectAgent(domain.db, body, domain.clock());
      const permissions = [...new Set<string>(body.permissions)];
      return {
        status: r.created ? 201 : 200,
        body: {
          subject: body.subject,
          agent_id: body.agent_id,
          permissions,
          decision: 'granted',
          ...(body.session_id !== undefined ? { session_id: body.session_id } : {}),
        },
      };
    },
  },
  {
    operationId: 'recordAgentAuthorization',
    path: '/internal/agent-authorization',
    summary: "Record an account's authorization decision about an agent (identity-provider proxy)",
    description:
      "`granted` sets the permissions and the live scopes of the agent's signed-in sessions; `revoked` signs those sessions out.",
    secret: SECRETS.proxyIdp,
    bodyLimit: LIMITS.requestBodyBytes,
    body: agentAuthorizationSchema,
    successes: [{ status: 200, schema: agentAuthorizationResponseSchema, description: 'The decision now in force.' }],
    errors: [],
    handle: ({ domain, body }) => {
      const r = authorizeAgent(domain.db, body, domain.clock());
      const a = r.authorization;
      return { status: 200, body: { subject: a.subject, agent_id: a.agent_id, permissions: a.permissions, decision: a.decision } };
    },
  },
  {
    operationId: 'recordConversationTurn',
    path: '/internal/conversations/{id}/turn',
    summary: 'Deliver a turn of the conversation hub',
    description:
      "Appends the turn as a message of the open conversation `{id}` and sends it to the conversation's event streams (docs/conversations.md). Once per `turn_id`: a repeated turn is accepted again and changes nothing. An unknown conversation, or one that is no longer open, is 404 `not_found`.",
    secret: SECRETS.conversationHub,
    bodyLimit: LIMITS.conversationWriteBytes,
    params: conversationParamsSchema,
    body: conversationTurnSchema,
    successes: [{ status: 202, schema: null, description: 'Accepted: the turn is in the conversation (or already was).' }],
    errors: ['not_found'],
    handle: ({ domain, params, body }) => {
      const r = recordHubTurn(domain, params.id, body, domain.clock());
      if (!r.ok)
        throw r.reason === 'not_found'
          ? conversationNotFound()
          : new ProblemError('not_found', { detail: 'The conversation is no longer open.' });
      return { status: 202 };
    },
  },
  {
    operationId: 'recordConversationHandoffTimeout',
    path: '/internal/conversations/{id}/handoff-timeout',
    summary: 'Report that a conversation handoff timed out (conversation hub)',
    description:
      'The open handoff conversation `{id}` becomes `timed_out`; its event streams get a `status` event and end (docs/conversations.md). A conversation that already ended is left as it is (202 again). An unknown id, or a direct conversation (it has no handoff), is 404 `not_found`.',
    secret: SECRETS.conversationHub,
    bodyLimit: LIMITS.conversationWriteBytes,
    params: conversationParamsSchema,
    body: handoffTimeoutSchema,
    successes: [{ status: 202, schema: null, description: 'Accepted: the conversation has timed out (or had already ended).' }],
    errors: ['not_found'],
    handle: ({ domain, params, body }) => {
      const r = recordHandoffTimeout(domain, params.id, body, domain.clock());
      if (!r.ok) throw new ProblemError('not_found', { detail: 'No handoff conversation has this id.' });
      return { status: 202 };
    },
  },
  {
    operationId: 'recoverAccount',
    path: '/internal/account/recover',
    summary: 'Resume an approved email change or account deletion (operator recovery)',
    description:
      'Only `Authorization: Bearer <ACCOUNT_RECOVERY_SECRET>` is accepted (no other secret, no access token); closed (404 `not_configured`) when the secret is not configured. Checks ownership, purpose and the persisted phase; never begins an operation from unconsumed proof, takes no new email and runs no provider command; repeating it never grants fresh authority.',
    secret: SECRETS.accountRecovery,
    bodyLimit: LIMITS.requestBodyBytes,
    body: recoveryRequestSchema,
    successes: [
      { status: 200, schema: recoveryResponseSchema, description: '`complete`, `pending` (retry the same operation) or `cancelled`.' },
    ],
    errors: ['recovery_not_found', 'recovery_pending'],
    handle: async ({ domain, body }) => {
      const outcome = await resumeRecovery(domain.db, body, domain.clock);
      domain.log.info('recovery', {
        operationId: body.operationId,
        purpose: body.purpose,
        outcome: outcome.kind === 'status' ? outcome.status : outcome.kind,
      });
      switch (outcome.kind) {
        case 'status':
          return { status: 200, body: { status: outcome.status, operationId: body.operationId } };
        case 'not_found':
          throw new ProblemError('recovery_not_found', { detail: 'No matching resumable authorization.' });
        case 'in_progress':
          throw new ProblemError('recovery_pending', { detail: 'A recovery of this operation is still in progress; retry later.' });
      }
    },
  },
];

// ----------------------------------------------------------------------------------------------------------- the stages

/** Stage "shared secret": closed when unset (404), else the caller's secret, compared in constant time (401). */
function sharedSecretStage(route: InternalRoute): RequestHandler {
  return (req, res, next) => {
    const { config } = contextAt(res, 'bound').domain;
    const verdict = checkSharedSecret(route.secret.value(config), route.secret.carrier, (name) => req.get(name));
    if (verdict === 'not_configured')
      throw new ProblemError('not_configured', { detail: 'This route is not configured on this deployment.' });
    if (verdict !== 'ok') {
      const where = route.secret.carrier.kind === 'bearer' ? 'Authorization: Bearer' : route.secret.carrier.name;
      throw new ProblemError('invalid_credentials', {
        detail: `${verdict === 'missing' ? 'Missing' : 'Wrong'} credential: this route needs its shared secret in ${where}.`,
        // Every 401 carries a challenge (RFC 9110 §15.5.2), the header-carried secret's too.
        challenge:
          route.secret.carrier.kind === 'bearer'
            ? { kind: 'bearer' as const, error: 'invalid_token' }
            : { kind: 'secret-header' as const, error: 'invalid_credentials', header: route.secret.carrier.name },
      });
    }
    next();
  };
}

const tooLarge = (limit: number) =>
  new ProblemError('payload_too_large', { detail: `The request body is over the ${limit}-byte limit of this route.` });

/**
 * Reads the body, stopping as soon as `limit` + 1 bytes arrived (with or without Content-Length, chunked or not). Nothing
 * beyond the limit is buffered. Resolves undefined when the request has no body.
 */
export function readBounded(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      fn();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        settle(() => reject(tooLarge(limit)));
        return;
      }
      chunks.push(chunk);
    };
    const unreadable = (code: string) =>
      new ProblemError('invalid_request', {
        detail: 'The request body could not be read.',
        issues: [{ path: 'body', code, message: 'The body could not be read.' }],
      });
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = () => settle(() => reject(unreadable('request.aborted')));
    const onClose = () => {
      if (!req.complete) settle(() => reject(unreadable('request.aborted')));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** Stage "bounded body": a JSON body of at most `limit` bytes, decoded; nothing is read before the secret passed. */
function boundedBodyStage(route: InternalRoute): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextOf(res);
    let body: unknown = undefined;
    if (hasBody(req)) {
      if (!req.is(['application/json', 'application/*+json'])) {
        throw new ProblemError('unsupported_media_type', { detail: 'Request bodies must be sent as Content-Type: application/json.' });
      }
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
      const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
      if ((charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') || encoding !== 'identity') {
        throw new ProblemError('unsupported_media_type', { detail: 'Request bodies must be UTF-8 JSON without a content coding.' });
      }
      const declared = req.get('content-length');
      // A declared length over the limit is refused before reading anything.
      if (declared !== undefined && Number(declared) > route.bodyLimit) {
        discardRestOfBody(req);
        throw tooLarge(route.bodyLimit);
      }
      let raw: Buffer;
      try {
        raw = await readBounded(req, route.bodyLimit);
      } catch (err) {
        // Nothing beyond the limit is kept; the rest is discarded so that the answer reaches the client (reference/src/drain.ts).
        if (err instanceof ProblemError && err.code === 'payload_too_large') discardRestOfBody(req);
        throw err;
      }
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
        } catch {
          throw new ProblemError('invalid_json', { detail: 'The request body is not valid JSON.' });
        }
      }
    }
    ctx.input = { params: req.params, query: {}, body };
    next();
  };
}

/** Stage "input validation": path parameters and body against the route's strict schemas (400 `invalid_request`). */
function inputValidationStage(route: InternalRoute): RequestHandler {
  return (req, res, next) => {
    const ctx = contextAt(res, 'bound input');
    const { input } = ctx;
    const issues: ProblemIssue[] = [];
    const parse = (location: string, schema: z.ZodType | undefined, value: unknown) => {
      if (!schema) return undefined;
      const r = schema.safeParse(value);
      if (r.success) return r.data;
      issues.push(...toIssues(location, r.error));
      return undefined;
    };
    const params = parse('params', route.params, { ...req.params });
    const body = parse('body', route.body, input.body);
    if (issues.length > 0) throw invalidRequest(issues);
    ctx.input = { params, query: {}, body };
    next();
  };
}

/** Stage "handler": runs the route and writes its success (problems are written by the boundary alone). */
function handlerStage(route: InternalRoute): RequestHandler {
  return async (req, res) => {
    const ctx = contextAt(res, 'bound input');
    const { domain, input } = ctx;
    const result = await route.handle({ domain, params: input.params, body: input.body, req });
    ctx.result = result;
    for (const [k, v] of Object.entries(result.headers ?? {})) res.set(k, v);
    const success = route.successes.find((s) => s.status === result.status);
    if (!success) throw new Error(`${route.operationId} answered undeclared status ${result.status}`);
    if (success.schema === null || result.body === undefined) {
      res.status(result.status).end();
      return;
    }
    const checked = success.schema.safeParse(result.body);
    if (!checked.success) throw new Error(`output of ${route.operationId} does not match its schema: ${checked.error.issues[0]?.message}`);
    res.status(result.status).type('application/json').send(JSON.stringify(checked.data));
  };
}

/** The group's stages after the app-wide request stage, in order, for the stage table. */
export const internalStages: readonly { name: string; make: (route: InternalRoute, domain: Domain) => RequestHandler }[] = [
  { name: 'domain', make: (_route, domain) => domainStage(domain) },
  { name: 'shared secret', make: (route) => sharedSecretStage(route) },
  { name: 'bounded body', make: (route) => boundedBodyStage(route) },
  { name: 'input validation', make: (route) => inputValidationStage(route) },
  { name: 'handler', make: (route) => handlerStage(route) },
];

/** Every internal route with its stages (from the stage table), and 405 for any other method on its path. */
export function internalRouter(stagesOf: (route: InternalRoute) => RequestHandler): Router {
  // The app's routing rules (one URL per route): case-sensitive, no trailing-slash twins.
  const router = Router({ caseSensitive: true, strict: true });
  for (const route of INTERNAL_ROUTES) {
    const path = expressPath(route.path);
    router.post(path, stagesOf(route));
    router.all(path, () => {
      throw new ProblemError('method_not_allowed', { detail: 'Only POST is allowed on this path.', headers: { Allow: 'POST' } });
    });
  }
  return router;
}

// ------------------------------------------------------------------------------------------------ description (OpenAPI)

const toJson = toJsonSchema;

/** Errors the group's stages may answer for a route, plus the route's own. */
function routeErrors(route: InternalRoute): ErrorCode[] {
  return [
    ...new Set<ErrorCode>([
      'not_configured',
      'invalid_credentials',
      'unsupported_media_type',
      'payload_too_large',
      'invalid_json',
      'invalid_request',
      'internal_error',
      ...route.errors,
    ]),
  ];
}

/** The security schemes `internalPaths` names; merge them into `components.securitySchemes`. */
export const internalSecuritySchemes: Record<string, Json> = Object.fromEntries(
  Object.values(SECRETS).map((s) => [
    s.scheme,
    s.carrier.kind === 'bearer'
      ? { type: 'http', scheme: 'bearer', description: `The shared secret ${s.env}, as a bearer credential.` }
      : { type: 'apiKey', in: 'header', name: s.carrier.name, description: `The shared secret ${s.env}.` },
  ]),
);

/**
 * OpenAPI 3.1 paths of every internal route, generated from the schemas that validate them. Problem responses reference
 * `#/components/schemas/Problem` (the general document's); the security schemes are `internalSecuritySchemes`.
 */
export const internalPaths: Record<string, Json> = Object.fromEntries(
  INTERNAL_ROUTES.map((route) => {
    const responses: Json = {};
    for (const s of route.successes) {
      responses[String(s.status)] = s.schema
        ? { description: s.description, content: { 'application/json': { schema: toJson(s.schema, 'output') } } }
        : { description: s.description };
    }
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of routeErrors(route)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(status)] = {
        description: `${REASON_PHRASES[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const params = route.params ? (toJson(route.params, 'input') as { properties?: Record<string, Json> }) : undefined;
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: ['internal'],
      'x-internal': true,
      'x-body-limit-bytes': route.bodyLimit,
      security: [{ [route.secret.scheme]: [] }],
      parameters: Object.entries(params?.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
      requestBody: { required: true, content: { 'application/json': { schema: toJson(route.body, 'input') } } },
      responses,
    };
    return [route.path, { post: operation }];
  }),
);
