// A rekeyed write's other body (conformance/explore/rekey.ts): its longest text value changed, nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alterBody } from '../../../conformance/explore/rekey.js';

test('the longest string leaf is changed, the rest and the original stay as they were', () => {
  const body = { line1: '1 Infinite Loop', city: 'Cupertino', country: 'US', tags: ['a', 'longer text here than the others'] };
  const altered = alterBody(body) as typeof body;
  assert.equal(altered.tags[1], 'longer text here than the others 2');
  assert.equal(altered.line1, body.line1);
  assert.equal(body.tags[1], 'longer text here than the others');
});

test('a body without text is sent as it was; a top-level string is changed', () => {
  assert.deepEqual(alterBody({ quantity: 2 }), { quantity: 2 });
  assert.equal(alterBody('note'), 'note 2');
});
