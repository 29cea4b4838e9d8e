// A check's id begins with the spec part of its file (`conformance/checks/<NN>-<part>.<subsection>.check.ts` declares
// `<part>.…` ids), so that an id says where its check lives and which part of the spec it judges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../reference/src/paths.js';

const CHECKS = join(PACKAGE_ROOT, 'conformance', 'checks');

/**
 * The ids a check file declares: `id: 'x.y'`, `id: cond ? 'x.y' : 'x.z'`, or the fixed start of `id: \`x.${…}\``. A check
 * id always has a dot, which tells it from other `id` members (an order's, a webhook event's).
 */
export const declaredIds = (text: string): string[] =>
  [...text.matchAll(/\bid: ([^\n]+)/g)].flatMap((m) => [...m[1]!.matchAll(/['`]([a-z][\w-]*\.[\w.-]*)(?:['`]|\$\{)/g)].map((q) => q[1]!));

test('every check id begins with the part of the spec its file is in', () => {
  const wrong: string[] = [];
  let seen = 0;
  for (const file of readdirSync(CHECKS).filter((f) => f.endsWith('.check.ts'))) {
    const part = /^\d\d-([a-z]+)\./.exec(file)?.[1];
    assert.ok(part, `${file}: named <NN>-<part>.<subsection>.check.ts`);
    for (const id of declaredIds(readFileSync(join(CHECKS, file), 'utf8'))) {
      seen++;
      if (!id.startsWith(`${part}.`)) wrong.push(`${file}: ${id}`);
    }
  }
  assert.ok(seen > 300, `the ids of the check files are read (${seen})`);
  assert.deepEqual(wrong, []);
});
