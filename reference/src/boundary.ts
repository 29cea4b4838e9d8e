// The one boundary that writes problem documents (spec, Errors): every status >= 400 is application/problem+json with
// Cache-Control: no-store, `instance` = the request id, and challenges set here alone. Unexpected throws become
// 500 `internal_error` without `detail`, logged as `api_error`.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ERRORS, REASON_PHRASES } from '../../contract/errors.js';
import { formatChallenge } from './auth/challenge.js';
import type { Logger } from './log.js';
import type { RequestContext } from './pipeline/context.js';
import { ProblemError } from './problem.js';

/** Body-parser failures, which happen before any stage could throw a ProblemError. */
function fromDecodingError(err: { type?: unknown; status?: unknown }): ProblemError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ProblemError('invalid_json', { detail: 'The request body is not valid JSON.' });
    case 'entity.too.large':
      return new ProblemError('payload_too_large', { detail: 'The request body is over the size limit.' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ProblemError('unsupported_media_type', { detail: 'The request body encoding or charset is not supported.' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ProblemError('invalid_request', {
        detail: 'The request body could not be read.',
        issues: [{ path: 'body', code: String(err.type), message: 'The body could not be read.' }],
      });
    default:
      return undefined;
  }
}

export function writeProblem(req: Request, res: Response, problem: ProblemError, docsUrl: string): void {
  const ctx = res.locals.ctx as RequestContext | undefined;
  const requestId = ctx?.requestId ?? String(res.get('X-Request-Id') ?? '');
  const status = problem.status;
  const o = problem.options;
  // Headers an earlier stage may have set for a success do not belong on an error.
  res.removeHeader('ETag');
  for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) res.set(k, v);
  if (o.challenge) res.set('WWW-Authenticate', formatChallenge(o.challenge, ctx?.scheme ?? 'Bearer'));
  // A DPoP request gets a fresh nonce on every response, errors included (spec, Request processing order).
  if (ctx?.dpopNonce) res.set('DPoP-Nonce', ctx.dpopNonce);
  res.set('Cache-Control', 'no-store');
  const body: Record<string, unknown> = {
    type: `${docsUrl.replace(/\/$/, '')}/api/problems/${problem.code}`,
    title: REASON_PHRASES[status] ?? 'Error',
    status,
    error: problem.code,
  };
  if (problem.expose && o.detail) body.detail = o.detail;
  body.instance = requestId;
  if (o.issues && o.issues.length > 0) body.issues = o.issues;
  if (problem.code === 'insufficient_scope' && o.scope) body.scope = o.scope;
  if (problem.code === 'direct_conversation_open' && o.conversationId) body.conversation_id = o.conversationId;
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
  void req;
}

export function boundary(docsUrl: string, log: Logger): ErrorRequestHandler {
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
    writeProblem(req, res, problem, docsUrl);
  };
}

/** The catch-all after every route: a known path with another method is 405 with Allow, anything else 404. */
export function unmatched(knownRoutes: readonly { method: string; pattern: RegExp }[]): RequestHandler {
  return (req) => {
    const allowed = [...new Set(knownRoutes.filter((r) => r.pattern.test(req.path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      throw new ProblemError('method_not_allowed', {
        detail: `${req.method} is not allowed on this path.`,
        headers: { Allow: allowed.join(', ') },
      });
    }
    throw new ProblemError('not_found', { detail: 'No route matches this path.' });
  };
}

/**
 * Requests Node refuses before Express sees them (headers over 16 KiB, unparsable request lines) still get the problem
 * document: the boundary writes it on the raw socket.
 */
export function installClientErrorHandler(server: Server, docsUrl: string): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (err as { bytesParsed?: number }).bytesParsed === undefined) {
      socket.destroy();
      return;
    }
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
    });
    socket.end(
      `HTTP/1.1 ${status} ${REASON_PHRASES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Cache-Control: no-store\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
