// One HTTP/1.1 exchange on the wire, over node:http or node:https: the header fields go out exactly as listed (repeated
// names, a declared Content-Length that the body does not match), the body as one piece or as chunks, and the request may
// be left open after its body. node:http rather than fetch: fetch joins repeated fields, cannot send a lying Content-Length
// or leave a request open, and on Node 20 cannot be given a private CA. The caller (ShopHttp) records the exchange.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type Chunk = string | Uint8Array;
export type HeaderField = readonly [name: string, value: string];

export interface TlsOptions {
  /** PEM bundle of the CAs that issued the target's certificate (a private CA), trusted instead of the system's. */
  ca?: string | Buffer | undefined;
  /** Accept any certificate (rejectUnauthorized: false). */
  insecure?: boolean | undefined;
}

export interface WireRequest {
  method: string;
  url: URL;
  /** Every header field, in order, sent as is: nothing is added (Host and framing are the caller's). */
  fields: readonly HeaderField[];
  body?: Chunk | undefined;
  chunks?: Iterable<Chunk> | AsyncIterable<Chunk> | undefined;
  /** Do not end the request after the body. */
  hold?: boolean | undefined;
  /** Aborts the request (and its response) wherever it is. */
  signal?: AbortSignal | undefined;
  /** The request-target sent as is, instead of the URL's path and query (which URL parsing normalises: `\\` to `/`). */
  target?: string | undefined;
}

export interface WireHead {
  req: ClientRequest;
  res: IncomingMessage;
  /** True once the whole request body was written and the request ended (never with hold). */
  finished(): boolean;
}

/** The agents of one client: per scheme (TLS options on the https ones), one keeping connections alive and one not. */
export class Agents {
  /** By scheme and whether they keep connections, each made when first asked for. */
  private readonly made = new Map<string, HttpAgent>();
  constructor(private readonly tls: TlsOptions = {}) {}

  private agent(url: URL, keepAlive: boolean): HttpAgent {
    const https = url.protocol === 'https:';
    const key = `${https ? 'https' : 'http'} ${keepAlive}`;
    let agent = this.made.get(key);
    if (!agent) {
      agent = https
        ? new HttpsAgent({
            keepAlive,
            ...(this.tls.ca !== undefined ? { ca: this.tls.ca } : {}),
            rejectUnauthorized: !this.tls.insecure,
          })
        : new HttpAgent({ keepAlive });
      this.made.set(key, agent);
    }
    return agent;
  }

  /** The keep-alive agent of the URL's scheme. */
  for(url: URL): HttpAgent {
    return this.agent(url, true);
  }

  /**
   * An agent that keeps nothing: each request on a connection of its own. For resending a request whose kept-alive
   * connection the server had closed while it was idle: another kept one may have been closed with it.
   */
  fresh(url: URL): HttpAgent {
    return this.agent(url, false);
  }

  destroy(): void {
    for (const agent of this.made.values()) agent.destroy();
  }
}

const isAsync = (c: WireRequest['chunks']): c is AsyncIterable<Chunk> => c !== undefined && Symbol.asyncIterator in Object(c);

/** Writes the chunks one by one, each in its own turn of the event loop, stopping when the request is gone. */
async function writeChunks(req: ClientRequest, chunks: Iterable<Chunk> | AsyncIterable<Chunk>, stop: () => boolean): Promise<void> {
  for await (const chunk of chunks) {
    if (stop()) return;
    if (!req.write(chunk)) await new Promise<void>((r) => (req.once('drain', r), req.once('close', r)));
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * Sends the request and resolves with the response head. Rejects on a connection or TLS failure before the head; errors
 * after it (a server that answered early and closed while the body was still going out) are left to the response.
 */
export function sendWire(agents: Agents, w: WireRequest): Promise<WireHead> {
  const attempt = (retry: boolean, fresh = false): Promise<WireHead> =>
    new Promise((resolve, reject) => {
      const send = w.url.protocol === 'https:' ? httpsRequest : httpRequest;
      const flat = w.fields.flatMap(([name, value]) => [name, value]);
      // The resend goes on a new connection: the idle ones may all have been closed at once (a server's keep-alive timeout).
      const agent = fresh ? agents.fresh(w.url) : agents.for(w.url);
      const options = {
        method: w.method,
        headers: flat,
        agent,
        ...(w.signal ? { signal: w.signal } : {}),
        ...(w.target ? { path: w.target } : {}),
      };
      const req = send(w.url, options);
      let responded = false;
      let finished = false;
      req.once('response', (res) => {
        responded = true;
        resolve({ req, res, finished: () => finished });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (responded) return;
        // A kept-alive connection the server closed while idle: the request never reached it, so it is sent again once.
        if (retry && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) resolve(attempt(false, true));
        else reject(err);
      });
      const stop = () => req.destroyed || responded;
      void (async () => {
        try {
          if (w.body !== undefined) req.write(w.body);
          if (w.chunks !== undefined) await writeChunks(req, w.chunks, stop);
          if (!w.hold && !req.destroyed) {
            req.end();
            finished = true;
          }
        } catch (err) {
          req.destroy(err as Error);
        }
      })();
    });
  // An async iterable cannot be replayed: no retry for it.
  return attempt(!isAsync(w.chunks));
}

/** The response's header fields as a Headers object (repeated fields appended, as fetch would show them). */
export function headersOf(res: IncomingMessage): Headers {
  const h = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A field Headers cannot hold (an invalid name or value) is left out; the transcript keeps the rest.
    }
  }
  return h;
}

/** `<message> (<code>)`: the code is what names a TLS failure (SELF_SIGNED_CERT_IN_CHAIN, ERR_TLS_CERT_ALTNAME_INVALID…). */
export function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = e?.message ?? String(err);
  return e?.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}

/** Codes of certificate failures: the target answered, but over TLS the suite does not trust. */
export function isTlsError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|EPROTO/.test(code);
}
