// The model oracle of `explore` (conformance/explore/model.ts), step by step on answers written here: what it pins
// (carts per owner, one new order per checkout, cart_empty after it, rows never crossing accounts, the headers of every
// answer) and what it leaves open (a mutated write's effect, bodies and ids).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';
import { createdId, expectedOutcome, judgeHeaders, judgeStep, mayHaveMore, newModel } from '../../../conformance/explore/model.js';
import type { PlanStep } from '../../../conformance/explore/plan.js';

const VARIANTS = ['var_0101', 'var_0201'] as const;
const HEADERS = { 'x-request-id': 'r1', 'cache-control': 'no-store', 'content-type': 'application/json' };

const plan = (op: PlanStep['op'], caller: PlanStep['caller'], extra: Partial<PlanStep> = {}): PlanStep => ({
  op,
  caller,
  variant: 0,
  quantity: 1,
  ...extra,
});
const step = (p: PlanStep, path = '/v1/x'): Step => ({ operationId: p.op, method: 'POST', path, caller: p.caller, headers: {} });
const answer = (status: number, json: unknown = {}, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { ...HEADERS, ...headers },
  text: JSON.stringify(json),
  json,
});

function started() {
  const m = newModel();
  for (const o of ['account:a', 'account:b', 'guest:a', 'guest:b']) m.carts.set(o, new Set());
  return m;
}

function judge(m: ReturnType<typeof newModel>, p: PlanStep, a: Answer, path?: string) {
  return judgeStep(m, p, step(p, path), a, { index: 0, variants: VARIANTS });
}

test('a checkout of an empty cart that is accepted is a finding of PUR-IDEM-4 and ERR-TABLE-14', () => {
  const m = started();
  const f = judge(m, plan('checkoutSavedCard', 'delegated:a'), answer(201, {}, { location: '/v1/me/orders/ord_1' }));
  assert.deepEqual(
    f.map((x) => x.clauses),
    [['PUR-IDEM-4', 'ERR-TABLE-14']],
  );
});

test('checkout empties the cart the customer and the delegated caller share; a resubmission must be cart_empty', () => {
  const m = started();
  assert.deepEqual(judge(m, plan('addCartItem', 'customer:a'), answer(201)), []);
  assert.deepEqual(judge(m, plan('checkoutSavedCard', 'delegated:a'), answer(201, {}, { location: '/v1/me/orders/ord_1' })), []);
  assert.deepEqual(m.orders.a, ['ord_1']);
  assert.deepEqual(judge(m, plan('getCart', 'customer:a'), answer(200, { lines: [] })), []);
  const again = judge(m, plan('checkoutSavedCard', 'delegated:a'), answer(201, {}, { location: '/v1/me/orders/ord_2' }));
  assert.equal(again[0]?.clauses.includes('PUR-IDEM-4'), true);
});

test('a checkout answered with an earlier order (a replayed answer) is a finding; a cart with lines is never cart_empty', () => {
  const m = started();
  judge(m, plan('addCartItem', 'customer:a'), answer(201));
  judge(m, plan('checkoutSavedCard', 'delegated:a'), answer(201, {}, { location: '/v1/me/orders/ord_1' }));
  judge(m, plan('addCartItem', 'customer:a'), answer(201));
  const replayed = judge(
    m,
    plan('checkoutSavedCard', 'delegated:a', { idempotencyKey: 'k1' }),
    answer(201, {}, { location: '/v1/me/orders/ord_1' }),
  );
  assert.deepEqual(
    replayed.map((x) => x.clauses),
    [['PUR-IDEM-2', 'PUR-IDEM-3']],
  );
  judge(m, plan('addCartItem', 'customer:b'), answer(201));
  const refused = judge(m, plan('checkoutSavedCard', 'delegated:b'), answer(422, { error: 'cart_empty' }));
  assert.deepEqual(
    refused.map((x) => x.clauses),
    [['PUR-IDEM-3', 'AUTH-KIND-6']],
  );
});

test('a cart read must name exactly the lines the sequence left; guests do not share carts', () => {
  const m = started();
  judge(m, plan('addCartItem', 'guest:a', { variant: 1 }), answer(201));
  assert.deepEqual(judge(m, plan('getCart', 'guest:a'), answer(200, { lines: [{ variant_id: 'var_0201' }] })), []);
  const leaked = judge(m, plan('getCart', 'guest:b'), answer(200, { lines: [{ variant_id: 'var_0201' }] }));
  assert.deepEqual(
    leaked.map((x) => x.clauses),
    [['AUTH-KIND-9', 'AUTH-GUEST-17']],
  );
});

test('a mutated write the target accepted leaves the cart unknown until the next read, which the model then takes', () => {
  const m = started();
  judge(m, plan('addCartItem', 'customer:a', { mutation: 'wrong-type' }), answer(201));
  assert.equal(m.carts.get('account:a'), undefined);
  assert.deepEqual(judge(m, plan('getCart', 'customer:a'), answer(200, { lines: [{ variant_id: 'var_0101' }] })), []);
  assert.deepEqual([...m.carts.get('account:a')!], [0]);
});

test("listOrders must show the account's new orders and never another account's; foreign rows are never served", () => {
  const m = started();
  m.orders.a.push('ord_a1');
  m.orders.b.push('ord_b1');
  assert.deepEqual(judge(m, plan('listOrders', 'customer:a'), answer(200, { orders: [{ id: 'ord_a1' }] })), []);
  const crossed = judge(m, plan('listOrders', 'customer:a'), answer(200, { orders: [{ id: 'ord_a1' }, { id: 'ord_b1' }] }));
  assert.deepEqual(
    crossed.map((x) => x.clauses),
    [['END-ME-1']],
  );
  const missing = judge(m, plan('listOrders', 'customer:b'), answer(200, { orders: [] }));
  assert.equal(missing[0]?.clauses.includes('END-OPS-LISTORDERS-1'), true);
  const served = judge(
    m,
    plan('getOrder', 'customer:a', { mutation: 'foreign-id' }),
    answer(200, { id: 'ord_b1' }),
    '/v1/me/orders/ord_b1',
  );
  assert.deepEqual(
    served.map((x) => x.clauses),
    [['END-ME-2']],
  );
  assert.deepEqual(judge(m, plan('getOrder', 'customer:a', { mutation: 'foreign-id' }), answer(404), '/v1/me/orders/ord_b1'), []);
});

test("an order missing from listOrders is judged only on an answer that shows the whole list (order and paging aren't shown)", () => {
  const m = started();
  m.orders.a.push('ord_a1');
  const missing = (a: Answer) => judge(m, plan('listOrders', 'customer:a'), a).filter((f) => f.clauses.includes('END-OPS-LISTORDERS-1'));
  // The whole list: no next page, a null cursor, has_more false, a total the page holds.
  for (const json of [{ orders: [] }, { items: [], next_cursor: null }, { data: [], has_more: false, limit: 20 }, [] as unknown])
    assert.equal(missing(answer(200, json)).length, 1, JSON.stringify(json));
  assert.equal(missing(answer(200, { orders: [{ id: 'x' }], total: 1, page: 1 })).length, 1);
  // One page of more: a Link rel=next, a cursor, a total above the page, page or offset members that say nothing else.
  for (const a of [
    answer(200, [], { link: '</v1/me/orders?page=2>; rel="next"' }),
    answer(200, { items: [], next_cursor: 'c2' }),
    answer(200, { orders: [{ id: 'x' }], total: 7 }),
    answer(200, { orders: [], meta: { total_count: 3 } }),
    answer(200, { orders: [], page: 1, per_page: 20 }),
    answer(200, { orders: [], pagination: { offset: 0, limit: 20 } }),
  ])
    assert.deepEqual(missing(a), [], JSON.stringify(a.json));
  assert.equal(mayHaveMore(answer(200, { orders: [], pages: 1, page: 1, has_more: false })), false);
});

test('the model knows a success only where the spec pins it: own reads, a line the cart holds, an order placed here', () => {
  const m = started();
  assert.equal(expectedOutcome(m, plan('getCart', 'customer:a')), 'success');
  assert.equal(expectedOutcome(m, plan('listOrders', 'delegated:b')), 'success');
  assert.equal(expectedOutcome(m, plan('getCart', 'guest:a')), 'success');
  assert.equal(expectedOutcome(m, plan('listOrders', 'guest:a')), undefined);
  assert.equal(expectedOutcome(m, plan('getCart', 'customer:expired')), undefined);
  assert.equal(expectedOutcome(m, plan('getCart', 'customer:a', { mutation: 'duplicate-header' })), undefined);
  // A line the cart lacks, then holds.
  assert.equal(expectedOutcome(m, plan('removeCartItem', 'customer:a')), undefined);
  m.carts.set('account:a', new Set([0]));
  assert.equal(expectedOutcome(m, plan('removeCartItem', 'delegated:a')), 'success');
  assert.equal(expectedOutcome(m, plan('updateCartItem', 'customer:a', { variant: 1 })), undefined);
  // An order of this sequence; a cancel or an address delete is never known (a repeat may be refused).
  assert.equal(expectedOutcome(m, plan('getOrder', 'customer:a')), undefined);
  m.orders.a.push('ord_1');
  assert.equal(expectedOutcome(m, plan('getOrder', 'customer:a')), 'success');
  assert.equal(expectedOutcome(m, plan('cancelOrder', 'customer:a')), undefined);
  assert.equal(expectedOutcome(m, plan('deleteAddress', 'customer:a')), undefined);
});

test('an address create answered with the address of another body is a finding of PUR-IDEM-2; ids come from Location or the body', () => {
  const m = started();
  assert.equal(createdId(answer(201, { id: 'addr_1' })), 'addr_1');
  assert.equal(createdId(answer(201, {}, { location: '/v1/me/orders/ord_9' })), 'ord_9');
  assert.equal(createdId(answer(400, { id: 'addr_1' })), undefined);
  const add = (line1: string, key?: string) => {
    const p = plan('addAddress', 'customer:a', key ? { idempotencyKey: key } : {});
    return judgeStep(m, p, { ...step(p), body: { json: { line1 } } }, answer(201, { id: 'addr_1' }), { index: 0, variants: VARIANTS });
  };
  assert.deepEqual(add('1 Main St'), []);
  // The same address again may be the address book keeping no duplicates (not pinned); another body answered with it is a replay.
  assert.deepEqual(add('1 Main St', 'k1'), []);
  assert.deepEqual(
    add('2 Side St', 'k1').map((x) => x.clauses),
    [['PUR-IDEM-2']],
  );
});

test('every answer is judged on the headers its status requires, with the clauses of the suite’s own rules', () => {
  const p = plan('getCart', 'customer:a');
  const ok = judgeHeaders(step(p), answer(200), 0, 'https://docs.shop.test');
  assert.deepEqual(ok, []);
  const bare: Answer = { status: 200, headers: {}, text: '{}', json: {} };
  const clauses = judgeHeaders(step(p), bare, 3, 'https://docs.shop.test').flatMap((f) => f.clauses);
  assert.ok(clauses.includes('AUTH-ORDER-2') && clauses.includes('END-CONV-9'), clauses.join(' '));
  const problem: Answer = {
    status: 422,
    headers: { 'x-request-id': 'r', 'cache-control': 'no-store', 'content-type': 'application/json' },
    text: '{}',
    json: {},
  };
  assert.ok(judgeHeaders(step(p), problem, 0, 'https://docs.shop.test').some((f) => f.clauses.includes('ERR-PROBLEM-4')));
});

test('cart_empty is 422, and an empty cart checked out by an agent-checkout caller is refused as cart_empty', () => {
  const m = started();
  const conflict = judge(m, plan('checkoutSavedCard', 'delegated:a'), answer(409, { error: 'cart_empty' }));
  assert.deepEqual(
    conflict.map((x) => x.clauses),
    [['ERR-TABLE-14']],
  );
  // A refusal the handler may have half done leaves the cart unknown: the next judgement starts afresh.
  assert.equal(m.carts.get('account:a'), undefined);
  const other = judge(started(), plan('checkoutSavedCard', 'delegated:a'), answer(409, { error: 'conflict' }));
  assert.deepEqual(
    other.map((x) => x.clauses),
    [['ERR-TABLE-14']],
  );
  // A customer is not an agent-checkout caller: its refusal is judged by the differential, not here.
  assert.deepEqual(judge(started(), plan('checkoutSavedCard', 'customer:a'), answer(403, { error: 'caller_not_allowed' })), []);
  assert.deepEqual(judge(started(), plan('checkoutSavedCard', 'delegated:a'), answer(422, { error: 'cart_empty' })), []);
});

test("agents act for their account: an invited agent's lines are the assistant's cart, its order is the account's", () => {
  const m = started();
  assert.deepEqual(judge(m, plan('addCartItem', 'invited:a'), answer(201)), []);
  // A read of account a's cart by the assistant must name the line the invited agent added.
  const missing = judge(m, plan('getCart', 'assistant:a'), answer(200, { lines: [] }));
  assert.deepEqual(
    missing.map((x) => x.clauses),
    [['AUTH-KIND-3', 'AUTH-KIND-6']],
  );
  const m2 = started();
  assert.deepEqual(judge(m2, plan('addCartItem', 'assistant:a'), answer(201)), []);
  assert.deepEqual(judge(m2, plan('checkoutSavedCard', 'browser:a'), answer(201, {}, { location: '/v1/me/orders/ord_7' })), []);
  const crossed = judge(m2, plan('listOrders', 'invited:b'), answer(200, { orders: [{ id: 'ord_7' }] }));
  assert.deepEqual(
    crossed.map((x) => x.clauses),
    [['END-ME-1']],
  );
  // A refused proof defect changes nothing: the cart is still empty for the account.
  assert.deepEqual(judge(m2, plan('addCartItem', 'assistant:proof-replay'), answer(401, { error: 'invalid_dpop_proof' })), []);
  assert.deepEqual(judge(m2, plan('getCart', 'customer:a'), answer(200, { lines: [] })), []);
});

test("an assistant session lists its own conversations, never another session's", () => {
  const m = started();
  assert.deepEqual(judge(m, plan('openConversation', 'assistant:a'), answer(201, {}, { location: '/assistant/conversations/conv_1' })), []);
  assert.deepEqual(judge(m, plan('listConversations', 'assistant:a'), answer(200, { conversations: [{ id: 'conv_1' }] })), []);
  const f = judge(m, plan('listConversations', 'assistant:b'), answer(200, { conversations: [{ id: 'conv_1' }] }));
  assert.deepEqual(
    f.map((x) => x.clauses),
    [['END-PUBLIC-19']],
  );
});

test('an answer to a DPoP request, or on a conversation path, may carry a DPoP-Nonce on a domain error; any other may not', () => {
  const nonce = { 'dpop-nonce': 'n0', 'content-type': 'application/problem+json' };
  const problem = {
    type: 'https://docs.shop.test/api/problems/not_found',
    title: 'Not Found',
    status: 404,
    error: 'not_found',
    instance: 'r1',
  };
  const as = (caller: string, operationId = 'getOrder', path = '/v1/x'): Step => ({
    operationId,
    method: 'GET',
    path,
    caller,
    headers: {},
  });
  const docs = 'https://docs.shop.test/api/problems';
  const f = (s: Step) => judgeHeaders(s, answer(404, problem, nonce), 0, docs).filter((x) => x.clauses.includes('ERR-PROBLEM-8'));
  assert.deepEqual(f(as('assistant:a')), []);
  // The challenge scheme of a conversation path is DPoP (contract/requests.ts challengeSchemeOf): a nonce may answer it.
  assert.deepEqual(f(as('customer:a', 'listConversations', '/assistant/conversations')), []);
  assert.equal(f(as('customer:a')).length, 1);
});
