// A POST whose body is sent with `Transfer-Encoding: chunked` and no Content-Length, which fetch cannot send: how a
// bounded reader (rather than a Content-Length check) is seen from outside.
import http from 'node:http';
import type { Shop } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import type { Exchange } from '../../engine/transcript.js';

/**
 * POSTs `body` with `Transfer-Encoding: chunked` and no Content-Length, in 1 KiB chunks; with `hold` the request is left
 * open after the last chunk, so only a server that answers without waiting for the end answers at all. Recorded for the
 * transcript like any exchange.
 */
export function postChunked(shop: Shop, path: string, headers: Record<string, string>, body: Buffer, o: { hold?: boolean } = {}): Promise<ShopResponse> {
  const url = new URL(shop.http.url(path));
  const requestHeaders = { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers };
  const x: Exchange = { method: 'POST', url: url.href, requestHeaders, requestBody: `<${body.length} bytes, chunked, no Content-Length${o.hold ? ', request left open' : ''}>`, ms: 0 };
  shop.http.exchanges.push(x);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: requestHeaders });
    const timer = setTimeout(() => {
      x.error = 'no answer within 10 s';
      req.destroy();
      reject(new Error(`POST ${path}: no answer within 10 s to a ${body.length}-byte chunked body${o.hold ? ' (request left open)' : ''}`));
    }, 10_000);
    // A server that answers early may close the connection while chunks are still being written: the answer is judged.
    req.on('error', (err) => (x.error ??= err.message));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        clearTimeout(timer);
        x.ms = Date.now() - started;
        x.status = res.statusCode;
        x.responseBody = text;
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
        x.responseHeaders = Object.fromEntries(responseHeaders.entries());
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: parsed, text });
      });
    });
    void (async () => {
      for (let at = 0; at < body.length; at += 1024) {
        if (req.destroyed) return;
        req.write(body.subarray(at, at + 1024));
        await new Promise((r) => setImmediate(r));
      }
      if (!o.hold && !req.destroyed) req.end();
    })();
  });
}
