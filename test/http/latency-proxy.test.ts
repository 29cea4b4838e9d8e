// The latency proxy (test/helpers/latency-proxy.ts) delays as a link far away does, and the suite's transport
// (conformance/engine/transport/http.ts) keeps connections across its clients and holds requests in flight within the cap.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { startLatencyProxy, type LatencyProxy } from '../helpers/latency-proxy.js';
import { ShopHttp } from '../../conformance/engine/transport/http.js';

const RTT = 100;
let server: Server;
let origin: string;
let proxy: LatencyProxy;
let inFlight = 0;
let mostInFlight = 0;
let connections = 0;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': first\n\n');
      setTimeout(() => res.end(': second\n\n'), 600);
      return;
    }
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.end('ok');
    }, 30);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy = await startLatencyProxy(origin, RTT);
});

after(async () => {
  await proxy.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const timed = async (f: () => Promise<unknown>) => {
  const started = performance.now();
  await f();
  return performance.now() - started;
};

test('a new connection costs a round trip before its first byte; clients of one process share a kept connection', async () => {
  const a = new ShopHttp(proxy.url);
  const b = new ShopHttp(proxy.url);
  const opened = proxy.connections();
  const first = await timed(() => a.get('/x'));
  a.close();
  const second = await timed(() => b.get('/x'));
  b.close();
  assert.ok(first >= 2 * RTT, `first request ${first.toFixed(0)} ms`);
  // Delays are floors (a busy machine only adds to them): the kept connection is shown by the proxy's count.
  assert.ok(second >= RTT, `second request ${second.toFixed(0)} ms`);
  assert.equal(proxy.connections() - opened, 1);
});

test('a stream passes unbuffered: its first piece arrives long before the server writes the next', async () => {
  const http = new ShopHttp(proxy.url);
  const stream = await http.stream('GET', '/stream');
  const firstMs = await stream.until((t) => t.includes('first'), 2000);
  assert.notEqual(firstMs, null);
  assert.ok(!stream.text().includes('second'), stream.text());
  const secondMs = await stream.until((t) => t.includes('second'), 2000);
  assert.ok(secondMs !== null && secondMs - firstMs! >= 500, `${firstMs} then ${secondMs}`);
  http.close();
});

test('the cap holds requests in flight across the clients of a process; without it they all go at once', async () => {
  mostInFlight = 0;
  const free = new ShopHttp(origin);
  await Promise.all(Array.from({ length: 12 }, () => free.get('/slow')));
  assert.ok(mostInFlight > 3, `uncapped: ${mostInFlight}`);
  mostInFlight = 0;
  const capped = [new ShopHttp(origin, {}, { maxInFlight: 3 }), new ShopHttp(origin, {}, { maxInFlight: 3 })];
  await Promise.all(Array.from({ length: 24 }, (_, i) => capped[i % 2]!.get('/slow')));
  assert.equal(mostInFlight, 3);
  // An open stream holds no place: with every place taken once, a stream stays open while requests go on.
  const stream = await capped[0]!.stream('GET', '/stream');
  await Promise.all(Array.from({ length: 6 }, () => capped[1]!.get('/slow')));
  stream.close();
  free.close();
  capped.forEach((c) => c.close());
  assert.ok(connections > 0);
});

test('a request on kept connections the server has all closed is sent once more, on a new connection', async () => {
  // Answers the first request of each connection and keeps it; resets it at the next, as a server whose keep-alive
  // timeout fired while the request was on its way.
  const sockets = new Set<Socket>();
  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    let answered = false;
    socket.on('data', (d) => {
      if (!d.includes('\r\n\r\n')) return;
      if (answered) return void socket.resetAndDestroy();
      answered = true;
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const http = new ShopHttp(`http://127.0.0.1:${(tcp.address() as { port: number }).port}`);
  try {
    // Two connections kept, both stale for their next request.
    await Promise.all([http.get('/a'), http.get('/b')]);
    const again = await http.get('/c');
    assert.equal(again.status, 200);
    assert.equal(again.text, 'ok');
  } finally {
    http.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => tcp.close(r));
  }
});
