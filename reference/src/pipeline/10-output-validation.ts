// Stage "output validation": the handler's body must match the route's published schema; a mismatch is our bug and
// answers 500 `internal_error`. Catalog reads get their validators and 304s here.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { contextAt, need } from './context.js';
import { successOf, type RouteDef } from './route.js';
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

/**
 * Which success a result is checked against, an option of each route's stage (the stage table): an operation's one
 * success whatever status its handler answers ('first'); for the routes outside the operations, the success declared for
 * that status, an undeclared status being a bug of the reference ('declared'), and a result without a body no body.
 */
export type SuccessPolicy = 'first' | 'declared';

export function outputValidationStage(route: RouteDef, policy: SuccessPolicy): RequestHandler {
  return async (req, res) => {
    const ctx = contextAt(res, 'bound');
    const result = need(ctx.result, 'the handler result');
    const headers = { ...result.headers, ...(ctx.dpopNonce ? { 'DPoP-Nonce': ctx.dpopNonce } : {}) };
    if (result.stream) {
      // Event streams: the headers of any success, then the stream; nothing is validated but what the producer writes.
      // [EVT-STREAM-1] [LIM-STREAM-1] an event stream gets a keep-alive comment every keepAliveMs (15 s).
      await result.stream(openEventStream(res, { status: result.status, keepAliveMs: ctx.domain.config.eventStreamKeepAliveMs, headers }));
      return;
    }
    res.set(headers);
    const success = policy === 'first' ? successOf(route) : route.successes.find((s) => s.status === result.status);
    if (!success) throw new Error(`${route.row.operationId} answered undeclared status ${result.status}`);
    // [END-CONV-3] a delete answers 204 with no body.
    if (success.schema === null || result.status === 204 || (policy === 'declared' && result.body === undefined)) {
      res.status(result.status).end();
      return;
    }
    const { json, etag } = render(success.schema, result.body, route.row.operationId, route.validators);
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
