// The suite's HTTP client: fetch against the base URL, every exchange recorded for the transcript.
import type { HttpResult } from '../lib/assert.js';
import type { Exchange } from './transcript.js';

export interface ShopResponse extends HttpResult {
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string | undefined>;
  /** Serialised as JSON with Content-Type: application/json unless a content-type header is given. */
  json?: unknown;
  /** Raw body, sent as is. */
  body?: string | Uint8Array;
  /** Bearer token shorthand. */
  token?: string;
  timeoutMs?: number;
}

export class ShopHttp {
  readonly exchanges: Exchange[] = [];
  constructor(readonly baseUrl: string) {}

  url(path: string): string {
    return /^https?:/.test(path) ? path : this.baseUrl + path;
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<ShopResponse> {
    const headers: Record<string, string> = {};
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
    let body: string | Uint8Array | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    const x: Exchange = {
      method,
      url: this.url(path),
      requestHeaders: headers,
      requestBody: body === undefined ? undefined : typeof body === 'string' ? body : `<${body.byteLength} bytes>`,
      ms: 0,
    };
    this.exchanges.push(x);
    const started = Date.now();
    try {
      const res = await fetch(x.url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual', signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) });
      const text = await res.text();
      x.ms = Date.now() - started;
      x.status = res.status;
      x.responseHeaders = Object.fromEntries(res.headers.entries());
      x.responseBody = text;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    } catch (err) {
      x.ms = Date.now() - started;
      x.error = (err as Error).message;
      throw err;
    }
  }

  get = (path: string, o?: RequestOptions) => this.request('GET', path, o);
  post = (path: string, o?: RequestOptions) => this.request('POST', path, o);
  patch = (path: string, o?: RequestOptions) => this.request('PATCH', path, o);
  delete = (path: string, o?: RequestOptions) => this.request('DELETE', path, o);
}
