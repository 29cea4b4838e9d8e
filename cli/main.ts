#!/usr/bin/env node
// The shop-conformance command line: one add<X>Command per command over the library. Commands are loaded lazily: only
// the one named on the command line is imported (all of them for top-level help), so that `--version` or `token guest`
// never pays for the reference server, Playwright or the check engine.
import { Command } from 'commander';
import { EXIT } from './exit.js';
import { SUITE_VERSION } from '../conformance/engine/version.js';

type AddCommand = (program: Command) => void;

const COMMANDS: Readonly<Record<string, () => Promise<AddCommand>>> = {
  run: async () => (await import('./commands/run.js')).addRunCommand,
  doctor: async () => (await import('./commands/doctor.js')).addDoctorCommand,
  clauses: async () => (await import('./commands/clauses.js')).addClausesCommand,
  serve: async () => (await import('./commands/serve.js')).addServeCommand,
  token: async () => (await import('./commands/token.js')).addTokenCommand,
  'guest-session': async () => (await import('./commands/guest-session.js')).addGuestSessionCommand,
  dpop: async () => (await import('./commands/dpop.js')).addDpopCommand,
  profile: async () => (await import('./commands/profile.js')).addProfileCommand,
  idp: async () => (await import('./commands/idp.js')).addIdpCommand,
};

/** The command the arguments name (the first argument that is not an option), when it is one of ours. */
function namedCommand(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  if (first === 'help') return args.slice(args.indexOf(first) + 1).find((a) => !a.startsWith('-'));
  return first !== undefined && first in COMMANDS ? first : undefined;
}

const program = new Command('shop-conformance')
  .description('Reference server and conformance suite for the shop HTTP/JSON service.')
  .version(SUITE_VERSION)
  .showHelpAfterError()
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  });

const args = process.argv.slice(2);
const named = namedCommand(args);
// `--version` alone needs no command; anything else without a known command name (help, a typo) gets all of them, so
// that help lists every command and commander suggests the right spelling.
const versionOnly = named === undefined && args.length > 0 && args.every((a) => a === '--version' || a === '-V');
const wanted = named !== undefined ? [named] : versionOnly ? [] : Object.keys(COMMANDS);
for (const add of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) add(program);

await program.parseAsync(process.argv);
