// The top-level help is printed from cli/program.ts's OUTLINE without loading any command: it must say what the commands'
// own definitions say (name, help term, description), and name every command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Help } from 'commander';
import { COMMANDS, createProgram, OUTLINE } from '../../cli/program.js';

test("OUTLINE is the commands' own help line, for every command", async () => {
  const program = await createProgram();
  const help = new Help();
  assert.deepEqual(Object.keys(OUTLINE).sort(), Object.keys(COMMANDS).sort());
  for (const cmd of program.commands) {
    assert.deepEqual(OUTLINE[cmd.name()], { term: help.subcommandTerm(cmd), description: cmd.description() }, cmd.name());
  }
});

test('the outline alone gives the same top-level help as every command loaded', async () => {
  const full = (await createProgram()).helpInformation();
  const outline = (await createProgram([], { outline: true })).helpInformation();
  assert.equal(outline, full);
});
