// A short run of the fuzzer (`npm run fuzz`, scripts/fuzz.ts) on fixed seeds: no 5xx but the webhook's processing_failed,
// every failure a problem document of a few KiB, X-Request-Id on every answer, one answer to every request, nothing logged
// as api_error, and the attack shapes held to their answers (`npm run bench -- --only fuzz` runs 100,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, judgeShape, printSummary, runFuzz } from '../../scripts/fuzz.js';
import type { RawAnswer, RawOutcome } from '../../scripts/fuzz/raw-http.js';

test('1,500 fuzzed requests (seed 10): no findings', async () => {
  const summary = await runFuzz({ seed: 10, requests: 1500, concurrency: 4 });
  const lines: string[] = [];
  printSummary(summary, (l) => lines.push(l));
  assert.equal(summary.requests, 1500);
  assert.ok(summary.routes >= 40, `routes from both description documents: ${summary.routes}`);
  for (const shape of ['plain', 'trailing', 'declared', 'deep', 'wide', 'duplicate'])
    assert.ok((summary.shapes[shape] ?? 0) > 20, `shape ${shape} is drawn: ${JSON.stringify(summary.shapes)}`);
  assert.deepEqual(summary.findings, [], lines.join('\n'));
  assert.ok(
    Object.keys(summary.statuses).some((s) => s.startsWith('2')),
    'some requests got through',
  );
});

const answer = (status: number, headers: [string, string][], body: unknown): RawAnswer => {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { status, headers: new Map(headers.map(([k, v]) => [k, [v]])), body: bytes, bodyBytes: bytes.length };
};
const problem = (status: number, error: string, extra: Record<string, unknown> = {}) =>
  answer(
    status,
    [
      ['x-request-id', 'r1'],
      ['content-type', 'application/problem+json'],
    ],
    { type: 't', title: 'x', status, error, instance: 'r1', ...extra },
  );

test('the judge flags a 5xx, a failure that is not a problem document, a missing X-Request-Id, an oversized problem document', () => {
  assert.deepEqual(judge(problem(400, 'invalid_request'), 'GET', '/v1/cart'), []);
  assert.deepEqual(judge(problem(500, 'internal_error'), 'GET', '/v1/cart'), ['5xx']);
  assert.deepEqual(judge(problem(500, 'processing_failed'), 'POST', '/webhooks/stripe'), []);
  assert.deepEqual(judge(answer(400, [['x-request-id', 'r1']], ''), 'GET', '/v1/cart'), ['not-a-problem-document']);
  assert.deepEqual(judge(answer(200, [], '{}'), 'GET', '/health'), ['no-x-request-id']);
  assert.deepEqual(judge(problem(400, 'invalid_request', { detail: 'x'.repeat(9000) }), 'POST', '/v1/cart/items'), ['problem-too-large']);
});

test('the shape judge flags a second answer, a replaced answer, a slow or missing 413, a body past decoding, a duplicate accepted', () => {
  const got = (a: RawAnswer, o: { extra?: RawAnswer[]; firstMs?: number } = {}): RawOutcome => ({
    kind: 'answer',
    answer: a,
    extra: o.extra ?? [],
    firstMs: o.firstMs ?? 5,
  });
  const ok = answer(200, [['x-request-id', 'r1']], '{}');
  const on = (shape: 'trailing' | 'declared' | 'deep' | 'wide' | 'duplicate', target = '/v1/cart/items') => ({
    shape,
    target,
    jsonRoute: true,
  });
  assert.deepEqual(judgeShape(got(ok), on('trailing', '/health')), []);
  assert.deepEqual(judgeShape(got(ok, { extra: [problem(400, 'invalid_request')] }), on('trailing', '/health')), ['second-answer']);
  assert.deepEqual(
    judgeShape(got(problem(400, 'invalid_request', { issues: [{ path: 'request', code: 'hpe_closed_connection' }] })), on('trailing')),
    ['answer-replaced'],
  );
  assert.deepEqual(judgeShape(got(problem(413, 'payload_too_large')), on('declared')), []);
  assert.deepEqual(judgeShape(got(problem(413, 'payload_too_large'), { firstMs: 5000 }), on('declared')), ['late-answer']);
  assert.deepEqual(judgeShape(got(problem(401, 'invalid_token')), on('declared')), ['cap-not-enforced']);
  assert.deepEqual(judgeShape(got(problem(400, 'invalid_json')), on('deep')), []);
  assert.deepEqual(judgeShape(got({ ...ok }), { ...on('duplicate'), duplicate: 'DPoP', dpopScheme: false }), []);
  assert.deepEqual(judgeShape(got({ ...ok }), { ...on('duplicate'), duplicate: 'DPoP', dpopScheme: true }), ['duplicate-accepted']);
  assert.deepEqual(judgeShape(got({ ...ok }), { ...on('duplicate'), duplicate: 'Operator' }), ['duplicate-accepted']);
  assert.deepEqual(judgeShape(got(problem(401, 'invalid_token')), on('deep')), ['body-not-refused']);
  assert.deepEqual(judgeShape(got(problem(401, 'invalid_token')), on('wide', '/internal/account/recover')), []);
  assert.deepEqual(judgeShape(got(ok), on('duplicate')), ['duplicate-accepted']);
  assert.deepEqual(judgeShape(got(problem(400, 'invalid_request')), on('duplicate')), []);
});
