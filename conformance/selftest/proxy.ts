// A transparent proxy in front of a server that changes its exchanges on the wire: the self-test's defects (break one
// clause, the suite must notice) and the test suite's conforming alternates (change only what the spec leaves free).
// Transparent: the original Host travels upstream, as a deployment's reverse proxy would keep it, so DPoP `htu` checks
// see the URL the client used; request bodies are streamed as they come unless a rule rewrites them; answers are streamed
// too unless a rule asks to see the body (event streams stay live).
import { request as httpsRequest } from 'node:https';
import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

/** Header field lines in order, names as written, repeated names kept (one line each). */
export type Fields = [name: string, value: string][];

export interface ProxyRequest {
  method: string;
  path: string;
  headers: Fields;
}

export interface ProxyAnswer {
  status: number;
  headers: Fields;
  /** The whole body as text, when the answer was buffered (see ProxyRules.buffer); undefined when it streams through. */
  body?: string;
}

export interface ProxyRules {
  /** Rewrites the request line and header fields before they go upstream (the body is piped as it comes). */
  request?(req: ProxyRequest): ProxyRequest | Promise<ProxyRequest>;
  /**
   * Rewrites a JSON request body (`req` as it goes upstream). Such a body is buffered, not piped, and goes upstream with
   * its new Content-Length. Returning `{ body, headers }` replaces the request's header fields too (a leniency defect that
   * signs what it lets through).
   */
  requestBody?(req: ProxyRequest, body: string): string | { body: string; headers: Fields };
  /** Which answers are buffered so that `response` sees (and may replace) the body. Default: JSON media types. */
  buffer?(answer: ProxyAnswer, req: ProxyRequest): boolean;
  /** Rewrites the status, the header fields and, when buffered, the body. */
  response?(answer: ProxyAnswer, req: ProxyRequest): ProxyAnswer;
  /**
   * For an answer that streams through (not buffered): a filter of its chunks as they come (an event stream stays live;
   * the filter may hold back a partial line until its end arrives). Undefined leaves the answer piped as it is.
   */
  streamFilter?(answer: ProxyAnswer, req: ProxyRequest): ((chunk: Buffer) => Buffer) | undefined;
  /** Every body goes out with Transfer-Encoding: chunked and no Content-Length, in several chunks. */
  chunked?: boolean;
  /** Who wrote these rules (a defect's id): named in the log when one of them throws. */
  label?: string;
}

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

// Connection-level fields are the proxy's own on each hop. Content-Length and Transfer-Encoding of requests travel (the
// body is piped with the client's framing); those of answers are recomputed.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);
const FRAMING = new Set(['content-length', 'transfer-encoding']);

export const headerOf = (fields: Fields, name: string): string | undefined =>
  fields.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
export const withoutHeader = (fields: Fields, name: string): Fields => fields.filter(([k]) => k.toLowerCase() !== name.toLowerCase());
/** Replaces every line of `name` by one line, where the first was (appended when there was none). */
export function withHeader(fields: Fields, name: string, value: string): Fields {
  const at = fields.findIndex(([k]) => k.toLowerCase() === name.toLowerCase());
  const rest = withoutHeader(fields, name);
  rest.splice(at < 0 ? rest.length : at, 0, [name, value]);
  return rest;
}
export const mapHeader = (fields: Fields, name: string, map: (value: string) => string): Fields =>
  fields.map(([k, v]) => (k.toLowerCase() === name.toLowerCase() ? [k, map(v)] : [k, v]));

const pairs = (raw: string[]): Fields => {
  const out: Fields = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
};

export const isJsonMediaType = (contentType: string | undefined): boolean =>
  /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType ?? '');

const noBody = (method: string, status: number) => method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);

/** TLS to an HTTPS upstream: a private CA's PEM bundle, or no verification at all (tests only). */
export interface UpstreamTls {
  ca?: string;
  insecure?: boolean;
}

/** The TLS options of a request to an HTTPS upstream (none for plain HTTP). */
const tlsOptions = (upstream: URL, tls: UpstreamTls) =>
  upstream.protocol === 'https:'
    ? { servername: upstream.hostname, ...(tls.ca ? { ca: tls.ca } : {}), rejectUnauthorized: !tls.insecure }
    : {};

/** One request straight to the upstream (a stateful defect preparing what it then shows); its answer, or the error. */
export function sendUpstream(
  target: string,
  tls: UpstreamTls = {},
): (req: { method: string; path: string; headers: Record<string, string>; body?: string }) => Promise<{ status: number; body: string }> {
  const upstream = new URL(target);
  const request = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  return (req) =>
    new Promise((resolve, reject) => {
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.path,
          headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
          ...tlsOptions(upstream, tls),
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(req.body);
    });
}

/** How the proxy reaches its upstream: Node's request function of the target's scheme (or a test's stand-in). */
export type Transport = (options: RequestOptions) => ClientRequest;

/** The problem document a rewrite that threw is answered with: the exchange fails, the proxy stays up. */
export function rewriteFailed(label: string, phase: string, err: unknown, upstream: Fields = []): ProxyAnswer {
  const detail = `the rewrite of ${label} threw on the ${phase}: ${err instanceof Error ? err.message : String(err)}`;
  return {
    status: 502,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Cache-Control', 'no-store'],
      ...upstream.filter(([k]) => k.toLowerCase() === 'x-request-id'),
    ],
    body: JSON.stringify({ type: 'about:blank', title: 'Bad Gateway', status: 502, error: 'rewrite_failed', detail }),
  };
}

/**
 * The proxy's request handler. A rule that throws (or rejects) fails its exchange alone: the answer is 502 with a problem
 * document and `log` names the rules' label; once the head of an answer has gone out, the connection is cut instead.
 */
export function proxyHandler(
  target: string,
  rules: ProxyRules = {},
  tls: UpstreamTls = {},
  transport?: Transport,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const upstream = new URL(target);
  const request: Transport = transport ?? (upstream.protocol === 'https:' ? httpsRequest : httpRequest);
  const label = rules.label ?? 'an unnamed rule set';
  /** Answers the failure of a rule (once: a later failure of the same exchange is only logged). */
  const failed = (res: ServerResponse, phase: string, err: unknown, upstreamHeaders: Fields = []) => {
    log(`self-test proxy: ${label}: its ${phase} rewrite threw: ${err instanceof Error ? err.message : String(err)}`);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const answer = rewriteFailed(label, phase, err, upstreamHeaders);
    const body = Buffer.from(answer.body ?? '', 'utf8');
    res.writeHead(answer.status, [...answer.headers, ['Content-Length', String(body.length)]].flat());
    res.end(body);
  };
  return async (req, res) => {
    res.sendDate = false; // the upstream Date travels
    const incoming: ProxyRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: pairs(req.rawHeaders) };
    let sent: ProxyRequest;
    try {
      sent = (await rules.request?.(incoming)) ?? incoming;
    } catch (err) {
      req.resume();
      failed(res, 'request', err);
      return;
    }
    let fields = sent.headers.filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase()));
    let rewritten: Buffer | undefined;
    const hasBody = (headerOf(fields, 'content-length') ?? '0') !== '0' || headerOf(fields, 'transfer-encoding') !== undefined;
    if (rules.requestBody && hasBody && isJsonMediaType(headerOf(fields, 'content-type'))) {
      const parts: Buffer[] = [];
      for await (const chunk of req) parts.push(chunk as Buffer);
      let next: ReturnType<NonNullable<ProxyRules['requestBody']>>;
      try {
        next = rules.requestBody(sent, Buffer.concat(parts).toString('utf8'));
      } catch (err) {
        failed(res, 'request body', err);
        return;
      }
      if (typeof next !== 'string') fields = next.headers.filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase()));
      rewritten = Buffer.from(typeof next === 'string' ? next : next.body, 'utf8');
      fields = [...fields.filter(([k]) => !FRAMING.has(k.toLowerCase())), ['Content-Length', String(rewritten.length)]];
    }
    const out = request({
      host: upstream.hostname,
      port: upstream.port,
      method: sent.method,
      path: sent.path,
      headers: fields.flat(),
      maxHeaderSize: 65_536,
      ...tlsOptions(upstream, tls),
    });
    const abandon = () => {
      out.destroy();
      res.destroy();
    };
    let answered = false;
    out.on('error', () => {
      // An upstream that answered early may close while the rest of the body is still coming: the answer stands.
      req.unpipe(out);
      req.resume();
      if (answered) return;
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    req.on('error', abandon);
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    if (rewritten) out.end(rewritten);
    else req.pipe(out);
    out.on('response', (up: IncomingMessage) => {
      answered = true;
      const head: ProxyAnswer = {
        status: up.statusCode ?? 502,
        headers: pairs(up.rawHeaders).filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase())),
      };
      const bodiless = noBody(incoming.method, head.status);
      let buffered: boolean;
      try {
        buffered = !bodiless && (rules.buffer ? rules.buffer(head, incoming) : isJsonMediaType(headerOf(head.headers, 'content-type')));
      } catch (err) {
        up.resume();
        failed(res, 'buffer', err, head.headers);
        return;
      }
      if (!buffered) {
        let answer: ProxyAnswer;
        let filter: ((chunk: Buffer) => Buffer) | undefined;
        try {
          answer = rules.response?.(head, incoming) ?? head;
          filter = bodiless ? undefined : rules.streamFilter?.(head, incoming);
        } catch (err) {
          up.resume();
          failed(res, 'response', err, head.headers);
          return;
        }
        let headers = answer.headers.filter(([k]) => k.toLowerCase() !== 'transfer-encoding');
        if (rules.chunked && !bodiless) headers = withoutHeader(headers, 'content-length');
        res.writeHead(answer.status, headers.flat());
        // The head goes on at once, as a reverse proxy forwards it: an event stream may send its first bytes much later.
        if (!bodiless) res.flushHeaders();
        if (filter) {
          up.on('data', (d: Buffer) => {
            let out: Buffer;
            try {
              out = filter(d);
            } catch (err) {
              up.destroy();
              failed(res, 'stream', err);
              return;
            }
            if (out.length > 0) res.write(out);
          });
          up.on('end', () => res.end());
        } else up.pipe(res);
        up.on('error', abandon);
        return;
      }
      const parts: Buffer[] = [];
      up.on('data', (d: Buffer) => parts.push(d));
      up.on('error', abandon);
      up.on('end', () => {
        const whole: ProxyAnswer = { ...head, body: Buffer.concat(parts).toString('utf8') };
        let answer: ProxyAnswer;
        try {
          answer = rules.response?.(whole, incoming) ?? whole;
        } catch (err) {
          failed(res, 'response', err, head.headers);
          return;
        }
        const body = Buffer.from(answer.body ?? '', 'utf8');
        let headers = answer.headers.filter(([k]) => !FRAMING.has(k.toLowerCase()));
        if (!rules.chunked) headers = [...headers, ['Content-Length', String(body.length)]];
        res.writeHead(answer.status, headers.flat());
        if (!rules.chunked) {
          res.end(body);
          return;
        }
        // Several chunks, so that a client that reads only the first one would notice.
        res.flushHeaders();
        const step = Math.max(1, Math.ceil(body.length / 3));
        for (let at = 0; at < body.length; at += step) res.write(body.subarray(at, at + step));
        res.end();
      });
    });
  };
}

export async function startProxy(target: string, rules: ProxyRules = {}, port = 0, tls: UpstreamTls = {}): Promise<Proxy> {
  // Headers up to 1 MiB pass, so that the server behind decides about large ones (Node's 16 KiB limit is its choice).
  const server: Server = createServer({ maxHeaderSize: 1 << 20 }, proxyHandler(target, rules, tls));
  // Transparent for what the proxy's own HTTP parser would refuse or answer: an expectation other than 100-continue goes
  // on like any request, and a request it cannot parse (conflicting Content-Length, a malformed field) is relayed as
  // bytes, so that the server behind answers it as it would without the proxy.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  server.on('clientError', (err: Error & { rawPacket?: Buffer }, socket: Duplex) => relayUnparsed(target, tls, err.rawPacket, socket));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Sends bytes the proxy could not parse to the server behind, and its answer back, on a connection of their own. */
function relayUnparsed(target: string, tls: UpstreamTls, raw: Buffer | undefined, socket: Duplex): void {
  if (!raw || raw.length === 0 || !socket.writable) {
    socket.destroy();
    return;
  }
  const u = new URL(target);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const upstream =
    u.protocol === 'https:'
      ? tlsConnect({ host: u.hostname, port, servername: u.hostname, ...(tls.ca ? { ca: tls.ca } : {}), rejectUnauthorized: !tls.insecure })
      : netConnect(port, u.hostname);
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
  upstream.write(raw);
  upstream.pipe(socket);
}

// ------------------------------------------------------------------------------ the self-test's one-mutation proxy

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Mutation = (answer: Answer, request: { method: string; path: string; headers: IncomingHttpHeaders }) => Answer;

/**
 * Every answer but an event stream buffered and handed to `mutate` with its headers as one lowercased record (repeated
 * fields joined with ", ", as fetch shows them).
 */
export function startMutatingProxy(target: string, mutate: Mutation): Promise<Proxy> {
  return startProxy(target, {
    buffer: (answer) => !/^text\/event-stream/i.test(headerOf(answer.headers, 'content-type') ?? ''),
    response(answer, req) {
      const headers: Record<string, string> = {};
      for (const [k, v] of answer.headers)
        headers[k.toLowerCase()] = headers[k.toLowerCase()] === undefined ? v : `${headers[k.toLowerCase()]}, ${v}`;
      const incoming: IncomingHttpHeaders = {};
      for (const [k, v] of req.headers) incoming[k.toLowerCase()] = v;
      const mutated = mutate(
        { status: answer.status, headers, body: answer.body ?? '' },
        { method: req.method, path: req.path, headers: incoming },
      );
      return { status: mutated.status, headers: Object.entries(mutated.headers), body: mutated.body };
    },
  });
}
