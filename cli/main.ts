#!/usr/bin/env node
// The shop-conformance command line: one add<X>Command per command over the library. Commands are loaded lazily: only
// the one named on the command line is imported (all of them for top-level help), so that `--version` or `token guest`
// never pays for the reference server, Playwright or the check engine.
import { COMMANDS, createProgram, namedCommand } from './program.js';

const args = process.argv.slice(2);
const named = namedCommand(args);
// `--version` alone needs no command; anything else without a known command name (help, a typo) gets all of them, so
// that help lists every command and commander suggests the right spelling.
const versionOnly = named === undefined && args.length > 0 && args.every((a) => a === '--version' || a === '-V');
const program = await createProgram(named !== undefined ? [named] : versionOnly ? [] : Object.keys(COMMANDS));
await program.parseAsync(process.argv);
