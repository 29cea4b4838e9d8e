// The body stages of the routes that do not decode JSON as operations do (01-request.ts, decodeJsonStage): the
// conversation write cap before decoding, the internal routes' bounded reader, the webhook's raw bytes. Each runs where
// the stage table puts it; the media-type checks are 01-request.ts's, under the route's policy.
import express, { type Request, type RequestHandler } from 'express';
import { LIMITS } from '../../../contract/limits.js';
import { discardRestOfBody } from '../drain.js';
import { ProblemError } from '../problem.js';
import { hasBody, refuseDeclaredOversize, refuseUnsupportedBody, type BodyTypePolicy } from './01-request.js';
import type { RouteDef } from './route.js';

/**
 * The conversation cap as a stage that runs before decoding (nothing of the body is read): a declared Content-Length over
 * 64 KiB is 413 at once, and the rest of the body is discarded. The conversation handlers' `checkConversationWriteSize`
 * enforces the same cap after decoding too (a body without Content-Length).
 */
export function conversationWriteCapStage(): RequestHandler {
  return (req, _res, next) => {
    const declared = req.get('content-length');
    // [LIM-CONV-1] Conversation write routes cap the body at 64 KiB, checked via Content-Length.
    if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > LIMITS.conversationWriteBytes) {
      discardRestOfBody(req);
      throw new ProblemError('payload_too_large', {
        detail: `Conversation writes are capped at ${LIMITS.conversationWriteBytes} bytes (Content-Length).`,
      });
    }
    next();
  };
}

const tooLarge = (limit: number) =>
  new ProblemError('payload_too_large', { detail: `The request body is over the ${limit}-byte limit of this route.` });

/**
 * Reads the body, stopping as soon as `limit` + 1 bytes arrived (with or without Content-Length, chunked or not). Nothing
 * beyond the limit is buffered.
 */
export function readBounded(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      fn();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        settle(() => reject(tooLarge(limit)));
        return;
      }
      chunks.push(chunk);
    };
    const unreadable = (code: string) =>
      new ProblemError('invalid_request', {
        detail: 'The request body could not be read.',
        issues: [{ path: 'body', code, message: 'The body could not be read.' }],
      });
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = () => settle(() => reject(unreadable('request.aborted')));
    const onClose = () => {
      if (!req.complete) settle(() => reject(unreadable('request.aborted')));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Stage "bounded body": a JSON body of at most the route's `bodyLimit` bytes, decoded into `req.body` (undefined when the
 * request has none); placed after the shared secret, so nothing is read before it passed.
 */
export function boundedBodyStage(route: RouteDef, policy: BodyTypePolicy): RequestHandler {
  const limit = route.row.bodyLimit ?? LIMITS.requestBodyBytes;
  return async (req, _res, next) => {
    let body: unknown = undefined;
    if (hasBody(req)) {
      refuseUnsupportedBody(req, policy);
      const declared = req.get('content-length');
      // [LIM-INTENT-1] A declared length over the route's limit is refused before reading anything.
      if (declared !== undefined && Number(declared) > limit) {
        discardRestOfBody(req);
        throw tooLarge(limit);
      }
      let raw: Buffer;
      try {
        // [LIM-INTENT-1] Without a Content-Length, or with a lying one, the reader stops at the limit + 1 byte.
        raw = await readBounded(req, limit);
      } catch (err) {
        // Nothing beyond the limit is kept; the rest is discarded so that the answer reaches the client (reference/src/drain.ts).
        if (err instanceof ProblemError && err.code === 'payload_too_large') discardRestOfBody(req);
        throw err;
      }
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
        } catch {
          // [END-CONV-4] A body that is not JSON is refused with a 400 problem.
          throw new ProblemError('invalid_json', { detail: 'The request body is not valid JSON.' });
        }
      }
    }
    req.body = body;
    next();
  };
}

/** Stage "raw body (256 KiB)": the exact bytes, whatever the Content-Type (even none); over the cap: 413 at the boundary. */
export function rawBodyStage(): RequestHandler {
  const raw = express.raw({ type: () => true, limit: LIMITS.requestBodyBytes });
  return (req, res, next) => {
    // [LIM-BODY-1] Every request body is capped at 256 KiB, the webhook's raw bytes too.
    refuseDeclaredOversize(req, res, LIMITS.requestBodyBytes);
    // [END-PUBLIC-8] The webhook reads its body as raw bytes: the signature is over exactly what was sent.
    return raw(req, res, next);
  };
}
