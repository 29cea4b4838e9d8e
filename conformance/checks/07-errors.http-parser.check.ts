// Spec part 7, Errors: "All failures (including decoding failures, body-size refusals and thrown errors) use the problem
// document", and the boundary "writes X-Request-Id on every response" and no-store on every status of 400 or above. Some
// refusals are made before any code of the service runs, by its HTTP server's own parser: conflicting framing, header
// sections over its limit, an expectation it cannot meet, a path parameter over a router's limit. Whether a server refuses these is HTTP's business (RFC 9112
// 6.3 makes conflicting Content-Length an error; header limits and Expect are its choice), but when it does, the refusal
// is a failure response of the service like any other. A server that answers them is not judged on them.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { RequestOptions, ShopResponse } from '../engine/transport/http.js';
import { expectProblem, fail, inCase } from '../lib/assert.js';

/** Requests an HTTP server's parser may refuse before the service sees them, each on a route every deployment serves. */
const REQUESTS: readonly [what: string, method: string, path: string, o: RequestOptions][] = [
  [
    'two Content-Length fields that disagree',
    'POST',
    '/v1/cart/items',
    {
      body: '{"a":1}',
      rawHeaders: [
        ['content-type', 'application/json'],
        ['content-length', '7'],
        ['content-length', '8'],
      ],
    },
  ],
  ['a header section of 64 KiB', 'GET', '/v1/catalog/collections', { headers: { 'x-conformance-padding': 'a'.repeat(64 * 1024) } }],
  [
    'an expectation no server meets (Expect: conformance-unknown)',
    'GET',
    '/v1/catalog/collections',
    { headers: { expect: 'conformance-unknown' } },
  ],
  ['a header field of 40 KiB with no other', 'GET', '/health', { headers: { 'x-conformance-padding': 'b'.repeat(40 * 1024) } }],
  // RFC 9112 3.2: a request with two Host field lines MUST be answered 400.
  [
    'two Host fields',
    'GET',
    '/v1/catalog/collections',
    {
      rawHeaders: [
        ['host', 'shop.invalid'],
        ['host', 'other.invalid'],
      ],
    },
  ],
  // A router's own limit on a path parameter's length (an id the service's validation may well accept).
  ['a path parameter of 1 KiB', 'GET', `/v1/catalog/products/${'p'.repeat(1024)}`, {}],
  ['a path parameter of 300 characters', 'GET', `/v1/me/orders/${'o'.repeat(300)}`, {}],
];

test(
  ...check(
    {
      id: 'errors.http-parser-refusals',
      everyResponse: true,
      title:
        "refusals of the HTTP server's own parser and router (conflicting Content-Length, oversized headers, an unknown expectation, a long path parameter) are problem documents with X-Request-Id and no-store",
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-4', 'ERR-PROBLEM-5', 'ERR-PROBLEM-7'],
    },
    async (shop) => {
      // Unauthenticated, each refused or answered without writing: each request is a case. A connection the server closes
      // without an answer is no failure response, and not judged.
      await judgeCases(REQUESTS, async ([what, method, path, o]) => {
        const res = await shop.http.request(method, path, o).catch((): ShopResponse | undefined => undefined);
        if (!res || res.status < 400) return;
        inCase(`${method} ${path} with ${what}`, () => {
          // A body of the router's own (a JSON object without the problem members) is not the spec's document at all.
          const doc = res.body as Record<string, unknown> | undefined;
          const members = ['type', 'title', 'status', 'error', 'instance'];
          if (typeof doc !== 'object' || doc === null || members.some((m) => !(m in doc)))
            fail('the refusal', `a problem document (${members.join(', ')})`, res.text.slice(0, 200), { clause: 'ERR-PROBLEM-1' });
          expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-1' });
        });
      });
    },
  ),
);
