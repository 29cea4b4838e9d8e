// The two description documents (OpenAPI 3.1): `/openapi.json` (every route) and `/assistant/openapi.json` (what an
// assistant agent may call). Built from the operation table, so routes, callers and scopes cannot drift.
import { z, type ZodType } from 'zod';
import type { Config } from './config.js';
import { INTERNAL_ROUTES } from './internal.js';
import { operations, type Operation } from './operations.js';
import * as S from './schemas.js';

type Doc = Record<string, any>;

function jsonSchema(schema: ZodType): Doc {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Doc;
  delete out.$schema;
  return out;
}

const problemResponse = (description: string): Doc => ({
  description,
  content: { 'application/problem+json': { schema: S.ref('Problem') } },
});

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request (problem `invalid_request` with `issues`, `guest_session_required`, malformed JSON).',
  401: 'Missing or rejected credential (`invalid_token`, `invalid_guest_session`, `account_access_ended`).',
  402: 'The payment provider declined the card (`payment_declined`).',
  403: 'Caller kind not served (`caller_not_allowed`) or scope missing (`insufficient_scope` with `scope`).',
  404: 'No such resource (`not_found`).',
  405: 'Method not allowed on this route (`method_not_allowed`).',
  409: 'Conflict with the resource state (`insufficient_stock`, `order_not_cancellable`, `order_not_returnable`, ...).',
  413: 'Body over the size limit (`payload_too_large`).',
  415: 'The body is not `application/json` (`unsupported_media_type`).',
  422: 'The request names something the account or catalog does not hold, or the cart is empty (`cart_empty`).',
  429: 'Guest budget of this operation spent (`rate_limited`, with `Retry-After`).',
  500: 'Unexpected failure (`internal_error`).',
  503: 'A dependency is unavailable (`unavailable`, `Retry-After: 5`).',
};

function parameters(op: Operation): Doc[] {
  const out: Doc[] = [];
  const params = jsonSchema(op.params);
  for (const [name, schema] of Object.entries((params.properties ?? {}) as Record<string, Doc>)) {
    out.push({ name, in: 'path', required: true, schema });
  }
  const query = jsonSchema(op.query);
  const required = new Set<string>((query.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Doc>)) {
    out.push({ name, in: 'query', required: required.has(name), schema });
  }
  if (op.callers.includes('guest')) {
    out.push(
      {
        name: 'Guest-Session',
        in: 'header',
        required: false,
        description: 'Guest callers only: `gs1.<cart uuid>.<HMAC>`; required for guest cart writes.',
        schema: { type: 'string' },
      },
      {
        name: 'Shopper-IP',
        in: 'header',
        required: false,
        description: 'Guest callers only: the shopper address, at most 64 characters (rate limits only).',
        schema: { type: 'string', maxLength: 64 },
      },
    );
  }
  if (op.group === 'ops') {
    out.push({
      name: 'Operator',
      in: 'header',
      required: true,
      description: 'Attribution: the operator acting through the backoffice (1-128 visible characters).',
      schema: { type: 'string', minLength: 1, maxLength: 128 },
    });
  }
  return out;
}

function security(op: Operation): Doc[] {
  const scopes = [...op.apiScopes];
  const alternatives: Doc[] = [];
  const userKinds = op.callers.filter((k) => k === 'customer' || k === 'delegated');
  if (userKinds.length > 0) alternatives.push({ accessToken: scopes });
  if (op.callers.includes('guest')) alternatives.push({ accessToken: scopes, guestSession: [] });
  if (op.callers.includes('operator')) alternatives.push({ accessToken: scopes, operatorAttribution: [] });
  if (op.callers.includes('invited-agent')) alternatives.push({ accessToken: ['agent:forward'], invitedAgentContext: [] });
  if (op.callers.includes('assistant')) alternatives.push({ dpop: scopes });
  return alternatives;
}

function requestBody(op: Operation): Doc | undefined {
  if (!op.body) return undefined;
  const schema = jsonSchema(op.body);
  for (const [member, role] of Object.entries(op.roles ?? {})) {
    const prop = (schema.properties as Record<string, Doc> | undefined)?.[member];
    if (prop) prop['x-shop-role'] = role;
  }
  if (op.bodyExample) schema.examples = [op.bodyExample];
  return {
    required: op.bodyRequired ?? false,
    content: { 'application/json': { schema, ...(op.bodyExample ? { example: op.bodyExample } : {}) } },
  };
}

function operationDoc(op: Operation): Doc {
  const responses: Doc = {};
  const success: Doc = { description: 'Success.' };
  if (op.success.schema) success.content = { 'application/json': { schema: S.ref(op.success.schema) } };
  const headers: Doc = {};
  if (op.success.location) {
    headers.Location = { description: 'The URL of the created resource.', schema: { type: 'string' } };
  }
  if (op.group === 'catalog') {
    headers.ETag = { description: 'Weak entity tag; send it in If-None-Match for a 304.', schema: { type: 'string' } };
    headers['Cache-Control'] = { schema: { type: 'string', const: 'private, no-cache' } };
  }
  if (Object.keys(headers).length > 0) success.headers = headers;
  responses[String(op.success.status)] = success;
  if (op.group === 'catalog') responses['304'] = { description: 'Not modified (If-None-Match matched the ETag).' };
  for (const status of [...op.errors, 500]) responses[String(status)] = problemResponse(ERROR_TEXT[status] ?? 'Failure.');
  const doc: Doc = {
    operationId: op.id,
    summary: op.summary,
    tags: [op.group],
    'x-callers': op.callers,
    'x-api-scopes': op.apiScopes,
    'x-agent-scopes': op.agentScopes,
    'x-tools': op.tools ?? [],
    parameters: parameters(op),
    security: security(op),
    responses,
  };
  const body = requestBody(op);
  if (body) doc.requestBody = body;
  return doc;
}

function conversationPaths(): Doc {
  const dpop = [{ dpop: [] }];
  const common = {
    tags: ['conversations'],
    'x-callers': ['assistant'],
    security: dpop,
  };
  const idParam = { name: 'id', in: 'path', required: true, schema: jsonSchema(S.conversationIdParams).properties.id };
  const errs = (...codes: number[]): Doc => Object.fromEntries(codes.map((c) => [String(c), problemResponse(ERROR_TEXT[c] ?? 'Failure.')]));
  const openBody = jsonSchema(S.openConversationBody);
  const msgBody = jsonSchema(S.postMessageBody);
  (msgBody.properties as Doc).text['x-shop-role'] = 'message-text';
  return {
    '/assistant/conversations': {
      get: {
        ...common,
        operationId: 'assistantConversationsList',
        summary: 'List the session conversations.',
        responses: { '200': { description: 'Success.' }, ...errs(401, 403) },
      },
      post: {
        ...common,
        operationId: 'assistantConversationsOpen',
        summary: 'Open a conversation (one open direct conversation per session: `direct_conversation_open`).',
        requestBody: { required: true, content: { 'application/json': { schema: openBody, example: { mode: 'handoff' } } } },
        responses: { '201': { description: 'Created.' }, ...errs(400, 401, 403, 409, 413) },
      },
    },
    '/assistant/conversations/{id}': {
      get: {
        ...common,
        operationId: 'assistantConversationsRead',
        summary: 'Read one conversation.',
        parameters: [idParam],
        responses: { '200': { description: 'Success.' }, ...errs(401, 403, 404) },
      },
    },
    '/assistant/conversations/{id}/messages': {
      post: {
        ...common,
        operationId: 'assistantConversationsSay',
        summary: 'Write a message to an open conversation (64 KiB cap, checked via Content-Length).',
        parameters: [idParam],
        requestBody: { required: true, content: { 'application/json': { schema: msgBody, example: { text: 'Hello' } } } },
        responses: { '201': { description: 'Created.' }, ...errs(400, 401, 403, 404, 413) },
      },
    },
    '/assistant/conversations/{id}/events': {
      get: {
        ...common,
        operationId: 'assistantConversationsFollow',
        summary: 'Event stream of a conversation (`text/event-stream`, keep-alive comment every 15 seconds).',
        parameters: [idParam],
        responses: {
          '200': { description: 'Event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errs(401, 403, 404),
        },
      },
    },
    '/assistant/conversations/{id}/close': {
      post: {
        ...common,
        operationId: 'assistantConversationsEnd',
        summary: 'Close a conversation.',
        parameters: [idParam],
        responses: { '200': { description: 'Success.' }, ...errs(401, 403, 404) },
      },
    },
  };
}

function baseDocument(config: Config, title: string, description: string): Doc {
  return {
    openapi: '3.1.0',
    info: { title, version: '1.0.0', description },
    servers: [{ url: '/' }],
    components: {
      schemas: S.responseSchemas,
      securitySchemes: {
        accessToken: {
          type: 'oauth2',
          description:
            'An access token (at+jwt) of the configured issuer in `Authorization: Bearer`. The caller kind comes from client_id, sub and act.',
          flows: {
            clientCredentials: {
              tokenUrl: `${config.issuer.replace(/\/+$/, '')}/oauth/token`,
              scopes: {
                'catalog:read': 'read the catalog',
                'cart:read': 'read the cart',
                'cart:write': 'change the cart',
                checkout: 'place orders',
                'account:read': 'read account data',
                'account:write': 'change account data',
                'payment_methods:read': 'read saved cards',
                'orders:read': 'read orders',
                'orders:write': 'cancel orders and request returns',
                'ops:read': 'operator reads',
                'ops:write': 'operator writes',
                'agent:forward': 'forward agents (web agent forwarder)',
              },
            },
          },
        },
        dpop: { type: 'http', scheme: 'DPoP', description: 'Assistant session token with a DPoP proof (not served by this deployment).' },
        guestSession: { type: 'apiKey', in: 'header', name: 'Guest-Session' },
        operatorAttribution: { type: 'apiKey', in: 'header', name: 'Operator' },
        invitedAgentContext: { type: 'apiKey', in: 'header', name: 'Invited-Agent-Context' },
        stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature' },
        proxyIdpSecret: { type: 'apiKey', in: 'header', name: 'X-Proxy-Idp-Secret' },
        idpActionSecret: { type: 'http', scheme: 'bearer', description: 'Bearer IDP_ACTION_SECRET.' },
        conversationHubSecret: { type: 'http', scheme: 'bearer', description: 'Bearer CONVERSATION_HUB_SECRET.' },
        accountRecoverySecret: { type: 'http', scheme: 'bearer', description: 'Bearer ACCOUNT_RECOVERY_SECRET.' },
      },
    },
    paths: {} as Doc,
  };
}

export function buildDocuments(config: Config): { general: Doc; assistant: Doc } {
  const general = baseDocument(config, 'Shop service (plainhttp)', 'The HTTP/JSON interface of the online store.');
  const assistant = baseDocument(
    config,
    'Shop service (plainhttp): assistant agents',
    'The operations an assistant agent calls directly, and the conversation routes.',
  );
  const put = (doc: Doc, path: string, method: string, value: Doc) => {
    const key = path;
    doc.paths[key] = { ...(doc.paths[key] ?? {}), [method]: value };
  };
  for (const op of operations) {
    const d = operationDoc(op);
    put(general, op.path, op.method.toLowerCase(), d);
    if (op.callers.includes('assistant')) put(assistant, op.path, op.method.toLowerCase(), d);
  }
  const none: Doc[] = [];
  put(general, '/health', 'get', {
    operationId: 'getHealth',
    summary: 'Liveness.',
    security: none,
    'x-callers': [],
    responses: { '200': { description: 'Up.', content: { 'application/json': { schema: S.ref('Health') } } } },
  });
  for (const [path, id] of [
    ['/openapi.json', 'getOpenApiDocument'],
    ['/assistant/openapi.json', 'getAssistantOpenApiDocument'],
  ] as const) {
    put(general, path, 'get', {
      operationId: id,
      summary: 'Description document (cached 300 seconds).',
      security: none,
      'x-callers': [],
      responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    });
  }
  put(general, '/webhooks/stripe', 'post', {
    operationId: 'receivePaymentWebhook',
    summary: 'Payment-provider webhook: Stripe-Signature over the raw body; settles payments and completes admitted card setups.',
    security: [{ stripeSignature: [] }],
    'x-callers': [],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: {
      '200': { description: 'Delivery accepted.', content: { 'application/json': { schema: S.ref('WebhookReceived') } } },
      '400': problemResponse('`missing_signature` or `invalid_signature`.'),
      '404': problemResponse('`not_configured`.'),
      '500': problemResponse('`processing_failed`.'),
      '503': problemResponse('`webhook_secret_missing`.'),
    },
  });
  for (const r of INTERNAL_ROUTES) {
    const schemeName = r.secret;
    const body = jsonSchema(r.body);
    const params = r.params
      ? Object.entries(jsonSchema(r.params).properties as Record<string, Doc>).map(([name, schema]) => ({
          name,
          in: 'path',
          required: true,
          schema,
        }))
      : [];
    const responses: Doc = {
      [String(r.success.status)]: {
        description: 'Success.',
        content: { 'application/json': { schema: S.ref(r.success.schema) } },
      },
      '400': problemResponse(ERROR_TEXT[400]!),
      '401': problemResponse('The route credential is missing or wrong.'),
      '404': problemResponse(
        r.id === 'recoverAccountOperation' ? '`recovery_not_found`, or `not_configured`.' : '`not_found` or `not_configured`.',
      ),
      '413': problemResponse(ERROR_TEXT[413]!),
      '415': problemResponse(ERROR_TEXT[415]!),
    };
    if (r.id === 'recoverAccountOperation') responses['409'] = problemResponse('`recovery_pending`.');
    if (r.id === 'recordSecurityIntent') responses['409'] = problemResponse('`intent_conflict`.');
    put(general, r.path, 'post', {
      operationId: r.id,
      summary: r.summary,
      tags: ['internal'],
      'x-callers': [],
      security: [{ [schemeName]: [] }],
      parameters: params,
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses,
    });
  }
  for (const [path, item] of Object.entries(conversationPaths())) {
    general.paths[path] = item;
    assistant.paths[path] = item;
  }
  return { general, assistant };
}
