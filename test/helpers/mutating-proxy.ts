// A proxy in front of a server that breaks one thing in its answers: the suite must notice (self-test of the checks).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Mutation = (answer: Answer, request: { method: string; path: string; headers: IncomingHttpHeaders }) => Answer;

export async function startMutatingProxy(target: string, mutate: Mutation): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    const upstream = await fetch(target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, redirect: 'manual' });
    const answer = mutate(
      { status: upstream.status, headers: Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))), body: await upstream.text() },
      { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers },
    );
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
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
