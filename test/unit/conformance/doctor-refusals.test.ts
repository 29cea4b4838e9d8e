// What a refusal met while the doctor sets up means, from a table of answers: only an answer whose own error says the
// token is untrusted (401 invalid_token) or unverifiable now (503) stops the run; every other one breaks a clause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meaningOfRefusal, quoteClause } from '../../../conformance/engine/doctor/doctor-refusals.js';
import type { ShopResponse } from '../../../conformance/engine/transport/http.js';

const ROUTE = 'END-OPS-LISTCOLLECTIONS-1';

function answer(status: number, headers: Record<string, string>, body?: object | string): ShopResponse {
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return { status, headers: new Headers(headers), text, body: typeof body === 'object' ? body : undefined };
}
const problem = (status: number, error: string, extra: Record<string, string> = {}) =>
  answer(
    status,
    { 'content-type': 'application/problem+json', ...extra },
    { type: `x/${error}`, title: 't', status, error, instance: 'i' },
  );

const vectors: {
  description: string;
  res: ShopResponse;
  dpop?: boolean;
  expected: ReturnType<typeof meaningOfRefusal>['kind'];
  clauses?: string[];
}[] = [
  { description: '401 invalid_token problem', res: problem(401, 'invalid_token'), expected: 'distrust' },
  {
    description: '401 invalid_token in the challenge alone',
    res: answer(401, { 'www-authenticate': 'Bearer error="invalid_token"' }, 'no'),
    expected: 'distrust',
  },
  {
    description: '503 unavailable (the key set out of reach)',
    res: problem(503, 'unavailable', { 'retry-after': '5' }),
    expected: 'outage',
  },
  {
    description: 'use_dpop_nonce without a DPoP-Nonce header',
    res: problem(401, 'use_dpop_nonce', { 'www-authenticate': 'DPoP error="use_dpop_nonce"' }),
    dpop: true,
    expected: 'violation',
    clauses: ['AUTH-ORDER-4', 'ERR-TABLE-4'],
  },
  {
    description: 'use_dpop_nonce again after the proof carried the nonce it issued',
    res: problem(401, 'use_dpop_nonce', { 'dpop-nonce': 'n2' }),
    dpop: true,
    expected: 'violation',
    clauses: ['AUTH-ORDER-4', ROUTE],
  },
  {
    description: 'a fresh, well-formed proof refused',
    res: problem(401, 'invalid_dpop_proof', { 'dpop-nonce': 'n' }),
    dpop: true,
    expected: 'violation',
    clauses: ['AUTH-ASST-1', ROUTE],
  },
  {
    description: 'a 401 that is no problem document',
    res: answer(401, { 'content-type': 'text/plain' }, 'denied'),
    expected: 'violation',
    clauses: ['ERR-PROBLEM-1', ROUTE],
  },
  { description: 'a 401 of another code', res: problem(401, 'invalid_guest_session'), expected: 'violation', clauses: [ROUTE] },
];

for (const v of vectors)
  test(`refusal: ${v.description}`, () => {
    const m = meaningOfRefusal(v.res, ROUTE, v.dpop);
    assert.equal(m.kind, v.expected);
    if (m.kind === 'violation') assert.deepEqual(m.clauses, v.clauses);
  });

test('a clause is quoted with its requirement', () => {
  assert.match(quoteClause('AUTH-ORDER-4'), /^AUTH-ORDER-4: "A request with DPoP gets a fresh DPoP-Nonce header on every response/);
  assert.equal(quoteClause('NO-SUCH-1'), 'NO-SUCH-1');
});
