// What the suite learns from a target's description documents: routes the spec leaves open, request bodies by role, the
// header names of agent artifacts; and the profile's conventions over them. Pure: documents in, answers out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeService } from '../../../reference/src/app.js';
import { parseDocument, Target } from '../../../conformance/engine/transport/target.js';
import { CheckFailure, NotDeclared } from '../../../conformance/lib/assert.js';
import { exampleFromSchema, getPointer, rolesOf, setPointer } from '../../../conformance/lib/openapi-schema.js';

const DOCS = 'https://docs.shop.test';
const reference = () => ({ general: describeService('general', DOCS), assistant: describeService('assistant', DOCS) });

test("on the reference's documents: spec routes, learned routes, bodies by role, artifact headers", () => {
  const t = new Target(reference(), {});
  assert.deepEqual([t.operation('addCartItem').method, t.operation('addCartItem').path], ['POST', '/v1/cart/items']);
  assert.deepEqual(t.body('addCartItem', { variant: 'var_9', quantity: 3 }), { variant_id: 'var_9', quantity: 3 });
  assert.deepEqual(t.body('updateCartItem', { quantity: 4 }), { quantity: 4 });
  assert.equal(t.path('updateCartItem', 'var 1'), '/v1/cart/items/var%201');
  assert.equal(t.path('adjustStock', 'var_1'), '/v1/ops/variants/var_1/stock-adjustments');
  assert.deepEqual(t.body('adjustStock', { 'stock-delta': -1 }), { delta: -1, reason: 'Stock count.' });
  assert.deepEqual([t.operation('openConversation').method, t.operation('openConversation').path], ['POST', '/assistant/conversations']);
  assert.equal(t.header('invitedAgentContext'), 'Invited-Agent-Context');
  assert.equal(t.header('assistantBrowserSession'), 'Assistant-Browser-Session');
  assert.equal(typeof (t.body('addAddress') as Record<string, unknown>).line1, 'string');
});

test("an alternate's own choices: other ops paths, other body shapes, other header names, learned from its documents", () => {
  const docs = reference();
  const paths = docs.general.paths as Record<string, Record<string, unknown>>;
  paths['/v1/ops/stock/{variant}'] = paths['/v1/ops/variants/{id}/stock-adjustments']!;
  delete paths['/v1/ops/variants/{id}/stock-adjustments'];
  const add = (paths['/v1/cart/items'] as { post: Record<string, any> }).post;
  add.requestBody = {
    required: true,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['item'],
          properties: {
            item: {
              type: 'object',
              required: ['sku', 'count'],
              properties: {
                sku: { type: 'string', 'x-shop-role': 'variant' },
                count: { type: 'integer', minimum: 1, 'x-shop-role': 'quantity' },
              },
            },
          },
        },
      },
    },
  };
  (docs.general.components as any).securitySchemes.invitedAgentContext.name = 'X-Agent-Context';
  const t = new Target(docs, {});
  assert.equal(t.path('adjustStock', 'v1'), '/v1/ops/stock/v1');
  assert.deepEqual(t.body('addCartItem', { variant: 'v1', quantity: 2 }), { item: { sku: 'v1', count: 2 } });
  assert.equal(t.header('invitedAgentContext'), 'X-Agent-Context');

  const overridden = new Target(docs, {
    headers: { invitedAgentContext: 'Agent-Ctx' },
    bodies: { addCartItem: { example: { line: {} }, roles: { variant: '/line/v', quantity: '/line/q' } } },
  });
  assert.equal(overridden.header('invitedAgentContext'), 'Agent-Ctx');
  assert.deepEqual(overridden.body('addCartItem', { variant: 'a', quantity: 1 }), { line: { v: 'a', q: 1 } });
});

test('what the documents do not declare leaves a check unjudged (no clause fails); a broken document fails its clause', () => {
  const docs = reference();
  delete (docs.general.paths as Record<string, unknown>)['/v1/ops/variants/{id}/stock-adjustments'];
  const t = new Target(docs, {});
  assert.throws(
    () => t.operation('adjustStock'),
    (e: unknown) => e instanceof NotDeclared && /adjustStock/.test(e.message) && /operationId "adjustStock"/.test(e.declaration),
  );
  assert.throws(
    () => t.body('getCart', { variant: 'x' }),
    (e: unknown) => e instanceof NotDeclared && /x-shop-role "variant"/.test(e.message),
  );
  assert.throws(
    () => parseDocument('/openapi.json', { status: 200, text: 'hello' }),
    (e: unknown) => e instanceof CheckFailure && e.clause === 'END-PUBLIC-2',
  );
  assert.throws(
    () => parseDocument('/assistant/openapi.json', { status: 200, text: '{"swagger":"2.0"}' }),
    (e: unknown) => e instanceof CheckFailure && e.clause === 'END-PUBLIC-4',
  );
  assert.throws(() => parseDocument('/openapi.json', { status: 404, text: '' }), CheckFailure);
});

test('operator operations are every described operation under /v1/ops/, whatever their ids', () => {
  const docs = reference();
  const own = new Target(docs, {});
  assert.ok(own.operatorOperations().length >= 5);
  assert.ok(own.operatorOperations().every((op) => op.path.startsWith('/v1/ops/')));
  assert.equal(own.operatorRead()?.operationId, 'searchOpsOrders');
  const alternate = new Target(
    {
      general: {
        openapi: '3.1.0',
        paths: {
          '/v1/ops/orders': { get: { operationId: 'opsListOrders' } },
          '/v1/ops/orders/{orderId}/cancel': { post: { operationId: 'opsCancelOrder' } },
          '/v1/ops/stock': { put: {} },
          '/v1/cart': { get: { operationId: 'getCart' } },
        },
      },
      assistant: { openapi: '3.1.0', paths: {} },
    },
    {},
  );
  assert.deepEqual(
    alternate.operatorOperations().map((op) => `${op.operationId} ${op.pathParams.length}`),
    ['opsListOrders 0', 'opsCancelOrder 1', 'PUT /v1/ops/stock 0'],
  );
  assert.equal(alternate.operatorRead()?.path, '/v1/ops/orders');
});

test("a body declares the acting caller's own values where it has their role, and only there", () => {
  const docs = reference();
  const t = new Target(docs, {
    bodies: {
      checkoutSavedCard: {
        example: { card: 'pm_other', ship_to: 'addr_other' },
        roles: { 'payment-method': '/card', address: '/ship_to' },
      },
    },
  });
  assert.deepEqual(t.body('checkoutSavedCard', { 'payment-method': 'pm_1' }, { address: 'addr_1' }), { card: 'pm_1', ship_to: 'addr_1' });
  // A body without an address role (a cart line) gets none.
  assert.ok(!JSON.stringify(t.body('addCartItem', { variant: 'v', quantity: 1 }, { address: 'addr_1' })).includes('addr_1'));
});

test('JSON Pointers, generated examples and roles', () => {
  assert.equal(getPointer({ a: [{ 'b/c': 1 }] }, '/a/0/b~1c'), 1);
  assert.deepEqual(setPointer({ a: 1 }, '/b/c', 2), { a: 1, b: { c: 2 } });
  assert.deepEqual(setPointer(undefined, '/lines/0/id', 'x'), { lines: [{ id: 'x' }] });
  const resolve = (ref: string) =>
    ref === '#/components/schemas/Qty' ? { type: 'integer', minimum: 1, 'x-shop-role': 'quantity' } : undefined;
  const schema = {
    type: 'object',
    required: ['n', 'q', 'kind', 'tags'],
    properties: {
      n: { type: 'string', minLength: 3 },
      q: { $ref: '#/components/schemas/Qty' },
      kind: { enum: ['a', 'b'] },
      tags: { type: 'array', minItems: 1, items: { type: 'boolean' } },
      opt: { type: 'string' },
    },
  };
  assert.deepEqual(exampleFromSchema(schema, resolve), { n: 'xxx', q: 1, kind: 'a', tags: [true] });
  assert.deepEqual(rolesOf(schema, resolve), { quantity: '/q' });
});

test("an alternate's conversation routes: other methods and paths under /assistant/conversations, learned from its assistant document", () => {
  const docs = reference();
  // Both documents describe them (the general one describes every route); an alternate changes both alike.
  for (const doc of [docs.general, docs.assistant]) {
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    // closeConversation as DELETE on the conversation itself; postConversationMessage as PUT.
    const close = paths['/assistant/conversations/{id}/close']!.post;
    delete paths['/assistant/conversations/{id}/close'];
    paths['/assistant/conversations/{id}']!.delete = close;
    const post = paths['/assistant/conversations/{id}/messages']!.post;
    delete paths['/assistant/conversations/{id}/messages']!.post;
    paths['/assistant/conversations/{id}/messages']!.put = post;
  }
  const t = new Target(docs, {});
  assert.deepEqual(
    [t.operation('closeConversation').method, t.path('closeConversation', 'c 1')],
    ['DELETE', '/assistant/conversations/c%201'],
  );
  assert.deepEqual(
    [t.operation('postConversationMessage').method, t.path('postConversationMessage', 'c1')],
    ['PUT', '/assistant/conversations/c1/messages'],
  );
  assert.equal(t.operation('openConversation').method, 'POST');
});

test("the browser session's carrier: a header or a cookie, from the documents or the profile", async () => {
  const { conventionsSchema } = await import('../../../contract/profile.js');
  assert.deepEqual(new Target(reference(), {}).browserCarrier(), { in: 'header', name: 'Assistant-Browser-Session' });
  const docs = reference();
  const schemes = () =>
    [docs.general, docs.assistant]
      .map((d) => (d.components as any)?.securitySchemes?.assistantBrowserSession)
      .filter((s): s is Record<string, unknown> => s !== undefined);
  assert.ok(schemes().length > 0, 'the reference declares the scheme');
  for (const s of schemes()) Object.assign(s, { in: 'cookie', name: 'asb' });
  assert.deepEqual(new Target(docs, {}).browserCarrier(), { in: 'cookie', name: 'asb' });
  // A header name is not read from a cookie scheme.
  assert.equal(new Target(docs, {}).header('assistantBrowserSession'), 'Assistant-Browser-Session');
  assert.deepEqual(new Target(docs, { headers: { assistantBrowserSession: 'X-Browser' } }).browserCarrier(), {
    in: 'header',
    name: 'X-Browser',
  });
  assert.deepEqual(new Target(reference(), { cookies: { assistantBrowserSession: 'shop_asb' } }).browserCarrier(), {
    in: 'cookie',
    name: 'shop_asb',
  });
  // Other places (query) are not carriers the spec allows a forwarder's artifact: the reference's header stands.
  for (const s of schemes()) Object.assign(s, { in: 'query', name: 'asb' });
  assert.deepEqual(new Target(docs, {}).browserCarrier(), { in: 'header', name: 'Assistant-Browser-Session' });
  // The profile names one carrier, and a cookie name is a token.
  assert.equal(
    conventionsSchema.safeParse({ cookies: { assistantBrowserSession: 'a' }, headers: { assistantBrowserSession: 'B' } }).success,
    false,
  );
  assert.equal(conventionsSchema.safeParse({ cookies: { assistantBrowserSession: 'a b' } }).success, false);
  assert.equal(conventionsSchema.safeParse({ cookies: { assistantBrowserSession: 'shop_asb' } }).success, true);
});

test('a refused body fails the operation only when it is the target’s own example; a generated one is not judged', () => {
  const docs = reference();
  const own = new Target(docs, {});
  assert.equal(own.operation('addCartItem').requestBody?.documented, true);
  assert.throws(
    () => own.refusedBody('addCartItem', 'addCartItem', '400', 'END-OPS-ADDCARTITEM-1'),
    (e: unknown) => e instanceof CheckFailure && e.setup && e.clause === 'END-OPS-ADDCARTITEM-1',
  );
  const schemaOnly = new Target(
    {
      general: {
        openapi: '3.1.0',
        paths: {
          '/v1/cart/items': {
            post: {
              operationId: 'addCartItem',
              requestBody: {
                content: {
                  'application/json': { schema: { type: 'object', properties: { sku: { type: 'string', 'x-shop-role': 'variant' } } } },
                },
              },
            },
          },
        },
      },
      assistant: { openapi: '3.1.0', paths: {} },
    },
    {},
  );
  assert.equal(schemaOnly.operation('addCartItem').requestBody?.documented, false);
  assert.throws(() => schemaOnly.refusedBody('addCartItem', 'addCartItem', '400', 'END-OPS-ADDCARTITEM-1'), NotDeclared);
});
