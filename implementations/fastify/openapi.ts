import { z } from 'zod';
import type { Config } from './config.js';
import { OPERATIONS, type OpDef } from './ops.js';

const problem = {
  description: 'Problem document (RFC 9457)',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

function jsonSchema(s: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const SECURITY_BY_KIND: Record<string, Record<string, string[]>[]> = {
  customer: [{ bearerAuth: [] }],
  delegated: [{ bearerAuth: [] }],
  guest: [{ bearerAuth: [], guestSession: [] }, { bearerAuth: [] }],
  operator: [{ bearerAuth: [], operatorAttribution: [] }],
  'invited-agent': [{ bearerAuth: [], invitedAgentContext: [] }],
  assistant: [{ dpopAuth: [] }, { bearerAuth: [], assistantSubject: [] }, { bearerAuth: [], assistantBrowserSession: [] }],
};

function operation(def: OpDef, cfg: Config): Record<string, unknown> {
  const parameters: unknown[] = [];
  const names = [...def.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const n of names) {
    const shape = def.params?.shape[n] as z.ZodType | undefined;
    parameters.push({ name: n, in: 'path', required: true, schema: shape ? jsonSchema(shape) : { type: 'string' } });
  }
  if (def.query) {
    for (const [n, s] of Object.entries(def.query.shape))
      parameters.push({ name: n, in: 'query', required: false, schema: jsonSchema(s as z.ZodType) });
  }
  if (def.callers.includes('guest') && def.group === 'cart') {
    parameters.push({
      name: 'Shopper-IP',
      in: 'header',
      required: false,
      description: 'Guests only: the shopper’s address (at most 64 characters), for rate limits.',
      schema: { type: 'string', maxLength: 64 },
    });
  }
  if (def.stream) parameters.push({ name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } });
  const responses: Record<string, unknown> = {};
  for (const [code, r] of Object.entries(def.responses)) {
    if (code === '204') responses[code] = { description: r.description };
    else if (r.stream) responses[code] = { description: r.description, content: { 'text/event-stream': { schema: { type: 'string' } } } };
    else responses[code] = { description: r.description, content: { 'application/json': { schema: r.schema ?? { type: 'object' } } } };
    if (code === '201' && def.id !== 'createCheckoutPreview' && def.id !== 'sendAssistantMessage') {
      (responses[code] as Record<string, unknown>).headers = {
        Location: { schema: { type: 'string' }, description: 'A GET URL where the created resource is seen.' },
      };
    }
  }
  if (def.group === 'catalog') responses['304'] = { description: 'Not modified (If-None-Match matched the weak ETag)' };
  for (const c of ['400', '401', '403', '404', '429']) responses[c] = problem;
  if (def.body) responses['415'] = problem;
  if (def.id === 'checkoutSavedCard' || def.id === 'createCheckoutPreview') responses['422'] = problem;
  if (def.id === 'checkoutSavedCard') responses['402'] = problem;
  if (
    [
      'addCartItem',
      'updateCartItem',
      'checkoutSavedCard',
      'cancelOrder',
      'requestReturn',
      'startAssistantConversation',
      'sendAssistantMessage',
      'opsAdjustStock',
      'opsRefundOrder',
    ].includes(def.id)
  )
    responses['409'] = problem;
  if (def.group === 'conversation') responses['413'] = problem;
  responses['500'] = problem;
  const security: unknown[] = [];
  const seen = new Set<string>();
  for (const k of def.callers) {
    for (const s of SECURITY_BY_KIND[k] ?? []) {
      if (def.group === 'conversation' && !('dpopAuth' in s)) continue;
      const key = JSON.stringify(s);
      if (!seen.has(key)) {
        seen.add(key);
        security.push(s);
      }
    }
  }
  const o: Record<string, unknown> = {
    operationId: def.id,
    summary: def.summary,
    tags: [def.group],
    'x-callers': def.callers,
    'x-shop-group': def.group,
    'x-api-scopes': def.apiScopes,
    'x-agent-scopes': def.agentScopes,
    parameters,
    responses,
    security,
  };
  if (def.tools) o['x-tools'] = def.tools;
  if (def.body) {
    const schema = jsonSchema(def.body);
    o.requestBody = {
      required: def.bodyRequired ?? false,
      content: { 'application/json': { schema, ...(def.example !== undefined ? { example: def.example } : {}) } },
    };
  }
  void cfg;
  return o;
}

export const INTERNAL_ROUTES = [
  {
    path: '/internal/account/security-intents',
    operationId: 'recordSecurityIntent',
    security: [{ idpActionSecret: [] }],
    summary: 'Identity-provider action script: record a fresh-verification approval (body at most 8 KiB)',
    body: {
      type: 'object',
      required: ['freshIntentId', 'subject', 'purpose'],
      properties: {
        freshIntentId: { type: 'string', minLength: 1, maxLength: 128 },
        subject: { type: 'string', minLength: 1, maxLength: 256 },
        purpose: { type: 'string', enum: ['email', 'delete'] },
        operationId: { type: 'string' },
      },
      additionalProperties: false,
    },
    status: '202',
  },
  {
    path: '/internal/assistant/sessions/signed-out',
    operationId: 'reportAssistantSignedOut',
    security: [{ proxyIdpSecret: [] }],
    summary: 'Identity-provider proxy: an assistant session is (now) signed out',
    body: {
      type: 'object',
      required: ['session_id', 'client_id'],
      properties: { session_id: { type: 'string' }, client_id: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } },
    },
    status: '200',
  },
  {
    path: '/internal/assistant/agents/connected',
    operationId: 'reportAssistantConnected',
    security: [{ proxyIdpSecret: [] }],
    summary: 'Identity-provider proxy: an assistant session signed in to an account',
    body: {
      type: 'object',
      required: ['subject', 'agent_id', 'client_id', 'permissions', 'session_id'],
      properties: {
        subject: { type: 'string' },
        agent_id: { type: 'string' },
        client_id: { type: 'string' },
        permissions: { type: 'array', items: { type: 'string' } },
        session_id: { type: 'string' },
      },
    },
    status: '200',
  },
  {
    path: '/internal/agent-authorization',
    operationId: 'reportAgentAuthorization',
    security: [{ proxyIdpSecret: [] }],
    summary: 'Identity-provider proxy: an account granted, narrowed or revoked an agent',
    body: {
      type: 'object',
      required: ['subject', 'agent_id', 'decision'],
      properties: {
        subject: { type: 'string' },
        agent_id: { type: 'string' },
        permissions: { type: 'array', items: { type: 'string' } },
        decision: { type: 'string', enum: ['granted', 'revoked'] },
      },
    },
    status: '200',
  },
  {
    path: '/internal/conversations/{id}/turn',
    operationId: 'hubAppendTurn',
    security: [{ hubSecret: [] }],
    summary: 'Conversation hub: append a turn (idempotent by turn_id)',
    body: {
      type: 'object',
      required: ['turn_id', 'author', 'text'],
      properties: {
        turn_id: { type: 'string' },
        author: { type: 'string', enum: ['agent', 'operator', 'system'] },
        text: { type: 'string', maxLength: 16000 },
        sent_at: { type: 'string' },
      },
      additionalProperties: false,
    },
    status: '202',
  },
  {
    path: '/internal/conversations/{id}/handoff-timeout',
    operationId: 'hubHandoffTimeout',
    security: [{ hubSecret: [] }],
    summary: 'Conversation hub: a handoff timed out',
    body: {
      type: 'object',
      required: ['handoff_id'],
      properties: { handoff_id: { type: 'string' }, timed_out_at: { type: 'string' } },
      additionalProperties: false,
    },
    status: '202',
  },
  {
    path: '/internal/account/recover',
    operationId: 'recoverAccountOperation',
    security: [{ recoverySecret: [] }],
    summary: 'Operator recovery: resume an approved email change or deletion',
    body: {
      type: 'object',
      required: ['subject', 'operationId', 'purpose'],
      properties: {
        subject: { type: 'string', minLength: 1, maxLength: 256 },
        operationId: { type: 'string', minLength: 1, maxLength: 128 },
        purpose: { type: 'string', enum: ['email', 'delete'] },
      },
      additionalProperties: false,
    },
    status: '200',
  },
];

export function buildDocuments(cfg: Config): { general: Record<string, unknown>; assistant: Record<string, unknown> } {
  const components = {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (at+jwt)' },
      dpopAuth: {
        type: 'http',
        scheme: 'DPoP',
        description: 'Assistant session token with a DPoP proof (RFC 9449, ES256); every proof carries the current DPoP-Nonce.',
      },
      guestSession: { type: 'apiKey', in: 'header', name: 'Guest-Session', description: 'gs1.<uuid>.<HMAC-SHA256>' },
      operatorAttribution: { type: 'apiKey', in: 'header', name: 'Operator' },
      invitedAgentContext: {
        type: 'apiKey',
        in: 'header',
        name: 'Invited-Agent-Context',
        description: 'HS256 invited-agent+jwt bound to the forwarder token (ath)',
      },
      assistantSubject: {
        type: 'apiKey',
        in: 'header',
        name: 'Assistant-Subject',
        description: 'The original assistant token, carried by the agent-protocol forwarder',
      },
      assistantBrowserSession: {
        type: 'apiKey',
        in: 'cookie',
        name: cfg.browserSessionCookie,
        description: `${cfg.browserSessionPrefix}.<session id>.<base64url HMAC-SHA256>`,
      },
      proxyIdpSecret: { type: 'apiKey', in: 'header', name: 'X-Proxy-Idp-Secret' },
      idpActionSecret: { type: 'http', scheme: 'bearer' },
      hubSecret: { type: 'http', scheme: 'bearer' },
      recoverySecret: { type: 'http', scheme: 'bearer' },
      stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature' },
    },
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'error', 'instance'],
        properties: {
          type: { type: 'string', format: 'uri' },
          title: { type: 'string' },
          status: { type: 'integer' },
          error: { type: 'string' },
          detail: { type: 'string' },
          instance: { type: 'string' },
          issues: {
            type: 'array',
            maxItems: 20,
            items: {
              type: 'object',
              required: ['path', 'code', 'message'],
              properties: { path: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
            },
          },
          scope: { type: 'string' },
          conversation_id: { type: 'string' },
        },
      },
    },
  };
  const addOp = (paths: Record<string, Record<string, unknown>>, def: OpDef): void => {
    (paths[def.path] ??= {})[def.method.toLowerCase()] = operation(def, cfg);
  };
  const general: Record<string, Record<string, unknown>> = {};
  for (const def of OPERATIONS) addOp(general, def);
  general['/health'] = {
    get: {
      operationId: 'getHealth',
      security: [],
      'x-callers': [],
      responses: {
        '200': {
          description: 'Up',
          content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } } },
        },
      },
    },
  };
  general['/openapi.json'] = {
    get: { operationId: 'getOpenApiDocument', security: [], responses: { '200': { description: 'This document (cached 300 s)' } } },
  };
  general['/assistant/openapi.json'] = {
    get: {
      operationId: 'getAssistantOpenApiDocument',
      security: [],
      responses: { '200': { description: 'The assistant document (cached 300 s)' } },
    },
  };
  general['/webhooks/stripe'] = {
    post: {
      operationId: 'receivePaymentWebhook',
      security: [{ stripeSignature: [] }],
      summary: 'Payment-provider webhook (signature over the raw body)',
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': {
          description: 'Accepted',
          content: {
            'application/json': { schema: { type: 'object', required: ['received'], properties: { received: { type: 'boolean' } } } },
          },
        },
        '400': problem,
        '404': problem,
        '500': problem,
        '503': problem,
      },
    },
  };
  for (const r of INTERNAL_ROUTES) {
    general[r.path] = {
      post: {
        operationId: r.operationId,
        summary: r.summary,
        tags: ['internal'],
        security: r.security,
        ...(r.path.includes('{id}')
          ? { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } }] }
          : {}),
        requestBody: { required: true, content: { 'application/json': { schema: r.body } } },
        responses: {
          [r.status]: { description: 'Done', content: { 'application/json': { schema: { type: 'object' } } } },
          '400': problem,
          '401': problem,
          '404': problem,
          '409': problem,
          '413': problem,
        },
      },
    };
  }
  const assistant: Record<string, Record<string, unknown>> = {};
  for (const def of OPERATIONS) if (def.callers.includes('assistant')) addOp(assistant, def);
  const info = (title: string): Record<string, unknown> => ({
    title,
    version: '1.0.0',
    description: `Problem types: ${cfg.docsUrl}/api/problems/<error>.`,
  });
  return {
    general: { openapi: '3.1.0', info: info('Shop service (fastify implementation)'), servers: [{ url: '/' }], paths: general, components },
    assistant: {
      openapi: '3.1.0',
      info: info('Shop service for personal assistant agents (fastify implementation)'),
      servers: [{ url: '/' }],
      paths: assistant,
      components,
    },
  };
}
