// One rule, one judge (STYLE.md 19): the text a rule owns (conformance/rules/index.ts RULE_TEXT) appears in its owner's
// file alone, or in a file that only sends the header (the allow-list `senders`, each with its reason there). Comments
// are not code: a sentence naming a header is not a judgement of it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { RULE_TEXT } from '../../../conformance/rules/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const SCANNED = ['conformance/checks', 'conformance/explore', 'conformance/lib', 'conformance/rules', 'conformance/engine'];
/** The rule book itself, which names the text it lists. */
const BOOK = 'conformance/rules/index.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file: block comments, line comments and trailing ` // …` comments removed. */
export function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => (/^\s*\/\//.test(line) ? '' : line.replace(/\s\/\/\s.*$/, '')))
    .join('\n');
}

test('the code of a file leaves comments out', () => {
  assert.equal(codeOf('a // DPoP-Nonce\n// dpop-nonce\n/** dpop-nonce */b').trim(), 'a\n\nb');
  assert.match(codeOf("get('dpop-nonce')"), /dpop-nonce/);
});

test("a rule's text appears in its rule alone, or where a request is only sent", () => {
  const files = SCANNED.flatMap(filesUnder);
  assert.ok(files.length > 50, 'the scanned directories hold the suite');
  const outside: string[] = [];
  for (const file of files) {
    const code = codeOf(readFileSync(join(ROOT, file), 'utf8'));
    for (const t of RULE_TEXT) {
      if (file === t.owner || file === BOOK || t.senders.includes(file)) continue;
      code.split('\n').forEach((line, i) => {
        if (t.text.test(line)) outside.push(`${file}:${i + 1}: ${t.what}, owned by ${t.owner}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(outside, [], `rule text outside its rule:\n${outside.join('\n')}`);
});

test('every sender of the allow-list exists and still holds the text (a stale entry is removed)', () => {
  for (const t of RULE_TEXT)
    for (const file of t.senders) {
      const code = codeOf(readFileSync(join(ROOT, file), 'utf8'));
      assert.match(code, t.text, `${relative(ROOT, join(ROOT, file))} no longer holds ${t.what}`);
    }
});

test("each rule's owner holds its text", () => {
  for (const t of RULE_TEXT) assert.match(readFileSync(join(ROOT, t.owner), 'utf8'), t.text, t.owner);
});
