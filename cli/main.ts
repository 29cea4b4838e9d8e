#!/usr/bin/env node
// The shop-conformance command line: one add<X>Command per command over the library. Commands are loaded lazily: only
// the one named on the command line is imported (none for top-level help), so that `--version` or `token guest`
// never pays for the reference server, Playwright or the check engine.
import { createProgram, namedCommand } from './program.js';

const args = process.argv.slice(2);
const named = namedCommand(args);
// Without a known command name (`--version`, help, a typo) none is loaded: their outline gives the top-level help and
// commander's spelling suggestions.
const program = await createProgram(named !== undefined ? [named] : [], { outline: named === undefined });
await program.parseAsync(process.argv);
