// What misbehaving clients get (spec, Errors: every failure is the problem document with X-Request-Id; Request processing
// order: a DPoP request gets a fresh DPoP-Nonce on every response): malformed percent-escapes, bodies not encoded as their
// Content-Encoding says, charsets, missing or duplicate Host and Authorization headers. docs/errors.md lists the answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectProblem } from '../../conformance/lib/assert.js';

let h: Harness;
before(async () => (h = await startReference()));
after(() => h.close());

/** One raw HTTP/1.1 exchange (the request as written, Connection: close), parsed into status, headers and JSON body. */
async function raw(request: string): Promise<{ status: number; headers: Map<string, string[]>; body: any }> {
  const u = new URL(h.url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(request));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (b: string) => (data += b));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const i = line.indexOf(':');
    const k = line.slice(0, i).toLowerCase();
    headers.set(k, [...(headers.get(k) ?? []), line.slice(i + 1).trim()]);
  }
  const bodyText = rest.join('\r\n\r\n');
  let body: unknown;
  try {
    body = JSON.parse(headers.get('transfer-encoding') ? bodyText.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$/g, '') : bodyText);
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

const expectRawProblem = (res: Awaited<ReturnType<typeof raw>>, status: number, error: string) => {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type')?.[0] ?? '', /^application\/problem\+json/);
  const id = res.headers.get('x-request-id')?.[0];
  assert.ok(id, 'X-Request-Id');
  assert.equal(res.body?.error, error);
  assert.equal(res.body?.instance, id);
  return res.body as { issues?: { path: string; code: string }[] };
};

describe('paths and bodies a client can break', () => {
  test('a malformed percent-escape in a path parameter: 400 invalid_request with issues, before any credential check', async () => {
    for (const path of ['/v1/catalog/products/%ff', '/v1/catalog/products/%E0%A4%A', '/v1/me/orders/%', '/v1/cart/items/%zz']) {
      const method = path.startsWith('/v1/cart/items') ? 'DELETE' : 'GET';
      const p = expectProblem(await h.call(path, { method }), { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      assert.deepEqual(
        (p.issues as { path: string }[]).map((i) => i.path),
        ['path'],
        path,
      );
    }
    assert.equal(h.logs.filter((l) => l.event === 'api_error').length, 0, 'nothing logged as an unexpected failure');
  });

  test('Content-Encoding gzip, deflate or br on a body not so encoded: 400 invalid_request with issues; a real gzip body is read', async () => {
    for (const coding of ['gzip', 'deflate', 'br']) {
      const res = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
        body: '{"variant_id":"var_0101","quantity":1}',
      });
      const p = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      assert.equal((p.issues as { code: string }[])[0]!.code, 'content_encoding', coding);
    }
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const gz = await h.call('/v1/cart/items', {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"variant_id":"var_0101","quantity":1,"bogus":1}'),
    });
    expectProblem(gz, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl }); // decoded, then validated
    expectProblem(
      await h.call('/v1/cart/items', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
        body: '{}',
      }),
      { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl },
    );
  });

  test('one charset rule: UTF-8 (any case) is read; utf-16, utf-32, latin1 are all 415', async () => {
    for (const charset of ['utf-16', 'utf-16le', 'utf-32', 'latin1', 'iso-8859-1']) {
      const res = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}` },
        body: '{}',
      });
      expectProblem(res, { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl });
    }
    for (const charset of ['utf-8', 'UTF-8', '"utf-8"']) {
      const res = await h.call('/v1/cart/items', {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}` },
        body: '{}',
      });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    }
  });
});

describe('framing', () => {
  test('an HTTP/1.1 request without Host: the problem document with X-Request-Id', async () => {
    const body = expectRawProblem(await raw('GET /v1/cart HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'invalid_request');
    assert.deepEqual(
      body.issues?.map((i) => i.path),
      ['headers.host'],
    );
    // HTTP/1.0 has no Host requirement.
    assert.equal((await raw('GET /health HTTP/1.0\r\n\r\n')).status, 200);
  });

  test('two Host or two Authorization headers: 400 invalid_request, whatever the credentials', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const hostTwice = expectRawProblem(
      await raw(`GET /v1/me HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      hostTwice.issues?.map((i) => i.path),
      ['headers.host'],
    );
    const authTwice = expectRawProblem(
      await raw(
        `GET /v1/me HTTP/1.1\r\nHost: a.test\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      authTwice.issues?.map((i) => i.path),
      ['headers.authorization'],
    );
    assert.equal(
      (await raw(`GET /v1/me HTTP/1.1\r\nHost: a.test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`)).status,
      200,
    );
  });

  test('a request line Node cannot parse: invalid_request with issues', async () => {
    const body = expectRawProblem(await raw('GET /v1/cart HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n'), 400, 'invalid_request');
    assert.ok(Array.isArray(body.issues) && body.issues.length === 1);
  });
});

describe('DPoP-Nonce on refusals before authentication', () => {
  test('a DPoP request refused by decoding, routing or size gets a fresh DPoP-Nonce each time', async () => {
    const dpop = { authorization: 'DPoP abc.def.ghi', dpop: 'x.y.z' };
    const cases: [string, RequestInit][] = [
      ['/v1/cart/items', { method: 'POST', headers: { ...dpop, 'content-type': 'application/json' }, body: '{"a":' }], // 400
      ['/v1/nope', { headers: dpop }], // 404
      ['/v1/cart', { method: 'PUT', headers: dpop }], // 405
      [
        '/v1/cart/items',
        { method: 'POST', headers: { ...dpop, 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }) },
      ], // 413
      ['/v1/cart/items', { method: 'POST', headers: { ...dpop, 'content-type': 'text/plain' }, body: '{}' }], // 415
      ['/assistant/conversations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }], // DPoP by path
      ['/v1/catalog/products/%ff', { headers: dpop }], // 400 malformed escape
    ];
    const seen = new Set<string>();
    for (const [path, init] of cases) {
      for (let i = 0; i < 2; i++) {
        const res = await h.call(path, init);
        assert.ok(res.status >= 400, path);
        const nonce = res.headers.get('dpop-nonce');
        assert.match(nonce ?? '', /^[A-Za-z0-9_-]{43}$/, `${init.method ?? 'GET'} ${path} ${res.status}`);
        assert.ok(!seen.has(nonce!), 'a fresh nonce per response');
        seen.add(nonce!);
      }
    }
    assert.equal((await h.call('/v1/nope')).headers.get('dpop-nonce'), null, 'a Bearer-scheme request gets none');
  });
});
