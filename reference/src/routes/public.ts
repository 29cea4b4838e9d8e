// The public routes (spec, Endpoints > Public and special routes): /health and the two description documents, no
// credential at all (their rows' `auth` is none). The stage table wires them (STAGE_TABLE.public in pipeline/groups.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';
import { PACKAGE_ROOT } from '../paths.js';
import { ProblemError } from '../problem.js';
import type { RouteDef } from '../pipeline/route.js';
import { healthSchema } from '../schemas/health.js';
import { defineSpecialRoute } from './define.js';

export const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export const healthRoute: RouteDef = defineSpecialRoute({
  operationId: 'getHealth',
  summary: 'Liveness and database check',
  successes: [{ status: 200, schema: healthSchema, description: 'Healthy.' }],
  errors: ['unavailable'],
  // [END-PUBLIC-1] GET /health answers without any authentication.
  handle: ({ domain }) => {
    try {
      domain.db.prepare('SELECT 1').get();
    } catch (err) {
      throw new ProblemError('unavailable', {
        detail: 'The database does not answer.',
        headers: { 'Retry-After': String(LIMITS.outageRetryAfterSeconds) },
        cause: err,
      });
    }
    return { status: 200, body: { status: 'ok', version: VERSION, checks: { database: 'ok' } } };
  },
});

/** A description document as generated (openapi.ts): served as it is. */
const documentSchema = z.custom<Readonly<Record<string, unknown>>>();

/**
 * The routes that serve the two description documents, already built for this instance (their links name its docs URL).
 * Frozen, each is rendered once and served from then on (10-output-validation.ts).
 */
export function descriptionRoutes(documents: { general: object; assistant: object }): RouteDef[] {
  const serving = (operationId: string, document: object, summary: string) =>
    defineSpecialRoute({
      operationId,
      summary,
      successes: [{ status: 200, schema: documentSchema, description: 'The description document.' }],
      // [END-PUBLIC-2] [END-PUBLIC-3] [END-PUBLIC-4] [END-PUBLIC-5] [LIM-DOCS-1] No authentication; cached 300 seconds.
      handle: () => ({
        status: 200,
        body: Object.freeze(document),
        headers: { 'Cache-Control': `public, max-age=${LIMITS.descriptionCacheSeconds}` },
      }),
    });
  return [
    serving('getDescription', documents.general, 'The general description document'),
    serving('getAssistantDescription', documents.assistant, 'The description document for assistants'),
  ];
}
