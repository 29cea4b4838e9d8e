// Defects of the Endpoints part (END-*): conventions of creates, deletes and caching; the public routes.
import { headerOf, mapHeader } from '../proxy.js';
import { editJson, pathOf, setField, withoutField, wire, type Defect } from './types.js';

const isCatalog = (path: string) => path.startsWith('/v1/catalog/');
const isDocument = (path: string) => path === '/openapi.json' || path === '/assistant/openapi.json';

export const ENDPOINTS_DEFECTS: readonly Defect[] = [
  wire('endpoints.create-answers-200', 'END-CONV-1', 'creates answer 200 instead of 201', (a) =>
    a.status === 201 ? { ...a, status: 200 } : a,
  ),
  wire('endpoints.create-without-location', 'END-CONV-2', 'creates answer 201 without Location', (a) =>
    a.status === 201 ? { ...a, headers: withoutField(a.headers, 'location') } : a,
  ),
  wire('endpoints.delete-answers-200', 'END-CONV-3', 'deletes answer 200 {} instead of 204', (a, r) =>
    a.status === 204 && r.method === 'DELETE'
      ? { ...a, status: 200, headers: setField(a.headers, 'Content-Type', 'application/json'), body: '{}' }
      : a,
  ),
  wire('endpoints.catalog-strong-etag', 'END-CONV-6', 'catalog ETags are strong', (a, r) =>
    isCatalog(pathOf(r)) ? { ...a, headers: mapHeader(a.headers, 'etag', (v) => v.replace(/^W\//, '')) } : a,
  ),
  wire('endpoints.catalog-cache-max-age', 'END-CONV-7', 'catalog GETs carry Cache-Control: private, max-age=60', (a, r) =>
    isCatalog(pathOf(r)) && a.status === 200 ? { ...a, headers: setField(a.headers, 'Cache-Control', 'private, max-age=60') } : a,
  ),
  wire('endpoints.not-modified-answers-200', 'END-CONV-8', 'a matching If-None-Match is answered 200 with the body again', (a) =>
    a.status === 304 ? { ...a, status: 200 } : a,
  ),
  wire('endpoints.success-without-no-store', 'END-CONV-9', 'successful non-catalog answers without Cache-Control: no-store', (a, r) =>
    a.status < 300 && !isCatalog(pathOf(r)) && !isDocument(pathOf(r)) ? { ...a, headers: withoutField(a.headers, 'cache-control') } : a,
  ),
  wire('endpoints.health-needs-token', 'END-PUBLIC-1', 'GET /health refused without a token', (a, r) =>
    pathOf(r) === '/health' && !headerOf(r.headers, 'authorization')
      ? {
          status: 401,
          headers: [
            ['Content-Type', 'application/problem+json'],
            ['Cache-Control', 'no-store'],
            ['WWW-Authenticate', 'Bearer error="invalid_token"'],
          ],
          body: JSON.stringify({ error: 'invalid_token', status: 401, title: 'Unauthorized' }),
        }
      : a,
  ),
  wire('endpoints.openapi-short-cache', 'END-PUBLIC-3', '/openapi.json cacheable for 60 seconds', (a, r) =>
    pathOf(r) === '/openapi.json'
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=60')) }
      : a,
  ),
  wire('endpoints.assistant-openapi-short-cache', 'END-PUBLIC-5', '/assistant/openapi.json cacheable for 60 seconds', (a, r) =>
    pathOf(r) === '/assistant/openapi.json'
      ? { ...a, headers: mapHeader(a.headers, 'cache-control', (v) => v.replace(/max-age=\d+/, 'max-age=60')) }
      : a,
  ),
  wire('endpoints.identity-leaks-email', 'PUR-BANNER-2', 'the identity read carries the account email', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          b.email = 'leak@example.test';
        })
      : a,
  ),
];
