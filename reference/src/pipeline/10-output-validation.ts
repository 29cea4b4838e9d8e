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

export function outputValidationStage(): RequestHandler {
  return async (req, res) => {
    const ctx = contextAt(res, 'handled');
    const { route, result } = ctx;
    const headers = { ...result.headers, ...(ctx.dpopNonce ? { 'DPoP-Nonce': ctx.dpopNonce } : {}) };
    if (result.stream) {
      // Event streams: the headers of any success, then the stream; nothing is validated but what the producer writes.
      await result.stream(openEventStream(res, { status: result.status, keepAliveMs: ctx.domain.config.eventStreamKeepAliveMs, headers }));
      return;
    }
    res.set(headers);
    if (route.success.schema === null || result.status === 204) {
      res.status(result.status).end();
      return;
    }
    const checked = route.success.schema.safeParse(result.body);
    if (!checked.success) {
      throw new Error(`output of ${route.operation.operationId} does not match its schema: ${checked.error.issues[0]?.message}`);
    }
    const json = JSON.stringify(checked.data);
    if (route.validators) {
      const etag = weakEtag(json);
      res.set('ETag', etag);
      res.set('Cache-Control', 'private, no-cache');
      if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchHits(req, etag)) {
        res.status(304).end();
        return;
      }
    }
    res.status(result.status).type('application/json').send(json);
  };
}
