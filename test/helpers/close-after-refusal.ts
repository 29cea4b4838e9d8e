// Run as a process of its own by test/http/http-reliability.test.ts: a body refused for its declared length just before the
// server closes. The close must end (the lingering socket is cut) and the process exit 0; a close that waits on a socket
// nothing keeps alive ends the process with exit 13 (a top-level await never settled).
import net from 'node:net';
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';

const s = await startServer(
  loadConfig({ env: {}, profilePath: FIXTURE_PROFILE, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
);
const port = (s.server.address() as net.AddressInfo).port;
await new Promise<void>((resolve) => {
  const c = net.connect(port, '127.0.0.1', () =>
    c.write(`POST /v1/cart/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n\r\n{`),
  );
  c.on('data', () => resolve());
});
await s.close();
process.stdout.write('closed\n');
