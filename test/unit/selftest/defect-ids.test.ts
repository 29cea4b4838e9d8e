// A defect's id begins with the spec part of the file that lists it (`conformance/selftest/defects/<NN>-<part>…ts` lists
// `<part>.…` ids; `blind/<part>.ts` lists `blind.<part>.…` ids), as a check's id does (test/unit/conformance/check-ids.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../reference/src/paths.js';

const DEFECTS = join(PACKAGE_ROOT, 'conformance', 'selftest', 'defects');
const PARTS = ['purpose', 'resources', 'states', 'endpoints', 'authentication', 'events', 'errors', 'limits', 'versioning'];

/** Every defect a module exports (its arrays of objects with an `id`). */
async function idsOf(file: string): Promise<string[]> {
  const mod = (await import(join(DEFECTS, file))) as Record<string, unknown>;
  return Object.values(mod)
    .filter(Array.isArray)
    .flatMap((list) => (list as unknown[]).filter((d): d is { id: string } => typeof (d as { id?: unknown })?.id === 'string'))
    .map((d) => d.id);
}

test('every defect id begins with the part of the spec its file is in', async () => {
  const wrong: string[] = [];
  let seen = 0;
  for (const file of readdirSync(DEFECTS).filter((f) => /^\d\d-[a-z]+.*\.ts$/.test(f))) {
    const part = /^\d\d-([a-z]+)/.exec(file)![1]!;
    for (const id of await idsOf(file)) {
      seen++;
      if (!id.startsWith(`${part}.`)) wrong.push(`${file}: ${id}`);
    }
  }
  for (const part of PARTS.filter((p) => readdirSync(join(DEFECTS, 'blind')).includes(`${p}.ts`)))
    for (const id of await idsOf(join('blind', `${part}.ts`))) {
      seen++;
      if (!id.startsWith(`blind.${part}.`)) wrong.push(`blind/${part}.ts: ${id}`);
    }
  assert.ok(seen > 400, `the defect files are read (${seen} ids)`);
  assert.deepEqual(wrong, []);
});
