// Vector table for the freshness lifetime (RFC 9111 §4.2.1) and the "cached N seconds" assertion built on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheDirectives, freshnessLifetime, type Freshness } from '../../../conformance/lib/freshness.js';
import { CheckFailure, expectFreshFor } from '../../../conformance/lib/assert.js';

const DATE = 'Thu, 26 Nov 2026 07:00:00 GMT';
const at = (s: number) => new Date(Date.parse(DATE) + s * 1000).toUTCString();
const RECEIVED = Date.parse(DATE) + 400; // 0.4 s after the Date, as a response arrives

interface Vector {
  description: string;
  fields: Record<string, string>;
  private: Freshness;
  /** For a shared cache; the private answer when absent. */
  shared?: Freshness;
}

const fresh = (lifetime: number | undefined, source: 'max-age' | 's-maxage' | 'expires' | 'heuristic', revalidate = false): Freshness => ({
  stored: true,
  lifetime,
  source,
  revalidate,
});

const vectors: Vector[] = [
  { description: 'max-age', fields: { 'cache-control': 'public, max-age=300' }, private: fresh(300, 'max-age') },
  { description: 'quoted max-age (RFC 9111 §5.2)', fields: { 'cache-control': 'max-age="300"' }, private: fresh(300, 'max-age') },
  { description: 'directive names are case-insensitive', fields: { 'cache-control': 'Max-Age=300' }, private: fresh(300, 'max-age') },
  {
    description: 'Expires 300 s after Date',
    fields: { 'cache-control': 'public', date: DATE, expires: at(300) },
    private: fresh(300, 'expires'),
  },
  { description: 'Expires without Cache-Control', fields: { date: DATE, expires: at(300) }, private: fresh(300, 'expires') },
  {
    description: 'Expires without Date: measured from the time of receipt',
    fields: { expires: at(300) },
    private: fresh(300, 'expires'),
  },
  {
    description: 'max-age wins over Expires',
    fields: { 'cache-control': 'max-age=300', date: DATE, expires: at(60) },
    private: fresh(300, 'max-age'),
  },
  { description: 'an Expires in the past', fields: { date: DATE, expires: at(-60) }, private: fresh(0, 'expires') },
  { description: 'an invalid Expires means already expired', fields: { date: DATE, expires: '0' }, private: fresh(0, 'expires') },
  { description: 'an unusable max-age means stale', fields: { 'cache-control': 'max-age=abc' }, private: fresh(0, 'max-age') },
  {
    description: 'max-age twice with different values: stale',
    fields: { 'cache-control': 'max-age=300, max-age=60' },
    private: fresh(0, 'max-age'),
  },
  { description: 'max-age twice, same value', fields: { 'cache-control': 'max-age=300, max-age=300' }, private: fresh(300, 'max-age') },
  { description: 'no lifetime at all', fields: { 'cache-control': 'public' }, private: fresh(undefined, 'heuristic') },
  { description: 'no-store', fields: { 'cache-control': 'no-store, max-age=300' }, private: { stored: false, why: 'no-store' } },
  { description: 'no-cache', fields: { 'cache-control': 'no-cache, max-age=300' }, private: fresh(300, 'max-age', true) },
  {
    description: 'no-cache naming fields only restricts those fields',
    fields: { 'cache-control': 'no-cache="set-cookie, x-a", max-age=300' },
    private: fresh(300, 'max-age'),
  },
  {
    description: 'private: not in a shared cache',
    fields: { 'cache-control': 'private, max-age=300' },
    private: fresh(300, 'max-age'),
    shared: { stored: false, why: 'private' },
  },
  {
    description: 's-maxage is for shared caches only',
    fields: { 'cache-control': 'max-age=300, s-maxage=60' },
    private: fresh(300, 'max-age'),
    shared: fresh(60, 's-maxage'),
  },
  {
    description: 's-maxage over Expires for a shared cache',
    fields: { 'cache-control': 's-maxage=300', date: DATE, expires: at(300) },
    private: fresh(300, 'expires'),
    shared: fresh(300, 's-maxage'),
  },
];

for (const v of vectors) {
  test(`freshnessLifetime: ${v.description}`, () => {
    const headers = new Headers(v.fields);
    assert.deepEqual(freshnessLifetime(headers, { receivedAt: RECEIVED }), v.private);
    assert.deepEqual(freshnessLifetime(headers, { shared: true, receivedAt: RECEIVED }), v.shared ?? v.private);
  });
}

test('cacheDirectives keeps order, lowercases names, unquotes values and splits on commas outside quotes', () => {
  assert.deepEqual(cacheDirectives('Public, MAX-AGE="300", no-cache="a, b", private'), [
    ['public', undefined],
    ['max-age', '300'],
    ['no-cache', 'a, b'],
    ['private', undefined],
  ]);
  assert.deepEqual(cacheDirectives(null), []);
});

const failureOf = (fn: () => void): CheckFailure => {
  try {
    fn();
  } catch (err) {
    if (err instanceof CheckFailure) return err;
    throw err;
  }
  assert.fail('expected a CheckFailure');
};

test('expectFreshFor: every way of saying 300 seconds passes', () => {
  const now = new Date();
  const date = now.toUTCString();
  const in300 = new Date(Math.floor(now.getTime() / 1000) * 1000 + 300_000).toUTCString();
  for (const fields of <Record<string, string>[]>[
    { 'cache-control': 'public, max-age=300' },
    { 'cache-control': 'max-age=300' },
    { 'cache-control': 'private, max-age=300' },
    { 'cache-control': 'public', date, expires: in300 },
    { date, expires: in300 },
    { expires: in300 },
    { 'cache-control': 'max-age=300, s-maxage=300' },
    { 'cache-control': 'private, max-age=300, s-maxage=10' },
  ])
    expectFreshFor({ headers: new Headers(fields) }, 300, { clause: 'X-1' });
});

test('expectFreshFor: other lifetimes, no-store, no-cache and no lifetime fail on the clause', () => {
  const date = new Date().toUTCString();
  const in60 = new Date(Date.parse(date) + 60_000).toUTCString();
  for (const fields of <Record<string, string>[]>[
    { 'cache-control': 'max-age=60' },
    { 'cache-control': 'public' },
    {},
    { 'cache-control': 'no-store, max-age=300' },
    { 'cache-control': 'no-cache, max-age=300' },
    { 'cache-control': 'public', date, expires: in60 },
    { 'cache-control': 'max-age=300, s-maxage=60' },
  ]) {
    const err = failureOf(() => expectFreshFor({ headers: new Headers(fields) }, 300, { clause: 'X-1' }));
    assert.deepEqual(err.clauses, ['X-1']);
    assert.match(err.message, /freshness lifetime/);
  }
});
