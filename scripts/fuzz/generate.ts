// What the fuzzer sends: a route of the description documents (or a path that is none), a method, a path with its
// parameters filled (seed ids, junk, percent-escapes, dot segments, overlong), headers (content types, encodings, charsets,
// duplicates, no Host), a body (schema-shaped, mutated, or junk) and a framing (length, chunked oddities).
import { gzipSync } from 'node:zlib';
import type { Framing } from './raw-http.js';
import type { Rng } from './rng.js';

export interface Route {
  method: string;
  path: string;
  bodySchema?: Schema;
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  maxLength?: number;
};

/** Every operation of the description documents, resolving `$ref`s of request bodies against their components. */
export function routesOf(docs: Record<string, any>[]): Route[] {
  const routes = new Map<string, Route>();
  for (const doc of docs) {
    const resolve = (s: Schema | undefined): Schema | undefined =>
      s?.$ref
        ? resolve(
            s.$ref
              .split('/')
              .slice(1)
              .reduce((o: any, k) => o?.[k], doc),
          )
        : s;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const schema = resolve(op?.requestBody?.content?.['application/json']?.schema);
        routes.set(`${method} ${path}`, { method: method.toUpperCase(), path, ...(schema ? { bodySchema: schema } : {}) });
      }
    }
  }
  return [...routes.values()];
}

const IDS = [
  'var_0101',
  'var_0102',
  'ord_1001',
  'ord_1002',
  'addr_ada01',
  'organic-cotton-tee',
  'apparel',
  'conv_1',
  'x',
  '0',
  '-1',
  'null',
  'ORD_1001',
];
const JUNK_SEGMENTS = [
  '%ff',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%2e%2e',
  '%2F',
  '..',
  '.',
  '%252e',
  'a%20b',
  '\u00e9',
  '%C3%A9',
  '%F0%9F%98%80',
  '*',
  '~',
  "'",
  '"',
  '<x>',
  ';a=b',
  'a'.repeat(3000),
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=""',
  'application/merge-patch+json',
  'application/problem+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  ';;',
  'application/json; charset',
  'application/json;;charset=utf-8',
  '*/*',
  'application/jsonx',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'zstd', 'compress', 'x-unknown', 'GZIP', ''];
const PAYLOADS = [
  '{}',
  '[]',
  'null',
  '"s"',
  '1',
  'true',
  '{',
  '{"a":',
  '{"quantity":1e999}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '\u0000',
  '\ufeff{}',
  '{"a":"\ud800"}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  '['.repeat(5000) + ']'.repeat(5000),
  JSON.stringify({ pad: 'x'.repeat(300 * 1024) }),
];

/** A value for a JSON Schema, sometimes of the wrong type. */
function valueFor(rng: Rng, s: Schema | undefined, depth = 0): unknown {
  if (!s || depth > 4 || rng.chance(0.08)) return rng.pick<unknown>([null, 1, -1, 2 ** 53, 'x', '', true, [], {}, 'a'.repeat(5000), 1.5]);
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return valueFor(rng, rng.pick(alt), depth + 1);
  if (s.enum) return rng.pick(s.enum);
  const type = Array.isArray(s.type) ? rng.pick(s.type) : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {}))
        if (s.required?.includes(k) || rng.chance(0.6)) out[k] = valueFor(rng, v, depth + 1);
      if (rng.chance(0.1)) out[`extra_${rng.int(100)}`] = 1;
      return out;
    }
    case 'array':
      return Array.from({ length: rng.int(4) }, () => valueFor(rng, s.items, depth + 1));
    case 'integer':
    case 'number':
      return rng.pick([0, 1, 2, 99, -1, 10 ** 9]);
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return rng.pick([
        ...IDS,
        'US',
        'Ada Lovelace',
        '2026-01-01T00:00:00Z',
        'ada@example.com',
        'email',
        'delete',
        'recop_0004',
        'cust_chloe',
        'sess_1',
        '',
      ]);
    default:
      return {};
  }
}

export interface Draft {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
  route: string;
}

function fillPath(rng: Rng, template: string): string {
  let path = template.replace(/\{[^}]+\}/g, () => (rng.chance(0.7) ? encodeURIComponent(rng.pick(IDS)) : rng.pick(JUNK_SEGMENTS)));
  if (rng.chance(0.15)) {
    const trick = rng.int(8);
    if (trick === 0) path = path.replace(/^\/(\w+)\//, '/$1/./');
    else if (trick === 1) path = path.replace(/^\/(\w+)\//, '/$1/../$1/');
    else if (trick === 2) path = `${path}/`;
    else if (trick === 3) path = path.replace(/\//g, '//');
    else if (trick === 4) path = path.toUpperCase();
    else if (trick === 5)
      path = `${path}?${rng.pick(['a=1&a=2', 'q=%ff', 'limit=-1', 'cursor=%%', `x=${'y'.repeat(4000)}`, 'limit=1e99', '__proto__=1'])}`;
    else if (trick === 6) path = `${path}${rng.pick(['%2f', '%00', ';x', '#frag', '%'])}`;
    else path = `/${'a/'.repeat(200)}`;
  }
  return path;
}

export function draft(rng: Rng, routes: readonly Route[], extraPaths: readonly string[]): Draft {
  const route = rng.chance(0.92) ? rng.pick(routes) : { method: 'GET', path: rng.pick(extraPaths) };
  const method = rng.chance(0.85)
    ? route.method
    : rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'get']);
  const target = fillPath(rng, route.path);
  const headers: [string, string][] = [];
  if (!rng.chance(0.03)) headers.push(['Host', '127.0.0.1']);
  if (rng.chance(0.03)) headers.push(['Host', 'evil.test']);
  let body = Buffer.alloc(0);
  const wantsBody = method !== 'GET' && method !== 'HEAD' ? rng.chance(0.85) : rng.chance(0.05);
  if (wantsBody) {
    const text = rng.chance(0.7) && 'bodySchema' in route ? JSON.stringify(valueFor(rng, route.bodySchema)) : rng.pick(PAYLOADS);
    body = Buffer.from(text, 'utf8');
    if (rng.chance(0.85)) headers.push(['Content-Type', rng.chance(0.7) ? 'application/json' : rng.pick(CONTENT_TYPES)]);
    if (rng.chance(0.08)) {
      const coding = rng.pick(ENCODINGS);
      headers.push(['Content-Encoding', coding]);
      if (coding === 'gzip' && rng.chance(0.5)) body = gzipSync(body);
    }
    if (rng.chance(0.03)) body = Buffer.concat([body, Buffer.from([0xff, 0xfe, 0xc3])]);
  }
  const extras: [string, string][] = [
    ['X-Request-Id', rng.pick(['req-12345678', 'bad id', 'x'.repeat(300), ''])],
    ['traceparent', rng.pick(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'ff-00-00-00', 'junk'])],
    ['Idempotency-Key', 'k1'],
    ['If-None-Match', rng.pick(['*', 'W/"x"', '"', ''])],
    ['Accept', rng.pick(['application/xml', '*/*', 'text/event-stream', ''])],
    ['Accept-Encoding', 'gzip, br'],
    ['Shop-Session', 'stale'],
    ['Operator', rng.pick(['', 'x'.repeat(300), 'ops'])],
    ['Shopper-IP', rng.pick(['', '1.2.3.4', 'x'.repeat(100)])],
    ['Guest-Session', rng.pick(['gs1.x.y', '', 'gs1.00000000-0000-0000-0000-000000000000.' + 'A'.repeat(43)])],
    ['Expect', '100-continue'],
    ['Range', 'bytes=0-1'],
    ['Content-Length', rng.pick(['abc', '-1', '1, 1'])],
  ];
  for (const e of extras) if (rng.chance(0.05)) headers.push(e);
  const framing: Framing =
    body.length === 0 ? 'none' : rng.pick<Framing>(['length', 'length', 'length', 'chunked', 'chunked-bytes', 'chunked-odd']);
  const version = rng.chance(0.02) ? 'HTTP/1.0' : 'HTTP/1.1';
  return { method, target, version, headers, body, framing, route: `${route.method} ${route.path}` };
}
