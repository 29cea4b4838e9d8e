// The suite's one HTTP client: every request a check or the doctor makes goes through ShopHttp, so that TLS options (a
// private CA, --insecure) apply everywhere and every exchange is recorded for the transcript. Redirects are never followed.
// Connections (and TLS sessions) are kept alive and shared by every client of the process, so that a check against a
// remote deployment does not pay a new handshake; the process's in-flight gate (in-flight.ts) caps what it sends at once.
import type { HttpResult } from '../../lib/assert.js';
import type { Exchange } from './transcript.js';
import { SUITE_VERSION } from '../report/version.js';
import { processGate, type InFlightGate } from './in-flight.js';
import { poolBorrower } from '../runner/in-flight-pool.js';
import { Agents, describeError, headersOf, sendWire, type Chunk, type HeaderField, type TlsOptions, type WireHead } from './wire.js';

export type { Chunk, HeaderField, TlsOptions };

export interface ShopResponse extends HttpResult {
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string | undefined>;
  /** Header fields sent exactly as listed, after `headers`: repeated names stay separate fields. */
  rawHeaders?: readonly HeaderField[];
  /** Serialised as JSON with Content-Type: application/json unless a content-type header is given. */
  json?: unknown;
  /** Raw body, sent as is (with its Content-Length unless the caller declares one). */
  body?: string | Uint8Array;
  /** A body sent chunk by chunk with Transfer-Encoding: chunked and no Content-Length. */
  chunks?: Iterable<Chunk> | AsyncIterable<Chunk>;
  /** Leave the request open after its body: only an answer that does not wait for the end arrives. */
  hold?: boolean;
  /** Bearer token shorthand. */
  token?: string;
  /** For the whole exchange (request()) or until the response head (stream()); 15 s by default. */
  timeoutMs?: number;
  /**
   * Send the path exactly as given (after the base URL's own path), not normalised by URL parsing: a backslash or an
   * empty segment reaches the server as written; a URL in absolute form is sent as the request-target (RFC 9112 3.2.2).
   */
  asWritten?: boolean;
}

/** A response read incrementally (event streams): the head at once, the body as it comes. */
export interface ShopStream {
  readonly status: number;
  readonly headers: Headers;
  /** ms from sending the request to the response head. */
  readonly headMs: number;
  /** Everything read so far. */
  text(): string;
  ended(): boolean;
  /** Waits until the text satisfies `predicate`; resolves with the ms since the response head, or null on timeout/end. */
  until(predicate: (text: string) => boolean, timeoutMs: number): Promise<number | null>;
  /** Reads to the end (at most `timeoutMs`, 15 s by default) and hands back the whole answer. */
  response(timeoutMs?: number): Promise<ShopResponse>;
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The process's keep-alive agents, one per TLS setting: every client of the process reuses their connections. */
const sharedAgents = new Map<string, Agents>();
function agentsFor(tls: TlsOptions): Agents {
  const key = `${tls.insecure ? 'insecure' : 'verify'} ${tls.ca === undefined ? '' : String(tls.ca)}`;
  let agents = sharedAgents.get(key);
  if (!agents) sharedAgents.set(key, (agents = new Agents(tls)));
  return agents;
}

export interface ClientOptions {
  /** Requests of this process in flight against the deployment at once (its share of the run's --max-in-flight); none when absent. */
  maxInFlight?: number | undefined;
  /** Where the run's pool of further places is (in-flight-pool.ts): borrowed from when this process's own are taken. */
  inFlightPool?: string | undefined;
}

const clip = (text: string) => (text.length > 4000 ? `${text.slice(0, 4000)}…` : text);

export class ShopHttp {
  readonly exchanges: Exchange[] = [];
  private readonly agents: Agents;
  private readonly gate: InFlightGate | undefined;
  /** This client's requests not yet done with: close() tears them down (streams a check left open). */
  private readonly open = new Set<WireHead['req']>();

  constructor(
    readonly baseUrl: string,
    tls: TlsOptions = {},
    o: ClientOptions = {},
  ) {
    this.agents = agentsFor(tls);
    this.gate =
      o.maxInFlight === undefined ? undefined : processGate(o.maxInFlight, o.inFlightPool ? poolBorrower(o.inFlightPool) : undefined);
  }

  url(path: string): string {
    return /^https?:/.test(path) ? path : this.baseUrl + path;
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<ShopResponse> {
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { head, x, started, timer } = await this.send(method, path, o, timeoutMs);
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const parts: Buffer[] = [];
        head.res.on('data', (d: Buffer) => parts.push(d));
        head.res.once('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        head.res.once('error', reject);
        head.res.once('close', () =>
          head.res.complete ? undefined : reject(timer.error ?? new Error('the connection closed before the end of the answer')),
        );
      });
      x.ms = Date.now() - started;
      x.responseBody = text;
      return {
        status: head.res.statusCode ?? 0,
        reason: head.res.statusMessage,
        headers: headersOf(head.res),
        body: parseJson(text),
        text,
      };
    } catch (err) {
      x.ms = Date.now() - started;
      x.error = describeError(timer.error ?? err);
      throw new Error(`${method} ${x.url}: ${x.error}`, { cause: err });
    } finally {
      timer.clear();
      this.open.delete(head.req);
      // A request left open, or answered before its body was out, cannot carry another exchange.
      if (!head.finished()) head.req.destroy();
    }
  }

  async stream(method: string, path: string, o: RequestOptions = {}): Promise<ShopStream> {
    const { head, x, started, timer } = await this.send(method, path, o, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    timer.clear();
    const headAt = Date.now();
    const status = head.res.statusCode ?? 0;
    const headers = headersOf(head.res);
    const decoder = new TextDecoder();
    let buffer = '';
    let ended = false;
    const waiters = new Set<() => void>();
    const wake = () => [...waiters].forEach((w) => w());
    head.res.on('data', (d: Buffer) => {
      buffer += decoder.decode(d, { stream: true });
      x.responseBody = clip(buffer);
      wake();
    });
    const end = () => {
      if (ended) return;
      ended = true;
      x.ms = Date.now() - started;
      wake();
    };
    head.res.once('end', end);
    head.res.once('close', end);
    head.res.on('error', () => undefined); // closed by the caller, or by the server: the text read so far stands
    const close = () => {
      this.open.delete(head.req);
      head.res.destroy();
      head.req.destroy();
    };
    const until = (predicate: (text: string) => boolean, timeoutMs: number) =>
      new Promise<number | null>((resolve) => {
        const done = (value: number | null) => {
          waiters.delete(check);
          clearTimeout(t);
          resolve(value);
        };
        const check = () => {
          if (predicate(buffer)) done(Date.now() - headAt);
          else if (ended) done(null);
        };
        const t = setTimeout(() => done(null), timeoutMs);
        waiters.add(check);
        check();
      });
    return {
      status,
      headers,
      headMs: headAt - started,
      text: () => buffer,
      ended: () => ended,
      until,
      close,
      response: async (timeoutMs = DEFAULT_TIMEOUT_MS) => {
        await until(() => false, timeoutMs);
        const complete = ended && head.res.complete;
        close();
        if (!complete) {
          x.error = ended ? 'the connection closed before the end of the answer' : `the answer did not end within ${timeoutMs / 1000} s`;
          throw new Error(`${method} ${x.url}: ${x.error}`);
        }
        return { status, reason: head.res.statusMessage, headers, body: parseJson(buffer), text: buffer };
      },
    };
  }

  get = (path: string, o?: RequestOptions) => this.request('GET', path, o);
  post = (path: string, o?: RequestOptions) => this.request('POST', path, o);
  patch = (path: string, o?: RequestOptions) => this.request('PATCH', path, o);
  delete = (path: string, o?: RequestOptions) => this.request('DELETE', path, o);

  /** Tears down what this client left open (streams, held requests); the shared kept-alive connections stay for the next. */
  close(): void {
    for (const req of this.open) req.destroy();
    this.open.clear();
  }

  /** Builds the header fields, records the exchange and sends; resolves at the response head. */
  private async send(method: string, path: string, o: RequestOptions, timeoutMs: number) {
    const url = new URL(this.url(path));
    let body: string | Uint8Array | undefined = o.body;
    const headers: Record<string, string> = {};
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    const raw = o.rawHeaders ?? [];
    const given = new Set([...Object.keys(headers), ...raw.map(([n]) => n.toLowerCase())]);
    // What a client adds on its own, unless the caller chose the field: Host, framing, Accept, User-Agent.
    const own: HeaderField[] = [];
    if (!given.has('host')) own.push(['host', url.host]);
    if (!given.has('content-length') && !given.has('transfer-encoding')) {
      if (o.chunks !== undefined) own.push(['transfer-encoding', 'chunked']);
      else if (body !== undefined)
        own.push(['content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)]);
      else if (METHODS_WITH_BODY.has(method.toUpperCase())) own.push(['content-length', '0']);
    }
    if (!given.has('accept')) own.push(['accept', '*/*']);
    if (!given.has('user-agent')) own.push(['user-agent', `shop-conformance/${SUITE_VERSION}`]);
    const fields: HeaderField[] = [...Object.entries(headers), ...raw, ...own];

    const recorded: Record<string, string> = {};
    for (const [name, value] of [...Object.entries(headers), ...raw]) {
      const k = name.toLowerCase();
      recorded[k] = recorded[k] === undefined ? value : `${recorded[k]} ⏎ ${name}: ${value}`;
    }
    // Written as given: after the base URL's own path, or whole when it is in absolute form (`http://host/path`).
    const target = !o.asWritten ? undefined : /^https?:/.test(path) ? path : `${new URL(this.baseUrl).pathname.replace(/\/$/, '')}${path}`;
    const x: Exchange = {
      method,
      url: target && !/^https?:/.test(target) ? `${url.origin}${target}` : url.href,
      requestHeaders: recorded,
      ms: 0,
    };
    const described =
      o.chunks !== undefined
        ? '<chunked body, no Content-Length>'
        : body === undefined
          ? undefined
          : typeof body === 'string'
            ? body
            : `<${body.byteLength} bytes>`;
    if (described !== undefined || o.hold) x.requestBody = `${described ?? ''}${o.hold ? ' (request left open)' : ''}`;
    this.exchanges.push(x);

    // A request left open holds no place: only an answer that does not wait for it can come, and it must not starve the
    // requests the check sends next. Waiting for a place is not part of the exchange's time, nor of its deadline.
    const release = this.gate && !o.hold ? await this.gate.acquire() : () => undefined;
    const started = Date.now();
    const chunks =
      o.chunks === undefined
        ? undefined
        : countChunks(o.chunks, (n) => (x.requestBody = `<${n} bytes, chunked, no Content-Length${o.hold ? ', request left open' : ''}>`));
    const timer = deadline(timeoutMs);
    const pending = sendWire(this.agents, { method, url, fields, body, chunks, hold: o.hold, signal: timer.signal, target });
    let head: WireHead;
    try {
      head = await Promise.race([pending, timer.expired]);
    } catch (err) {
      release();
      timer.clear();
      x.ms = Date.now() - started;
      x.error = describeError(err);
      throw Object.assign(new Error(`${method} ${url.href}: ${x.error}`, { cause: err }), { code: (err as NodeJS.ErrnoException).code });
    }
    release();
    this.open.add(head.req);
    x.ms = Date.now() - started;
    x.status = head.res.statusCode ?? 0;
    x.responseHeaders = Object.fromEntries(headersOf(head.res).entries());
    return { head, x, started, timer };
  }
}

/** After `ms`: `error` set, `signal` aborted (the request is torn down wherever it is) and `expired` rejected. */
function deadline(ms: number) {
  const controller = new AbortController();
  let t: NodeJS.Timeout | undefined;
  const state: { error?: Error; signal: AbortSignal; expired: Promise<never>; clear(): void } = {
    signal: controller.signal,
    expired: new Promise<never>((_, reject) => {
      t = setTimeout(() => {
        state.error = new Error(`no answer within ${ms / 1000} s`);
        reject(state.error);
        controller.abort(state.error);
      }, ms);
    }),
    clear: () => clearTimeout(t),
  };
  state.expired.catch(() => undefined);
  return state;
}

const sizeOf = (c: Chunk) => (typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength);

/** Reports the size of the body for the transcript: at once for an array (which stays an array, so it can be resent), else as it goes. */
function countChunks(
  chunks: Iterable<Chunk> | AsyncIterable<Chunk>,
  report: (bytes: number) => void,
): Iterable<Chunk> | AsyncIterable<Chunk> {
  if (Array.isArray(chunks)) {
    report(chunks.reduce((n: number, c: Chunk) => n + sizeOf(c), 0));
    return chunks;
  }
  return (async function* () {
    let n = 0;
    for await (const c of chunks) {
      report((n += sizeOf(c)));
      yield c;
    }
  })();
}
