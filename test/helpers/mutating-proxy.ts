// A transparent proxy in front of a server that breaks one thing in its answers: the suite must notice (self-test of the
// checks). Transparent: the original Host travels upstream, as a deployment's reverse proxy would keep it, so DPoP `htu`
// checks see the URL the client used.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Mutation = (answer: Answer, request: { method: string; path: string; headers: IncomingHttpHeaders }) => Answer;

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export async function startMutatingProxy(target: string, mutate: Mutation): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    if (body.length > 0) headers['content-length'] = String(body.length);
    const answer = await new Promise<Answer>((resolve, reject) => {
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (up) => {
        const parts: Buffer[] = [];
        up.on('data', (d: Buffer) => parts.push(d));
        up.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) h[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: up.statusCode ?? 502, headers: h, body: Buffer.concat(parts).toString('utf8') });
        });
      });
      out.on('error', reject);
      out.end(body);
    });
    const mutated = mutate(answer, { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    res.writeHead(mutated.status, mutated.headers);
    res.end(mutated.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
