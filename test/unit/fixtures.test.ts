// The fixtures are what the schemas say: the profile validates, its JSON Schema is generated from the zod schema, and the
// seed validates and is its generator's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { profileSchema } from '../../contract/profile.js';
import { seedSchema } from '../../contract/seed.js';
import { seed } from '../../scripts/gen-seed.js';
import { baselineJsonSchema } from '../../conformance/engine/report/baseline.js';

const read = (p: string) => JSON.parse(readFileSync(new URL(`../../fixtures/${p}`, import.meta.url), 'utf8'));

test('fixtures/profile.json is a valid, test-only profile', () => {
  const p = profileSchema.parse(read('profile.json'));
  assert.equal(p.testOnly, true);
  assert.ok(p.signingKeys[0]!.d, 'the suite signs with the fixture key');
});

test('fixtures/profile.schema.json is generated from contract/profile.ts (run scripts/gen-fixture-profile.ts schema)', () => {
  const generated = { ...z.toJSONSchema(profileSchema, { target: 'draft-2020-12', io: 'input' }), title: 'shop-conformance profile' };
  assert.deepEqual(read('profile.schema.json'), JSON.parse(JSON.stringify(generated)));
});

test('fixtures/expected-failures.schema.json is generated from the baseline schema (run scripts/gen-fixture-profile.ts schema)', () => {
  assert.deepEqual(read('expected-failures.schema.json'), JSON.parse(JSON.stringify(baselineJsonSchema())));
});

test('fixtures/seed.json validates', () => {
  const s = seedSchema.parse(read('seed.json'));
  assert.ok(s.products.length >= 20);
});

test('fixtures/seed.json is what scripts/gen-seed.ts generates (run it after changing the generator)', () => {
  assert.deepEqual(read('seed.json'), JSON.parse(JSON.stringify(seed)));
});
