// The two description documents (spec, Versioning): generated from the same zod schemas that validate input and output,
// and from the contract's operation table.
import { z } from 'zod';
import { CALLER_LISTS } from '../../contract/callers.js';
import { ERRORS, REASON_PHRASES, type ErrorCode } from '../../contract/errors.js';
import { HEADERS } from '../../contract/headers.js';
import { ASSISTANT_BROWSER_SESSION_HEADER } from './admission/assistant.js';
import type { RouteDef } from './routes/define.js';
import { healthSchema } from './schemas/health.js';
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
function pipelineErrors(route: RouteDef): ErrorCode[] {
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
function securityOf(op: RouteDef['operation']): Json[] {
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

function operationObject(route: RouteDef): Json {
  const op = route.operation;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...pipelineErrors(route), ...route.errors])) {
    const s = ERRORS[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  const responses: Json = {
    [String(route.success.status)]: route.success.schema
      ? { description: route.success.description, content: { 'application/json': { schema: toJson(route.success.schema, 'output') } } }
      : { description: route.success.description },
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

export interface DescriptionOptions {
  which: 'general' | 'assistant';
  version: string;
  docsUrl: string;
  /** Path items of the special routes (webhook, internal routes), described by their own modules; general document only. */
  specialPaths?: Record<string, Json>;
  /** Security schemes the special paths name. */
  specialSecuritySchemes?: Record<string, Json>;
}

export function buildDescription(routes: readonly RouteDef[], o: DescriptionOptions): Json {
  const selected = o.which === 'general' ? routes : routes.filter((r) => CALLER_LISTS[r.operation.callers].members.includes('assistant'));
  const paths: Record<string, Json> = {};
  for (const r of selected) {
    (paths[r.operation.path] ??= {})[r.operation.method.toLowerCase()] = operationObject(r);
  }
  if (o.which === 'general') {
    Object.assign(paths, o.specialPaths ?? {});
    paths['/health'] = {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness and database check',
        tags: ['public'],
        security: [],
        responses: {
          '200': { description: 'Healthy.', content: { 'application/json': { schema: toJson(healthSchema, 'output') } } },
          '4XX': problemResponse(['header_too_large', 'invalid_request']),
          '503': problemResponse(['unavailable']),
        },
      },
    };
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
        ...(o.which === 'general' ? o.specialSecuritySchemes : {}),
      },
    },
  };
}
