// Spec part 7, Errors: "All failures (including decoding failures, body-size refusals and thrown errors) use the problem
// document", for requests a client can break: malformed percent-escapes in path parameters, bodies not encoded as their
// Content-Encoding says, charsets other than UTF-8. And Request processing order: a DPoP request gets a fresh DPoP-Nonce on
// every response, also when decoding or routing refuses it before authentication. (Missing or duplicate Host and
// Authorization headers need a raw socket, outside the suite's one transport: test/reference/http-robustness.test.ts.)
import { check, test, type Shop } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectDpopNonce, expectOwnedMembers, expectProblem, fail, inCase, nonceOf } from '../lib/assert.js';
import { LIMITS } from '../../contract/limits.js';
import { cartLine } from './_shared/cart-lines.js';
import { customerToken } from '../lib/callers.js';
import { ABSENT_IDS } from './_shared/seed-data.js';
import { CONVERSATIONS_PATH } from '../../contract/routes.js';

/** A failure the client caused: a 4xx problem document, never a 5xx. */
const expectClientProblem = (shop: { docsUrl: string }, res: ShopResponse, { clause }: { clause: string }) => {
  if (res.status < 400 || res.status >= 500) fail('a refusal of a broken request', 'a 4xx problem document', brief(res), { clause });
  expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause });
};

// Killed by a server that lets the router's URIError reach its boundary as an unexpected failure (500 internal_error).
test(
  ...check(
    {
      id: 'errors.malformed-percent-escape',
      title: 'a malformed percent-escape in a path parameter is a 4xx problem document, not a 500',
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-4', 'ERR-PROBLEM-7'],
    },
    async (shop) => {
      const requests = [
        ['GET', '/v1/catalog/products/%ff'],
        ['GET', '/v1/catalog/products/%E0%A4%A'],
        ['GET', '/v1/me/orders/%'],
        ['DELETE', '/v1/cart/items/%zz'],
      ] as const;
      // Unauthenticated and refused, nothing is written: each request is a case.
      await judgeCases(requests, async ([method, path]) => {
        const res = await shop.http.request(method, path);
        inCase(`${method} ${path}`, () => expectClientProblem(shop, res, { clause: 'ERR-PROBLEM-1' }));
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'errors.malformed-percent-escape.reference',
      title: 'a malformed percent-escape in a path parameter is 400 invalid_request with issues, before any credential check',
      clauses: ['ERR-PROBLEM-1', 'ERR-TABLE-11'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/catalog/products/%ff');
      const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-11' });
      if (!Array.isArray(doc.issues) || doc.issues.length === 0)
        fail('issues of invalid_request', 'a non-empty array', doc.issues, { clause: 'ERR-TABLE-11' });
    },
  ),
);

// Killed by a server whose body decoder throws an inflate error that its boundary does not recognise (500).
test(
  ...check(
    {
      id: 'errors.content-encoding-mismatch',
      title: 'Content-Encoding gzip, deflate or br on a body not so encoded is a 4xx problem document, not a 500',
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-2'],
    },
    async (shop) => {
      const codings = ['gzip', 'deflate', 'br'];
      // Unauthenticated and refused, nothing is written: each coding is a case.
      await judgeCases(codings, async (coding) => {
        const res = await shop.http.post('/v1/cart/items', {
          body: '{"variant_id":"x","quantity":1}',
          headers: { 'content-type': 'application/json', 'content-encoding': coding },
        });
        inCase(`Content-Encoding: ${coding}`, () => expectClientProblem(shop, res, { clause: 'ERR-PROBLEM-2' }));
      });
    },
  ),
);

// Killed by a server that decodes utf-16 (then fails as invalid JSON, 400) but refuses latin1 (415): two rules for one case.
test(
  ...check(
    {
      id: 'errors.charset.reference',
      title: 'a JSON body in any charset but UTF-8 (utf-16, utf-32, latin1) is 415 unsupported_media_type',
      clauses: ['END-CONV-4', 'ERR-PROBLEM-2'],
      level: 'reference',
    },
    async (shop) => {
      const charsets = ['utf-16', 'utf-32', 'latin1'];
      // Unauthenticated and refused, nothing is written: each charset is a case.
      await judgeCases(charsets, async (charset) => {
        const res = await shop.http.post('/v1/cart/items', {
          body: '{}',
          headers: { 'content-type': `application/json; charset=${charset}` },
        });
        inCase(`charset=${charset}`, () =>
          expectProblem(res, { status: 415, error: 'unsupported_media_type', docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-2' }),
        );
      });
    },
  ),
);

/** Sends each case twice, one request after another: every answer must carry a DPoP-Nonce never seen before. */
async function expectFreshNonces(
  shop: Shop,
  cases: readonly (readonly [string, string, Record<string, string>, string | undefined])[],
  clause: string,
): Promise<void> {
  const seen = new Set<string>();
  for (const [method, path, headers, body] of cases) {
    for (let i = 0; i < 2; i++) {
      const res = await shop.http.request(method, path, { headers, ...(body !== undefined ? { body } : {}) });
      expectDpopNonce(res, { at: `${method} ${path} (${res.status})`, clause });
      const nonce = nonceOf(res.headers)!;
      if (seen.has(nonce)) fail(`${method} ${path}: DPoP-Nonce fresh on every response`, 'a value not sent before', nonce, { clause });
      seen.add(nonce);
    }
  }
}

// Killed by a server that issues the nonce in its authenticate stage only (no DPoP-Nonce on a 400/404/405 before it), or
// that hands out one nonce per time slot (the same value twice). The requests stay one after another: how far apart they
// arrive is part of what a time-slot nonce shows. A DPoP request is one in the DPoP scheme: each carries `Authorization:
// DPoP` and a proof.
test(
  ...check(
    {
      id: 'errors.auth.order.dpop-nonce-before-authentication',
      title:
        'a DPoP request refused before authentication (malformed JSON, unmatched route, wrong method) gets a fresh DPoP-Nonce on each response',
      clauses: ['AUTH-ORDER-4'],
      requires: ['assistants'],
    },
    async (shop) => {
      const dpop = { authorization: 'DPoP not.a.token', dpop: 'not.a.proof' };
      await expectFreshNonces(
        shop,
        [
          ['POST', '/v1/cart/items', { ...dpop, 'content-type': 'application/json' }, '{"variant_id":'],
          ['GET', `/v1/no-such-route-${shop.subject()}`, dpop, undefined],
          ['PUT', '/v1/cart', dpop, undefined],
        ],
        'AUTH-ORDER-4',
      );
    },
  ),
);

// A request to a conversation path with neither Authorization nor a proof: the spec's nonce rule is for DPoP requests, and
// whether such a request is one (its challenge scheme is DPoP) is a reading; the reference's is that it is.
test(
  ...check(
    {
      id: 'errors.auth.order.dpop-nonce-conversation-path.reference',
      title: 'a request to a conversation path without Authorization or proof, refused for its malformed JSON, gets a fresh DPoP-Nonce',
      clauses: ['AUTH-ORDER-4'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      await expectFreshNonces(shop, [['POST', CONVERSATIONS_PATH, { 'content-type': 'application/json' }, '{"mode":']], 'AUTH-ORDER-4');
    },
  ),
);

// The reference's header limit (Node's 16 KiB; the spec shows none): headers over it are refused before any stage runs,
// and that refusal too is the boundary's problem document with its headers (every rule of every response is judged on it).
test(
  ...check(
    {
      id: 'errors.header-too-large.reference',
      everyResponse: true,
      title: 'request headers over 16 KiB are 431 header_too_large, a problem document with X-Request-Id and no-store',
      clauses: ['ERR-PROBLEM-1'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/catalog/collections', { headers: { 'x-conformance-padding': 'a'.repeat(20 * 1024) } });
      expectProblem(res, { status: 431, error: 'header_too_large', docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-1' });
    },
  ),
);

// The reference's rule for `issues`: with 400 invalid_request alone. The spec level also accepts it on a 400 or 422 of a
// code the spec does not name (lib/expect/problem.ts, issuesAllowed): the reference's own such codes are judged here.
test(
  ...check(
    {
      id: 'errors.issues.invalid-request-only.reference',
      title: "`issues` comes with 400 invalid_request alone, not with the reference's other refusals of an input (400, 413, 415, 422)",
      clauses: ['RES-PROBLEM-9'],
      level: 'reference',
    },
    async (shop) => {
      const token = await customerToken(shop);
      const json = { 'content-type': 'application/json' };
      const line = JSON.stringify(cartLine());
      const cases: [string, () => Promise<ShopResponse>][] = [
        ['malformed JSON', () => shop.http.post('/v1/cart/items', { token, body: '{"x":', headers: json })],
        ['a body as text/plain', () => shop.http.post('/v1/cart/items', { token, body: line, headers: { 'content-type': 'text/plain' } })],
        [
          'a body over the cap',
          () => shop.http.post('/v1/cart/items', { token, body: line.padEnd(LIMITS.requestBodyBytes + 1), headers: json }),
        ],
        ['an unknown variant', () => shop.http.post('/v1/cart/items', { token, json: cartLine(ABSENT_IDS.variant, 1) })],
        ['an invalid cart line', () => shop.http.post('/v1/cart/items', { token, json: { conformance_probe: true } })],
      ];
      // Refusals of one fresh account's cart, each a case (nothing is written, so they go at once).
      await judgeCases(cases, async ([what, send]) => {
        const res = await send();
        inCase(what, () => {
          if (res.status < 400 || res.status >= 500)
            fail('a refusal of the input', 'a 4xx problem document', brief(res), { clause: 'RES-PROBLEM-9' });
          const doc = (res.body ?? {}) as Record<string, unknown>;
          expectOwnedMembers(doc, String(doc.error), { status: res.status, strict: true, clause: 'RES-PROBLEM-9' });
        });
      });
    },
  ),
);
