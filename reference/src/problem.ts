// The one error class of the reference. Stages and handlers throw it; only the boundary (boundary.ts) writes responses.
import { ERRORS, LIMITS, type ErrorCode } from '../../contract/index.js';

export interface ProblemIssue {
  path: string;
  code: string;
  message: string;
}

/** How the boundary writes WWW-Authenticate: the error mapper alone sets challenges ([ERR-PROBLEM-9]). */
export type ChallengeKind =
  | { kind: 'chosen'; error: string } // in the scheme chosen from the request
  | { kind: 'both'; error: string } // no token on /v1: a Bearer and a DPoP challenge
  | { kind: 'bearer'; error: string } // guest sessions: always Bearer
  | { kind: 'secret-header'; error: string; header: string }; // a header-carried shared secret (X-Proxy-Idp-Secret)

export interface ProblemOptions {
  detail?: string;
  issues?: ProblemIssue[];
  scope?: string;
  conversationId?: string;
  challenge?: ChallengeKind;
  /** Only Retry-After, RateLimit and RateLimit-Policy may travel with a domain error ([ERR-PROBLEM-8]). */
  headers?: Partial<Record<'Retry-After' | 'RateLimit' | 'RateLimit-Policy' | 'Allow', string>>;
  cause?: unknown;
}

/**
 * Longest `detail`, issue `path`, `code` and `message` a problem document carries (docs/errors.md): with at most 20 issues,
 * a document stays within a few KiB whatever the request held (a member name of 200 KB ends up in an issue's path).
 */
export const PROBLEM_TEXT_MAX = 200;

/** `text` within PROBLEM_TEXT_MAX characters: a longer one is cut, its end marked with an ellipsis. */
export const bounded = (text: string): string => (text.length <= PROBLEM_TEXT_MAX ? text : `${text.slice(0, PROBLEM_TEXT_MAX - 1)}…`);

export class ProblemError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly options: ProblemOptions;

  constructor(code: ErrorCode, options: ProblemOptions = {}) {
    // A client error's stack says nothing anyone reads, and capturing it is most of the cost of refusing a hostile
    // request; a 500 keeps its stack (and its cause's) for the log.
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERRORS[code].status < 500) Error.stackTraceLimit = 0;
    super(options.detail ?? code, { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ProblemError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.options = {
      ...options,
      ...(options.detail !== undefined ? { detail: bounded(options.detail) } : {}),
      // [RES-PROBLEM-9] [LIM-ISSUES-1] at most 20 issues, however many problems the input has.
      issues: options.issues
        ?.slice(0, LIMITS.validationIssues)
        .map((i) => ({ path: bounded(i.path), code: bounded(i.code), message: bounded(i.message) })),
    };
  }

  /** A 500 never exposes its detail ([RES-PROBLEM-7]: never on internal_error); 503 outages say what is missing. */
  get expose(): boolean {
    return this.status !== 500;
  }
}

export const invalidRequest = (issues: ProblemIssue[], detail = 'The request is not valid.') =>
  new ProblemError('invalid_request', { detail, issues });
