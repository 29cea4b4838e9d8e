// Defects of part 4, Endpoints: conventions of creates, deletes and catalog reads; the public routes.
import type { Defect } from '../defect.js';

export const ENDPOINT_DEFECTS: readonly Defect[] = [
  { id: 'create-200', clause: 'END-CONV-1', breaks: 'a create answers 200', when: { method: 'POST', path: '^/v1/me/addresses$', status: 201 }, response: { status: 200 } },
  { id: 'create-without-location', clause: 'END-CONV-2', breaks: 'a create answers without Location', when: { method: 'POST', status: 201 }, response: { drop: ['Location'] } },
  { id: 'delete-200', clause: 'END-CONV-3', breaks: 'a delete answers 200', when: { method: 'DELETE', status: 204 }, response: { status: 200 } },
  { id: 'catalog-strong-etag', clause: 'END-CONV-6', breaks: 'catalog reads carry a strong ETag', when: { method: 'GET', path: '^/v1/catalog/', status: 200 }, response: { set: { ETag: '"v1"' } } },
  { id: 'catalog-no-store', clause: 'END-CONV-7', breaks: 'catalog reads carry Cache-Control: no-store', when: { method: 'GET', path: '^/v1/catalog/', status: 'success' }, response: { set: { 'Cache-Control': 'no-store' } } },
  { id: 'not-modified-ignored', clause: 'END-CONV-8', breaks: 'a matching If-None-Match is answered 200', when: { method: 'GET', path: '^/v1/catalog/', status: 304 }, response: { status: 200 } },
  { id: 'cart-cacheable', clause: 'END-CONV-9', breaks: 'a cart read is cacheable (private, max-age=60)', when: { path: '^/v1/cart', status: 'success' }, response: { set: { 'Cache-Control': 'private, max-age=60' } } },
  { id: 'health-requires-auth', clause: 'END-PUBLIC-1', breaks: 'GET /health answers 401 without a token', when: { path: '^/health$' }, response: { status: 401 } },
  { id: 'openapi-requires-auth', clause: 'END-PUBLIC-2', breaks: 'GET /openapi.json answers 401 without a token', when: { path: '^/openapi\\.json$' }, response: { status: 401 } },
  { id: 'openapi-not-cached', clause: 'END-PUBLIC-3', breaks: '/openapi.json carries Cache-Control: no-cache', when: { path: '^/openapi\\.json$' }, response: { set: { 'Cache-Control': 'no-cache' } } },
  { id: 'assistant-openapi-requires-auth', clause: 'END-PUBLIC-4', breaks: 'GET /assistant/openapi.json answers 401', when: { path: '^/assistant/openapi\\.json$' }, response: { status: 401 } },
  { id: 'assistant-openapi-short-cache', clause: 'END-PUBLIC-5', breaks: '/assistant/openapi.json is cached 60 s', when: { path: '^/assistant/openapi\\.json$' }, response: { set: { 'Cache-Control': 'public, max-age=60' } } },
];
