// The differential oracle's comparison: equal projections raise nothing, a spec-pinned difference raises one finding that
// names its clause, and what the spec leaves open (bodies, ids, the code of a "not shown" refusal) raises nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPARED, NEVER_COMPARED, compareProjections, projectAnswer } from '../../../conformance/explore/projection.js';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';

const step = (operationId: string, method: string, path: string, caller = 'customer', headers: Step['headers'] = {}): Step => ({
  operationId,
  method,
  path,
  caller,
  headers,
});

function problem(status: number, error: string, headers: Record<string, string> = {}, rid = 'r-1'): Answer {
  const json = { type: `https://docs.test/api/problems/${error}`, title: 'x', status, error, instance: rid };
  return {
    status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store', 'x-request-id': rid, ...headers },
    text: JSON.stringify(json),
    json,
  };
}

function ok(status: number, json: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-request-id': 'r-2', ...headers },
    text: JSON.stringify(json),
    json,
  };
}

const getCart = step('getCart', 'GET', '/v1/cart');
const checkout = step('checkoutSavedCard', 'POST', '/v1/checkouts/saved-card');
const getOrder = step('getOrder', 'GET', '/v1/me/orders/o-9');

test('the projection reads status, code, challenge, nonce, request id, cache class, media type and Location', () => {
  const p = projectAnswer(
    getCart,
    problem(401, 'invalid_token', { 'www-authenticate': 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"' }),
  );
  assert.deepEqual(p, {
    status: 401,
    error: 'invalid_token',
    pinned: true,
    challenge: ['bearer invalid_token', 'dpop invalid_token'],
    dpopNonce: false,
    requestId: true,
    instanceMatches: true,
    cache: 'no-store',
    media: 'problem+json',
    location: false,
    retryAfter: false,
  });
  assert.equal(projectAnswer(getCart, ok(200, {}, { 'cache-control': 'private, no-cache' })).cache, 'private, no-cache');
  assert.equal(projectAnswer(getCart, ok(200, {}, { 'cache-control': 'public, max-age=300' })).cache, 'fresh 300');
  assert.equal(projectAnswer(getCart, { status: 204, headers: {}, text: '' }).cache, 'absent');
  assert.equal(projectAnswer(getCart, { status: 400, headers: { 'www-authenticate': 'Bearer ,,= x' }, text: '' }).challenge, 'malformed');
});

test('identical spec-pinned projections raise nothing, whatever the bodies, ids and request ids', () => {
  const a = ok(200, { lines: [{ id: 'a', qty: 1 }] }, { 'x-request-id': 'one' });
  const b = ok(200, { items: [], cart: 'xyz' }, { 'x-request-id': 'two', etag: 'W/"1"' });
  assert.deepEqual(compareProjections(getCart, a, b, 0), []);
  assert.deepEqual(
    compareProjections(
      checkout,
      ok(201, { id: 1 }, { location: '/v1/me/orders/1' }),
      ok(201, { o: 'z' }, { location: 'https://x/o/z' }),
      0,
    ),
    [],
  );
});

test('a "not shown" refusal: 404 not_found and 403 with a code of its own are the same answer', () => {
  assert.deepEqual(compareProjections(getOrder, problem(403, 'forbidden_order'), problem(404, 'not_found'), 2), []);
  assert.deepEqual(compareProjections(getOrder, problem(404, 'no_such_order'), problem(404, 'not_found'), 2), []);
  // An id a deployment validates as malformed is its choice too.
  assert.deepEqual(compareProjections(getOrder, problem(400, 'invalid_request'), problem(404, 'not_found'), 2), []);
});

test('a refusal the model knows is wrong, where the reference succeeds, is one finding naming the operation row', () => {
  const f = compareProjections(getOrder, problem(404, 'not_found'), ok(200, {}), 3, { expected: 'success' });
  assert.equal(f.length, 1);
  assert.equal(f[0]!.oracle, 'differential');
  assert.equal(f[0]!.index, 3);
  assert.deepEqual(f[0]!.clauses, ['END-OPS-GETORDER-1']);
  assert.equal(f[0]!.expected, 200);
  assert.equal(f[0]!.actual, 404);
});

test('a success against a refusal whose code the spec does not show is compared only where the model knows the outcome', () => {
  const remove = step('removeCartItem', 'DELETE', '/v1/cart/items/v1');
  const gone = { status: 204, headers: { 'x-request-id': 'r', 'cache-control': 'no-store' }, text: '' };
  const cancel = step('cancelOrder', 'POST', '/v1/me/orders/o-1/cancellation');
  const unknownAddress = step('deleteAddress', 'DELETE', '/v1/me/addresses/address_none');
  // An idempotent delete or cancel against the reference's 404 or 409: either is conforming.
  assert.deepEqual(compareProjections(remove, gone, problem(404, 'not_found'), 0), []);
  assert.deepEqual(compareProjections(cancel, ok(200, {}), problem(409, 'order_not_cancellable'), 0), []);
  assert.deepEqual(compareProjections(unknownAddress, gone, problem(404, 'not_found'), 0), []);
  assert.deepEqual(compareProjections(getOrder, problem(404, 'not_found'), ok(200, {}), 0), []);
  // The model knows the line is there: the target's 404 is a finding; the reference's would not be the target's fault.
  assert.deepEqual(
    compareProjections(remove, problem(404, 'not_found'), gone, 0, { expected: 'success' }).map((f) => f.clauses),
    [['END-OPS-REMOVECARTITEM-1']],
  );
  assert.deepEqual(compareProjections(remove, gone, problem(404, 'not_found'), 0, { expected: 'success' }), []);
  // A refusal the spec names is compared whatever the model knows.
  const guarded = compareProjections(checkout, ok(201, {}, { location: '/o/1' }), problem(403, 'caller_not_allowed'), 0);
  assert.deepEqual(guarded[0]?.clauses, ['ERR-TABLE-8', 'END-OPS-CHECKOUTSAVEDCARD-1']);
});

test("the reference's invalid_request on an unmutated cart line write (its 99-unit cap) is not compared", () => {
  const add = step('addCartItem', 'POST', '/v1/cart/items', 'customer:a');
  assert.deepEqual(compareProjections(add, ok(201, {}), problem(400, 'invalid_request'), 0), []);
  // The target's refusal, and a mutated body's acceptance, still are.
  assert.equal(compareProjections(add, problem(400, 'invalid_request'), ok(201, {}), 0).length, 1);
  const wrongType = { ...add, mutation: 'wrong-type' };
  assert.equal(compareProjections(wrongType, ok(201, {}), problem(400, 'invalid_request'), 0).length, 1);
});

test('a duplicated X-Request-Id, a bad query escape and a body without members: their outcome is not compared; a 5xx is', () => {
  for (const mutation of ['duplicate-header', 'bad-path-escape', 'missing-member']) {
    const s = { ...checkout, mutation };
    assert.deepEqual(compareProjections(s, ok(201, {}, { location: '/o/1' }), problem(400, 'invalid_request'), 0), [], mutation);
    assert.deepEqual(compareProjections(s, problem(400, 'invalid_request'), problem(422, 'cart_empty'), 0), [], mutation);
    assert.equal(compareProjections(s, problem(500, 'internal_error'), ok(201, {}, { location: '/o/1' }), 0).length, 1, mutation);
  }
});

test('a second checkout that succeeds where the reference answers 422 cart_empty names ERR-TABLE-14', () => {
  const f = compareProjections(checkout, ok(201, {}, { location: '/o/2' }), problem(422, 'cart_empty'), 4);
  assert.equal(f.length, 1);
  assert.ok(f[0]!.clauses.includes('ERR-TABLE-14'));
  assert.ok(f[0]!.clauses.includes('PUR-IDEM-4'));
});

test('two refusals the spec does not order are either accepted; two it orders are compared (contract/stages.ts)', () => {
  const write = step('addCartItem', 'POST', '/v1/cart/items', 'guest');
  // No Guest-Session and a malformed body: the spec places the session requirement at no stage.
  assert.deepEqual(compareProjections(write, problem(400, 'guest_session_required'), problem(400, 'invalid_request'), 0), []);
  assert.deepEqual(compareProjections(write, problem(400, 'invalid_request'), problem(400, 'guest_session_required'), 0), []);
  // A bad token is answered before input validation: the order is pinned.
  const swapped = compareProjections(getCart, problem(400, 'invalid_request'), problem(401, 'invalid_token'), 0);
  assert.ok(swapped.some((f) => f.clauses.includes('ERR-TABLE-2')));
  // The guard precedes the handler: caller_not_allowed against cart_empty is compared.
  assert.equal(compareProjections(checkout, problem(422, 'cart_empty'), problem(403, 'caller_not_allowed'), 0).length, 1);
});

test('a pinned code answered as another code differs in `error`; the same code with another status differs in status', () => {
  const wrongCode = compareProjections(getCart, problem(401, 'unauthorized'), problem(401, 'invalid_token'), 0);
  assert.deepEqual(
    wrongCode.map((x) => x.message.split(': ')[1]!.split(' differs')[0]),
    ['problem error'],
  );
  assert.ok(wrongCode[0]!.clauses.includes('RES-PROBLEM-2'));
  const wrongStatus = compareProjections(
    step('addCartItem', 'POST', '/v1/cart/items', 'guest'),
    problem(401, 'guest_session_required'),
    problem(400, 'guest_session_required'),
    0,
  );
  assert.equal(wrongStatus.length, 1);
  assert.deepEqual(wrongStatus[0]!.clauses, ['ERR-TABLE-7', 'AUTH-GUEST-4']);
});

test('the challenge: a missing DPoP challenge on a 401 without token is a finding; on insufficient_scope it is left open', () => {
  const both = { 'www-authenticate': 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"' };
  const bearerOnly = { 'www-authenticate': 'Bearer error="invalid_token"' };
  const f = compareProjections(getCart, problem(401, 'invalid_token', bearerOnly), problem(401, 'invalid_token', both), 0);
  assert.equal(f.length, 1);
  assert.ok(f[0]!.clauses.includes('ERR-TABLE-2'));
  const none = step('getCart', 'GET', '/v1/cart', 'none');
  const bare = compareProjections(none, problem(401, 'invalid_token', bearerOnly), problem(401, 'invalid_token', both), 0);
  assert.equal(bare[0]!.clauses[0], 'ERR-TABLE-1');
  assert.deepEqual(f[0]!.actual, ['bearer invalid_token']);
  const scope = compareProjections(getCart, problem(403, 'insufficient_scope', bearerOnly), problem(403, 'insufficient_scope'), 0);
  assert.deepEqual(scope, []);
  // A challenge on a domain error: ERR-PROBLEM-8.
  const domain = compareProjections(checkout, problem(422, 'cart_empty', bearerOnly), problem(422, 'cart_empty'), 0);
  assert.deepEqual(domain[0]?.clauses.slice(0, 1), ['ERR-PROBLEM-8']);
});

test('DPoP-Nonce presence is compared on the answer to a DPoP request', () => {
  // A DPoP request is a proof with the DPoP scheme (contract/requests.ts isDpopRequest).
  const dpopStep = step('getCart', 'GET', '/v1/cart', 'assistant', { dpop: 'x', authorization: 'DPoP t' });
  const f = compareProjections(dpopStep, ok(200, {}), ok(200, {}, { 'dpop-nonce': 'n' }), 0);
  assert.deepEqual(
    f.map((x) => x.clauses),
    [['AUTH-ORDER-4']],
  );
  assert.deepEqual(compareProjections(getCart, ok(200, {}), ok(200, {}, { 'dpop-nonce': 'n' }), 0), []);
  // A proof beside a Bearer token is a DPoP request in one reading only (docs/ambiguities.md, 4): not compared.
  const proofBesideBearer = step('getCart', 'GET', '/v1/cart', 'customer:a', { dpop: 'x' });
  assert.deepEqual(compareProjections(proofBesideBearer, ok(200, {}), ok(200, {}, { 'dpop-nonce': 'n' }), 0), []);
  // An assistant's caller sends the DPoP scheme; its token sent as Bearer without a proof does not: nonce not pinned.
  const assistant = step('getCart', 'GET', '/v1/cart', 'assistant:a');
  assert.equal(compareProjections(assistant, ok(200, {}), ok(200, {}, { 'dpop-nonce': 'n' }), 0).length, 1);
  const bearer = step('getCart', 'GET', '/v1/cart', 'assistant:bearer');
  const challenge = { 'www-authenticate': 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"' };
  assert.deepEqual(
    compareProjections(
      bearer,
      problem(401, 'invalid_token', challenge),
      problem(401, 'invalid_token', { ...challenge, 'dpop-nonce': 'n' }),
      0,
    ),
    [],
  );
  // Still the invalid_token row of an assistant's token (ERR-TABLE-3) when its challenge differs.
  const bare = compareProjections(
    bearer,
    problem(401, 'invalid_token', { 'www-authenticate': 'Bearer' }),
    problem(401, 'invalid_token', challenge),
    0,
  );
  assert.equal(bare[0]?.clauses[0], 'ERR-TABLE-3');
  // A nonce on a domain error to a request without DPoP is the model's to judge (expectDomainErrorHeaders), not compared.
  assert.deepEqual(compareProjections(checkout, problem(422, 'cart_empty', { 'dpop-nonce': 'n' }), problem(422, 'cart_empty'), 0), []);
});

test('X-Request-Id, instance, cache class, media type and Location each raise their own finding', () => {
  const { 'x-request-id': _gone, ...noRid } = ok(200, {}).headers;
  assert.deepEqual(compareProjections(getCart, { ...ok(200, {}), headers: noRid }, ok(200, {}), 0)[0]!.clauses, [
    'AUTH-ORDER-2',
    'ERR-PROBLEM-7',
  ]);
  const badInstance = problem(404, 'not_found');
  badInstance.json = { ...(badInstance.json as object), instance: 'other' };
  assert.deepEqual(compareProjections(getOrder, badInstance, problem(404, 'not_found'), 0)[0]!.clauses, ['RES-PROBLEM-8', 'ERR-PROBLEM-6']);
  const cached = compareProjections(getCart, ok(200, {}, { 'cache-control': 'max-age=60' }), ok(200, {}), 0);
  assert.equal(cached[0]!.actual, 'fresh 60');
  assert.ok(cached[0]!.clauses.includes('END-CONV-9'));
  const media = compareProjections(
    getOrder,
    problem(404, 'not_found', { 'content-type': 'application/json' }),
    problem(404, 'not_found'),
    0,
  );
  assert.deepEqual(media[0]!.clauses, ['RES-PROBLEM-1', 'ERR-PROBLEM-4']);
  const location = compareProjections(checkout, ok(201, {}), ok(201, {}, { location: '/v1/me/orders/1' }), 0);
  assert.deepEqual(location[0]!.clauses, ['END-CONV-2']);
  assert.deepEqual(
    compareProjections(step('addAddress', 'POST', '/v1/me/addresses'), ok(201, {}), ok(201, {}, { location: '/a/1' }), 0),
    [],
  );
});

test("exact success statuses are compared for addAddress and deletes only; a checkout's 2xx is the deployment's", () => {
  assert.deepEqual(compareProjections(step('addCartItem', 'POST', '/v1/cart/items'), ok(200, {}), ok(201, {}), 0), []);
  assert.deepEqual(compareProjections(checkout, ok(200, {}), ok(201, {}, { location: '/v1/me/orders/1' }), 0), []);
  const address = compareProjections(step('addAddress', 'POST', '/v1/me/addresses'), ok(200, {}), ok(201, {}), 0);
  assert.deepEqual(address[0]?.clauses, ['END-CONV-1']);
  const del = compareProjections(
    step('removeCartItem', 'DELETE', '/v1/cart/items/v1'),
    ok(200, {}),
    { status: 204, headers: { 'x-request-id': 'r', 'cache-control': 'no-store' }, text: '' },
    0,
  );
  assert.deepEqual(del[0]!.clauses, ['END-CONV-3']);
});

test('a rate limit on one side only is not compared: numeric budgets are not shown', () => {
  assert.deepEqual(compareProjections(getCart, problem(429, 'rate_limited', { 'retry-after': '1' }), ok(200, {}), 0), []);
});

test('what is compared and never compared is data the docs can cite', () => {
  assert.ok(COMPARED.some((c) => c.field === 'challenge'));
  assert.ok(NEVER_COMPARED.some((n) => /bodies/.test(n.what)));
});

test('Retry-After: present on both rate limits, 5 on both outages', () => {
  assert.deepEqual(
    compareProjections(
      getCart,
      problem(429, 'rate_limited', { 'retry-after': '30' }),
      problem(429, 'rate_limited', { 'retry-after': '7' }),
      0,
    ),
    [],
  );
  const missing = compareProjections(getCart, problem(429, 'rate_limited'), problem(429, 'rate_limited', { 'retry-after': '7' }), 0);
  assert.deepEqual(missing[0]!.clauses, ['ERR-TABLE-12', 'LIM-RATE-4']);
  const outage = compareProjections(
    getCart,
    problem(503, 'unavailable', { 'retry-after': '60' }),
    problem(503, 'unavailable', { 'retry-after': '5' }),
    0,
  );
  assert.deepEqual(outage[0]!.clauses, ['ERR-TABLE-13', 'LIM-RETRY-1']);
});

test('a 200 where the reference answers 304 to If-None-Match names END-CONV-8', () => {
  const read = step('getProduct', 'GET', '/v1/catalog/products/mug', 'guest', { 'if-none-match': 'W/"1"' });
  const f = compareProjections(
    read,
    ok(200, {}, { 'cache-control': 'private, no-cache' }),
    { status: 304, headers: { 'x-request-id': 'r' }, text: '' },
    0,
  );
  assert.deepEqual(f[0]!.clauses, ['END-CONV-8', 'END-OPS-GETPRODUCT-1']);
});

test('the credentials of a step: its caller label as the world sends it, the step’s own Authorization or DPoP over it', async () => {
  const { credentialsOfStep } = await import('../../../conformance/explore/agent-callers.js');
  const c = (caller: string, headers: Step['headers'] = {}) => credentialsOfStep({ caller, headers });
  assert.deepEqual(c('assistant:a'), { scheme: 'dpop', proof: true, assistantToken: true });
  assert.deepEqual(c('assistant:proof-none'), { scheme: 'dpop', proof: false, assistantToken: true });
  assert.deepEqual(c('assistant:bearer'), { scheme: 'bearer', proof: false, assistantToken: true });
  assert.deepEqual(c('customer:a'), { scheme: 'bearer', proof: false, assistantToken: false });
  assert.deepEqual(c('guest#3'), { scheme: 'bearer', proof: false, assistantToken: false });
  assert.deepEqual(c('anonymous'), { scheme: undefined, proof: false, assistantToken: false });
  assert.deepEqual(c('assistant:a', { authorization: [] }), { scheme: undefined, proof: true, assistantToken: false });
  assert.deepEqual(c('customer:a', { dpop: 'p' }), { scheme: 'bearer', proof: true, assistantToken: false });
});
