// The suite's one HTTP client (conformance/engine/transport/http.ts) against small loopback servers: what goes on the wire (raw and
// repeated header fields, chunked and held bodies, a declared length not sent), streamed answers, no redirects, timeouts,
// and TLS with a private CA. And the rule that makes it the only one: no other transport in conformance/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { ShopHttp } from '../../conformance/engine/transport/http.js';
import { makeTestCertificates } from '../helpers/tls.js';

interface Seen {
  method: string;
  rawHeaders: string[];
  body: string;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const header = (seen: Seen, name: string) =>
  seen.rawHeaders.filter((_, i) => i % 2 === 0 && seen.rawHeaders[i]!.toLowerCase() === name).length;

describe('ShopHttp over node:http', () => {
  let server: Server;
  let http: ShopHttp;
  const seen: Seen[] = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/redirect': (_req, res) => res.writeHead(302, { location: '/echo' }).end(),
    '/silent': () => undefined,
    // Answers on the declared length alone, before any body arrives.
    '/early': (req, res) => {
      if (Number(req.headers['content-length']) > 100)
        res.writeHead(413, { 'content-type': 'application/problem+json', connection: 'close' }).end('{"error":"payload_too_large"}');
    },
    '/events': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
      setTimeout(() => res.write('data: {"n":1}\n\n'), 50);
    },
  };

  before(async () => {
    server = createServer((req, res) => {
      const route = routes[req.url ?? ''];
      if (route) return route(req, res);
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', rawHeaders: req.rawHeaders, body });
        res.writeHead(200, { 'content-type': 'application/json', 'x-twice': 'a' }).end(JSON.stringify({ got: body.length }));
      });
    });
    http = new ShopHttp(`http://${await listen(server)}`);
  });
  after(() => {
    http.close();
    server.closeAllConnections();
    server.close();
  });

  test('JSON bodies keep the ShopResponse shape and the transcript', async () => {
    const res = await http.post('/echo', { json: { a: 1 }, token: 'tok' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { got: 7 });
    assert.equal(res.headers.get('content-type'), 'application/json');
    const s = seen.at(-1)!;
    assert.equal(s.body, '{"a":1}');
    assert.equal(header(s, 'content-length'), 1);
    const x = http.exchanges.at(-1)!;
    assert.deepEqual([x.method, x.status, x.requestHeaders.authorization, x.requestBody], ['POST', 200, 'Bearer tok', '{"a":1}']);
  });

  test('raw header fields go out as listed: a repeated name stays two fields', async () => {
    await http.request('GET', '/echo', {
      rawHeaders: [
        ['dpop', 'one'],
        ['dpop', 'two'],
      ],
    });
    assert.equal(header(seen.at(-1)!, 'dpop'), 2);
    assert.equal(http.exchanges.at(-1)!.requestHeaders.dpop, 'one ⏎ dpop: two');
  });

  test('chunks go out with Transfer-Encoding: chunked and no Content-Length', async () => {
    const res = await http.post('/echo', { chunks: ['{"a":', '"b"}'], headers: { 'content-type': 'application/json' } });
    assert.deepEqual(res.body, { got: 9 });
    const s = seen.at(-1)!;
    assert.equal(header(s, 'content-length'), 0);
    assert.match(s.rawHeaders.join(' '), /transfer-encoding chunked/i);
    assert.equal(http.exchanges.at(-1)!.requestBody, '<9 bytes, chunked, no Content-Length>');
  });

  test('a declared Content-Length with less body and the request left open: the early answer arrives', async () => {
    const res = await http.post('/early', { headers: { 'content-length': '65537' }, body: '{"text":"', hold: true, timeoutMs: 3000 });
    assert.equal(res.status, 413);
    assert.equal(res.body.error, 'payload_too_large');
  });

  test('redirects are not followed', async () => {
    const res = await http.get('/redirect');
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/echo');
  });

  test('no answer within the timeout: a one-line error, recorded in the transcript', async () => {
    await assert.rejects(http.get('/silent', { timeoutMs: 200 }), /GET http:\/\/127\.0\.0\.1:\d+\/silent: no answer within 0\.2 s/);
    assert.equal(http.exchanges.at(-1)!.error, 'no answer within 0.2 s');
    // The request is torn down at the deadline, not left waiting on its connection.
    await new Promise((r) => setTimeout(r, 100));
    const open = await new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    assert.equal(open, 0);
  });

  test('streamed answers are read as they come, with a timeout, and closed by the caller', async () => {
    const stream = await http.stream('GET', '/events');
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    assert.notEqual(await stream.until((t) => t.includes(': hello'), 1000), null);
    assert.notEqual(await stream.until((t) => t.includes('data: {"n":1}'), 1000), null);
    assert.equal(await stream.until((t) => t.includes('never'), 100), null);
    stream.close();
    assert.match(http.exchanges.at(-1)!.responseBody ?? '', /data: \{"n":1\}/);
  });
});

describe('ShopHttp over TLS with a private CA', () => {
  const certs = makeTestCertificates();
  const server = createHttpsServer({ key: certs.key, cert: certs.cert }, (_req, res) => res.end('ok'));
  let origin = '';
  before(async () => {
    origin = `https://${await listen(server)}`;
  });
  after(() => server.close());

  test('trusted with the CA, refused without it, accepted with insecure', async () => {
    const withCa = new ShopHttp(origin, { ca: readFileSync(certs.caPath, 'utf8') });
    assert.equal((await withCa.get('/')).text, 'ok');
    const without = new ShopHttp(origin);
    await assert.rejects(without.get('/'), (err: Error & { code?: string }) => err.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    const insecure = new ShopHttp(origin, { insecure: true });
    assert.equal((await insecure.get('/')).status, 200);
    for (const h of [withCa, without, insecure]) h.close();
    server.closeAllConnections();
  });
});

test('one transport: nothing in conformance/ but engine/transport/wire.ts opens HTTP connections (engine/doctor/idp.ts serves; the self-test proxy forwards)', () => {
  const root = new URL('../../conformance', import.meta.url).pathname;
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(root, f));
  // The self-test's proxy is a server in front of the target, not the suite's client: it forwards what the checks send.
  const allowed: Record<string, RegExp> = {
    'engine/transport/wire.ts': /node:https?/,
    'engine/doctor/idp.ts': /node:http'/,
    // It relays as bytes what its own HTTP parser refuses (node:net, node:tls), so that the target answers it.
    'selftest/proxy.ts': /node:(?:https?|net|tls)'/,
    // The browser check: a page server on another origin, and the page's own fetch inside Chromium (PUR-PROTO-3).
    'engine/transport/browser.ts': /node:http'|fetch\(/,
    // The workers' pool of places in flight: a local socket between the CLI and its workers, never the target.
    'engine/runner/in-flight-pool.ts': /node:net'/,
  };
  const offenders: string[] = [];
  for (const file of files) {
    const name = relative(root, file);
    // Comments and type-only imports open nothing.
    const source = readFileSync(file, 'utf8')
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/^import type .*$/gm, '');
    for (const m of source.matchAll(/\bfetch\(|from 'node:(?:https?|http2|net|tls)'|from 'undici'/g)) {
      if (!allowed[name]?.test(m[0])) offenders.push(`${name}: ${m[0]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
