// The reference as the crash test runs it: the fixture profile, the database file and crash point from the arguments and
// the environment (DATABASE_PATH, CRASH_POINT, CHECKOUT_RECONCILE_AFTER_SECONDS), a free port; prints `READY <url>`.
import { loadConfig } from '../../reference/src/config.js';
import { startServer } from '../../reference/src/server.js';

const profilePath = new URL('../../fixtures/profile.json', import.meta.url).pathname;
const config = loadConfig({ env: process.env, profilePath, overrides: { port: 0, host: '127.0.0.1', logLevel: 'error' } });
const running = await startServer(config);
process.stdout.write(`READY ${running.url}\n`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
