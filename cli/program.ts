// The shop-conformance program: its commands, each loaded only when asked for (see cli/main.ts). scripts/gen-docs.ts
// builds it with every command to generate the option reference of docs/cli.md.
import { Command } from 'commander';
import { EXIT } from './exit.js';
import { SUITE_VERSION } from '../conformance/engine/version.js';

type AddCommand = (program: Command) => void;

export const COMMANDS: Readonly<Record<string, () => Promise<AddCommand>>> = {
  run: async () => (await import('./commands/run.js')).addRunCommand,
  doctor: async () => (await import('./commands/doctor.js')).addDoctorCommand,
  clauses: async () => (await import('./commands/clauses.js')).addClausesCommand,
  serve: async () => (await import('./commands/serve.js')).addServeCommand,
  token: async () => (await import('./commands/token.js')).addTokenCommand,
  'guest-session': async () => (await import('./commands/guest-session.js')).addGuestSessionCommand,
  dpop: async () => (await import('./commands/dpop.js')).addDpopCommand,
  profile: async () => (await import('./commands/profile.js')).addProfileCommand,
  idp: async () => (await import('./commands/idp.js')).addIdpCommand,
  'self-test': async () => (await import('./commands/self-test.js')).addSelfTestCommand,
  report: async () => (await import('./commands/report.js')).addReportCommand,
  assistant: async () => (await import('./commands/assistant.js')).addAssistantCommand,
};

/** The command the arguments name (the first argument that is not an option), when it is one of ours. */
export function namedCommand(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  if (first === 'help') return args.slice(args.indexOf(first) + 1).find((a) => !a.startsWith('-'));
  return first !== undefined && first in COMMANDS ? first : undefined;
}

/** The program with the named commands registered (all of them by default). */
export async function createProgram(names: readonly string[] = Object.keys(COMMANDS)): Promise<Command> {
  const program = new Command('shop-conformance')
    .description('Reference server and conformance suite for the shop HTTP/JSON service.')
    .version(SUITE_VERSION)
    // A usage error is one line on stderr (exit 2), as the configuration errors are; --help shows the usage.
    .configureOutput({
      outputError: (text, write) => write(`shop-conformance: ${text.replace(/^error: /, '').trimEnd()} (see --help)\n`),
    })
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
  for (const add of await Promise.all(names.map((name) => COMMANDS[name]!()))) add(program);
  return program;
}
