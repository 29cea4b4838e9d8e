// A transparent proxy in front of a server that changes its exchanges on the wire: the self-test's defects (break one
// clause, the suite must notice) and the test suite's conforming alternates (change only what the spec leaves free).
// Transparent: the original Host travels upstream, as a deployment's reverse proxy would keep it, so DPoP `htu` checks
// see the URL the client used; request bodies are streamed as they come unless a rule rewrites them; answers are streamed
// too unless a rule asks to see the body (event streams stay live).
import { request as httpsRequest } from 'node:https';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export async function startProxy(target: string, rules: ProxyRules = {}, port = 0, tls: UpstreamTls = {}): Promise<Proxy> {
  const upstream = new URL(target);
  const request = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  // Headers up to 64 KiB pass, so that the server behind decides about large ones (Node's 16 KiB limit is its choice).
  const server: Server = createServer({ maxHeaderSize: 65_536 }, async (req, res) => {
    res.sendDate = false; // the upstream Date travels
    const incoming: ProxyRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: pairs(req.rawHeaders) };
    const sent = (await rules.request?.(incoming)) ?? incoming;
    let fields = sent.headers.filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase()));
    let rewritten: Buffer | undefined;
    const hasBody = (headerOf(fields, 'content-length') ?? '0') !== '0' || headerOf(fields, 'transfer-encoding') !== undefined;
    if (rules.requestBody && hasBody && isJsonMediaType(headerOf(fields, 'content-type'))) {
      const parts: Buffer[] = [];
      for await (const chunk of req) parts.push(chunk as Buffer);
      const next = rules.requestBody(sent, Buffer.concat(parts).toString('utf8'));
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
      const buffered = !bodiless && (rules.buffer ? rules.buffer(head, incoming) : isJsonMediaType(headerOf(head.headers, 'content-type')));
      if (!buffered) {
        const answer = rules.response?.(head, incoming) ?? head;
        let headers = answer.headers.filter(([k]) => k.toLowerCase() !== 'transfer-encoding');
        if (rules.chunked && !bodiless) headers = withoutHeader(headers, 'content-length');
        res.writeHead(answer.status, headers.flat());
        // The head goes on at once, as a reverse proxy forwards it: an event stream may send its first bytes much later.
        if (!bodiless) res.flushHeaders();
        const filter = bodiless ? undefined : rules.streamFilter?.(head, incoming);
        if (filter) {
          up.on('data', (d: Buffer) => {
            const out = filter(d);
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
        const answer = rules.response?.({ ...head, body: Buffer.concat(parts).toString('utf8') }, incoming) ?? {
          ...head,
          body: Buffer.concat(parts).toString('utf8'),
        };
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
  });
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
