// The clause catalogue is well-formed and complete against the contract's tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES, CLAUSES_BY_ID, PART_PREFIX, type SpecPart } from '../../../contract/clauses/index.js';
import { ERRORS, type ErrorCode } from '../../../contract/errors.js';
import { OPERATIONS } from '../../../contract/operations.js';

const ID = /^(PUR|RES|STA|END|AUTH|EVT|ERR|LIM|VER)-[A-Z0-9]+(-[A-Z0-9]+)*-\d+$/;
const PARTS = Object.keys(PART_PREFIX) as SpecPart[];

/** `word` occurs in `text` as a whole code (not inside a longer snake_case or camelCase name). */
const cites = (text: string, word: string): boolean => new RegExp(`(?<![A-Za-z0-9_])${word}(?![A-Za-z0-9_])`).test(text);

test('PART_PREFIX names the nine parts with their prefixes', () => {
  assert.deepEqual(PART_PREFIX, {
    purpose: 'PUR',
    resources: 'RES',
    states: 'STA',
    endpoints: 'END',
    authentication: 'AUTH',
    events: 'EVT',
    errors: 'ERR',
    limits: 'LIM',
    versioning: 'VER',
  });
});

test('clause ids are unique, well-formed, and carry the prefix of their part', () => {
  const seen = new Set<string>();
  for (const c of CLAUSES) {
    assert.match(c.id, ID, `malformed id ${c.id}`);
    assert.ok(!seen.has(c.id), `duplicate id ${c.id}`);
    seen.add(c.id);
    assert.ok(PARTS.includes(c.part), `${c.id}: unknown part ${c.part}`);
    assert.ok(c.id.startsWith(`${PART_PREFIX[c.part]}-`), `${c.id}: prefix does not match part ${c.part}`);
  }
  assert.equal(CLAUSES_BY_ID.size, CLAUSES.length);
  for (const c of CLAUSES) assert.equal(CLAUSES_BY_ID.get(c.id), c);
});

test('every part has at least one clause', () => {
  for (const part of PARTS)
    assert.ok(
      CLAUSES.some((c) => c.part === part),
      `no clause for part ${part}`,
    );
});

test('texts and sections are non-empty single lines; severities are MUST or SHOULD', () => {
  for (const c of CLAUSES) {
    for (const [field, value] of [
      ['text', c.text],
      ['section', c.section],
    ] as const) {
      assert.ok(value.trim().length > 0, `${c.id}: empty ${field}`);
      assert.ok(!/[\r\n]/.test(value), `${c.id}: ${field} spans several lines`);
      assert.equal(value, value.trim(), `${c.id}: ${field} has surrounding whitespace`);
    }
    assert.ok(c.severity === 'MUST' || c.severity === 'SHOULD', `${c.id}: severity ${String(c.severity)}`);
  }
});

test('notTestable reasons are non-empty single lines when present', () => {
  for (const c of CLAUSES) {
    if (!('notTestable' in c)) continue;
    assert.equal(typeof c.notTestable, 'string', `${c.id}: notTestable is not a string`);
    assert.ok((c.notTestable ?? '').trim().length > 0, `${c.id}: empty notTestable reason`);
    assert.ok(!/[\r\n]/.test(c.notTestable ?? ''), `${c.id}: notTestable spans several lines`);
  }
});

test('every error code the spec shows is cited by a clause', () => {
  const shown = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => ERRORS[code].shownInSpec);
  assert.ok(shown.length > 0);
  const missing = shown.filter((code) => !CLAUSES.some((c) => cites(c.text, code)));
  assert.deepEqual(missing, [], `error codes no clause cites: ${missing.join(', ')}`);
});

test("every operation of the spec's table is named by a clause", () => {
  // getMe, the operator routes and the conversation routes are not rows of the spec's operations table (their shapes are the reference's choice).
  const ids = OPERATIONS.filter((o) => o.operationId !== 'getMe' && o.group !== 'operator' && o.group !== 'conversation').map(
    (o) => o.operationId,
  );
  assert.ok(ids.length > 0);
  const missing = ids.filter((id) => !CLAUSES.some((c) => cites(c.text, id)));
  assert.deepEqual(missing, [], `operations no clause names: ${missing.join(', ')}`);
});

test('the citation matcher does not accept a code inside a longer name', () => {
  assert.ok(cites('401 invalid_token with a challenge', 'invalid_token'));
  assert.ok(!cites('401 invalid_token_x', 'invalid_token'));
  assert.ok(!cites('getCartItems', 'getCart'));
});

test('a repetition names existing clauses of its severity, none of them itself a repetition', () => {
  const aliases = CLAUSES.filter((c) => c.repeats);
  assert.ok(aliases.length >= 10, `only ${aliases.length} repetitions marked`);
  for (const c of aliases) {
    for (const id of c.repeats!) {
      const target = CLAUSES_BY_ID.get(id);
      assert.ok(target, `${c.id} repeats unknown clause ${id}`);
      assert.ok(!target.repeats, `${c.id} repeats ${id}, itself a repetition`);
      assert.equal(target.severity, c.severity, `${c.id} and ${id} differ in severity`);
    }
  }
});
