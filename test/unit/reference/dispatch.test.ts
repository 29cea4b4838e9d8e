// The one dispatcher (reference/src/pipeline/dispatch.ts) routes as Express's router did with the app's settings, and
// refuses what no route serves: 405 with Allow on a known path, else 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Request, RequestHandler, Response } from 'express';
import { dispatchRoutes } from '../../../reference/src/pipeline/dispatch.js';
import { ProblemError } from '../../../reference/src/problem.js';

const named =
  (name: string): RequestHandler =>
  (req, res) => {
    (res as unknown as { served: unknown }).served = { name, params: req.params };
  };

const dispatch = dispatchRoutes([
  { method: 'GET', path: '/v1/cart', handler: named('readCart') },
  { method: 'POST', path: '/v1/cart/items', handler: named('addItem') },
  { method: 'DELETE', path: '/v1/cart/items/{variant_id}', handler: named('removeItem') },
  { method: 'GET', path: '/v1/me/orders/{id}', handler: named('readOrder') },
  { method: 'POST', path: '/v1/me/orders/{id}/returns', handler: named('returnOrder') },
  {
    method: 'POST',
    path: '/internal/conversations/{id}/turn',
    handler: named('turn'),
    ownsPath: { notAllowed: 'Only POST is allowed on this path.' },
  },
]);

function route(method: string, path: string): { served?: { name: string; params: unknown }; passed: boolean; error?: unknown } {
  const res = {} as Response & { served?: { name: string; params: unknown } };
  let passed = false;
  let error: unknown;
  void dispatch({ method, path } as Request, res, (err?: unknown) => {
    passed = true;
    error = err;
  });
  return { served: res.served, passed, error };
}

test('a path without parameters by method and exact path', () => {
  assert.deepEqual(route('GET', '/v1/cart').served, { name: 'readCart', params: {} });
  assert.deepEqual(route('POST', '/v1/cart/items').served, { name: 'addItem', params: {} });
});

test('parameters are taken whole from one segment and percent-decoded', () => {
  assert.deepEqual(route('GET', '/v1/me/orders/ord%5F1').served, { name: 'readOrder', params: { id: 'ord_1' } });
  assert.deepEqual(route('POST', '/v1/me/orders/o-2/returns').served, { name: 'returnOrder', params: { id: 'o-2' } });
  assert.deepEqual(route('DELETE', '/v1/cart/items/var.1').served, { name: 'removeItem', params: { variant_id: 'var.1' } });
});

test('no case-folded or trailing-slash twin, no empty or multi-segment parameter: 404', () => {
  for (const [method, path] of [
    ['GET', '/v1/Cart'],
    ['GET', '/v1/cart/'],
    ['GET', '/v1/me/orders/'],
    ['GET', '/v1/me/orders/a/b'],
    ['GET', '/v1/me/orders/1/'],
    ['GET', '/v1/cartx'],
  ]) {
    const r = route(method!, path!);
    assert.equal(r.served, undefined, `${method} ${path}`);
    assert.ok(r.error instanceof ProblemError && r.error.code === 'not_found', `${method} ${path}: 404`);
  }
});

test("another method on a known path: 405 with the path's methods in Allow (HEAD beside GET)", () => {
  const allow = (method: string, path: string) => {
    const r = route(method, path);
    assert.ok(r.error instanceof ProblemError && r.error.code === 'method_not_allowed', `${method} ${path}: 405`);
    return [r.error.options.headers?.Allow, r.error.options.detail];
  };
  assert.deepEqual(allow('POST', '/v1/cart'), ['GET, HEAD', 'POST is not allowed on this path.']);
  assert.deepEqual(allow('PUT', '/v1/cart/items'), ['POST', 'PUT is not allowed on this path.']);
  assert.deepEqual(allow('GET', '/internal/conversations/c1/turn'), ['POST', 'Only POST is allowed on this path.']);
  // A malformed escape on another method: 405 for a route that does not own its path, 400 for one that does.
  assert.deepEqual(allow('POST', '/v1/me/orders/%E0%A4%A'), ['GET, HEAD', 'POST is not allowed on this path.']);
  assert.ok(route('GET', '/internal/conversations/%E0%A4%A/turn').error instanceof URIError);
});

test('HEAD is served by the GET route', () => {
  assert.deepEqual(route('HEAD', '/v1/me/orders/9').served, { name: 'readOrder', params: { id: '9' } });
  assert.equal(route('HEAD', '/v1/cart/items').served, undefined);
});

test('a malformed escape in a parameter is the 400 URIError Express raises', () => {
  const r = route('GET', '/v1/me/orders/%E0%A4%A');
  assert.equal(r.served, undefined);
  assert.ok(r.error instanceof URIError);
  assert.equal((r.error as URIError & { status: number }).status, 400);
});
