// A deployment far away: a TCP proxy that delays every byte by half a round trip in each direction and each new
// connection by one round trip (the TCP handshake a client pays before its first byte reaches a remote server), as a
// staging deployment in another region answers. Bytes are forwarded as they come, in order, each piece after its own
// delay (never gathered into a whole request or answer), so event streams, early answers and bodies sent in chunks behave
// as over a long link. HTTP and TLS pass through unchanged: it does not parse what it carries.
import { connect, createServer, type Socket } from 'node:net';

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: the proxy's address, for `run --base-url`. */
  readonly url: string;
  readonly port: number;
  /** Connections opened through the proxy so far (each paid one round trip before its first byte). */
  readonly connections: () => number;
  close(): Promise<void>;
}

/**
 * Pipes `from` into `to`, each chunk `delayMs` after it arrived; the end follows the last chunk. One timer per chunk
 * keeps the order (same delay, timers fire in order) and never holds a chunk back for the next.
 */
function delayedPipe(from: Socket, to: Socket, delayMs: number): void {
  const later = (f: () => void) => (delayMs > 0 ? setTimeout(f, delayMs) : setImmediate(f));
  from.on('data', (chunk: Buffer) => later(() => !to.destroyed && to.write(chunk)));
  from.on('end', () => later(() => !to.destroyed && to.end()));
  // A reset travels at the speed of the link too.
  from.on('error', () => later(() => to.destroy()));
  from.on('close', (hadError) => hadError && later(() => to.destroy()));
}

/** Starts the proxy in front of `target` (`http(s)://host:port`) with the given round trip in milliseconds. */
export async function startLatencyProxy(target: string, roundTripMs: number): Promise<LatencyProxy> {
  const upstream = new URL(target);
  const port = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
  const sockets = new Set<Socket>();
  let opened = 0;
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    opened++;
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    // The handshake's round trip: nothing reaches the server before it, and the client's first bytes wait with it.
    const open = () => {
      if (client.destroyed) return;
      const server = connect({ host: upstream.hostname, port, noDelay: true, allowHalfOpen: true });
      sockets.add(server);
      server.once('close', () => sockets.delete(server));
      server.on('error', () => undefined);
      server.setNoDelay(true);
      client.setNoDelay(true);
      delayedPipe(client, server, roundTripMs / 2);
      delayedPipe(server, client, roundTripMs / 2);
      client.resume();
    };
    if (roundTripMs > 0) setTimeout(open, roundTripMs);
    else open();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const scheme = upstream.protocol === 'https:' ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${address.port}`,
    port: address.port,
    connections: () => opened,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
