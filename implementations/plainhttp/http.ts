// Response helpers: the problem document, JSON bodies, and the error type every stage throws.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ZodError } from 'zod';

export interface Issue {
  path: string;
  code: string;
  message: string;
}

/** A failure answered with the spec's problem document. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  constructor(
    status: number,
    code: string,
    detail?: string,
    opts: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(detail ?? code);
    this.status = status;
    this.code = code;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
    this.detailText = detail;
  }
  readonly detailText: string | undefined;
}

export const MAX_ISSUES = 20;

export function validationError(issues: Issue[], detail = 'The request is not valid.'): HttpError {
  return new HttpError(400, 'invalid_request', detail, { extra: { issues: issues.slice(0, MAX_ISSUES) } });
}

export function zodIssues(prefix: string, error: ZodError): Issue[] {
  return error.issues.slice(0, MAX_ISSUES).map((i) => ({
    path: [prefix, ...i.path.map((p) => String(p))].join('.'),
    code: i.code,
    message: i.message,
  }));
}

/** Per-request state shared by the stages. */
export interface RequestContext {
  requestId: string;
  traceparent: string | null;
  dpopNonce: string | null;
  challengeScheme: 'Bearer' | 'DPoP';
  started: number;
}

export function reason(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}

export function baseHeaders(res: ServerResponse, ctx: RequestContext): void {
  res.setHeader('X-Request-Id', ctx.requestId);
  if (ctx.traceparent) res.setHeader('traceparent', ctx.traceparent);
  if (ctx.dpopNonce) res.setHeader('DPoP-Nonce', ctx.dpopNonce);
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
}

export function sendJson(
  res: ServerResponse,
  ctx: RequestContext,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  baseHeaders(res, ctx);
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendEmpty(res: ServerResponse, ctx: RequestContext, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  baseHeaders(res, ctx);
  res.statusCode = status;
  res.end();
}

const DOMAIN_HEADERS = new Set(['retry-after', 'ratelimit', 'ratelimit-policy']);

export function sendProblem(res: ServerResponse, ctx: RequestContext, docsUrl: string, err: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: Record<string, unknown> = {
    type: `${docsUrl}/api/problems/${err.code}`,
    title: reason(err.status),
    status: err.status,
    error: err.code,
  };
  if (err.code !== 'internal_error' && err.detailText) body.detail = err.detailText;
  body.instance = ctx.requestId;
  for (const [k, v] of Object.entries(err.extra)) body[k] = v;
  for (const name of res.getHeaderNames()) {
    if (name !== 'allow') res.removeHeader(name);
  }
  for (const [k, v] of Object.entries(err.headers)) {
    const lower = k.toLowerCase();
    if (DOMAIN_HEADERS.has(lower) || lower === 'www-authenticate' || lower === 'allow') res.setHeader(k, v);
  }
  res.setHeader('X-Request-Id', ctx.requestId);
  if (ctx.traceparent) res.setHeader('traceparent', ctx.traceparent);
  if (ctx.dpopNonce) res.setHeader('DPoP-Nonce', ctx.dpopNonce);
  res.setHeader('Cache-Control', 'no-store');
  const text = JSON.stringify(body);
  res.statusCode = err.status;
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** One header's values; `undefined` when absent. Duplicated lines are joined by node with ", ". */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  }
  return out;
}

export function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const values = headerValues(req, name);
  if (values.length === 0) return undefined;
  if (values.length > 1) {
    throw validationError([{ path: `headers.${name}`, code: 'duplicate_header', message: `The ${name} header must be sent once.` }]);
  }
  return values[0];
}
