// The JSON body bounds (reference/src/json-bounds.ts): a table of bodies and the bound each goes over, if any.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exceededBound, JSON_BOUNDS, type JsonBound } from '../../../reference/src/json-bounds.js';

const small = { maxDepth: 3, maxValues: 4 };
const vectors: { description: string; body: string; expected?: JsonBound }[] = [
  { description: 'a scalar', body: '42' },
  { description: 'an empty object and array count no value', body: '[[],{},[]]' },
  { description: 'depth at the bound', body: '[[[]]]' },
  { description: 'depth over the bound', body: '[[[[]]]]', expected: 'depth' },
  { description: 'objects nest like arrays', body: '{"a":{"b":{"c":{}}}}', expected: 'depth' },
  { description: 'four elements', body: '[1,2,3,4]' },
  { description: 'five elements', body: '[1,2,3,4,5]', expected: 'values' },
  { description: 'members and elements add up', body: '{"a":[1,2],"b":3}' },
  { description: 'members and elements add up past the bound', body: '{"a":[1,2],"b":3,"c":4}', expected: 'values' },
  { description: 'nested containers count as values of their parent', body: '[[1],[2]]' },
  { description: 'brackets, commas and escaped quotes inside strings are text', body: '["[[[[,,,,\\"]]]]{{{{"]' },
  { description: 'whitespace everywhere', body: ' [ 1 ,\n 2 ,\t 3 ,\r 4 ] ' },
  { description: 'multi-byte text', body: '["é,","😀[",",","["]' },
  { description: 'unclosed brackets still count', body: '[[[[', expected: 'depth' },
];

for (const v of vectors) {
  test(v.description, () => assert.equal(exceededBound(Buffer.from(v.body), small), v.expected));
}

test('the decided bounds: depth 32, 10,000 values', () => {
  assert.deepEqual(JSON_BOUNDS, { maxDepth: 32, maxValues: 10_000 });
  assert.equal(exceededBound(Buffer.from('['.repeat(125_000) + ']'.repeat(125_000))), 'depth');
  assert.equal(exceededBound(Buffer.from(`[${'0,'.repeat(9_999)}0]`)), undefined);
  assert.equal(exceededBound(Buffer.from(`[${'0,'.repeat(10_000)}0]`)), 'values');
});
