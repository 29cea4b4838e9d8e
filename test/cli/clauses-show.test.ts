// `clauses --show ID` as a user runs it: from a clause to the reference lines that cite it, its checks and its defects;
// an ID the catalogue does not have is one line naming it, exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cli } from '../helpers/cli.js';

test('clauses --show prints the clause, its citations in the reference, its checks and its defects', async () => {
  const { code, out } = await cli(['clauses', '--show', 'AUTH-ORDER-4']);
  assert.equal(code, 0, out);
  assert.match(out, /^AUTH-ORDER-4 {2}MUST {2}Authentication > Request processing order$/m);
  // Each citation is a file:line of the reference whose line holds the bracketed ID.
  const cited = [...out.matchAll(/^ {2}(reference\/src\/\S+\.ts):(\d+) {2}/gm)];
  assert.ok(cited.length >= 2, out);
  for (const [, file, line] of cited) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n')[Number(line) - 1];
    assert.match(text ?? '', /\[AUTH-ORDER-4\]/, `${file}:${line}`);
  }
  assert.match(out, /^ {2}authentication\.order\.dpop-nonce\.every-response +spec +conformance\/checks\/\S+\.check\.ts:\d+$/m);
  assert.match(out, /^ {2}authentication\.limits\.dpop-nonce-only-on-failures {2}\(wire/m);
  // What explore judges of it: places of conformance/explore whose code names the clause.
  const explored = [...out.matchAll(/^ {2}(conformance\/explore\/\S+\.ts):(\d+) {2}/gm)];
  assert.ok(explored.length >= 1, out);
  for (const [, file, line] of explored) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n')[Number(line) - 1];
    assert.match(text ?? '', /'AUTH-ORDER-4'/, `${file}:${line}`);
  }
});

test('clauses --show says when every answer explore gets is judged on the clause, and when explore does not judge it', async () => {
  const every = await cli(['clauses', '--show', 'ERR-PROBLEM-5']);
  assert.match(every.out, /^Explore \(\d+ places? in conformance\/explore; and every answer\):$/m);
  const none = await cli(['clauses', '--show', 'LIM-GUESTKEY-1']);
  assert.equal(none.code, 0, none.out);
  assert.match(none.out, /^Explore \(0 places in conformance\/explore\): not judged by explore$/m);
});

test('clauses --show with an ID the catalogue does not have: one line naming it, exit 2', async () => {
  const { code, out } = await cli(['clauses', '--show', 'AUTH-ORDER-99']);
  assert.equal(code, 2);
  assert.equal(out, 'shop-conformance clauses: --show: no clause AUTH-ORDER-99 in the catalogue\n');
});
