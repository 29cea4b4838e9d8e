// The request stage and the boundary: request ids, traceparent, Cache-Control, unmatched routes, unexpected throws,
// and the public routes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectProblem, expectNoStore } from '../../conformance/lib/assert.js';
import { OPERATIONS } from '../../contract/operations.js';
import { ROUTES } from '../../reference/src/app.js';

let h: Harness;
before(async () => (h = await startReference()));
after(() => h.close());

describe('request stage', () => {
  test('X-Request-Id on every response, and problem `instance` equals it', async () => {
    for (const path of ['/health', '/openapi.json', '/v1/cart', '/nope']) {
      const res = await h.call(path);
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', /^[0-9a-f-]{36}$/, path);
      if (res.status >= 400) assert.equal(res.body.instance, id);
    }
  });

  test('a well-formed incoming X-Request-Id is kept, a malformed one replaced', async () => {
    assert.equal((await h.call('/health', { headers: { 'x-request-id': 'req-12345678' } })).headers.get('x-request-id'), 'req-12345678');
    const replaced = await h.call('/v1/cart', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(replaced.headers.get('x-request-id'), 'bad id with spaces');
    assert.equal(replaced.body.instance, replaced.headers.get('x-request-id'));
  });

  test('a valid traceparent is echoed, an invalid one is not', async () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    assert.equal((await h.call('/health', { headers: { traceparent: tp } })).headers.get('traceparent'), tp);
    assert.equal((await h.call('/v1/cart', { headers: { traceparent: tp } })).headers.get('traceparent'), tp);
    assert.equal((await h.call('/health', { headers: { traceparent: '00-zz-00f067aa0ba902b7-01' } })).headers.get('traceparent'), null);
  });

  test('Cache-Control: no-store by default and on every error', async () => {
    expectNoStore(await h.call('/health'));
    expectNoStore(await h.call('/v1/cart'));
    expectNoStore(await h.call('/v1/me', { headers: bearer(await h.minter.customer({ sub: 'cust_ada' })) }));
  });
});

describe('boundary', () => {
  test('unmatched routes: 404 not_found; a known path with another method: 405 with Allow', async () => {
    for (const path of ['/nope', '/v1', '/v1/nope', '/v1/catalog/products/a/b']) {
      expectProblem(await h.call(path), { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
    }
    for (const [method, path, allow] of [
      ['PUT', '/v1/cart', 'GET, HEAD'],
      ['DELETE', '/v1/cart/items', 'POST'],
      ['OPTIONS', '/v1/cart', 'GET, HEAD'],
      ['POST', '/health', 'GET, HEAD'],
    ] as const) {
      const res = await h.call(path, { method });
      expectProblem(res, { status: 405, error: 'method_not_allowed', docsUrl: h.profile.docsUrl });
      assert.equal(res.headers.get('allow'), allow);
    }
  });

  test('decoding failures precede authentication: malformed JSON 400, no JSON type 415, over 256 KiB 413', async () => {
    const post = (body: string, type?: string) =>
      h.call('/v1/cart/items', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
    expectProblem(await post('{"variant_id":', 'application/json'), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    expectProblem(await post('variant_id=x', 'application/x-www-form-urlencoded'), {
      status: 415,
      error: 'unsupported_media_type',
      docsUrl: h.profile.docsUrl,
    });
    expectProblem(await post('{}', 'text/plain'), { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl });
    expectProblem(await post('{}'), { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl });
    const big = JSON.stringify({ pad: 'x'.repeat(256 * 1024) });
    expectProblem(await post(big, 'application/json'), { status: 413, error: 'payload_too_large', docsUrl: h.profile.docsUrl });
    expectProblem(await post('{}', 'application/json; charset=latin9'), {
      status: 415,
      error: 'unsupported_media_type',
      docsUrl: h.profile.docsUrl,
    });
  });

  test('a body just under the cap is decoded (then validated)', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const body = JSON.stringify({ variant_id: 'var_0101', quantity: 1, pad: 'x'.repeat(200 * 1024) });
    const res = await h.call('/v1/cart/items', { method: 'POST', body, headers: { ...bearer(token), 'content-type': 'application/json' } });
    const p = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    assert.ok(Array.isArray(p.issues));
  });

  test('validation issues are capped at 20', async () => {
    // Twenty-five unknown members: every one is an issue of a strict body.
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const json: Record<string, number> = { quantity: 0 };
    for (let i = 0; i < 25; i++) json[`extra${i}`] = i;
    const res = await h.call('/v1/cart/items', { method: 'POST', headers: bearer(token), json });
    const p = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    assert.ok((p.issues as unknown[]).length <= 20);
  });

  test('an unexpected throw: 500 internal_error, no detail, logged as api_error', async () => {
    const r = await startReference({ verifier: { verify: () => Promise.reject(new Error('boom: secret internals')) } });
    try {
      const res = await r.call('/v1/me', { headers: { authorization: 'Bearer a.b.c' } });
      const p = expectProblem(res, { status: 500, error: 'internal_error', docsUrl: r.profile.docsUrl });
      assert.equal('detail' in p, false);
      assert.doesNotMatch(res.text, /boom/);
      const logged = r.logs.find((l) => l.event === 'api_error');
      assert.ok(logged, 'api_error logged');
      assert.equal(logged.requestId, res.headers.get('x-request-id'));
    } finally {
      await r.close();
    }
  });
});

describe('public routes', () => {
  test('GET /health', async () => {
    const res = await h.call('/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.checks.database, 'ok');
  });

  test('description documents: cached 300 s, generated from the routes', async () => {
    const general = await h.call('/openapi.json');
    const assistant = await h.call('/assistant/openapi.json');
    for (const res of [general, assistant]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
      assert.equal(res.body.openapi, '3.1.0');
    }
    const ids = (doc: any) => Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    for (const r of ROUTES) assert.ok(ids(general.body).includes(r.operation.operationId), r.operation.operationId);
    for (const id of ids(assistant.body)) {
      const op = OPERATIONS.find((o) => o.operationId === id);
      assert.ok(op, id);
    }
    assert.equal(ids(assistant.body).includes('getHealth'), false);
    // A schema the input stage validates with is the one published.
    const add = general.body.paths['/v1/cart/items'].post;
    assert.equal(add.requestBody.content['application/json'].schema.properties.quantity.maximum, 99);
    assert.equal(general.body.components.schemas.Problem.properties.issues.maxItems, 20);
  });
});

describe('protocol-level refusals', () => {
  test('headers over 16 KiB: 431 header_too_large as a problem document', async () => {
    const res = await h.call('/v1/cart', { headers: { 'x-pad': 'x'.repeat(20 * 1024) } });
    expectProblem(res, { status: 431, error: 'header_too_large', docsUrl: h.profile.docsUrl });
    expectNoStore(res);
  });

  test('an unparsable request line: 400 problem document', async () => {
    const { connect } = await import('node:net');
    const url = new URL(h.url);
    const raw = await new Promise<string>((resolve) => {
      const s = connect(Number(url.port), url.hostname, () => s.write('GARBAGE\r\n\r\n'));
      let data = '';
      s.on('data', (d) => (data += d));
      s.on('close', () => resolve(data));
    });
    assert.match(raw, /^HTTP\/1\.1 400 Bad Request/);
    assert.match(raw, /content-type: application\/problem\+json/i);
    assert.match(raw, /"error":"invalid_request"/);
  });
});

describe('one URL per operation', () => {
  test('case-folded and trailing-slash spellings are not routes', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    assert.equal((await h.call('/v1/cart', { headers: bearer(token) })).status, 200);
    for (const path of ['/V1/cart', '/v1/CART', '/v1/cart/', '/v1/Catalog/products', '/health/', '/openapi.json/']) {
      expectProblem(await h.call(path, { headers: bearer(token) }), { status: 404, error: 'not_found', docsUrl: h.profile.docsUrl });
    }
  });
});
