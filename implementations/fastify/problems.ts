import { STATUS_CODES } from 'node:http';

export interface Issue {
  path: string;
  code: string;
  message: string;
}

export type Scheme = 'Bearer' | 'DPoP';

/** A failure that the error mapper turns into a problem document. */
export class ApiError extends Error {
  status: number;
  error: string;
  detail: string | undefined;
  issues: Issue[] | undefined;
  scope: string | undefined;
  conversationId: string | undefined;
  /** challenge error code to put in WWW-Authenticate, if any */
  challenge: string | undefined;
  /** override the scheme of the challenge */
  challengeScheme: Scheme | 'both' | undefined;
  headers: Record<string, string>;

  constructor(
    status: number,
    error: string,
    detail?: string,
    extra: {
      issues?: Issue[];
      scope?: string;
      conversationId?: string;
      challenge?: string;
      challengeScheme?: Scheme | 'both';
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail ?? error);
    this.status = status;
    this.error = error;
    this.detail = detail;
    this.issues = extra.issues;
    this.scope = extra.scope;
    this.conversationId = extra.conversationId;
    this.challenge = extra.challenge;
    this.challengeScheme = extra.challengeScheme;
    this.headers = extra.headers ?? {};
  }
}

export const invalidToken = (detail: string, scheme?: Scheme | 'both'): ApiError =>
  new ApiError(401, 'invalid_token', detail, { challenge: 'invalid_token', challengeScheme: scheme });

export const invalidRequest = (issues: Issue[], detail = 'The request is not valid.'): ApiError =>
  new ApiError(400, 'invalid_request', detail, { issues: issues.slice(0, 20) });

export const notFound = (detail = 'No such resource.'): ApiError => new ApiError(404, 'not_found', detail);

export const reason = (status: number): string => STATUS_CODES[status] ?? 'Error';

export function problemBody(docsUrl: string, requestId: string, e: ApiError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: `${docsUrl}/api/problems/${e.error}`,
    title: reason(e.status),
    status: e.status,
    error: e.error,
  };
  if (e.detail !== undefined && e.error !== 'internal_error') body.detail = e.detail;
  body.instance = requestId;
  if (e.issues) body.issues = e.issues.slice(0, 20);
  if (e.scope !== undefined) body.scope = e.scope;
  if (e.conversationId !== undefined) body.conversation_id = e.conversationId;
  return body;
}

export function zodIssues(
  where: 'body' | 'query' | 'params' | 'headers',
  issues: readonly { path: readonly PropertyKey[]; code: string; message: string; keys?: readonly string[] }[],
): Issue[] {
  const out: Issue[] = [];
  for (const i of issues) {
    if (i.code === 'unrecognized_keys' && i.keys) {
      for (const k of i.keys) {
        out.push({ path: [where, ...i.path.map(String), k].join('.'), code: 'unrecognized_key', message: `Unknown member "${k}".` });
      }
      continue;
    }
    out.push({ path: [where, ...i.path.map(String)].join('.'), code: i.code, message: i.message });
  }
  return out.slice(0, 20);
}
