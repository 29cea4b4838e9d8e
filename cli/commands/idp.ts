// `shop-conformance idp`: publishes the profile's PUBLIC key set over HTTP (conformance/engine/doctor/idp.ts), so that a deployment
// trusts the suite's issuer through JWKS_URI, until SIGINT/SIGTERM.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DISCOVERY_PATH, startIdp } from '../../conformance/engine/doctor/idp.js';
import { publicJwks } from '../../conformance/lib/mint.js';
import { EXIT } from '../exit.js';
import { action, FIXTURE_PROFILE, loadProfile, print, PROFILE_OPTION_HELP, UsageError } from './profile.js';

export const DEFAULT_IDP_PORT = 8788;

interface Options {
  profile: string;
  port: string;
  host: string;
  jwksOut?: string;
  json: boolean;
}

export function addIdpCommand(program: Command): void {
  program
    .command('idp')
    .description(
      "Serve the profile's public key set (GET /.well-known/jwks.json, /jwks.json) and a minimal discovery document (GET /.well-known/openid-configuration: issuer, jwks_uri), for JWKS_URI.",
    )
    .option('--profile <file>', PROFILE_OPTION_HELP, FIXTURE_PROFILE)
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_IDP_PORT))
    .option('--host <host>', 'interface to listen on (0.0.0.0 to be reachable from containers)', '127.0.0.1')
    .option('--jwks-out <file>', 'also write the public key set to this file (for JWKS_FILE)')
    .option('--json', 'print { url, jwksUri, discovery, issuer, kids } instead of the listening line', false)
    .addHelpText(
      'after',
      `
Only public keys are served: never "d". Tokens are not issued here; mint them with \`shop-conformance token\`.
The discovery document names the profile's issuer (the tokens' iss), not this server's URL.

Examples:
  $ shop-conformance idp
  $ shop-conformance idp --profile ./profile.json --port 9000 --host 0.0.0.0
  $ JWKS_URI=http://127.0.0.1:8788/.well-known/jwks.json shop-conformance serve --profile ./profile.json
  $ shop-conformance idp --port 0 --jwks-out ./jwks.json --json`,
    )
    .action(
      action('idp', async (o: Options) => {
        if (!/^\d+$/.test(o.port) || Number(o.port) > 65535) throw new UsageError(`--port must be 0-65535 (got ${JSON.stringify(o.port)})`);
        const profile = loadProfile(o.profile);
        if (o.jwksOut !== undefined) {
          const path = resolve(o.jwksOut);
          writeFileSync(path, JSON.stringify(publicJwks(profile), null, 2) + '\n');
          process.stderr.write(`wrote the public key set to ${path} (JWKS_FILE=${path})\n`);
        }
        let idp;
        try {
          idp = await startIdp({ profile, port: Number(o.port), host: o.host });
        } catch (err) {
          throw new UsageError(`cannot listen on ${o.host}:${o.port}: ${(err as Error).message}`);
        }
        if (o.json) {
          print({
            url: idp.url,
            jwksUri: idp.jwksUri,
            discovery: idp.url + DISCOVERY_PATH,
            issuer: profile.issuer,
            kids: profile.signingKeys.map((k) => k.kid),
          });
        } else {
          print(`shop-conformance idp listening on ${idp.url}`);
          process.stderr.write(`issuer ${profile.issuer} (profile "${profile.name}"): set JWKS_URI=${idp.jwksUri} on the deployment\n`);
        }
        const stop = (signal: string) => {
          process.stderr.write(`received ${signal}, shutting down\n`);
          idp.close().then(
            () => process.exit(EXIT.ok),
            () => process.exit(EXIT.failed),
          );
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      }),
    );
}
