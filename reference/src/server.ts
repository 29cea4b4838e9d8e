// Starts the reference: configuration, database (migrations, seed), HTTP listener; and stops it cleanly.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { installClientErrorHandler } from './boundary.js';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/open.js';
import { loadSeed, readSeed } from './db/seed.js';
import type { Clock } from './domain.js';
import { createLogger, type Logger } from './log.js';
import { CLEAN_DPOP_PROOFS_JOB, scheduleCleanDpopProofs } from './jobs/clean-dpop-proofs.js';
import { RECONCILE_CHECKOUTS_JOB, reconcileCheckouts, scheduleReconcileCheckouts } from './jobs/reconcile-checkouts.js';

export interface RunningServer {
  url: string;
  server: Server;
  db: Db;
  close(): Promise<void>;
}

export async function startServer(config: Config, o: { clock?: Clock; log?: Logger } = {}): Promise<RunningServer> {
  const log = o.log ?? createLogger(config.logLevel);
  const db = openDatabase(config.databasePath);
  if (config.seedPath) loadSeed(db, readSeed(config.seedPath), (o.clock ?? (() => new Date()))());
  const { app, domain } = createApp({ config, db, clock: o.clock, log });
  // Checkouts a stopped process left between the charge and the order are settled before the first request (docs/checkout.md).
  const settled = await reconcileCheckouts(domain);
  if (settled.placed + settled.refunded + settled.abandoned + settled.declined > 0)
    log.info('job', { job: RECONCILE_CHECKOUTS_JOB, ...settled });
  const stopReconciling = scheduleReconcileCheckouts(domain);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  // Node's default header limits stay (16 KiB: larger headers get 431); requests may not hang forever.
  installClientErrorHandler(server, config.docsUrl, log);
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  // Recorded DPoP proofs past their retention are deleted every minute (docs/assistants.md).
  const stopCleaning = scheduleCleanDpopProofs(db, {
    onRun: ({ deleted }) => {
      if (deleted > 0) log.debug('job', { job: CLEAN_DPOP_PROOFS_JOB, deleted });
    },
    onError: (err) => log.warn('job_failed', { job: CLEAN_DPOP_PROOFS_JOB, error: err instanceof Error ? err.message : String(err) }),
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = config.publicBaseUrl ?? `http://${host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    db,
    close() {
      closing ??= new Promise<void>((resolve) => {
        stopCleaning();
        stopReconciling();
        // A connection that is still open after 2 s is cut. The timer keeps the process alive until then: a lingering
        // close (drain.ts) holds a socket that no longer reads, which alone would not, and the close would never end.
        const cut = setTimeout(() => server.closeAllConnections(), 2000);
        server.close(() => {
          clearTimeout(cut);
          db.close();
          // The last lines (the requests that were still open) are written before close() resolves.
          log.flush?.();
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
