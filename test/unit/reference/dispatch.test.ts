// The routes' dispatcher (reference/src/routes/dispatch.ts) routes as Express's router did with the app's settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Request, RequestHandler, Response } from 'express';
import { dispatchRoutes } from '../../../reference/src/routes/dispatch.js';

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

test('no case-folded or trailing-slash twin, no empty or multi-segment parameter, no other method: passed on', () => {
  for (const [method, path] of [
    ['GET', '/v1/Cart'],
    ['GET', '/v1/cart/'],
    ['GET', '/v1/me/orders/'],
    ['GET', '/v1/me/orders/a/b'],
    ['GET', '/v1/me/orders/1/'],
    ['POST', '/v1/cart'],
    ['GET', '/v1/cartx'],
    ['DELETE', '/v1/cart/items'],
  ]) {
    const r = route(method!, path!);
    assert.equal(r.served, undefined, `${method} ${path}`);
    assert.ok(r.passed && r.error === undefined, `${method} ${path} goes on to the 404/405 handler`);
  }
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
