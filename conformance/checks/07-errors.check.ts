// Spec part 7, Errors: every failure is the problem document; the error table's rows, headers included.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { credentialsFor } from './_shared/caller-guard.js';
import { customerToken, delegatedToken } from '../lib/callers.js';
import { attemptCheckout, checkoutBody } from './_shared/place-order.js';
import { ABSENT_IDS } from './_shared/seed-data.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectChallenge, expectNoHeader, expectNoStore, expectProblem, expectStatus, fail, inCase, expect4xx } from '../lib/assert.js';

test(
  ...check(
    {
      id: 'errors.unmatched-route',
      title: 'an unmatched route is answered with a problem document',
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-10', 'ERR-PROBLEM-4', 'ERR-PROBLEM-5', 'ERR-PROBLEM-7', 'RES-PROBLEM-1', 'RES-PROBLEM-8'],
    },
    async (shop) => {
      const res = await shop.http.get(`/no-such-route-${shop.subject()}`);
      if (res.status < 400) fail('an unmatched route must fail', '>= 400', res.status, { clause: 'ERR-PROBLEM-10' });
      expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-10' });
      expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
    },
  ),
);

test(
  ...check(
    {
      id: 'errors.unmatched-route.reference',
      title: 'an unmatched route is 404 not_found',
      clauses: ['ERR-PROBLEM-10'],
      level: 'reference',
    },
    async (shop) => {
      expectProblem(await shop.http.get('/v1/no-such-route'), { status: 404, error: 'not_found', docsUrl: shop.docsUrl });
    },
  ),
);

test(
  ...check(
    {
      id: 'errors.no-token',
      title: 'no token on /v1: 401 invalid_token with a Bearer and a DPoP challenge',
      clauses: ['ERR-TABLE-1', 'RES-PROBLEM-1', 'RES-PROBLEM-3', 'RES-PROBLEM-4', 'RES-PROBLEM-5', 'RES-PROBLEM-8'],
    },
    async (shop) => {
      // Refused reads, each a case.
      await judgeCases(['/v1/cart', '/v1/catalog/products', '/v1/me'], async (path) => {
        const res = await shop.http.get(path);
        expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-1' });
        expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: 'ERR-TABLE-1' });
        expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-1' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'errors.malformed-json',
      title: 'a malformed JSON body is a 400 problem, before authentication',
      clauses: ['ERR-PROBLEM-2', 'ERR-PROBLEM-6', 'AUTH-ORDER-1', 'END-CONV-4'],
    },
    async (shop) => {
      const res = await shop.http.post('/v1/cart/items', { body: '{"variant_id":', headers: { 'content-type': 'application/json' } });
      // A body that is not JSON is refused with 400 (Endpoints > Conventions), during decoding, so before the missing token
      // is looked at (not 401).
      expectStatus(res, 400, { clause: ['ERR-PROBLEM-2', 'END-CONV-4', 'AUTH-ORDER-1'] });
      // The refusal is a problem document (the decoding failure's, and the conventions' "400 problem").
      expectProblem(res, {
        status: 400,
        error: String(res.body?.error ?? ''),
        docsUrl: shop.docsUrl,
        clause: ['ERR-PROBLEM-2', 'END-CONV-4'],
      });
      // A decoding failure bypasses the normal error path, and still carries `instance` equal to X-Request-Id (Errors; the
      // Resources member's rule, judged softly by expectProblem, too).
      const requestId = res.headers.get('x-request-id');
      if (requestId !== null && requestId !== '' && res.body?.instance !== requestId)
        fail('problem "instance" of a decoding failure (the X-Request-Id)', requestId, res.body?.instance, {
          clause: ['ERR-PROBLEM-6', 'RES-PROBLEM-8'],
        });
    },
  ),
);

// Killed by a server whose refusals of one kind (its 403s, say) carry a body of their own ({"message": …}) instead of the
// problem document.
test(
  ...check(
    {
      id: 'errors.failures.problem-document',
      title:
        'failures of every kind a client provokes are problem documents: 401 (no token, a bad token), 403 (a missing scope, a caller kind not allowed), 400 (a validation failure)',
      clauses: ['ERR-PROBLEM-1', 'ERR-TABLE-1', 'ERR-TABLE-2', 'ERR-TABLE-8', 'ERR-TABLE-9', 'ERR-TABLE-11'],
    },
    async (shop) => {
      const customer = await shop.mint.customer({ sub: shop.subject('cust') });
      const cases: [what: string, row: string, send: () => Promise<ShopResponse>][] = [
        ['no token, GET /v1/cart', 'ERR-TABLE-1', () => shop.http.get('/v1/cart')],
        [
          'a bad token, GET /v1/catalog/collections',
          'ERR-TABLE-2',
          () => shop.http.get('/v1/catalog/collections', { headers: { authorization: 'Bearer not.a.token' } }),
        ],
        [
          'a customer token without cart:read, GET /v1/cart',
          'ERR-TABLE-9',
          async () => shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), scope: 'catalog:read' }) }),
        ],
        [
          'a body naming no variant, POST /v1/cart/items',
          'ERR-TABLE-11',
          () => shop.http.post('/v1/cart/items', { token: customer, json: {} }),
        ],
      ];
      if (shop.profile.capabilities.operators)
        cases.push([
          'an operator on a storefront route, GET /v1/cart',
          'ERR-TABLE-8',
          async () =>
            shop.http.get('/v1/cart', { token: await shop.mint.operator(), headers: { operator: operatorAttribution(shop.profile) } }),
        ]);
      // Each request is refused and writes nothing (the customer's body fails validation): each is a case.
      await judgeCases(cases, async ([what, row, send]) => {
        const res = await send();
        inCase(what, () => {
          // Each request is a failure of the error table (its status and code are its row's; judged elsewhere).
          expect4xx(res, { what: 'a refusal', clause: row });
          // Every failure uses the problem document: a JSON object naming its `error`, with the Resources members.
          const doc = res.body as unknown;
          if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
            fail('problem document', 'a JSON object', res.text.slice(0, 300), { clause: 'ERR-PROBLEM-1' });
          const code = (doc as Record<string, unknown>).error;
          if (typeof code !== 'string' || code === '') fail('problem "error"', 'a non-empty string', code, { clause: 'ERR-PROBLEM-1' });
          expectProblem(res, { status: res.status, error: code as string, docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-1' });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'errors.caller-not-allowed.no-challenge',
      title: 'caller_not_allowed carries no challenge',
      clauses: ['ERR-TABLE-8', 'ERR-PROBLEM-8'],
      requires: ['operators'],
    },
    async (shop) => {
      // The token carries getCart's API scope too: the guard's checks are not ordered, so only the caller refusal applies.
      const res = await shop.http.get('/v1/cart', await credentialsFor(shop, 'operator', ['getCart']));
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-8' });
      expectNoHeader(res, 'www-authenticate', { what: 'www-authenticate must be absent', clause: 'ERR-TABLE-8' });
    },
  ),
);

// The spec leaves insufficient_scope's headers to the error mapper (an RFC 6750 §3.1 challenge may come with it); the
// reference sends none, which its own clients may rely on.
test(
  ...check(
    {
      id: 'errors.insufficient-scope.no-challenge.reference',
      title: "insufficient_scope carries no WWW-Authenticate (the reference's choice)",
      clauses: ['ERR-TABLE-9'],
      level: 'reference',
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust'), scope: 'catalog:read' });
      const res = await shop.http.get('/v1/cart', { token });
      expectProblem(res, { status: 403, error: 'insufficient_scope', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });
      expectNoHeader(res, 'www-authenticate', { what: 'www-authenticate must be absent', clause: 'ERR-TABLE-9' });
    },
  ),
);

// Killed by a server that adds a challenge to domain errors (a Bearer challenge on 404 and 422).
test(
  ...check(
    {
      id: 'errors.domain-errors.no-challenge',
      title: 'domain errors carry no WWW-Authenticate: 422 cart_empty at checkout, 404 for an order that does not exist',
      clauses: ['ERR-PROBLEM-8', 'ERR-TABLE-14'],
      requires: ['delegated'],
    },
    async (shop) => {
      // A fresh account: its cart is empty, and it has no orders nor saved card. The body is the deployment's own.
      const token = await delegatedToken(shop, shop.subject('empty'));
      // Two fresh accounts, two refusals: the checkout and the read go at once, judged in turn.
      const [empty, missing] = await Promise.all([
        attemptCheckout(shop, token, checkoutBody(ABSENT_IDS.card)),
        (async () => shop.http.get('/v1/me/orders/ord_doesnotexist0000', { token: await customerToken(shop) }))(),
      ]);
      // Which of the empty cart and the unknown card a server refuses first is its choice (the reference looks at the cart
      // first, judged at its level), and so is whether an unknown card is invalid input (400) or a domain refusal: any
      // other 4xx but the guard's (401, 403) is judged for its headers only.
      const otherRefusal = empty.status >= 400 && empty.status < 500 && ![401, 403].includes(empty.status);
      if (!otherRefusal || empty.body?.error === 'cart_empty')
        expectProblem(empty, { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-14' });
      expectNoHeader(empty, 'www-authenticate', { what: 'www-authenticate must be absent', clause: 'ERR-PROBLEM-8' });
      if (missing.status === 404)
        expectNoHeader(missing, 'www-authenticate', { what: 'www-authenticate must be absent', clause: 'ERR-PROBLEM-8' });
    },
  ),
);
