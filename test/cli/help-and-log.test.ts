// The top-level help ends with examples that run as printed (each names a command and only options that command has),
// and the embedded reference's own log (JSON lines) goes to <output>/reference.log, not into the run's console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, outputDir } from '../helpers/cli.js';

test('shop-conformance --help ends with examples, each a command with options it has', async () => {
  const r = await cli(['--help']);
  assert.equal(r.code, 0, r.out);
  const examples = [...r.out.matchAll(/^ {2}\$ shop-conformance (\S+)(.*)$/gm)];
  assert.ok(examples.length >= 5, r.out);
  assert.ok(r.out.indexOf('Examples:') > r.out.indexOf('Commands:'));
  for (const [line, command, rest] of examples) {
    if (command === 'help') continue;
    const help = await cli([command!, '--help']);
    assert.equal(help.code, 0, `${command}: ${help.out}`);
    for (const flag of rest!.replace(/#.*$/, '').match(/--[\w-]+/g) ?? [])
      assert.ok(new RegExp(`(^|[ ,])${flag}\\b`, 'm').test(help.out), `${line}: ${command} has no ${flag}`);
  }
});

test("the embedded run's console carries none of the reference's log lines; they are in <output>/reference.log", async () => {
  // A check that makes the reference fail a webhook on purpose: it logs a warning and an api_error.
  const output = outputDir();
  const r = await cli([
    'run',
    '--level',
    'reference',
    '--grep',
    'events\\.webhook\\.processing-failed',
    '--reporter',
    'line',
    '--output',
    output,
  ]);
  assert.equal(r.code, 0, r.out);
  assert.doesNotMatch(r.out, /api_error/);
  assert.match(r.out, new RegExp(`embedded reference listening on \\S+ \\(its log: ${join(output, 'reference.log')}\\)`));
  assert.match(readFileSync(join(output, 'reference.log'), 'utf8'), /"api_error"/);
});
