// A private CA and an HTTPS front for the tests, made at test time with the openssl CLI (test-only keys in a temporary
// directory, valid for two days). The front terminates TLS and passes the bytes through unchanged, so event streams, held
// requests and chunked bodies reach the server as the client sent them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';

export interface TestCertificates {
  dir: string;
  /** Path of the CA certificate (what --ca takes). */
  caPath: string;
  /** The server's key and certificate (for 127.0.0.1 and localhost), PEM; the chain is the leaf alone. */
  key: string;
  cert: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'shop-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=shop-conformance test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    '0x5eed',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  ]);
  return {
    dir,
    caPath: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  };
}

export interface TlsFront {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens with TLS on an ephemeral port and pipes every connection to `upstream()` (a plain TCP port on 127.0.0.1). */
export async function startTlsFront(certs: TestCertificates, upstream: () => number): Promise<TlsFront> {
  const sockets = new Set<TLSSocket>();
  const server = createServer({ key: certs.key, cert: certs.cert }, (socket) => {
    sockets.add(socket);
    const up = connect(upstream(), '127.0.0.1');
    socket.pipe(up).pipe(socket);
    const end = () => {
      socket.destroy();
      up.destroy();
      sockets.delete(socket);
    };
    socket.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  // Handshakes the client refuses (the test without --ca) are expected.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
