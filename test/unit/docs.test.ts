// Completeness of the docs (STYLE 4): the generated blocks are current, every error code of the contract is documented and
// every documented code exists, every configuration variable and every profile field is documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../contract/errors.js';
import { CONFIG_FIELDS } from '../../reference/src/config.js';
import { PACKAGE_ROOT } from '../../reference/src/paths.js';
import { checkDocs, GENERATED_END, GENERATED_START, profileFields, profileSourceOf, replaceBlock } from '../../scripts/gen-docs.js';

const read = (file: string) => readFileSync(join(PACKAGE_ROOT, file), 'utf8');
const generatedBlock = (text: string) => text.slice(text.indexOf(GENERATED_START), text.indexOf(GENERATED_END));

test('the generated blocks of the docs are current (npx tsx scripts/gen-docs.ts)', async () => {
  assert.deepEqual(await checkDocs(), []);
});

test('every error code of contract/errors.ts is documented in docs/errors.md', () => {
  const doc = read('docs/errors.md');
  const missing = ERROR_CODES.filter((c) => !doc.includes(`\`${c}\``));
  assert.deepEqual(missing, [], `codes missing from docs/errors.md: ${missing.join(', ')}`);
});

test('every code docs/errors.md lists exists in contract/errors.ts', () => {
  const doc = read('docs/errors.md');
  const known = new Set<string>(ERROR_CODES);
  const tableCodes = generatedBlock(doc)
    .split('\n')
    .map((line) => /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1])
    .filter((c): c is string => c !== undefined);
  assert.ok(tableCodes.length > 0, 'docs/errors.md has no table of codes');
  const linked = [...doc.matchAll(/problems\/([a-z][a-z0-9_]*)/g)].map((m) => m[1]!);
  const unknown = [...new Set([...tableCodes, ...linked])].filter((c) => !known.has(c));
  assert.deepEqual(unknown, [], `codes in docs/errors.md that contract/errors.ts does not define: ${unknown.join(', ')}`);
});

test('every code the other docs give as an error answer exists in contract/errors.ts', () => {
  // "401 `invalid_token`", "409 `insufficient_stock`": a status followed by a code.
  const known = new Set<string>(ERROR_CODES);
  for (const file of [
    'docs/configuration.md',
    'docs/profile.md',
    'docs/pipeline.md',
    'docs/reference-choices.md',
    'docs/seed.md',
    'docs/tokens.md',
  ]) {
    const unknown = [...read(file).matchAll(/\b[45]\d\d `([a-z_]+)`/g)].map((m) => m[1]!).filter((c) => !known.has(c));
    assert.deepEqual(unknown, [], `${file} names codes that contract/errors.ts does not define: ${unknown.join(', ')}`);
  }
});

test('every environment variable of CONFIG_FIELDS is documented in docs/configuration.md', () => {
  const doc = read('docs/configuration.md');
  const missing = Object.values(CONFIG_FIELDS)
    .map((f) => f.env)
    .filter((env) => !doc.includes(`\`${env}\``));
  assert.deepEqual(missing, [], `variables missing from docs/configuration.md: ${missing.join(', ')}`);
});

test('every top-level and nested profile field is documented in docs/profile.md', () => {
  const doc = read('docs/profile.md');
  const fields = profileFields().map((f) => f.path);
  for (const expected of [
    'docsUrl',
    'audiences.api',
    'secrets.guestSessionKeyPreviousUntil',
    'signingKeys[].kid',
    'capabilities.recovery',
    'rateLimits.guestWindowSeconds',
  ]) {
    assert.ok(fields.includes(expected), `the schema walk found no ${expected}`);
  }
  const missing = fields.filter((p) => !doc.includes(`\`${p}\``));
  assert.deepEqual(missing, [], `profile fields missing from docs/profile.md: ${missing.join(', ')}`);
});

test('profileSourceOf records the profile path a configuration value falls back to', () => {
  assert.deepEqual(
    profileSourceOf((p) => p.secrets.guestSessionKey),
    { path: 'secrets.guestSessionKey' },
  );
  assert.deepEqual(
    profileSourceOf((p) => p.rateLimits?.guestBudget ?? 120),
    { path: 'rateLimits.guestBudget', fallback: 120 },
  );
  assert.throws(() => profileSourceOf(() => 'constant'), /does not return a profile field/);
});

test('replaceBlock keeps the prose around the markers and refuses a file without them', () => {
  const doc = { file: 'docs/x.md', source: 'a test', block: '| a |\n| --- |' };
  const text = `# Title\n\nBefore.\n\n${GENERATED_START}\nold\n${GENERATED_END}\n\nAfter.\n`;
  const next = replaceBlock(text, doc);
  assert.ok(next.startsWith('# Title\n\nBefore.\n\n' + GENERATED_START));
  assert.ok(next.endsWith(`${GENERATED_END}\n\nAfter.\n`));
  assert.ok(next.includes('| a |') && !next.includes('\nold\n'));
  assert.equal(replaceBlock(next, doc), next);
  assert.throws(() => replaceBlock('# No markers\n', doc), /docs\/x\.md: no <!-- generated:start -->/);
  assert.throws(() => replaceBlock(text + text, doc), /more than one generated block/);
});

test('replaceBlock replaces a named block alone, leaving the unnamed one and the others as they are', () => {
  const doc = { file: 'docs/x.md', name: 'options: run', source: 'a test', block: 'new' };
  const named = (name: string, body: string) => `<!-- generated:start ${name} -->\n${body}\n<!-- generated:end ${name} -->`;
  const text = `${named('options: run', 'old')}\n${named('options: serve', 'kept')}\n${GENERATED_START}\nkept too\n${GENERATED_END}\n`;
  const next = replaceBlock(text, doc);
  assert.match(
    next,
    /<!-- generated:start options: run -->\n<!-- Generated from a test[^\n]*-->\n\nnew\n\n<!-- generated:end options: run -->/,
  );
  assert.ok(next.includes(named('options: serve', 'kept')) && next.includes('kept too') && !next.includes('\nold\n'));
  assert.throws(() => replaceBlock(text, { ...doc, name: 'options: idp' }), /no <!-- generated:start options: idp -->/);
});
