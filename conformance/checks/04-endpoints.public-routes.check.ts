// Spec part 4, Endpoints > Public and special routes: the health route and the two description documents, answered
// without authentication and cached 300 seconds. The internal routes, the recovery endpoint, the payment webhook and the
// conversation routes have files of their own.
import { check, test } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectCacheControl, expectFreshFor, expectStatus, expectSuccess, fail } from '../lib/assert.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

// The spec's row shows no status for the health route: any 2xx (a 204 health endpoint is common); the reference's 200 is
// judged at its level.
test(
  ...check(
    {
      id: 'endpoints.public.health',
      title: 'GET /health answers 2xx without authentication',
      clauses: ['END-PUBLIC-1', 'PUR-SERVE-6'],
    },
    async (shop) => {
      // One answer judges both: the route exists (the service serves a health route) and needs no credential.
      expectSuccess(await shop.http.get(SPECIAL_PATHS.getHealth), { what: 'GET /health', clause: ['END-PUBLIC-1', 'PUR-SERVE-6'] });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.public.health.reference',
      title: 'GET /health answers 200 without authentication',
      clauses: ['END-PUBLIC-1'],
      level: 'reference',
    },
    async (shop) => {
      expectStatus(await shop.http.get(SPECIAL_PATHS.getHealth), 200, { clause: 'END-PUBLIC-1' });
    },
  ),
);

/** A description document: 200 without credentials, a JSON object naming its OpenAPI version, cached 300 s. */
function expectDescription(res: ShopResponse, { clause, cacheClause }: { clause: string; cacheClause: string }): void {
  expectStatus(res, 200, { clause });
  const doc = res.body;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    fail('description document', 'a JSON object', res.text.slice(0, 200), { clause });
  if (typeof doc.openapi !== 'string' || doc.openapi === '')
    fail('description document member "openapi"', 'a version string', doc.openapi, { clause });
  // "Cached 300 seconds" is a freshness lifetime (RFC 9111 §4.2.1): max-age=300, or Expires 300 s after Date, says it.
  expectFreshFor(res, 300, { clause: cacheClause });
}

test(
  ...check(
    {
      id: 'endpoints.public.openapi',
      title: 'GET /openapi.json answers without authentication and is cached 300 seconds',
      clauses: ['END-PUBLIC-2', 'END-PUBLIC-3'],
    },
    async (shop) => {
      expectDescription(await shop.http.get(SPECIAL_PATHS.getDescription), { clause: 'END-PUBLIC-2', cacheClause: 'END-PUBLIC-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.public.assistant-openapi',
      title: 'GET /assistant/openapi.json answers without authentication and is cached 300 seconds',
      clauses: ['END-PUBLIC-4', 'END-PUBLIC-5'],
    },
    async (shop) => {
      expectDescription(await shop.http.get(SPECIAL_PATHS.getAssistantDescription), {
        clause: 'END-PUBLIC-4',
        cacheClause: 'END-PUBLIC-5',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.public.description-documents.reference',
      title: 'description documents: OpenAPI 3.1.0, Cache-Control exactly "public, max-age=300"',
      clauses: ['END-PUBLIC-3', 'END-PUBLIC-5'],
      level: 'reference',
    },
    async (shop) => {
      for (const [path, clause] of [
        [SPECIAL_PATHS.getDescription, 'END-PUBLIC-3'],
        [SPECIAL_PATHS.getAssistantDescription, 'END-PUBLIC-5'],
      ] as const) {
        const res = await shop.http.get(path);
        expectStatus(res, 200, { clause });
        if (res.body?.openapi !== '3.1.0') fail(`${path} "openapi"`, '3.1.0', res.body?.openapi, { clause });
        expectCacheControl(res, ['public', 'max-age=300'], { clause, exact: true });
      }
    },
  ),
);
