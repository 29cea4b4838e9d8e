// The two description documents (spec, Versioning): generated from the same zod schemas that validate input and output,
// and from the contract's rows (contract/operations.ts, contract/routes.ts), one path item per route: the operations, then
// (general document only) the webhook, the internal routes and /health. The description documents do not describe
// themselves.
import { z } from 'zod';
import { CALLER_LISTS } from '../../contract/callers.js';
import { ERRORS, REASON_PHRASES, type ErrorCode } from '../../contract/errors.js';
import { HEADERS } from '../../contract/headers.js';
import { ASSISTANT_BROWSER_SESSION_HEADER } from './admission/assistant.js';
import type { RouteAuth, RouteKind, SharedSecret } from '../../contract/routes.js';
import { SIGNATURE_TOLERANCE_SECONDS } from './pipeline/03-provider-signature.js';
import { isOperation, successOf, type OperationRouteDef, type RouteDef } from './pipeline/route.js';
import { problemSchema } from './schemas/problem.js';
import { registryComponents, toJsonSchema, type Json } from './json-schema.js';

const COMPONENT = (id: string) => `#/components/schemas/${id}`;

/** Converts one schema; named (meta id) schemas become component references. */
function toJson(schema: z.ZodType, io: 'input' | 'output'): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (id && io === 'output') return { $ref: COMPONENT(id) };
  const out = toJsonSchema(schema, io);
  const text = JSON.stringify(out).replace(/"#\/\$defs\/([A-Za-z0-9_]+)"/g, (_m, name: string) => JSON.stringify(COMPONENT(name)));
  const parsed = JSON.parse(text) as Json;
  delete parsed.$defs;
  return parsed;
}

function components(): Record<string, Json> {
  return registryComponents(COMPONENT);
}

/** The components a document references, followed transitively, so that no document carries unused schemas. */
function usedComponents(paths: Json, all: Record<string, Json>): Record<string, Json> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        const name = v.slice('#/components/schemas/'.length);
        if (!used.has(name)) {
          used.add(name);
          visit(all[name]);
        }
      } else visit(v);
    }
  };
  visit(paths);
  return Object.fromEntries(
    Object.entries(all)
      .filter(([name]) => used.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const json = toJson(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

const problemResponse = (codes: ErrorCode[]) => ({
  description: codes.map((c) => `\`${c}\``).join(', '),
  content: { 'application/problem+json': { schema: { $ref: COMPONENT('Problem') } } },
});

/** Errors the pipeline itself may answer for an operation. */
function pipelineErrors(route: OperationRouteDef): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_token', 'account_access_ended', 'caller_not_allowed', 'unavailable', 'internal_error'];
  if (route.operation.apiScopes.length > 0) codes.push('insufficient_scope');
  if (route.params || route.query || route.body || CALLER_LISTS[route.operation.callers].members.includes('guest'))
    codes.push('invalid_request');
  if (route.body) codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (CALLER_LISTS[route.operation.callers].members.includes('guest')) codes.push('rate_limited');
  if (route.operation.group === 'cart') codes.push('invalid_guest_session');
  return codes;
}

/**
 * Conversations take DPoP only; other operations open to assistants take either scheme. The forwarded agent artifacts are
 * security schemes of their own (header credentials beside the forwarder's bearer token), so that a client learns their
 * header names from the document: the spec names the credentials, not their headers.
 */
function securityOf(op: OperationRouteDef['operation']): Json[] {
  if (op.group === 'conversation') return [{ dpop: [] }];
  const members: readonly string[] = CALLER_LISTS[op.callers].members;
  return [
    { bearer: [] },
    ...(members.includes('assistant') ? [{ dpop: [] }, { bearer: [], assistantBrowserSession: [] }] : []),
    ...(members.includes('invited-agent') ? [{ bearer: [], invitedAgentContext: [] }] : []),
  ];
}

/** Header credentials of forwarded agents (spec, Credentials per consumer). */
const AGENT_ARTIFACT_SCHEMES: Record<string, Json> = {
  invitedAgentContext: {
    type: 'apiKey',
    in: 'header',
    name: HEADERS.invitedAgentContext,
    description: "The signed invited-agent context (typ invited-agent+jwt), bearer-bound, beside the web-agent forwarder's token.",
  },
  assistantBrowserSession: {
    type: 'apiKey',
    in: 'header',
    name: ASSISTANT_BROWSER_SESSION_HEADER,
    description: "The assistant agent's original browser session, beside the web-agent forwarder's token.",
  },
};

function operationObject(route: OperationRouteDef): Json {
  const op = route.operation;
  const success = successOf(route);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...pipelineErrors(route), ...route.errors])) {
    const s = ERRORS[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  const responses: Json = {
    [String(success.status)]: success.schema
      ? { description: success.description, content: { 'application/json': { schema: toJson(success.schema, 'output') } } }
      : { description: success.description },
  };
  if (route.validators) responses['304'] = { description: 'Not modified: the If-None-Match tag matches.' };
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) responses[String(status)] = problemResponse(codes);
  return {
    operationId: op.operationId,
    summary: route.summary,
    tags: [op.group],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.safeParse(undefined).success,
            content: { 'application/json': { schema: toJson(route.body, 'input') } },
          },
        }
      : {}),
    responses,
    security: securityOf(op),
    'x-callers': CALLER_LISTS[op.callers].members,
    'x-caller-list': op.callers,
    'x-agent-scopes': op.agentScopes,
    'x-api-scopes': op.apiScopes,
    'x-tools': op.tools,
  };
}

// ------------------------------------------------------------------------------------- routes that are not operations

/** Errors by status, each status's codes in their order; statuses ascending. */
function byStatus(codes: readonly ErrorCode[]): [number, ErrorCode[]][] {
  const m = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) m.set(ERRORS[code].status, [...(m.get(ERRORS[code].status) ?? []), code]);
  return [...m].sort((a, b) => a[0] - b[0]);
}

/** The name of a shared secret's security scheme: IDP_ACTION_SECRET → idpActionSecret. */
const schemeOf = (secret: SharedSecret) => secret.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A shared secret's security scheme, from its carrier. */
function secretScheme(auth: Extract<RouteAuth, { kind: 'shared-secret' }>): Json {
  return auth.carrier.kind === 'bearer'
    ? { type: 'http', scheme: 'bearer', description: `The shared secret ${auth.secret}, as a bearer credential.` }
    : { type: 'apiKey', in: 'header', name: auth.carrier.name, description: `The shared secret ${auth.secret}.` };
}

/** Schemas inlined, not component references: the special routes' schemas are not components. */
const inline = toJsonSchema;

function successResponses(route: RouteDef): Json {
  const responses: Json = {};
  for (const s of route.successes) {
    responses[String(s.status)] = s.schema
      ? { description: s.description, content: { 'application/json': { schema: inline(s.schema, 'output') } } }
      : { description: s.description };
  }
  return responses;
}

/** An internal route: errors of the stages of its group, its own, then internal_error. */
function internalObject(route: RouteDef, auth: Extract<RouteAuth, { kind: 'shared-secret' }>): Json {
  const stageErrors: ErrorCode[] = [
    'not_configured',
    'invalid_credentials',
    'unsupported_media_type',
    'payload_too_large',
    'invalid_json',
    'invalid_request',
    'internal_error',
  ];
  const responses = successResponses(route);
  for (const [status, codes] of byStatus([...stageErrors, ...route.errors])) {
    responses[String(status)] = {
      description: `${REASON_PHRASES[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      content: { 'application/problem+json': { schema: { $ref: COMPONENT('Problem') } } },
    };
  }
  const params = route.params ? (inline(route.params, 'input') as { properties?: Record<string, Json> }) : undefined;
  return {
    operationId: route.row.operationId,
    summary: route.summary,
    description: route.description,
    tags: ['internal'],
    'x-internal': true,
    'x-body-limit-bytes': route.row.bodyLimit,
    security: [{ [schemeOf(auth.secret)]: [] }],
    parameters: Object.entries(params?.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
    requestBody: { required: true, content: { 'application/json': { schema: inline(route.body!, 'input') } } },
    responses,
  };
}

/** The webhook: its credential is a header of the request, described as a parameter. */
function webhookObject(route: RouteDef, auth: Extract<RouteAuth, { kind: 'provider-signature' }>): Json {
  const stageErrors: ErrorCode[] = [
    'missing_signature',
    'invalid_signature',
    'not_configured',
    'payload_too_large',
    'webhook_secret_missing',
  ];
  const responses = successResponses(route);
  for (const [status, codes] of byStatus([...stageErrors, ...route.errors, 'internal_error']))
    responses[String(status)] = problemResponse(codes);
  return {
    operationId: route.row.operationId,
    summary: route.summary,
    description: route.description,
    tags: ['webhook'],
    security: [],
    'x-authentication': auth.kind,
    parameters: [
      {
        name: auth.header,
        in: 'header',
        required: true,
        description: `\`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the webhook secret>\`; several \`v1\` values may be sent, one must match; older than ${SIGNATURE_TOLERANCE_SECONDS} s is refused.`,
        schema: { type: 'string', minLength: 1 },
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: inline(route.body!, 'input') } } },
    responses,
  };
}

/** A public route: the request stage's and the server's client errors (any path) as one 4XX range, then its own. */
function publicObject(route: RouteDef): Json {
  const success = successOf(route);
  const responses: Json = {
    [String(success.status)]: {
      description: success.description,
      content: { 'application/json': { schema: toJson(success.schema!, 'output') } },
    },
    '4XX': problemResponse(['header_too_large', 'invalid_request']),
  };
  for (const [status, codes] of byStatus(route.errors)) responses[String(status)] = problemResponse(codes);
  return { operationId: route.row.operationId, summary: route.summary, tags: ['public'], security: [], responses };
}

/** The order of the general document's path items: the operations, then the other routes by kind. */
const DESCRIBED: readonly RouteKind[] = ['operation', 'webhook', 'internal', 'public'];

export interface DescriptionOptions {
  which: 'general' | 'assistant';
  version: string;
  docsUrl: string;
}

export function buildDescription(routes: readonly RouteDef[], o: DescriptionOptions): Json {
  const paths: Record<string, Json> = {};
  const specialSchemes: Record<string, Json> = {};
  const add = (route: RouteDef, object: Json) => ((paths[route.row.path] ??= {})[route.row.method.toLowerCase()] = object);
  for (const kind of DESCRIBED) {
    for (const r of routes.filter((x) => x.row.kind === kind)) {
      const auth = r.row.auth;
      if (isOperation(r)) {
        if (o.which === 'general' || CALLER_LISTS[r.operation.callers].members.includes('assistant')) add(r, operationObject(r));
      } else if (o.which !== 'general') continue;
      else if (auth.kind === 'shared-secret') {
        add(r, internalObject(r, auth));
        specialSchemes[schemeOf(auth.secret)] ??= secretScheme(auth);
      } else if (auth.kind === 'provider-signature') add(r, webhookObject(r, auth));
      else add(r, publicObject(r));
    }
  }
  void problemSchema;
  return {
    openapi: '3.1.0',
    info: {
      title: o.which === 'general' ? 'Shop service' : 'Shop service for assistants',
      version: o.version,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: `Problem types are documented under ${o.docsUrl}/api/problems/. Errors: ${Object.keys(ERRORS).length} codes; statuses ${[...new Set(Object.values(ERRORS).map((e) => e.status))].map((s) => `${s} ${REASON_PHRASES[s]}`).join(', ')}.`,
    },
    // Relative: the document describes the deployment that serves it.
    servers: [{ url: '/', description: 'this deployment' }],
    paths,
    components: {
      schemas: usedComponents(paths, components()),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (at+jwt)' },
        dpop: { type: 'http', scheme: 'DPoP', description: 'DPoP-bound assistant session token with a DPoP proof (RFC 9449).' },
        ...Object.fromEntries(Object.entries(AGENT_ARTIFACT_SCHEMES).filter(([name]) => JSON.stringify(paths).includes(`"${name}"`))),
        ...specialSchemes,
      },
    },
  };
}
