// The attack corpus (test/attack-corpus/*.json): token, proof, session, webhook and framing attacks, each a data row with
// the answer the spec (or, where the spec says "not shown", the reference) gives. Every row is sent on a raw socket to the
// reference and judged: its status, `error`, challenge and headers, exactly one answer, the problem document (bounded in
// size) on every failure; and nothing the corpus sends is logged as an unexpected failure.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { startReference, type Harness } from '../helpers/reference.js';
import { prepareBench, runCase, type AttackCase, type Bench } from '../attack-corpus/recipe.js';

const DIR = new URL('../attack-corpus/', import.meta.url);
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const corpus = files.map((f) => ({ file: f, cases: JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as AttackCase[] }));

let h: Harness;
let b: Bench;
before(async () => {
  h = await startReference();
  b = await prepareBench(Number(new URL(h.url).port), h.profile);
});
after(() => h.close());

test('the corpus: at least 300 cases, ids unique, each with a description and an expected status', () => {
  const all = corpus.flatMap((c) => c.cases);
  assert.ok(all.length >= 300, `${all.length} cases`);
  const ids = all.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const c of all) {
    assert.ok(c.description.length > 10, `${c.id} has a description`);
    assert.ok(Number.isInteger(c.expect.status), `${c.id} has an expected status`);
    assert.ok(c.expect.status < 400 || c.expect.error, `${c.id}: a failure names its error code`);
  }
});

for (const { file, cases } of corpus)
  describe(file, () => {
    for (const c of cases)
      test(`${c.id}: ${c.description}`, async () => {
        const v = await runCase(b, c);
        assert.ok(v.ok, `${v.problems.join('; ')}\n    got: ${v.summary}`);
      });
  });

test('nothing the corpus sent was logged as an unexpected failure (the webhook processing_failed is the spec answer)', () => {
  const errors = h.logs.filter((l) => l.event === 'api_error' && l.error !== 'processing_failed');
  assert.deepEqual(errors, []);
});
