// Stage "output validation": the handler's body must match the route's published schema; a mismatch is our bug and
// answers 500 `internal_error`. Catalog reads get their validators and 304s here.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { contextAt } from './context.js';
import { openEventStream } from '../sse.js';

export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** Weak comparison (RFC 9110 §13.1.2): `*` or any listed tag whose opaque part matches. */
export function ifNoneMatchHits(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => opaque(t) === opaque(etag));
}

type Schema = { safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: { message: string }[] } } };

/** What a frozen body rendered to, per schema: a store's cached read (store/catalog.ts) is validated and hashed once. */
const RENDERED = new WeakMap<object, { schema: Schema; json: string; etag: string | undefined }>();

function render(schema: Schema, body: unknown, operationId: string, validators: boolean): { json: string; etag: string | undefined } {
  const frozen = body !== null && typeof body === 'object' && Object.isFrozen(body);
  const known = frozen ? RENDERED.get(body) : undefined;
  if (known && known.schema === schema && (known.etag !== undefined) === validators) return known;
  const checked = schema.safeParse(body);
  if (!checked.success) throw new Error(`output of ${operationId} does not match its schema: ${checked.error.issues[0]?.message}`);
  const json = JSON.stringify(checked.data);
  const rendered = { schema, json, etag: validators ? weakEtag(json) : undefined };
  if (frozen) RENDERED.set(body, rendered);
  return rendered;
}

export function outputValidationStage(): RequestHandler {
  return async (req, res) => {
    const ctx = contextAt(res, 'handled');
    const { route, result } = ctx;
    const headers = { ...result.headers, ...(ctx.dpopNonce ? { 'DPoP-Nonce': ctx.dpopNonce } : {}) };
    if (result.stream) {
      // Event streams: the headers of any success, then the stream; nothing is validated but what the producer writes.
      // [EVT-STREAM-1] [LIM-STREAM-1] an event stream gets a keep-alive comment every keepAliveMs (15 s).
      await result.stream(openEventStream(res, { status: result.status, keepAliveMs: ctx.domain.config.eventStreamKeepAliveMs, headers }));
      return;
    }
    res.set(headers);
    // [END-CONV-3] a delete answers 204 with no body.
    if (route.success.schema === null || result.status === 204) {
      res.status(result.status).end();
      return;
    }
    const { json, etag } = render(route.success.schema, result.body, route.operation.operationId, route.validators);
    if (etag !== undefined) {
      // [END-CONV-6] [END-CONV-7] catalog reads carry a weak ETag and Cache-Control: private, no-cache.
      res.set('ETag', etag);
      res.set('Cache-Control', 'private, no-cache');
      // [END-CONV-8] a matching If-None-Match: 304 with no body.
      if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchHits(req, etag)) {
        res.status(304).end();
        return;
      }
    }
    // What Express's send would do for a JSON string, without its content negotiation and freshness work (validators are
    // ours, above): most of a cheap read's framework cost.
    res.statusCode = result.status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(json));
    res.end(req.method === 'HEAD' ? undefined : json);
  };
}
