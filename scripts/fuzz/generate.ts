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

/**
 * The attack a draft carries beyond its mutations, which the judge holds to a stricter answer: `trailing` bytes after the
 * request (one answer, the real one); a `declared` Content-Length over the cap with a few bytes sent (413 at once); a `deep`
 * or `wide` JSON body over the decoding limits (refused at decoding, never authenticated or handled); a `duplicate`
 * single-valued header (never accepted).
 */
export type Shape = 'plain' | 'trailing' | 'declared' | 'deep' | 'wide' | 'duplicate';

export interface Draft {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
  route: string;
  shape: Shape;
  /** For `trailing`: the bytes written after the request. */
  trailing?: Buffer;
  /** For `declared`: the Content-Length written (the body sent is shorter). */
  declaredLength?: number;
  /** For `duplicate`: the header sent twice; its second value comes with the credential (see fuzz.ts). */
  duplicate?: string;
  /** The route takes a JSON body (it has a request body schema). */
  jsonRoute: boolean;
}

/** Decoding limits of JSON bodies (the reference refuses deeper or larger bodies with 400 invalid_json). */
export const JSON_MAX_DEPTH = 32;
export const JSON_MAX_VALUES = 10_000;
/** Headers that carry one value; a request with two is refused (400 invalid_request). */
export const SINGLE_VALUED = ['Host', 'Authorization', 'Operator', 'Guest-Session', 'Shopper-IP', 'Assistant-Subject', 'DPoP'] as const;

const TRAILERS = [
  'x',
  '\r\nx',
  'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'NOT HTTP\r\n\r\n',
  '\u0000\u00ff',
  'POST / HTTP/1.1\r\n',
];

/** JSON over the depth limit: arrays, objects or both, from just over the limit to a quarter-megabyte. */
function deepJson(rng: Rng): string {
  const depth = rng.pick([JSON_MAX_DEPTH + 1, JSON_MAX_DEPTH + 8, 100, 1000, 10_000, 40_000, 125_000]);
  const kind = rng.int(3);
  if (kind === 0) return '['.repeat(depth) + ']'.repeat(depth);
  if (kind === 1) {
    const d = Math.min(depth, 40_000);
    return '{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);
  }
  const d = Math.min(depth, 60_000);
  return '[{"a":'.repeat(Math.ceil(d / 2)) + '1' + '}]'.repeat(Math.ceil(d / 2));
}

/** JSON over the value-count limit at a shallow depth: one wide array or object, or many small ones. */
function wideJson(rng: Rng): string {
  const count = rng.pick([JSON_MAX_VALUES + 1, JSON_MAX_VALUES + 100, 22_000, 40_000]);
  const kind = rng.int(3);
  if (kind === 0) return `[${Array(count).fill('0').join(',')}]`;
  if (kind === 1) return `{${Array.from({ length: count }, (_, i) => `"u${i}":0`).join(',')}}`;
  return `{"variant_id":"var_0101","quantity":1,"x":[${Array(Math.ceil(count / 2))
    .fill('{"a":1}')
    .join(',')}]}`;
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

function pickShape(rng: Rng): Shape {
  const x = rng.next();
  if (x < 0.05) return 'trailing';
  if (x < 0.08) return 'declared';
  if (x < 0.12) return 'deep';
  if (x < 0.16) return 'wide';
  if (x < 0.22) return 'duplicate';
  return 'plain';
}

/** A draft of one of the attack shapes: a clean request (real route, its method, Host) carrying the attack. */
function shaped(rng: Rng, shape: Exclude<Shape, 'plain'>, routes: readonly Route[]): Draft {
  // The operation routes (/v1, /assistant): where a request is decoded before authentication and where the caller's
  // headers are read; the public, webhook and internal routes have their own credentials and readers.
  const operations = routes.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/assistant/conversations'));
  const withBody = operations.filter((r) => r.bodySchema);
  const route = shape === 'trailing' ? rng.pick(routes) : shape === 'duplicate' ? rng.pick(operations) : rng.pick(withBody);
  const target = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(rng.pick(IDS)));
  const headers: [string, string][] = [['Host', '127.0.0.1']];
  const base = {
    method: route.method,
    target,
    version: 'HTTP/1.1',
    headers,
    route: `${route.method} ${route.path}`,
    shape,
    jsonRoute: true,
  };
  if (shape === 'trailing') {
    const body = route.bodySchema ? Buffer.from(JSON.stringify(valueFor(rng, route.bodySchema)), 'utf8') : Buffer.alloc(0);
    if (body.length > 0) headers.push(['Content-Type', 'application/json']);
    return {
      ...base,
      body,
      framing: body.length > 0 ? 'length' : 'none',
      trailing: Buffer.from(rng.pick(TRAILERS), 'latin1'),
      jsonRoute: !!route.bodySchema,
    };
  }
  if (shape === 'duplicate') {
    const body = route.bodySchema ? Buffer.from(JSON.stringify(valueFor(rng, route.bodySchema)), 'utf8') : Buffer.alloc(0);
    if (body.length > 0) headers.push(['Content-Type', 'application/json']);
    return {
      ...base,
      body,
      framing: body.length > 0 ? 'length' : 'none',
      duplicate: rng.pick(SINGLE_VALUED),
      jsonRoute: !!route.bodySchema,
    };
  }
  headers.push(['Content-Type', 'application/json']);
  if (shape === 'declared') {
    const body = Buffer.from(rng.pick(['{', '{"variant_id":"var_0101",', '[' + '0,'.repeat(500)]), 'utf8');
    const declaredLength = rng.pick([256 * 1024 + 1, 300_000, 1_000_000, 2 ** 30, 2 ** 40]);
    return { ...base, body: body.subarray(0, rng.int(body.length + 1)), framing: 'declared', declaredLength };
  }
  const body = Buffer.from(shape === 'deep' ? deepJson(rng) : wideJson(rng), 'utf8');
  return { ...base, body, framing: rng.pick<Framing>(['length', 'length', 'chunked']) };
}

export function draft(rng: Rng, routes: readonly Route[], extraPaths: readonly string[]): Draft {
  const shape = pickShape(rng);
  if (shape !== 'plain') return shaped(rng, shape, routes);
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
  return {
    method,
    target,
    version,
    headers,
    body,
    framing,
    route: `${route.method} ${route.path}`,
    shape,
    jsonRoute: 'bodySchema' in route,
  };
}
