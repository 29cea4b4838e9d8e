// `shop-conformance serve`: the reference on the fixture profile and seed, until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../reference/src/config.js';
import { startServer } from '../../reference/src/server.js';
import { rotationDeadline } from '../rotation.js';

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Start the reference server (fixture profile and seed by default).')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one); env PORT', undefined)
    .option('--host <host>', 'interface to listen on; env HOST')
    .option('--db <file>', 'SQLite database file (default: in memory); env DATABASE_PATH')
    .option('--profile <file>', 'profile JSON (default: fixtures/profile.json); env PROFILE_PATH')
    .option('--seed <file>', 'seed JSON (default: fixtures/seed.json); env SEED_PATH')
    .option('--no-seed', 'load no seed')
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance serve
  $ shop-conformance serve --port 8080 --db ./shop.db
  $ PORT=0 LOG_LEVEL=warn shop-conformance serve --profile ./my-profile.json`,
    )
    .action(async (opts: { port?: string; host?: string; db?: string; profile?: string; seed?: string | false }) => {
      // On the fixture profile (no --profile, no PROFILE_PATH), its previous guest key's rotation begins now (cli/rotation.ts),
      // unless the rotation is configured by the environment.
      const fixture =
        !opts.profile &&
        process.env.PROFILE_PATH === undefined &&
        process.env.GUEST_SESSION_KEY_PREVIOUS === undefined &&
        process.env.GUEST_SESSION_KEY_PREVIOUS_UNTIL === undefined;
      let config;
      try {
        config = loadConfig({
          profilePath: opts.profile ? resolve(opts.profile) : undefined,
          overrides: {
            port: opts.port,
            host: opts.host,
            databasePath: opts.db ? (opts.db === ':memory:' ? opts.db : resolve(opts.db)) : undefined,
            seedPath: opts.seed === false ? null : opts.seed ? resolve(opts.seed) : undefined,
            ...(fixture ? { guestSessionKeyPreviousUntil: rotationDeadline() } : {}),
          },
        });
      } catch (err) {
        if (err instanceof ConfigError) {
          process.stderr.write(`shop-conformance serve: invalid configuration: ${err.message}\n`);
          process.exit(2);
        }
        throw err;
      }
      // This process is the server's alone: its heap policy is the configuration's (HEAP_GROWING_PERCENT).
      if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
      let running;
      try {
        running = await startServer(config);
      } catch (err) {
        // A port in use or not ours to bind: a configuration error of this command, one line.
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
        process.stderr.write(`shop-conformance serve: --port: cannot listen on ${config.host}:${config.port} (${code})\n`);
        process.exit(2);
      }
      // Where it listens (the address bound), and apart from it the URL clients are told to call (PUBLIC_BASE_URL).
      const { port } = running.server.address() as AddressInfo;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      process.stdout.write(`shop-conformance reference listening on http://${host}:${port}\n`);
      if (config.publicBaseUrl !== null) process.stdout.write(`public URL (PUBLIC_BASE_URL): ${config.publicBaseUrl}\n`);
      const warning = publicBaseUrlWarning(config.publicBaseUrl, config.host);
      if (warning) process.stderr.write(warning);
      let stopping = false;
      const stop = (why: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`${why}, shutting down\n`);
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', () => stop('received SIGINT'));
      process.once('SIGTERM', () => stop('received SIGTERM'));
      // Started by npm (npx, npm exec, npm run), this process runs under npm's shell: a SIGTERM to npm (`kill $!` after
      // `npx shop-conformance serve &`) ends npm and that shell and never reaches it. Its parent gone, it stops as on SIGTERM.
      if (process.env.npm_command !== undefined) {
        const parent = process.ppid;
        setInterval(() => {
          if (process.ppid !== parent) stop(`its parent (npm ${process.env.npm_command}) exited`);
        }, 200).unref();
      }
    });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Without PUBLIC_BASE_URL the DPoP `htu` check trusts the Host header the client sent (docs/assistants.md): fine on
 * loopback, a hazard anywhere else. The reference does not refuse to start (a container binds 0.0.0.0 behind its own
 * proxy), but says so loudly.
 */
export function publicBaseUrlWarning(publicBaseUrl: string | null, host: string): string | undefined {
  if (publicBaseUrl !== null) return undefined;
  const exposed = !LOOPBACK.has(host) && !host.startsWith('127.');
  return (
    `WARNING: PUBLIC_BASE_URL is not set: DPoP proofs are checked against the Host header each client sends (htu).\n` +
    (exposed
      ? `WARNING: this server listens on ${host}, beyond loopback: set PUBLIC_BASE_URL to the URL clients call before exposing it.\n`
      : `WARNING: set PUBLIC_BASE_URL to the URL clients call before listening beyond loopback.\n`)
  );
}
