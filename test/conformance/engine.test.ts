// The engine's pure parts: transcripts (curl with redaction) and per-clause verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatExchange, redactor, toCurl, type Exchange } from '../../conformance/engine/transcript.js';
import { clauseRows, summarize, unjudgedMust, type CheckOutcome } from '../../conformance/engine/verdicts.js';
import type { Clause } from '../../conformance/clauses/index.js';
import { fixtureProfile } from '../helpers/reference.js';

const exchange: Exchange = {
  method: 'POST',
  url: 'http://127.0.0.1:8787/v1/cart/items',
  requestHeaders: {
    authorization: 'Bearer eyJhbGciOi.secret.token',
    'guest-session': 'gs1.x.y',
    'content-type': 'application/json',
    'x-note': `key=${fixtureProfile.secrets.guestSessionKey}`,
  },
  requestBody: JSON.stringify({ variant_id: "it's", secret: fixtureProfile.secrets.accountRecoverySecret }),
  status: 401,
  responseHeaders: { 'www-authenticate': 'Bearer error="invalid_token"' },
  responseBody: '{"error":"invalid_token"}',
  ms: 3,
};

test('curl lines redact credentials and every profile secret unless asked', () => {
  const hidden = toCurl(exchange, redactor(fixtureProfile, false));
  assert.match(hidden, /^curl -i -X POST /);
  assert.match(hidden, /'authorization: Bearer <redacted \d+ chars>'/);
  assert.match(hidden, /'guest-session: <redacted 7 chars>'/);
  assert.doesNotMatch(hidden, /eyJhbGciOi/);
  assert.ok(!hidden.includes(fixtureProfile.secrets.guestSessionKey));
  assert.ok(!hidden.includes(fixtureProfile.secrets.accountRecoverySecret!));
  assert.match(hidden, /it'\\''s/, 'single quotes are shell-escaped');
  const shown = toCurl(exchange, redactor(fixtureProfile, true));
  assert.match(shown, /eyJhbGciOi\.secret\.token/);
  assert.ok(shown.includes(fixtureProfile.secrets.guestSessionKey));
});

test('a formatted exchange shows the response status, headers and body', () => {
  const text = formatExchange(exchange, redactor(fixtureProfile, false));
  assert.match(text, /^\$ curl/);
  assert.match(text, /< 401 \(3 ms\)/);
  assert.match(text, /< www-authenticate: Bearer error="invalid_token"/);
  assert.match(text, /\{"error":"invalid_token"\}/);
  assert.match(
    formatExchange({ ...exchange, status: undefined, error: 'connect ECONNREFUSED' }, redactor(fixtureProfile, false)),
    /!! connect ECONNREFUSED/,
  );
});

test('clause verdicts: a failed check fails its clause, a warning warns, skips and gaps are told apart', () => {
  const clause = (id: string, extra: Partial<Clause> = {}): Clause => ({
    id,
    part: 'errors',
    section: 's',
    text: id,
    severity: 'MUST',
    ...extra,
  });
  const clauses = [
    clause('ERR-A-1'),
    clause('ERR-B-1'),
    clause('ERR-C-1', { severity: 'SHOULD' }),
    clause('ERR-D-1'),
    clause('ERR-E-1'),
    clause('ERR-F-1', { notTestable: 'why' }),
    clause('ERR-G-1'),
  ];
  const outcomes: CheckOutcome[] = [
    { id: 'a.pass', title: '', clauses: ['ERR-A-1', 'ERR-B-1'], status: 'passed' },
    { id: 'b.fail', title: '', clauses: ['ERR-B-1'], status: 'failed', reason: 'expected 401, got 200' },
    { id: 'c.warn', title: '', clauses: ['ERR-C-1'], status: 'warning' },
    { id: 'd.skip', title: '', clauses: ['ERR-D-1'], status: 'skipped', reason: 'capability' },
  ];
  const known = new Map([['ERR-E-1', ['e.other-level']]]);
  const verdicts = Object.fromEntries(clauseRows(clauses, outcomes, known).map((r) => [r.id, r.verdict]));
  assert.deepEqual(verdicts, {
    'ERR-A-1': 'passed',
    'ERR-B-1': 'failed',
    'ERR-C-1': 'warning',
    'ERR-D-1': 'skipped',
    'ERR-E-1': 'not-run',
    'ERR-F-1': 'not-testable',
    'ERR-G-1': 'uncovered',
  });
  const s = summarize(clauseRows(clauses, outcomes, known), outcomes);
  assert.deepEqual(s.checks, { total: 4, passed: 1, failed: 1, warnings: 1, skipped: 1, setupFailed: 0 });
  assert.equal(s.clauses.failed, 1);
});

test('blame: a failed check fails only the clauses its assertions named; the others are not reached, or passed when it ran to its end', () => {
  const clause = (id: string): Clause => ({ id, part: 'errors', section: 's', text: id, severity: 'MUST' });
  const clauses = ['ERR-A-1', 'ERR-B-1', 'ERR-C-1', 'ERR-D-1'].map(clause);
  const outcomes: CheckOutcome[] = [
    { id: 'stopped', title: '', clauses: ['ERR-A-1', 'ERR-B-1'], status: 'failed', failedClauses: ['ERR-B-1'] },
    { id: 'soft', title: '', clauses: ['ERR-C-1'], status: 'failed', failedClauses: ['ERR-D-1'], completed: true },
  ];
  const rows = clauseRows(clauses, outcomes, new Map());
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.verdict])), {
    'ERR-A-1': 'not-reached',
    'ERR-B-1': 'failed',
    'ERR-C-1': 'passed',
    'ERR-D-1': 'failed',
  });
  assert.deepEqual(
    unjudgedMust(rows).map((u) => u.id),
    ['ERR-A-1'],
  );
});
