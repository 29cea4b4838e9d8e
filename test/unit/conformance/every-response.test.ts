// The rules of every response judged on every exchange of a check (conformance/engine/transport/every-response.ts): each rule on
// its clause, only exchanges with the deployment, a HEAD or event-stream answer by its headers alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeEveryExchange } from '../../../conformance/engine/transport/every-response.js';
import type { Exchange } from '../../../conformance/engine/transport/transcript.js';
import { softFailures, type CheckFailure } from '../../../conformance/lib/assert.js';

const BASE = 'http://127.0.0.1:8787';
const DOCS = 'https://docs.example';
const problem = (status: number, error: string, id = 'rid-1') =>
  JSON.stringify({
    type: `${DOCS}/api/problems/${error}`,
    title: { 402: 'Payment Required', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status],
    status,
    error,
    instance: id,
  });
const failureHeaders = { 'content-type': 'application/problem+json', 'cache-control': 'no-store', 'x-request-id': 'rid-1' };

function x(o: Partial<Exchange> & Pick<Exchange, 'method' | 'url'>): Exchange {
  return { requestHeaders: {}, ms: 1, ...o };
}

/** The soft failures the judge records, as `clause: message`. */
function judged(exchanges: Exchange[]): string[] {
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    judgeEveryExchange(exchanges, { baseUrl: BASE, docsUrl: DOCS });
  } finally {
    softFailures.ledger = undefined;
  }
  return ledger.map((f) => `${(/^\[([^\]]+)\]/.exec(f.message)?.[1] ?? '').split(', ').join('+')}: ${f.message.split('\n')[0]}`);
}

test('conforming answers of rare statuses pass: 402, 429 with Retry-After, 503, a catalog GET without no-store', () => {
  assert.deepEqual(
    judged([
      x({
        method: 'POST',
        url: `${BASE}/v1/checkouts/saved-card`,
        status: 402,
        responseHeaders: failureHeaders,
        responseBody: problem(402, 'payment_failed'),
      }),
      x({
        method: 'GET',
        url: `${BASE}/v1/cart`,
        status: 429,
        responseHeaders: { ...failureHeaders, 'retry-after': '5' },
        responseBody: problem(429, 'rate_limited'),
      }),
      x({
        method: 'GET',
        url: `${BASE}/v1/catalog/products`,
        status: 200,
        responseHeaders: { 'cache-control': 'private, no-cache', 'x-request-id': 'r' },
        responseBody: '{}',
      }),
      x({
        method: 'GET',
        url: `${BASE}/v1/cart`,
        requestHeaders: { authorization: 'DPoP x', dpop: 'proof' },
        status: 503,
        responseHeaders: { ...failureHeaders, 'dpop-nonce': 'n1', 'retry-after': '5' },
        responseBody: problem(503, 'unavailable'),
      }),
    ]),
    [],
  );
});

test('each rule on its clause: request id, nonce of a DPoP request, no-store, media type, problem body, domain-error challenge', () => {
  const out = judged([
    x({
      method: 'GET',
      url: `${BASE}/v1/cart`,
      status: 429,
      responseHeaders: { ...failureHeaders, 'x-request-id': '' },
      responseBody: problem(429, 'rate_limited'),
    }),
    x({
      method: 'GET',
      url: `${BASE}/v1/cart`,
      requestHeaders: { authorization: 'DPoP t', dpop: 'p' },
      status: 200,
      responseHeaders: { 'cache-control': 'no-store', 'x-request-id': 'r' },
      responseBody: '{}',
    }),
    x({
      method: 'GET',
      url: `${BASE}/v1/ops/orders`,
      status: 200,
      responseHeaders: { 'cache-control': 'private, max-age=30', 'x-request-id': 'r' },
      responseBody: '{}',
    }),
    x({
      method: 'POST',
      url: `${BASE}/v1/checkouts/saved-card`,
      status: 402,
      responseHeaders: { ...failureHeaders, 'content-type': 'application/json' },
      responseBody: problem(402, 'payment_failed'),
    }),
    x({ method: 'GET', url: `${BASE}/health`, status: 503, responseHeaders: failureHeaders, responseBody: '<html>down</html>' }),
    x({
      method: 'GET',
      url: `${BASE}/v1/me/orders/x`,
      status: 404,
      responseHeaders: { ...failureHeaders, 'www-authenticate': 'Bearer' },
      responseBody: problem(404, 'not_found'),
    }),
  ]);
  const clauses = out.map((line) => line.split(':')[0]);
  for (const want of ['AUTH-ORDER-2+ERR-PROBLEM-7', 'AUTH-ORDER-4', 'END-CONV-9', 'ERR-PROBLEM-4', 'ERR-PROBLEM-1', 'ERR-PROBLEM-8'])
    assert.ok(clauses.includes(want), `${want} in\n${out.join('\n')}`);
  assert.ok(
    out.every((line) => /exchange \d+: /.test(line)),
    'each failure names its exchange',
  );
});

test('only exchanges with the deployment, complete ones: the identity provider, a timeout and a HEAD body are not judged', () => {
  assert.deepEqual(
    judged([
      x({ method: 'GET', url: 'http://127.0.0.1:9999/jwks', status: 500, responseHeaders: {}, responseBody: 'oops' }),
      x({ method: 'GET', url: `${BASE}.evil.example/v1/cart`, status: 500, responseHeaders: {}, responseBody: 'oops' }),
      x({ method: 'GET', url: `${BASE}/v1/cart`, error: 'timeout after 15000 ms' }),
      x({ method: 'HEAD', url: `${BASE}/v1/me/orders/x`, status: 404, responseHeaders: failureHeaders }),
    ]),
    [],
  );
});
