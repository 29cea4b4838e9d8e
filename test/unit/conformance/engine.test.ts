// The engine's pure parts: transcripts (curl with redaction) and per-clause verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatExchange, redactor, toCurl, type Exchange } from '../../../conformance/engine/transport/transcript.js';
import { clauseRows, mergeOutcomes, summarize, unjudgedMust, type CheckOutcome } from '../../../conformance/engine/report/verdicts.js';
import type { Clause } from '../../../contract/clauses/index.js';
import { fixtureProfile } from '../../helpers/reference.js';

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
    clause('ERR-H-1'),
  ];
  const outcomes: CheckOutcome[] = [
    { id: 'a.pass', title: '', clauses: ['ERR-A-1', 'ERR-B-1'], status: 'passed' },
    { id: 'h.stopped', title: '', clauses: ['ERR-H-1'], status: 'not-run', reason: 'not run: the run stopped after --max-failures 1' },
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
    'ERR-H-1': 'not-run',
  });
  const s = summarize(clauseRows(clauses, outcomes, known), outcomes);
  assert.deepEqual(s.checks, { total: 5, passed: 1, failed: 1, warnings: 1, skipped: 1, notRun: 1, setupFailed: 0 });
  assert.equal(s.clauses.failed, 1);
  // A clause whose checks the run stopped before says so, not "not selected".
  assert.equal(
    unjudgedMust(clauseRows(clauses, outcomes, known)).find((u) => u.id === 'ERR-H-1')?.why,
    'not run: the run stopped after --max-failures 1',
  );
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

test('a repetition is judged by its own checks and by those of the clauses it repeats', () => {
  const clause = (id: string, extra: Partial<Clause> = {}): Clause => ({
    id,
    part: 'limits',
    section: 's',
    text: id,
    severity: 'MUST',
    ...extra,
  });
  const clauses = [
    clause('AUTH-X-1'),
    clause('LIM-X-1', { repeats: ['AUTH-X-1'] }),
    clause('AUTH-Y-1'),
    clause('LIM-Y-1', { repeats: ['AUTH-Y-1'] }),
  ];
  const outcomes: CheckOutcome[] = [
    { id: 'x', title: '', clauses: ['AUTH-X-1'], status: 'failed', failedClauses: ['AUTH-X-1'] },
    { id: 'y', title: '', clauses: ['AUTH-Y-1'], status: 'passed' },
  ];
  const rows = clauseRows(clauses, outcomes, new Map());
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.verdict])), {
    'AUTH-X-1': 'failed',
    'LIM-X-1': 'failed',
    'AUTH-Y-1': 'passed',
    'LIM-Y-1': 'passed',
  });
  assert.deepEqual(rows[1]!.repeats, ['AUTH-X-1']);
});

test('a check judged twice (target and variant deployment) counts once: judged beats skipped, worse beats better', () => {
  const merged = mergeOutcomes([
    { id: 'a', title: '', clauses: ['X-1'], status: 'skipped', reason: 'configured' },
    { id: 'a', title: '', clauses: ['X-1'], status: 'passed', deployment: 'variant-closed' },
    { id: 'b', title: '', clauses: ['X-2'], status: 'passed' },
    { id: 'b', title: '', clauses: ['X-2'], status: 'failed', deployment: 'variant-closed' },
    { id: 'c', title: '', clauses: ['X-3'], status: 'skipped' },
  ]);
  assert.deepEqual(
    merged.map((o) => [o.id, o.status, o.deployment]),
    [
      ['a', 'passed', 'variant-closed'],
      ['b', 'failed', 'variant-closed'],
      ['c', 'skipped', undefined],
    ],
  );
});

test('credentials are redacted wherever they appear: query strings, bodies, browser sessions, private JWK members', () => {
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjdXN0In0.c2lnbmF0dXJlLXZhbHVl';
  const x: Exchange = {
    method: 'GET',
    url: `http://127.0.0.1:8787/v1/cart?access_token=${jwt}&q=shoes`,
    requestHeaders: { 'assistant-browser-session': 'asb1.sess_1.c2ln', 'content-type': 'application/json' },
    requestBody: JSON.stringify({ token: jwt, key: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'BBBB', d: 'PRIVATE-PART' } }),
    status: 400,
    responseHeaders: {},
    responseBody: JSON.stringify({ echoed: jwt, session: 'gs1.0b4c7a2e-1111-4222-8333-444455556666.c2lnbmF0dXJl' }),
    ms: 1,
  };
  const text = formatExchange(x, redactor(fixtureProfile, false));
  for (const leak of [jwt, 'PRIVATE-PART', 'asb1.sess_1', 'gs1.0b4c7a2e']) assert.ok(!text.includes(leak), `${leak} leaked:\n${text}`);
  assert.match(text, /access_token=<redacted>&q=shoes/);
  assert.match(text, /'assistant-browser-session: <redacted \d+ chars>'/);
  assert.match(text, /"d":"<redacted>"/);
  assert.match(text, /"x":"AAAA"/, 'public members stay');
  assert.ok(formatExchange(x, redactor(fixtureProfile, true)).includes(jwt), '--show-secrets shows them');
});

test("a profile's dates are not secrets: the previous guest key's deadline is shown, the keys are redacted", () => {
  const redact = redactor(fixtureProfile, false);
  const { guestSessionKeyPreviousUntil: until, guestSessionKeyPrevious: previous, guestSessionKey: key } = fixtureProfile.secrets;
  const text = `deadline ${until}, keys ${previous} ${key}`;
  assert.equal(redact(null, text), `deadline ${until}, keys <redacted secret> <redacted secret>`);
});
