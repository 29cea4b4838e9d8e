// explore's generated body shapes (conformance/explore/bodies.ts): the arbitrary reaches every variation, shapes survive
// a replay file, applyBodyShape writes what each shape says (parsed back; duplicates as text; sizes exact in bytes), and
// expectedOfBody says what the spec pins on hand-picked cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import {
  applyBodyShape,
  BAD_TOKENS,
  BODY_VARIATIONS,
  bodyShapeArbitrary,
  BREAKS,
  describeBody,
  expectedOfBody,
  SIZE_BYTES,
  SIZES,
  variationsOf,
  WHITESPACES,
  type BodyShape,
  type BodyStep,
  type BodyValue,
} from '../../../conformance/explore/bodies.js';
import { buildBody } from '../../../conformance/explore/bodies-apply.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/catalogue.js';
import { LIMITS } from '../../../contract/limits.js';

const SAMPLES = fc.sample(bodyShapeArbitrary(), { seed: 20240611, numRuns: 4000 });
const VALIDS: unknown[] = [
  { variant_id: 'var_0101', quantity: 1 },
  { name: 'A', line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
  { subject: 'cust_nobody', operationId: 'recop_nobody', purpose: 'email' },
  {},
  [1, 2],
  'text',
  1,
];
const one = (...steps: BodyStep[]): BodyShape => ({ steps });
const textOf = (sent: ReturnType<typeof applyBodyShape>): string => ('json' in sent ? JSON.stringify(sent.json) : sent.text);
const member = (index: number, value: BodyValue) => one({ op: 'member', index, value });
const parsesTo = (sent: ReturnType<typeof applyBodyShape>): unknown => JSON.parse(textOf(sent));
const throwsParse = (text: string) => assert.throws(() => JSON.parse(text), SyntaxError, JSON.stringify(text.slice(0, 60)));

test('the arbitrary reaches every variation over a few thousand samples, and only those', () => {
  const seen = new Set(SAMPLES.flatMap(variationsOf));
  assert.deepEqual(
    BODY_VARIATIONS.filter((v) => !seen.has(v)),
    [],
  );
  assert.deepEqual(
    [...seen].filter((v) => !BODY_VARIATIONS.includes(v)),
    [],
  );
  assert.ok(SAMPLES.every((s) => s.steps.length === 1 || s.steps.length === 2));
});

test('shapes round-trip through JSON (replay files) and apply alike after it', () => {
  for (const s of SAMPLES.slice(0, 1000)) {
    const back = JSON.parse(JSON.stringify(s)) as BodyShape;
    assert.deepEqual(back, s);
    assert.deepEqual(applyBodyShape(VALIDS[0], back), applyBodyShape(VALIDS[0], s));
  }
});

test('a json body is exactly the bytes the shape writes; everything else is text sent as application/json', () => {
  for (const s of SAMPLES.slice(0, 1500))
    for (const valid of [VALIDS[0], VALIDS[2]]) {
      const sent = applyBodyShape(valid, s);
      const built = buildBody(valid, s);
      if ('json' in sent) assert.equal(JSON.stringify(sent.json), built.text);
      else {
        assert.equal(sent.text, built.text);
        assert.equal(sent.contentType, 'application/json');
      }
      assert.ok(describeBody(s).length > 0 && !describeBody(s).includes('\n'));
    }
});

test('sizes are exact in bytes, with any other step, on any body', () => {
  for (const s of SAMPLES.filter((x) => x.steps.some((st) => st.op === 'size')))
    for (const valid of VALIDS) {
      const size = s.steps.filter((st) => st.op === 'size').at(-1) as { bytes: (typeof SIZES)[number] };
      assert.equal(Buffer.byteLength(textOf(applyBodyShape(valid, s)), 'utf8'), SIZE_BYTES[size.bytes], describeBody(s));
    }
  for (const bytes of SIZES) {
    const sent = applyBodyShape(VALIDS[1], one({ op: 'size', bytes }));
    assert.deepEqual(parsesTo(sent), VALIDS[1]);
    assert.equal(Buffer.byteLength(textOf(sent)), bytes === 'cap-1' ? 262_143 : bytes === 'cap' ? 262_144 : 262_145);
  }
  // Multi-byte characters count as their UTF-8 bytes.
  const sent = applyBodyShape(
    VALIDS[0],
    one({ op: 'member', index: 0, value: { kind: 'string', of: 'unicode' } }, { op: 'size', bytes: 'cap' }),
  );
  assert.equal(Buffer.byteLength(textOf(sent)), LIMITS.requestBodyBytes);
});

test('a duplicated member is written twice in the text', () => {
  const sent = applyBodyShape({ a: 1, b: 2 }, one({ op: 'duplicate', index: 2, value: { kind: 'number', text: '-1' } }));
  assert.deepEqual(sent, { text: '{"a":1,"a":-1,"b":2}', contentType: 'application/json' });
  const named = applyBodyShape({ email: 'x' }, one({ op: 'unknown', name: 'email', value: { kind: 'null' } }));
  assert.equal(textOf(named), '{"email":"x","email":null}');
  assert.ok(buildBody({ email: 'x' }, one({ op: 'unknown', name: 'email', value: { kind: 'null' } })).duplicated);
});

test('member values parse back as the shape says', () => {
  const v = { n: 7, s: 'abc', k: true };
  const at = (index: number, value: BodyValue) => parsesTo(applyBodyShape(v, member(index, value))) as Record<string, unknown>;
  assert.equal(at(0, { kind: 'null' }).n, null);
  assert.equal(at(0, { kind: 'boolean', value: false }).n, false);
  assert.equal(at(0, { kind: 'number', text: '1e400' }).n, Infinity);
  assert.ok(Object.is(at(0, { kind: 'number', text: '-0' }).n, -0));
  assert.equal(
    textOf(applyBodyShape(v, member(0, { kind: 'number', text: '9007199254740993' }))),
    '{"n":9007199254740993,"s":"abc","k":true}',
  );
  assert.equal(at(1, { kind: 'string', of: 'empty' }).s, '');
  assert.equal(at(1, { kind: 'string', of: 'unicode-escaped' }).s, at(1, { kind: 'string', of: 'unicode' }).s);
  assert.match(textOf(applyBodyShape(v, member(1, { kind: 'string', of: 'unicode-escaped' }))), /^[\x20-\x7e]*$/);
  assert.equal(at(1, { kind: 'string', of: 'lone-surrogate' }).s, '\ud800x');
  assert.equal((at(1, { kind: 'long-string', length: 257 }).s as string).length, 257);
  assert.equal(at(0, { kind: 'swap' }).n, '7');
  assert.equal(at(1, { kind: 'swap' }).s, 1);
  assert.equal(at(2, { kind: 'swap' }).k, 'true');
  assert.deepEqual(at(0, { kind: 'array', of: 'wrap' }).n, [7]);
  assert.deepEqual(at(1, { kind: 'object', of: 'wrap' }).s, { value: 'abc' });
  assert.deepEqual(at(3, { kind: 'object', of: 'empty' }).n, {}); // 3 mod 3 = member 0
  assert.deepEqual(parsesTo(applyBodyShape(v, one({ op: 'drop', index: 1 }))), { n: 7, k: true });
  assert.deepEqual(parsesTo(applyBodyShape(v, one({ op: 'top', value: { kind: 'array', of: 'wrap' } }))), [v]);
  const deep = applyBodyShape(v, member(0, { kind: 'deep', container: 'array', depth: 1000 }));
  assert.ok('text' in deep);
  let d = 0;
  for (let x = (parsesTo(deep) as { n: unknown }).n; Array.isArray(x); x = x[0]) d++;
  assert.equal(d, 1000);
  const proto = applyBodyShape(v, one({ op: 'unknown', name: '__proto__', value: { kind: 'object', of: 'empty' } }));
  assert.ok('text' in proto);
  assert.ok(Object.hasOwn(parsesTo(proto) as object, '__proto__'));
  // A member step on a body with no members changes nothing; an added member is still added.
  assert.deepEqual(applyBodyShape([1], member(0, { kind: 'null' })), { json: [1] });
  assert.deepEqual(applyBodyShape({}, one({ op: 'unknown', name: '', value: { kind: 'null' } })), { json: { '': null } });
});

test('whitespace: JSON space keeps the body, a leading BOM is the body after it, other space is not JSON', () => {
  for (const valid of VALIDS) {
    for (const where of ['lead', 'trail', 'inside'] as const)
      assert.deepEqual(parsesTo(applyBodyShape(valid, one({ op: 'space', ws: 'json', where }))), valid);
    const bom = textOf(applyBodyShape(valid, one({ op: 'space', ws: 'bom', where: 'lead' })));
    assert.ok(bom.startsWith('\ufeff'));
    assert.deepEqual(JSON.parse(bom.slice(1)), valid);
    for (const ws of WHITESPACES.filter((w) => w !== 'json'))
      for (const where of ['lead', 'trail'] as const) throwsParse(textOf(applyBodyShape(valid, one({ op: 'space', ws, where }))));
  }
  throwsParse(textOf(applyBodyShape({ a: 1 }, one({ op: 'space', ws: 'nbsp', where: 'inside' }))));
});

test('breaks and bad tokens are never JSON, on any body', () => {
  for (const valid of [...VALIDS, '', 0, null, true, 1.5])
    for (const how of BREAKS) throwsParse(textOf(applyBodyShape(valid, one({ op: 'broken', how }))));
  for (const token of BAD_TOKENS) throwsParse(textOf(applyBodyShape({ a: 1 }, member(0, { kind: 'bad-token', token }))));
});

// --- expectedOfBody ---------------------------------------------------------------------------------------------------------

const ADD_CART = { operationId: 'addCartItem', method: 'POST', path: '/v1/cart/items' };
const RECOVER = { operationId: 'recoverAccount', method: 'POST', path: '/internal/account/recover' };
const RECOVERY_BODY = { subject: 'cust_nobody', operationId: 'recop_nobody', purpose: 'email' };
const recover = (shape: BodyShape) => expectedOfBody(RECOVER, shape, RECOVERY_BODY);
const statuses = (e: ReturnType<typeof expectedOfBody>) => e.statuses;
const VALID_RECOVERY = [200, 404, 409];

test('expectedOfBody: sizes around the cap', () => {
  const over = expectedOfBody(ADD_CART, one({ op: 'size', bytes: 'cap+1' }), VALIDS[0]);
  assert.ok(
    Array.isArray(over.statuses) &&
      over.statuses.includes(413) &&
      over.statuses.includes(400) &&
      over.statuses.every((s) => s >= 400 && s < 500),
  );
  assert.ok(over.clauses.includes('LIM-BODY-1') && over.clauses.includes('ERR-PROBLEM-3'));
  assert.ok(!('errors' in over));
  assert.equal(statuses(expectedOfBody(ADD_CART, one({ op: 'size', bytes: 'cap' }), VALIDS[0])), 'any-not-5xx');
  assert.deepEqual(statuses(recover(one({ op: 'size', bytes: 'cap' }))), VALID_RECOVERY);
  assert.deepEqual(statuses(recover(one({ op: 'size', bytes: 'cap-1' }))), VALID_RECOVERY);
  // Over the cap wins over everything else wrong with the body.
  const overBroken = recover(one({ op: 'broken', how: 'comment' }, { op: 'size', bytes: 'cap+1' }));
  assert.ok(Array.isArray(overBroken.statuses) && overBroken.statuses.length === 100);
  // The 64 KiB conversation writes and the 8 KiB security intents refuse bodies the general cap takes.
  const conv = expectedOfBody(
    { operationId: 'x', method: 'POST', path: '/assistant/conversations/c1/messages' },
    one({ op: 'size', bytes: 'cap-1' }),
  );
  assert.ok(conv.clauses.includes('LIM-CONV-1') && Array.isArray(conv.statuses) && !conv.statuses.includes(200));
  const intents = { operationId: 'recordSecurityIntent', method: 'POST', path: '/internal/account/security-intents' };
  assert.ok(expectedOfBody(intents, member(0, { kind: 'long-string', length: 10_000 })).clauses.includes('LIM-INTENT-1'));
  const turn = { operationId: 'recordConversationTurn', method: 'POST', path: '/internal/conversations/c9/turn' };
  assert.ok(expectedOfBody(turn, one({ op: 'size', bytes: 'cap' })).clauses.includes('LIM-CONV-1'));
});

test('expectedOfBody: not JSON is 400 with no code pinned, before authentication', () => {
  for (const route of [ADD_CART, RECOVER]) {
    const e = expectedOfBody(route, one({ op: 'broken', how: 'trailing-comma' }));
    assert.deepEqual(e.statuses, [400]);
    assert.ok(!('errors' in e) && e.clauses.includes('AUTH-ORDER-11') && e.clauses.includes('END-CONV-4'));
    assert.deepEqual(statuses(expectedOfBody(route, one({ op: 'space', ws: 'nbsp', where: 'lead' }))), [400]);
    assert.deepEqual(statuses(expectedOfBody(route, member(1, { kind: 'bad-token', token: 'NaN' }))), [400]);
  }
  // A leading BOM may be ignored (RFC 8259 §8.1): the body's own outcome, or 400, with no code pinned.
  const bom = recover(one({ op: 'space', ws: 'bom', where: 'lead' }));
  assert.deepEqual(bom.statuses, [200, 400, 404, 409]);
  assert.ok(!('errors' in bom));
  assert.deepEqual(statuses(recover(one({ op: 'space', ws: 'bom', where: 'trail' }))), [400]);
  assert.deepEqual(statuses(recover(one({ op: 'space', ws: 'json', where: 'inside' }))), VALID_RECOVERY);
});

test('expectedOfBody: the recovery request is pinned field by field', () => {
  const invalid = (shape: BodyShape, clause: string) => {
    const e = recover(shape);
    assert.deepEqual([e.statuses, 'errors' in e ? e.errors : undefined], [[400], ['invalid_request']], describeBody(shape));
    assert.ok(e.clauses.includes(clause) && e.clauses.includes('ERR-TABLE-11'), `${describeBody(shape)}: ${e.clauses.join(' ')}`);
  };
  const valid = (shape: BodyShape) => {
    const e = recover(shape);
    assert.deepEqual(e.statuses, VALID_RECOVERY, describeBody(shape));
    assert.deepEqual('errors' in e ? e.errors : undefined, ['recovery_not_found', 'recovery_pending']);
  };
  valid(one());
  valid(member(0, { kind: 'long-string', length: 256 }));
  invalid(member(0, { kind: 'long-string', length: 257 }), 'LIM-RECOVERY-1');
  invalid(member(0, { kind: 'string', of: 'empty' }), 'LIM-RECOVERY-1');
  valid(member(1, { kind: 'long-string', length: 128 }));
  invalid(member(4, { kind: 'long-string', length: 129 }), 'LIM-RECOVERY-2');
  valid(member(0, { kind: 'string', of: 'unicode' }));
  valid(member(1, { kind: 'string', of: 'unicode-escaped' }));
  invalid(member(2, { kind: 'string', of: 'unicode' }), 'RES-RECOVERY-3');
  invalid(member(0, { kind: 'swap' }), 'RES-RECOVERY-1');
  invalid(member(1, { kind: 'null' }), 'RES-RECOVERY-2');
  invalid(one({ op: 'drop', index: 2 }), 'RES-RECOVERY-3');
  invalid(one({ op: 'top', value: { kind: 'array', of: 'wrap' } }), 'RES-RECOVERY-1');
  invalid(one({ op: 'unknown', name: 'unexpected', value: { kind: 'null' } }), 'RES-RECOVERY-4');
  invalid(one({ op: 'unknown', name: 'email', value: { kind: 'string', of: 'unicode' } }), 'END-RECOVERY-5');
  invalid(one({ op: 'unknown', name: 'command', value: { kind: 'null' } }), 'END-RECOVERY-6');
  invalid(one({ op: 'unknown', name: '__proto__', value: { kind: 'null' } }), 'RES-RECOVERY-4');
  // Numbers beyond a double and deep nesting may be refused by the parser (RFC 8259 §9): 400, code not pinned.
  for (const shape of [member(0, { kind: 'number', text: '1e400' }), member(0, { kind: 'deep', container: 'object', depth: 64 })]) {
    const e = recover(shape);
    assert.deepEqual(e.statuses, [400]);
    assert.ok(!('errors' in e));
  }
  // Unpredictable by RFC 8259: a member twice, a lone surrogate.
  assert.equal(statuses(recover(one({ op: 'duplicate', index: 0, value: { kind: 'number', text: '0' } }))), 'any-not-5xx');
  assert.equal(statuses(recover(member(0, { kind: 'string', of: 'lone-surrogate' }))), 'any-not-5xx');
  // Without the valid body, the spec's field order stands in.
  assert.deepEqual(statuses(expectedOfBody(RECOVER, member(0, { kind: 'long-string', length: 256 }))), VALID_RECOVERY);
});

test('expectedOfBody: payloads not shown pin only "no 5xx"; GET bodies and the webhook are not judged', () => {
  for (const shape of [
    member(0, { kind: 'null' }),
    one({ op: 'top', value: { kind: 'number', text: '1e400' } }),
    one({ op: 'unknown', name: 'email', value: { kind: 'null' } }),
  ]) {
    const e = expectedOfBody(ADD_CART, shape, VALIDS[0]);
    assert.equal(e.statuses, 'any-not-5xx');
    assert.ok(e.clauses.includes('ERR-TABLE-11'));
  }
  assert.equal(
    statuses(expectedOfBody({ operationId: 'getCart', method: 'GET', path: '/v1/cart' }, one({ op: 'broken', how: 'comment' }))),
    'any-not-5xx',
  );
  assert.throws(
    () => expectedOfBody({ operationId: 'receivePaymentWebhook', method: 'POST', path: '/webhooks/stripe' }, one()),
    /raw bytes/,
  );
});

test('expectedOfBody cites only clauses of the catalogue, and explains itself', () => {
  for (const s of SAMPLES.slice(0, 1500))
    for (const route of [ADD_CART, RECOVER]) {
      const e = expectedOfBody(route, s, route === RECOVER ? RECOVERY_BODY : VALIDS[0]);
      assert.ok(e.clauses.length > 0 && e.why.length > 0);
      for (const c of e.clauses) assert.ok(CLAUSES_BY_ID.has(c), c);
    }
});
