// `shop-conformance profile init`: a fresh profile, its public key set and the environment file of a deployment that trusts
// it. Also the small pieces the credential commands (token, guest-session, dpop, idp) share: reading --profile, and
// turning a usage error into exit 2 with one line on stderr.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Profile } from '../../contract/profile.js';
import { readProfileFile } from '../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { EXIT } from '../exit.js';
import { initProfileFiles, ProfileInitError } from '../profile-init.js';

/** A mistake of the caller (bad option, unreadable file): one line on stderr, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const PROFILE_OPTION_HELP = 'profile JSON holding the issuer keys and shared secrets';
export { FIXTURE_PROFILE };

/** Reads and validates a profile; the error is one line naming the file and the first offending property. */
export function loadProfile(file: string = FIXTURE_PROFILE): Profile {
  try {
    return readProfileFile(resolve(file));
  } catch (err) {
    throw new UsageError(`--profile: ${(err as Error).message}`);
  }
}

/**
 * Wraps a command action: a UsageError (or a refusal to overwrite) ends the process with exit 2 and one line on stderr
 * naming the command; anything else is a bug and propagates.
 */
export function action<A extends unknown[]>(command: string, fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (err instanceof UsageError || err instanceof ProfileInitError) {
        process.stderr.write(`shop-conformance ${command}: ${err.message}\n`);
        process.exit(EXIT.usage);
      }
      throw err;
    }
  };
}

/** Writes one line of JSON, or the artifact followed by a newline. */
export function print(value: unknown): void {
  process.stdout.write((typeof value === 'string' ? value : JSON.stringify(value)) + '\n');
}

interface InitOptions {
  out: string;
  envOut: string;
  name: string;
  force: boolean;
  testOnly: boolean;
  json: boolean;
}

export function addProfileCommand(program: Command): void {
  const profile = program
    .command('profile')
    .description('Profiles: what a deployment under test shares with the suite (issuer keys, client ids, secrets).')
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance profile init
  $ shop-conformance profile init --out ./conformance/profile.json --env-out ./deploy/.env --name staging`,
    );

  profile
    .command('init')
    .description(
      'Write a fresh profile (new ES256 issuer key, random secrets), its public jwks.json next to it, and the environment file a deployment needs to trust it.',
    )
    .option('--out <file>', 'where the profile goes (it holds the private signing key: keep it with the suite)', 'profile.json')
    .option('--env-out <file>', 'where the environment file of the deployment goes (NAME=value lines)', '.env')
    .option('--name <name>', 'name of the deployment the profile describes', 'deployment')
    .option('--test-only', 'mark the profile testOnly (keys and secrets must never guard real data)', false)
    .option('--force', 'overwrite the profile, jwks.json and the environment file when they exist', false)
    .option('--json', 'print { profile, jwks, env, name, issuer, kid, variables } on stdout', false)
    .addHelpText(
      'after',
      `
Writes three files and nothing else; refuses (exit 2) when any exists, unless --force:
  <out>                the profile, with the private key: \`run\`, \`token\`, \`idp\` read it with --profile
  <dir of out>/jwks.json  the public key set (never "d"); the environment file points JWKS_FILE at it
  <env-out>            every variable the reference reads from a profile, plus JWKS_FILE

Examples:
  $ shop-conformance profile init
  $ shop-conformance profile init --out ./suite/profile.json --env-out ./deploy/shop.env --name staging
  $ shop-conformance profile init --force --test-only --json`,
    )
    .action(
      action('profile init', async (o: InitOptions) => {
        const r = await initProfileFiles({ out: o.out, envOut: o.envOut, name: o.name, testOnly: o.testOnly, force: o.force });
        const kid = r.profile.signingKeys[0]!.kid;
        const err = (s: string) => process.stderr.write(s + '\n');
        err(
          `wrote ${r.profilePath}: profile "${r.profile.name}", issuer ${r.profile.issuer}, signing key ${kid} (private: keep it with the suite)`,
        );
        err(`wrote ${r.jwksPath}: the public key set`);
        err(`wrote ${r.envPath}: ${r.env.length} variables for the deployment (shared secrets: keep it private)`);
        err('next:');
        err(`  either configure the deployment with ${r.envPath} as is (JWKS_FILE points at ${r.jwksPath}),`);
        err(`  or serve the keys with \`shop-conformance idp --profile ${r.profilePath}\` and set JWKS_URI to the URL it prints;`);
        err(`  then judge it: \`shop-conformance run --base-url <url of the deployment> --profile ${r.profilePath}\``);
        if (o.json) {
          print({
            profile: r.profilePath,
            jwks: r.jwksPath,
            env: r.envPath,
            name: r.profile.name,
            issuer: r.profile.issuer,
            kid,
            variables: r.env.map((e) => e.name),
          });
        }
      }),
    );
}
