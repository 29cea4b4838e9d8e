// Defects of Versioning (spec part 9, VER-*): old or website-prefixed paths served, an operation outside /v1, the
// documents moved.
import type { ProxyRequest } from '../proxy.js';
import { bareProblem, pathOf, refused } from './helpers.js';
import { lenient, wire, type Defect } from './types.js';
import { servesUnknownRoutes } from './01-purpose.js';

export const VERSIONING_DEFECTS: readonly Defect[] = [
  servesUnknownRoutes('versioning.website-checkout-paths-served', 'VER-ROUTES-2', 'an earlier website-prefixed checkout read'),
  servesUnknownRoutes('versioning.old-paths-aliased', 'VER-ROUTES-3', 'an old path'),
  wire('versioning.assistant-document-missing', 'VER-DOCS-1', '/assistant/openapi.json answers 404', (a, r) =>
    pathOf(r) === '/assistant/openapi.json' ? bareProblem(404, 'not_found', 'Not Found') : a,
  ),
  // A route table that kept one operation where an older version had it: listCollections at /catalog/collections, outside
  // /v1 (its /v1 path goes where no route is, and the server answers it as unmatched).
  lenient(
    'versioning.routes.operation-outside-v1',
    'VER-PREFIX-1',
    'listCollections is served at /catalog/collections instead of /v1/catalog/collections (the /v1 path is unmatched)',
    () => ({
      request(req: ProxyRequest): ProxyRequest {
        const [path, query] = [pathOf(req), req.path.slice(pathOf(req).length)];
        if (path === '/v1/catalog/collections') return { ...req, path: `/v1/catalog/collections-unrouted${query}` };
        if (path === '/catalog/collections') return { ...req, path: `/v1/catalog/collections${query}` };
        return req;
      },
    }),
  ),
  wire('versioning.documents-under-v1', 'VER-PREFIX-2', '/openapi.json answers 404 (the documents moved under /v1)', (a, r) =>
    pathOf(r) === '/openapi.json' ? refused(a, 404, 'not_found') : a,
  ),
];
