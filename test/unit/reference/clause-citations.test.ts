// The clause IDs the reference cites (`// [ID] ...` above the branch that enforces the clause) are clauses of the
// catalogue: a renamed, mistyped or made-up ID would send `clauses --show` and its reader nowhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { CLAUSES, CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { findCitations, scanReference, unknownCitations } from '../../../cli/clause-citations.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('every clause ID cited in reference/src names a clause of the catalogue', (t) => {
  const scanned = scanReference(ROOT);
  assert.ok(scanned, 'reference/src is there');
  assert.equal(scanned.dir, 'reference/src');
  assert.equal(scanned.compiled, false);
  const unknown = unknownCitations(scanned.citations, CLAUSES_BY_ID);
  assert.deepEqual(
    unknown.map((c) => `${c.file}:${c.line} [${c.id}]`),
    [],
    'these citations name no clause of contract/clauses/catalogue.ts',
  );
  const cited = new Set(scanned.citations.map((c) => c.id));
  t.diagnostic(`${cited.size} of ${CLAUSES.length} clauses cited by the reference, at ${scanned.citations.length} places`);
  // The count only grows as code is cited; a scan that silently found nothing would pass the check above.
  assert.ok(cited.size >= 200, `only ${cited.size} clauses cited`);
});

test('a made-up ID in a comment is reported, with its file and line', () => {
  const source = [
    'export function f(x: string) {',
    '  // [AUTH-ORDER-4] a fresh nonce on every response.',
    '  // [AUTH-ORDER-99] no such clause.',
    '  return x;',
    '}',
  ].join('\n');
  const citations = findCitations('reference/src/x.ts', source);
  assert.deepEqual(
    citations.map((c) => [c.id, c.line]),
    [
      ['AUTH-ORDER-4', 2],
      ['AUTH-ORDER-99', 3],
    ],
  );
  assert.deepEqual(
    unknownCitations(citations, CLAUSES_BY_ID).map((c) => ({ id: c.id, file: c.file, line: c.line })),
    [{ id: 'AUTH-ORDER-99', file: 'reference/src/x.ts', line: 3 }],
  );
});

test('citations are read in line, block and trailing comments only, never in code', () => {
  const source = [
    '/**',
    ' * Refused here ([ERR-TABLE-8], [END-LIST-5]).',
    ' */',
    "const re = /^[A-Z]-1]$/; const s = '[FAKE-CODE-1]';",
    'f(); // [PUR-RULE-3] trailing',
    '/* [RES-PROBLEM-1] one-line block */',
  ].join('\n');
  assert.deepEqual(
    findCitations('x.ts', source).map((c) => [c.id, c.line, c.text]),
    [
      ['ERR-TABLE-8', 2, 'Refused here ([ERR-TABLE-8], [END-LIST-5]).'],
      ['END-LIST-5', 2, 'Refused here ([ERR-TABLE-8], [END-LIST-5]).'],
      ['PUR-RULE-3', 5, '[PUR-RULE-3] trailing'],
      ['RES-PROBLEM-1', 6, '[RES-PROBLEM-1] one-line block'],
    ],
  );
});
