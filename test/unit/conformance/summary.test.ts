// report summary's formatters (conformance/engine/report/summary.ts): which outcome is an error, a warning or a notice,
// and that a message with newlines, percent signs, colons or commas stays one workflow command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunReport } from '../../../conformance/engine/report/baseline.js';
import { githubAnnotations, markdownSummary, summaryLines } from '../../../conformance/engine/report/summary.js';

const report = (over: Partial<RunReport> = {}): RunReport => ({
  target: 'https://shop.example',
  level: 'spec',
  clauses: [],
  checks: [
    { id: 'a.passes', title: 'a', clauses: ['RES-PROBLEM-1'], status: 'passed' },
    {
      id: 'b.fails',
      title: 'b',
      clauses: ['ERR-TABLE-1', 'ERR-PROBLEM-1'],
      failedClauses: ['ERR-TABLE-1'],
      status: 'failed',
      reason: 'expected 400, got 500\nmore',
    },
    { id: 'c.listed', title: 'c', clauses: ['EVT-WEBHOOK-6'], status: 'failed', reason: 'got 400: 100%, really' },
    { id: 'd.should', title: 'd', clauses: ['LIM-RATE-3'], status: 'warning', reason: 'no Retry-After' },
    { id: 'e.skipped', title: 'e', clauses: ['AUTH-GUEST-3'], status: 'skipped', reason: 'not declared' },
  ],
  status: 'failed',
  baseline: {
    file: 'expected-failures.json',
    expected: [{ check: 'c.listed', by: ['check c.listed'] }],
    unexpected: ['b.fails'],
    stale: ['clause RES-PROBLEM-1 passed: remove it from the baseline'],
    expired: [],
    unjudged: [],
    ok: false,
  },
  ...over,
});

test('each failed or warning check is one line: failed, expected (the baseline lists it) or warning; the blamed clauses only', () => {
  assert.deepEqual(
    summaryLines(report()).map((l) => [l.check, l.kind, l.clauses, l.reason]),
    [
      ['b.fails', 'failed', ['ERR-TABLE-1'], 'expected 400, got 500'],
      ['c.listed', 'expected', ['EVT-WEBHOOK-6'], 'got 400: 100%, really'],
      ['d.should', 'warning', ['LIM-RATE-3'], 'no Retry-After'],
    ],
  );
});

test('annotations: an error per failure and stale entry, a notice per listed failure, a warning per SHOULD; escaped', () => {
  assert.equal(
    githubAnnotations(report()),
    [
      '::error title=ERR-TABLE-1::[b.fails] expected 400, got 500',
      '::notice title=EVT-WEBHOOK-6 (expected failure)::[c.listed] got 400: 100%25, really',
      '::warning title=LIM-RATE-3::[d.should] no Retry-After',
      '::error title=baseline expected-failures.json::clause RES-PROBLEM-1 passed: remove it from the baseline',
      '',
    ].join('\n'),
  );
  const multi = report({ checks: [{ id: 'x', title: 'x', clauses: ['A-1', 'B-2'], status: 'failed', reason: 'a:b,c' }], baseline: null });
  assert.equal(githubAnnotations(multi), '::error title=A-1 B-2::[x] a:b,c\n');
  assert.equal(githubAnnotations(report({ checks: [], baseline: null })), '', 'nothing to annotate: no output');
});

test('the Markdown summary: status, target, a table per kind, the baseline problems; a pipe in a reason stays in its cell', () => {
  const md = markdownSummary(
    report({ checks: [{ id: 'p', title: 'p', clauses: ['A-1'], status: 'failed', reason: 'a | b' }], baseline: null }),
  );
  assert.match(md, /^## ❌ shop-conformance: failed$/m);
  assert.match(md, /^Target: https:\/\/shop\.example · level: spec$/m);
  assert.match(md, /^\| `p` \| A-1 \| a \\\| b \|$/m);
  const full = markdownSummary(report());
  assert.match(full, /^### Failures \(1\)$/m);
  assert.match(full, /^### Expected failures \(listed in the baseline\) \(1\)$/m);
  assert.match(full, /^### Warnings \(1\)$/m);
  assert.match(full, /^- stale: clause RES-PROBLEM-1 passed/m);
  assert.match(markdownSummary(report({ checks: [], status: undefined, baseline: null })), /^## ✅ shop-conformance: passed$/m);
});
