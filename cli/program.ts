// The shop-conformance program: its commands, each loaded only when asked for (see cli/main.ts). scripts/gen-docs.ts
// builds it with every command to generate the option reference of docs/cli.md.
import { Command, Help } from 'commander';
import { EXIT } from './exit.js';
import { SUITE_VERSION } from '../conformance/engine/report/version.js';

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
  explore: async () => (await import('./commands/explore.js')).addExploreCommand,
};

/**
 * Each command's help line, so that the top-level help and commander's spelling suggestions need no command loaded.
 * test/unit/cli-outline.test.ts holds it to the commands' own definitions.
 */
export const OUTLINE: Readonly<Record<string, { term: string; description: string }>> = {
  run: {
    term: 'run [options]',
    description: 'Run the conformance suite against a deployment, or against the embedded reference when --base-url is absent.',
  },
  doctor: {
    term: 'doctor [options]',
    description:
      'Check that the target is reachable, is this service, and trusts tokens minted from the profile for every caller kind it claims.',
  },
  clauses: { term: 'clauses [options]', description: 'Print every clause of the spec with its severity and the checks that cover it.' },
  serve: { term: 'serve [options]', description: 'Start the reference server (fixture profile and seed by default).' },
  token: {
    term: 'token [options] <kind>',
    description: 'Mint an access token of one caller kind from the profile (docs/tokens.md), with the other headers that caller sends.',
  },
  'guest-session': {
    term: 'guest-session [options]',
    description: "Print a Guest-Session value (gs1.<uuid>.<HMAC-SHA256>) signed with the profile's guest key: a new guest cart.",
  },
  dpop: {
    term: 'dpop [options]',
    description: 'Print a DPoP proof (ES256, typ dpop+jwt) for one request, as an assistant agent sends it in the DPoP header.',
  },
  profile: {
    term: 'profile',
    description: 'Profiles: what a deployment under test shares with the suite (issuer keys, client ids, secrets).',
  },
  idp: {
    term: 'idp [options]',
    description:
      "Serve the profile's public key set (GET /.well-known/jwks.json, /jwks.json) and a minimal discovery document (GET /.well-known/openid-configuration: issuer, jwks_uri), for JWKS_URI.",
  },
  'self-test': {
    term: 'self-test [options]',
    description: 'Prove the suite can fail: run each named defect behind a proxy in front of the target and print the kill matrix.',
  },
  report: { term: 'report', description: 'Read and compare the reports of runs (conformance-report.json).' },
  assistant: { term: 'assistant', description: 'Credentials of an assistant (a personal agent with DPoP) against a deployment.' },
  explore: {
    term: 'explore [options]',
    description:
      'Generated request sequences against a deployment (the embedded reference without --base-url), judged by a model of the spec, a lockstep reference and its own description documents; a finding is shrunk to a replayable file.',
  },
};

/** The top-level help's examples: the first commands of each kind of user (docs/cli.md). */
export const EXAMPLES = `
Examples:
  $ shop-conformance run                                          # the suite against the embedded reference
  $ shop-conformance serve --port 8787                            # the reference server, until Ctrl-C
  $ shop-conformance doctor --base-url "$SHOP_URL" --wait 60s     # is a deployment ready to be judged?
  $ shop-conformance run --base-url "$SHOP_URL" --profile ./profile.json --reporter dot,junit
  $ shop-conformance run --clause RES-PROBLEM-1 --reporter list   # one clause's checks
  $ shop-conformance token customer --headers                     # credentials for a request of your own
  $ shop-conformance help run                                     # one command's options and examples`;

/**
 * Every option a command requires (`.requiredOption`) says so in its description, in `--help` and in the option
 * reference of docs/cli.md, which is generated from these definitions.
 */
export function markRequired(command: Command): void {
  for (const o of command.options) if (o.mandatory && !o.description.endsWith('(required)')) o.description += ' (required)';
  for (const sub of command.commands) markRequired(sub);
}

/** The command the arguments name (the first argument that is not an option), when it is one of ours. */
export function namedCommand(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  if (first === 'help') return args.slice(args.indexOf(first) + 1).find((a) => !a.startsWith('-'));
  return first !== undefined && first in COMMANDS ? first : undefined;
}

/**
 * The program with the named commands registered (all of them by default); with `outline`, the others appear by their
 * help line only (top-level help, suggestions for a misspelt name).
 */
export async function createProgram(names: readonly string[] = Object.keys(COMMANDS), o: { outline?: boolean } = {}): Promise<Command> {
  const program = new Command('shop-conformance')
    .description('Reference server and conformance suite for the shop HTTP/JSON service.')
    .version(SUITE_VERSION)
    // A usage error is one line on stderr (exit 2), as the configuration errors are; --help shows the usage.
    .configureOutput({
      outputError: (text, write) => write(`shop-conformance: ${text.replace(/^error: /, '').trimEnd()} (see --help)\n`),
    })
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    })
    .addHelpText('after', EXAMPLES);
  for (const add of await Promise.all(names.map((name) => COMMANDS[name]!()))) add(program);
  markRequired(program);
  if (o.outline) {
    for (const [name, line] of Object.entries(OUTLINE)) if (!names.includes(name)) program.command(name).description(line.description);
    const base = new Help();
    program.configureHelp({ subcommandTerm: (cmd) => OUTLINE[cmd.name()]?.term ?? base.subcommandTerm(cmd) });
  }
  return program;
}
