// The readers of a created row (conformance/explore/readers.ts): every other caller kind of the account the Location's
// route admits, and the same kind of the other account; and what their answers must be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { judgeReaders, readersOf, type ReaderAnswer } from '../../../conformance/explore/readers.js';
import type { Answer } from '../../../conformance/explore/exchange.js';
import type { PlanStep } from '../../../conformance/explore/plan.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
const baseUrl = 'http://shop.test/base';
const step = (op: PlanStep['op'], caller: PlanStep['caller'], extra: Partial<PlanStep> = {}): PlanStep => ({
  op,
  caller,
  variant: 0,
  quantity: 1,
  ...extra,
});
const answer = (status: number): Answer => ({ status, headers: {}, text: '' });

test("an order an invited agent placed is read by the account's other callers and by the other account's invited agent", () => {
  const readers = readersOf(step('checkoutSavedCard', 'invited:a'), '/base/v1/me/orders/ord_1', { profile, baseUrl });
  assert.deepEqual(
    readers.map((r) => `${r.caller}${r.sameAccount ? '' : ' (other)'}`),
    ['customer:a', 'delegated:a', 'assistant:a', 'invited:b (other)'],
  );
});

test('an absolute Location under the base URL counts; another origin, an unknown route or a mutated step has no readers', () => {
  assert.ok(readersOf(step('checkoutSavedCard', 'delegated:b'), 'http://shop.test/base/v1/me/orders/x', { profile, baseUrl }).length > 0);
  assert.deepEqual(
    readersOf(step('checkoutSavedCard', 'delegated:b'), 'http://elsewhere.test/base/v1/me/orders/x', { profile, baseUrl }),
    [],
  );
  assert.deepEqual(readersOf(step('addAddress', 'customer:a'), '/base/v1/me/addresses/addr_1', { profile, baseUrl }), []);
  // A Location naming the collection (a list read) names no row.
  assert.deepEqual(readersOf(step('addAddress', 'customer:a'), '/base/v1/me/addresses', { profile, baseUrl }), []);
  assert.deepEqual(
    readersOf(step('checkoutSavedCard', 'delegated:a', { mutation: 'wrong-type' }), '/base/v1/me/orders/x', { profile, baseUrl }),
    [],
  );
  assert.deepEqual(readersOf(step('checkoutSavedCard', 'guest:a'), '/base/v1/me/orders/x', { profile, baseUrl }), []);
});

test('a reader of the account refused its row, or the other account served it, is a finding; a 429 is not', () => {
  const p = step('checkoutSavedCard', 'invited:a');
  const answers: ReaderAnswer[] = [
    { caller: 'customer:a', sameAccount: true, answer: answer(200) },
    { caller: 'delegated:a', sameAccount: true, answer: answer(404) },
    { caller: 'assistant:a', sameAccount: true, answer: answer(429) },
    { caller: 'invited:b', sameAccount: false, answer: answer(200) },
  ];
  const findings = judgeReaders(p, answers, 3);
  assert.deepEqual(
    findings.map((f) => [f.clauses.join(' '), f.index]),
    [
      ['PUR-SERVE-4 END-CONV-2', 3],
      ['END-ME-2', 3],
    ],
  );
  assert.deepEqual(judgeReaders(p, [{ caller: 'invited:b', sameAccount: false, answer: answer(404) }], 0), []);
});
