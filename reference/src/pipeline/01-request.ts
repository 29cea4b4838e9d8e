// Stage "request" ([AUTH-ORDER-1], the first): X-Request-Id, traceparent echo, Cache-Control: no-store by default,
// the challenge scheme chosen from the request alone; then body decoding, which fails before authentication.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { HEADERS } from '../../../contract/headers.js';
import { LIMITS } from '../../../contract/limits.js';
import { chooseScheme } from '../auth/challenge.js';
import { closeAfterAnswer } from '../drain.js';
import { boundDetail, BoundScanner, exceededBound, JSON_BOUNDS_EXCEEDED } from '../json-bounds.js';
import { ProblemError } from '../problem.js';
import type { Logger } from '../log.js';
import type { RequestContext } from './context.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** W3C Trace Context `traceparent`: version 00 exactly, later versions by prefix; all-zero ids and version ff invalid. */
export function isValidTraceparent(value: string): boolean {
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(value);
  if (!m) return false;
  const [, version, traceId, parentId, , rest] = m;
  if (version === 'ff') return false;
  if (version === '00' && rest !== undefined) return false;
  return !/^0+$/.test(traceId!) && !/^0+$/.test(parentId!);
}

export function requestStage(log: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    // [AUTH-SCHEME-6] [AUTH-ASST-5] the challenge scheme is chosen here, from the request alone, before any verification.
    const ctx: RequestContext = { requestId, scheme: chooseScheme(req.path, req.get('authorization')), scopes: new Set() };
    res.locals.ctx = ctx;
    // [AUTH-ORDER-2] [ERR-PROBLEM-7] every response, success or failure, carries X-Request-Id.
    res.set('X-Request-Id', requestId);
    // [END-CONV-9] no-store by default (catalog reads and the description documents set their own).
    res.set('Cache-Control', 'no-store');
    refuseAmbiguousFraming(req);
    const traceparent = req.get('traceparent');
    // [AUTH-ORDER-3] a valid traceparent is echoed; an invalid one is not.
    if (traceparent && isValidTraceparent(traceparent)) res.set('traceparent', traceparent);
    if (log.enabled?.('info') ?? true) {
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log.info('request', { requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
      });
    }
    next();
  };
}

/**
 * Headers a request may carry once: a second Host (RFC 9112 §3.2) or Authorization would make "first wins" a choice, and
 * Node would join two attribution headers into one value ("a@x, b@x" as an operator). Listed in docs/errors.md. Two DPoP
 * fields are a proof failure (RFC 9449 §4.3), 401 `invalid_dpop_proof` ([ERR-TABLE-4]), and two Invited-Agent-Context
 * fields a malformed credential, 401 `invalid_token`: their checkers answer them (auth/dpop.ts, admission/invited-agent.ts).
 */
export const SINGLE_HEADERS = [
  'host',
  'authorization',
  ...[HEADERS.operator, HEADERS.guestSession, HEADERS.shopperIp, HEADERS.assistantSubject].map((h) => h.toLowerCase()),
];

/**
 * An HTTP/1.1 request without Host, or with any of SINGLE_HEADERS twice, is refused with 400 before anything else reads
 * them (RFC 9112 §3.2; the server lets Host-less requests through to here: boundary.ts).
 */
function refuseAmbiguousFraming(req: Request): void {
  const counts = new Map<string, number>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (SINGLE_HEADERS.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const issues = SINGLE_HEADERS.filter((n) => (counts.get(n) ?? 0) > 1).map((n) => ({
    path: `headers.${n}`,
    code: 'duplicate',
    message: `The ${n} header may appear only once.`,
  }));
  if (req.httpVersion === '1.1' && !counts.has('host'))
    issues.push({ path: 'headers.host', code: 'required', message: 'An HTTP/1.1 request needs a Host header.' });
  if (issues.length > 0) throw new ProblemError('invalid_request', { detail: issues[0]!.message, issues });
}

/**
 * How a route's body stage treats the media type beyond `application/json`, an explicit option of each route's stage (the
 * stage table): operations decode a content coding and read `charset=` with no value as a charset (refused); the internal
 * routes read their body as it arrives, so any content coding is refused, and an empty `charset=` counts as none.
 */
export interface BodyTypePolicy {
  readonly contentEncoding: 'inflate' | 'refuse';
  readonly emptyCharset: 'refused' | 'ignored';
}

/** The operations' policy (decodeJsonStage). */
export const DECODED_BODY: BodyTypePolicy = Object.freeze({ contentEncoding: 'inflate', emptyCharset: 'refused' });
/** The internal routes' policy (the bounded body stage, 01-body-readers.ts). */
export const BOUNDED_BODY: BodyTypePolicy = Object.freeze({ contentEncoding: 'refuse', emptyCharset: 'ignored' });

/** The charset of a JSON body (lower-cased); `charset=` with no value is '' or, when ignored, the next non-empty one. */
function charsetOf(req: Request, emptyCharset: BodyTypePolicy['emptyCharset']): string | undefined {
  const pattern = emptyCharset === 'refused' ? /;\s*charset\s*=\s*"?([^";\s]*)"?/i : /;\s*charset\s*=\s*"?([^";\s]+)/i;
  const m = pattern.exec(req.get('content-type') ?? '');
  return m ? m[1]!.toLowerCase() : undefined;
}

export const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** A body's media type: JSON, UTF-8 only (RFC 8259 §8.1), under the route's policy for content codings; else 415. */
export function refuseUnsupportedBody(req: Request, policy: BodyTypePolicy): void {
  if (!hasBody(req)) return;
  // [END-CONV-5] Request bodies are JSON and need Content-Type: application/json (spec, Endpoints > Conventions).
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new ProblemError('unsupported_media_type', { detail: 'Request bodies must be sent as Content-Type: application/json.' });
  }
  const charset = charsetOf(req, policy.emptyCharset);
  const utf8 = charset === undefined || charset === 'utf-8' || charset === 'utf8';
  if (policy.contentEncoding === 'refuse') {
    const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
    if (!utf8 || encoding !== 'identity')
      throw new ProblemError('unsupported_media_type', { detail: 'Request bodies must be UTF-8 JSON without a content coding.' });
  } else if (!utf8) {
    throw new ProblemError('unsupported_media_type', { detail: 'JSON request bodies are UTF-8: no other charset is accepted.' });
  }
}

/**
 * A declared Content-Length over `limit` is refused at once (413), before any byte of the body is read: the body is never
 * waited for, and the connection closes after the answer (drain.ts: a lingering close).
 */
export function refuseDeclaredOversize(req: Request, res: Response, limit: number): void {
  const declared = req.headers['content-length'];
  // [LIM-BODY-1] [LIM-CONV-1] a declared length over the cap is refused before any byte of the body is read.
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    closeAfterAnswer(req, res);
    throw new ProblemError('payload_too_large', { detail: `The request body is over the ${limit}-byte limit (Content-Length).` });
  }
}

/** A decoding failure as body-parser types its errors; a plain record, as nobody reads its stack. */
const decodingError = (type: string, message: string, status = 400) => ({ type, message, status });

/**
 * Reads an uncompressed JSON body as it arrives: the bounds (json-bounds.ts) and the cap are checked on every chunk, so a
 * body over either is refused at the chunk that crosses it, without waiting for or keeping the rest (the connection closes
 * after the answer: drain.ts). A whole body is decoded as UTF-8 (a BOM dropped) and parsed as body-parser does (an empty
 * body is `{}`); its errors carry body-parser's types, which the boundary maps to problems.
 */
function readJsonBody(req: Request, res: Response, next: NextFunction, limit: number): void {
  const scanner = new BoundScanner();
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (err?: { type?: string; message: string; status?: number }) => {
    if (settled) return;
    settled = true;
    req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onError);
    if (err && !req.complete) closeAfterAnswer(req, res);
    next(err);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    // [LIM-BODY-1] a body over 256 KiB is refused at the chunk that crosses the cap.
    if (received > limit) return settle(decodingError('entity.too.large', 'request entity too large', 413));
    const bound = scanner.push(chunk);
    if (bound) return settle(decodingError(JSON_BOUNDS_EXCEEDED, boundDetail(bound)));
    chunks.push(chunk);
  };
  const onEnd = () => {
    const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks, received));
    try {
      req.body = text.length === 0 ? {} : JSON.parse(text);
    } catch (err) {
      // [END-CONV-4] [AUTH-ORDER-11] a body that is not JSON fails while decoding, before authentication.
      return settle(decodingError('entity.parse.failed', (err as Error).message));
    }
    settle();
  };
  const onAborted = () => settle(decodingError('request.aborted', 'request aborted'));
  const onError = (err: Error) => settle(Object.assign(err, { status: 400 }));
  req.on('data', onData).on('end', onEnd).on('aborted', onAborted).on('error', onError);
}

/**
 * JSON decoding with the general body cap. An uncompressed body is read by readJsonBody; a compressed one (gzip, deflate,
 * br) by body-parser, which inflates it within the same cap and bounds the inflated text before parsing it. Decoding errors
 * reach the boundary as body-parser errors.
 */
export function decodeJsonStage(): RequestHandler[] {
  const inflating = express.json({
    limit: LIMITS.requestBodyBytes,
    type: ['application/json', 'application/*+json'],
    strict: false,
    // Before the parser runs: a body over a nesting or value bound is refused, never parsed (json-bounds.ts).
    verify: (_req, _res, body) => {
      const bound = exceededBound(body);
      if (bound) throw Object.assign(new Error(boundDetail(bound)), { type: JSON_BOUNDS_EXCEEDED });
    },
  });
  const requireJsonType: RequestHandler = (req, res, next) => {
    refuseDeclaredOversize(req, res, LIMITS.requestBodyBytes);
    // [END-CONV-5] request bodies are JSON and need Content-Type: application/json, in UTF-8.
    refuseUnsupportedBody(req, DECODED_BODY);
    next();
  };
  // A request without a body has nothing to decode: the parser is not entered (it would only find that out itself).
  const decode: RequestHandler = (req, res, next) => {
    if (!hasBody(req)) return next();
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    return encoding === 'identity' ? readJsonBody(req, res, next, LIMITS.requestBodyBytes) : inflating(req, res, next);
  };
  return [requireJsonType, decode];
}
