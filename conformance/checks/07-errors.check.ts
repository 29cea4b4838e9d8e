// Spec part 7, Errors: every failure is the problem document; the error table's rows, headers included.
import { check, test } from '../engine/check.js';
import { expectChallenge, expectNoStore, expectProblem, CheckFailure } from '../lib/assert.js';

const noHeader = (res: { headers: Headers }, name: string, clause: string) => {
  const v = res.headers.get(name);
  if (v !== null) throw new CheckFailure(`${name} must be absent`, { expected: null, actual: v, clause });
};

test(...check({ id: 'err.unmatched-route', title: 'an unmatched route is answered with a problem document', clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-10', 'ERR-PROBLEM-4', 'ERR-PROBLEM-5', 'ERR-PROBLEM-7', 'RES-PROBLEM-8'] }, async (shop) => {
  const res = await shop.http.get(`/no-such-route-${shop.subject()}`);
  if (res.status < 400) throw new CheckFailure('an unmatched route must fail', { expected: '>= 400', actual: res.status, clause: 'ERR-PROBLEM-10' });
  expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-10' });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
}));

test(...check({ id: 'err.unmatched-route.reference', title: 'an unmatched route is 404 not_found', clauses: ['ERR-PROBLEM-10'], level: 'reference' }, async (shop) => {
  expectProblem(await shop.http.get('/v1/no-such-route'), { status: 404, error: 'not_found', docsUrl: shop.docsUrl });
}));

test(...check({ id: 'err.no-token', title: 'no token on /v1: 401 invalid_token with a Bearer and a DPoP challenge', clauses: ['ERR-TABLE-1', 'RES-PROBLEM-1', 'RES-PROBLEM-3', 'RES-PROBLEM-4', 'RES-PROBLEM-5', 'RES-PROBLEM-8'] }, async (shop) => {
  for (const path of ['/v1/cart', '/v1/catalog/products', '/v1/me']) {
    const res = await shop.http.get(path);
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-1' });
    expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: 'ERR-TABLE-1' });
    expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-1' });
  }
}));

test(...check({ id: 'err.malformed-json', title: 'a malformed JSON body is a 400 problem, before authentication', clauses: ['ERR-PROBLEM-2', 'ERR-PROBLEM-6', 'AUTH-ORDER-1', 'END-CONV-4'] }, async (shop) => {
  const res = await shop.http.post('/v1/cart/items', { body: '{"variant_id":', headers: { 'content-type': 'application/json' } });
  expectProblem(res, { status: 400, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-2' });
}));

test(...check({ id: 'err.caller-not-allowed.no-challenge', title: 'caller_not_allowed carries no challenge', clauses: ['ERR-TABLE-8', 'ERR-PROBLEM-8'], requires: ['operators'] }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.operator(), headers: { operator: 'conformance@shop.test' } });
  expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-8' });
  noHeader(res, 'www-authenticate', 'ERR-TABLE-8');
}));
