// The one boundary that writes problem documents [ERR-PROBLEM-1]: every status >= 400 is application/problem+json with
// Cache-Control: no-store, `instance` = the request id, and challenges set here alone. Unexpected throws become
// 500 `internal_error` without `detail`, logged as `api_error`.
import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { ERRORS, REASON_PHRASES } from '../../contract/errors.js';
import { formatChallenge } from './auth/challenge.js';
import { LINGER_MS } from './drain.js';
import { JSON_BOUNDS_EXCEEDED } from './json-bounds.js';
import type { Logger } from './log.js';
import type { RequestContext } from './pipeline/context.js';
import { ProblemError } from './problem.js';

const unreadable = (path: string, code: string, detail: string) =>
  new ProblemError('invalid_request', { detail, issues: [{ path, code, message: detail }] });

/** Zlib and Brotli failures while inflating a body (body-parser passes them on with status 400 and no type). */
const isDecompressionError = (err: { code?: unknown; errno?: unknown }) =>
  typeof err.code === 'string' && (err.code.startsWith('Z_') || err.code.includes('BROTLI') || err.code.startsWith('ERR__ERROR_FORMAT'));

/**
 * Failures before any stage could throw a ProblemError: body-parser errors, the router's refusal of a malformed
 * percent-escape in a path parameter, and any other client error (4xx) a library raised.
 */
function fromDecodingError(err: { type?: unknown; status?: unknown; code?: unknown; errno?: unknown }): ProblemError | undefined {
  switch (err.type) {
    // [END-CONV-4] [ERR-PROBLEM-2] a body that is not JSON: a 400 problem document.
    case 'entity.parse.failed':
      return new ProblemError('invalid_json', { detail: 'The request body is not valid JSON.' });
    case JSON_BOUNDS_EXCEEDED:
      return new ProblemError('invalid_json', { detail: String((err as { message?: unknown }).message) });
    // [LIM-BODY-1] [ERR-PROBLEM-3] a body over the cap: a problem document.
    case 'entity.too.large':
      return new ProblemError('payload_too_large', { detail: 'The request body is over the size limit.' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ProblemError('unsupported_media_type', { detail: 'The request body encoding or charset is not supported.' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return unreadable('body', String(err.type), 'The request body could not be read.');
    default:
      break;
  }
  if (err instanceof URIError && err.status === 400)
    return unreadable('path', 'malformed_escape', 'The path has a malformed percent-escape.');
  if (err.status === 400 && isDecompressionError(err))
    return unreadable('body', 'content_encoding', 'The request body is not encoded as its Content-Encoding says.');
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
    if (err.status === 413) return new ProblemError('payload_too_large', { detail: 'The request body is over the size limit.' });
    if (err.status === 415)
      return new ProblemError('unsupported_media_type', { detail: 'The request body encoding or charset is not supported.' });
    return unreadable('request', 'unreadable', 'The request could not be read.');
  }
  return undefined;
}

/** Issues a fresh DPoP nonce; the boundary asks for one when a DPoP request failed before the authenticate stage. */
export type NonceIssuer = () => string | undefined;

export function writeProblem(req: Request, res: Response, problem: ProblemError, docsUrl: string, issueNonce?: NonceIssuer): void {
  const ctx = res.locals.ctx as RequestContext | undefined;
  const requestId = ctx?.requestId ?? String(res.get('X-Request-Id') ?? '');
  const status = problem.status;
  const o = problem.options;
  // Headers an earlier stage may have set for a success do not belong on an error.
  res.removeHeader('ETag');
  for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) res.set(k, v);
  // [ERR-PROBLEM-8] [ERR-PROBLEM-9] challenges are set here alone, from the error's own kind: a domain error has none.
  if (o.challenge) res.set('WWW-Authenticate', formatChallenge(o.challenge, ctx?.scheme ?? 'Bearer'));
  // [AUTH-ORDER-4] a DPoP request gets a fresh nonce on every response, errors included, also when it
  // was refused before authentication (decoding, 404, 405, 413, 415, 500).
  if (ctx && ctx.scheme === 'DPoP' && ctx.dpopNonce === undefined) ctx.dpopNonce = issueNonce?.();
  if (ctx?.dpopNonce) res.set('DPoP-Nonce', ctx.dpopNonce);
  // [ERR-PROBLEM-5] every failure is no-store.
  res.set('Cache-Control', 'no-store');
  // [RES-PROBLEM-2] [RES-PROBLEM-3] [RES-PROBLEM-4] [RES-PROBLEM-5] error, type {docs_url}/api/problems/<error>, title, status.
  const body: Record<string, unknown> = {
    type: `${docsUrl.replace(/\/$/, '')}/api/problems/${problem.code}`,
    title: REASON_PHRASES[status] ?? 'Error',
    status,
    error: problem.code,
  };
  // [RES-PROBLEM-6] [RES-PROBLEM-7] [ERR-TABLE-16] detail is a string, never on a 500.
  if (problem.expose && o.detail) body.detail = o.detail;
  // [RES-PROBLEM-8] [ERR-PROBLEM-6] instance is the X-Request-Id of the response.
  body.instance = requestId;
  // [RES-PROBLEM-9] [RES-PROBLEM-10] issues only on invalid_request (ProblemError bounds them to 20).
  if (o.issues && o.issues.length > 0) body.issues = o.issues;
  // [RES-PROBLEM-11] scope only on insufficient_scope.
  if (problem.code === 'insufficient_scope' && o.scope) body.scope = o.scope;
  // [RES-PROBLEM-12] conversation_id only on direct_conversation_open.
  if (problem.code === 'direct_conversation_open' && o.conversationId) body.conversation_id = o.conversationId;
  // [RES-PROBLEM-1] [ERR-PROBLEM-4] every status >= 400 is application/problem+json.
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
  void req;
}

export function boundary(docsUrl: string, log: Logger, issueNonce?: NonceIssuer): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let problem = err instanceof ProblemError ? err : fromDecodingError((err ?? {}) as { type?: unknown });
    if (!problem) {
      const ctx = res.locals.ctx as RequestContext | undefined;
      log.error('api_error', {
        requestId: ctx?.requestId,
        method: req.method,
        path: req.path,
        error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
      });
      // [ERR-TABLE-16] [ERR-LOG-1] an unexpected failure: 500 internal_error, logged as api_error.
      problem = new ProblemError('internal_error');
    } else if (problem.status >= 500) {
      log.error('api_error', {
        requestId: (res.locals.ctx as RequestContext | undefined)?.requestId,
        error: problem.code,
        cause: String(problem.options.cause ?? ''),
      });
    }
    if (res.headersSent) {
      // Too late for a problem document (a stream already started): end the exchange.
      res.destroy();
      return;
    }
    writeProblem(req, res, problem, docsUrl, issueNonce);
  };
}

/**
 * Requests Node refuses before Express sees them (headers over 16 KiB, unparsable request lines) still get the problem
 * document: the boundary writes it on the raw socket. An HTTP/1.1 request without Host, which Node would answer with a
 * bare 400 of its own, is let through to the request stage, which refuses it with the problem document.
 *
 * A parse error after a complete request (bytes after a `Connection: close` request, or a malformed request pipelined
 * behind one) is logged and never written: that request runs, and its own answer is the only one it gets; the connection
 * then closes.
 */
export function installClientErrorHandler(server: Server, docsUrl: string, log?: Logger): void {
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // [ERR-PROBLEM-1] [ERR-PROBLEM-7] An expectation other than 100-continue, which Node would refuse with a bare 417 of its
  // own, is ignored (RFC 9110 10.1.1 lets a server answer 417 or not): the request runs the stages like any other.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // A request whose body cannot be parsed (a malformed chunk) is not complete: the error is its answer, written below.
    const answered = inFlight && (inFlight.headersSent || inFlight.req.complete);
    if (err.code === 'HPE_CLOSED_CONNECTION' || answered) {
      log?.warn('client_error', { code: err.code, answering: Boolean(inFlight) });
      if (!inFlight) {
        // The answer went out already: close, without waiting for a client that never closes its side.
        if (socket.writable) socket.end();
        setTimeout(() => socket.destroy(), LINGER_MS).unref();
      } else if (!inFlight.writableFinished) {
        inFlight.once('finish', () => socket.end());
        inFlight.once('close', () => socket.end());
      }
      return;
    }
    if (!socket.writable || (err as { bytesParsed?: number }).bytesParsed === undefined) {
      socket.destroy();
      return;
    }
    // [ERR-PROBLEM-6] [ERR-PROBLEM-7] a request Node refuses still gets the problem document, instance = its X-Request-Id.
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 'header_too_large' : 'invalid_request';
    const status = ERRORS[code].status;
    const requestId = randomUUID();
    const body = JSON.stringify({
      type: `${docsUrl.replace(/\/$/, '')}/api/problems/${code}`,
      title: REASON_PHRASES[status],
      status,
      error: code,
      detail: code === 'header_too_large' ? 'The request headers are too large.' : 'The request could not be parsed.',
      instance: requestId,
      ...(code === 'invalid_request'
        ? {
            issues: [
              {
                path: 'request',
                code: String(err.code ?? 'unparsable').toLowerCase(),
                message: 'The request could not be parsed as HTTP/1.1.',
              },
            ],
          }
        : {}),
    });
    socket.end(
      `HTTP/1.1 ${status} ${REASON_PHRASES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Cache-Control: no-store\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
