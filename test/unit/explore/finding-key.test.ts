// What tells explore's findings apart (runner.ts keyOf): oracle and clauses, the operations' own clauses aside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyOf } from '../../../conformance/explore/runner.js';
import type { Oracle } from '../../../conformance/explore/exchange.js';

test('one rule broken on two operations is one finding; another rule or another oracle is another', () => {
  const onCart = { oracle: 'differential' as Oracle, clauses: ['ERR-TABLE-4', 'AUTH-ASST-11', 'END-OPS-GETCART-1'] };
  const onOrders = { oracle: 'differential' as Oracle, clauses: ['END-OPS-LISTORDERS-1', 'AUTH-ASST-11', 'ERR-TABLE-4'] };
  assert.equal(keyOf(onCart), keyOf(onOrders));
  assert.notEqual(keyOf(onCart), keyOf({ ...onCart, clauses: ['ERR-TABLE-4', 'END-OPS-GETCART-1'] }));
  assert.notEqual(keyOf(onCart), keyOf({ ...onCart, oracle: 'model' as Oracle }));
});

test("a finding of an operation's clause alone keeps the operation: nothing else says what broke", () => {
  const a = keyOf({ oracle: 'model', clauses: ['END-OPS-DELETEADDRESS-1'] });
  const b = keyOf({ oracle: 'model', clauses: ['END-OPS-LISTORDERS-1'] });
  assert.notEqual(a, b);
  assert.match(a, /END-OPS-DELETEADDRESS-1/);
});
