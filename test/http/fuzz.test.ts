// A short run of the fuzzer (`npm run fuzz`, scripts/fuzz.ts) on fixed seeds: no 5xx but the webhook's processing_failed,
// every failure a problem document, X-Request-Id on every answer, an answer to every request, nothing logged as api_error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, printSummary, runFuzz } from '../../scripts/fuzz.js';

test('1,500 fuzzed requests (seed 10): no findings', async () => {
  const summary = await runFuzz({ seed: 10, requests: 1500, concurrency: 4 });
  const lines: string[] = [];
  printSummary(summary, (l) => lines.push(l));
  assert.equal(summary.requests, 1500);
  assert.ok(summary.routes >= 40, `routes from both description documents: ${summary.routes}`);
  assert.deepEqual(summary.findings, [], lines.join('\n'));
  assert.ok(
    Object.keys(summary.statuses).some((s) => s.startsWith('2')),
    'some requests got through',
  );
});

test('the judge flags a 5xx, a failure that is not a problem document, and a missing X-Request-Id', () => {
  const answer = (status: number, headers: [string, string][], body: unknown) => ({
    status,
    headers: new Map(headers.map(([k, v]) => [k, [v]])),
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  });
  const problem = (status: number, error: string) =>
    answer(
      status,
      [
        ['x-request-id', 'r1'],
        ['content-type', 'application/problem+json'],
      ],
      { type: 't', title: 'x', status, error, instance: 'r1' },
    );
  assert.deepEqual(judge(problem(400, 'invalid_request'), 'GET', '/v1/cart'), []);
  assert.deepEqual(judge(problem(500, 'internal_error'), 'GET', '/v1/cart'), ['5xx']);
  assert.deepEqual(judge(problem(500, 'processing_failed'), 'POST', '/webhooks/stripe'), []);
  assert.deepEqual(judge(answer(400, [['x-request-id', 'r1']], ''), 'GET', '/v1/cart'), ['not-a-problem-document']);
  assert.deepEqual(judge(answer(200, [], '{}'), 'GET', '/health'), ['no-x-request-id']);
});
