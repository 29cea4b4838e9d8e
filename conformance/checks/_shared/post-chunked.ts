// A POST whose body is sent with `Transfer-Encoding: chunked` and no Content-Length, through the suite's one transport
// (engine/transport/http.ts): how a bounded reader (rather than a Content-Length check) is seen from outside.
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';

/**
 * POSTs `body` with `Transfer-Encoding: chunked` and no Content-Length, in 1 KiB chunks; with `hold` the request is left
 * open after the last chunk, so only a server that answers without waiting for the end answers at all.
 */
export function postChunked(
  shop: Shop,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  o: { hold?: boolean } = {},
): Promise<ShopResponse> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += 1024) chunks.push(body.subarray(at, at + 1024));
  return shop.http.request('POST', path, {
    headers: { 'content-type': 'application/json', ...headers },
    chunks,
    hold: o.hold ?? false,
    timeoutMs: 10_000,
  });
}
