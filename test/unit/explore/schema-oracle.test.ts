// The schema oracle: an answer that fits the schema its target's own document declares raises nothing; one that does not
// (a member missing, another type, another media type, not JSON) raises one finding naming the document's path and status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeService } from '../../../reference/src/app.js';
import { createSchemaOracle } from '../../../conformance/explore/schema-oracle.js';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';

const DOCS = 'https://docs.shop.test';
const reference = () => ({ general: describeService('general', DOCS), assistant: describeService('assistant', DOCS) });

const step = (operationId: string, method: string, path: string): Step => ({ operationId, method, path, caller: 'customer', headers: {} });
const json = (status: number, body: unknown, type = 'application/json'): Answer => ({
  status,
  headers: { 'content-type': type },
  text: JSON.stringify(body),
  json: body,
});

const cart = { id: null, lines: [], item_count: 0, currency: 'EUR', subtotal_cents: 0 };
const line = { variant_id: 'var_abcd', product_handle: 'mug', title: 'Mug', quantity: 2, unit_price_cents: 500, line_total_cents: 1000 };
const problem = (status: number, error: string) => ({
  type: `${DOCS}/api/problems/${error}`,
  title: 'Not Found',
  status,
  error,
  instance: 'r-1',
});
const getCart = step('getCart', 'GET', '/v1/cart');

test("an answer that fits its operation's declared schema raises nothing (reference documents)", () => {
  const oracle = createSchemaOracle(reference());
  assert.deepEqual(oracle.check(getCart, json(200, cart), 0), []);
  assert.deepEqual(oracle.check(getCart, json(200, { ...cart, id: 'c1', lines: [line], item_count: 2, subtotal_cents: 1000 }), 0), []);
  assert.deepEqual(oracle.check(getCart, json(401, problem(401, 'invalid_token'), 'application/problem+json'), 0), []);
});

test('a member missing, another type or an extra member forbidden by the schema is one finding with the errors', () => {
  const oracle = createSchemaOracle(reference());
  const { currency: _gone, ...noCurrency } = cart;
  const f = oracle.check(getCart, json(200, noCurrency), 5);
  assert.equal(f.length, 1);
  assert.equal(f[0]!.oracle, 'schema');
  assert.equal(f[0]!.index, 5);
  assert.deepEqual(f[0]!.clauses, ['PUR-RULE-5', 'END-OPS-GETCART-1']);
  assert.match(f[0]!.message, /currency/);
  assert.match(f[0]!.message, /\/openapi\.json \/v1\/cart get/);
  const wrongType = oracle.check(getCart, json(200, { ...cart, lines: [{ ...line, quantity: '2' }] }), 0);
  assert.match(wrongType[0]!.message, /\/lines\/0\/quantity must be integer/);
});

test('path templates match with their parameters filled in, and the status falls back to 4XX, then default', () => {
  const docs = reference();
  const oracle = createSchemaOracle(docs);
  const getOrder = step('getOrder', 'GET', '/v1/me/orders/ord_123?x=1');
  assert.equal(oracle.check(getOrder, json(200, { nope: true }), 0).length, 1);
  // 404 is declared for getOrder by the reference; a problem without `error` breaks the Problem schema.
  assert.equal(oracle.check(getOrder, json(404, { title: 'x' }, 'application/problem+json'), 0).length, 1);
  const responses = (docs.general.paths as any)['/v1/me/orders/{id}'].get.responses;
  for (const k of Object.keys(responses)) if (k !== '200') delete responses[k];
  responses['4XX'] = { description: 'x', content: { 'application/problem+json': { schema: { type: 'object', required: ['code'] } } } };
  const ranged = createSchemaOracle(docs);
  assert.equal(ranged.check(getOrder, json(418, { code: 1 }, 'application/problem+json'), 0).length, 0);
  assert.equal(ranged.check(getOrder, json(418, { error: 1 }, 'application/problem+json'), 0).length, 1);
  delete responses['4XX'];
  responses.default = { $ref: '#/components/responses/Fallback' };
  (docs.general as any).components.responses = { Fallback: { content: { 'application/json': { schema: { type: 'array' } } } } };
  const byDefault = createSchemaOracle(docs);
  assert.equal(byDefault.check(getOrder, json(500, [], 'application/json'), 0).length, 0);
  assert.equal(byDefault.check(getOrder, json(500, {}, 'application/json'), 0).length, 1);
});

test('a status the document does not declare, a route it does not describe and an empty body are not judged', () => {
  const oracle = createSchemaOracle(reference());
  assert.deepEqual(oracle.check(getCart, json(418, { anything: 1 }), 0), []);
  assert.deepEqual(oracle.check(step('raw', 'GET', '/v1/nowhere'), json(200, { a: 1 }), 0), []);
  assert.deepEqual(oracle.check(step('raw', 'PUT', '/v1/cart'), json(200, { a: 1 }), 0), []);
  assert.deepEqual(
    oracle.check(step('removeCartItem', 'DELETE', '/v1/cart/items/var_abcd'), { status: 204, headers: {}, text: '' }, 0),
    [],
  );
});

test('a body that is not JSON, or served as another media type than declared, is a finding', () => {
  const oracle = createSchemaOracle(reference());
  const notJson = oracle.check(getCart, { status: 200, headers: { 'content-type': 'application/json' }, text: '<html>' }, 0);
  assert.match(notJson[0]!.message, /not JSON/);
  const html = oracle.check(getCart, { status: 200, headers: { 'content-type': 'text/html' }, text: '<html>' }, 0);
  assert.match(html[0]!.message, /answered as text\/html/);
});

test('a server prefix of the document is matched, and each schema is compiled once', () => {
  const docs = reference();
  (docs.general as any).servers = [{ url: 'https://shop.example/api' }];
  const oracle = createSchemaOracle(docs);
  const prefixed = step('getCart', 'GET', '/api/v1/cart');
  assert.equal(oracle.check(prefixed, json(200, { lines: 1 }), 0).length, 1);
  assert.equal(oracle.check(getCart, json(200, { lines: 1 }), 0).length, 1);
  assert.equal(oracle.compiledCount(), 1);
  for (let i = 0; i < 20; i++) oracle.check(getCart, json(200, cart), i);
  oracle.check(getCart, json(401, problem(401, 'invalid_token'), 'application/problem+json'), 0);
  assert.equal(oracle.compiledCount(), 2);
});

test('the assistant document is consulted for its own routes', () => {
  const docs = reference();
  const paths = Object.keys((docs.assistant as any).paths);
  assert.ok(paths.length > 0);
  const oracle = createSchemaOracle({ general: { openapi: '3.1.0', paths: {} }, assistant: docs.assistant });
  const p = paths[0]!;
  const method = Object.keys((docs.assistant as any).paths[p]).find((m) => ['get', 'post'].includes(m))!;
  const concrete = p.replace(/\{[^}]+\}/g, 'x1');
  const f = oracle.check(step('x', method.toUpperCase(), concrete), json(200, 'not an object or list'), 0);
  assert.equal(f.length, (docs.assistant as any).paths[p][method].responses['200'] ? 1 : 0);
});

test('an OpenAPI 3.0 document: nullable and boolean exclusive bounds are read as 3.0 means them', () => {
  const doc = {
    openapi: '3.0.3',
    paths: {
      '/v1/cart': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id', 'count'],
                    properties: {
                      id: { type: 'string', nullable: true },
                      count: { type: 'integer', minimum: 0, exclusiveMinimum: true },
                      note: { nullable: true, description: 'anything' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  const oracle = createSchemaOracle({ general: doc });
  assert.deepEqual(oracle.check(getCart, json(200, { id: null, count: 1, note: null }), 0), []);
  assert.equal(oracle.check(getCart, json(200, { id: 3, count: 1 }), 0).length, 1);
  assert.match(oracle.check(getCart, json(200, { id: 'c', count: 0 }), 0)[0]!.message, /count must be > 0/);
});

test('a schema Ajv cannot compile (an external $ref) judges nothing', () => {
  const doc = {
    openapi: '3.1.0',
    paths: { '/v1/cart': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: 'other.json#/Cart' } } } } } } } },
  };
  assert.deepEqual(createSchemaOracle({ general: doc }).check(getCart, json(200, { any: 1 }), 0), []);
});
