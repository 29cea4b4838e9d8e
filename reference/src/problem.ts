// The one error class of the reference. Stages and handlers throw it; only the boundary (boundary.ts) writes responses.
import { ERRORS, LIMITS, type ErrorCode } from '../../contract/index.js';

export interface ProblemIssue {
  path: string;
  code: string;
  message: string;
}

/** How the boundary writes WWW-Authenticate: the error mapper alone sets challenges (spec, Errors). */
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
  /** Only Retry-After, RateLimit and RateLimit-Policy may travel with a domain error (spec, Errors). */
  headers?: Partial<Record<'Retry-After' | 'RateLimit' | 'RateLimit-Policy' | 'Allow', string>>;
  cause?: unknown;
}

export class ProblemError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly options: ProblemOptions;

  constructor(code: ErrorCode, options: ProblemOptions = {}) {
    super(options.detail ?? code, { cause: options.cause });
    this.name = 'ProblemError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.options = { ...options, issues: options.issues?.slice(0, LIMITS.validationIssues) };
  }

  /** A 500 never exposes its detail (spec: never on internal_error); 503 outages say what is missing. */
  get expose(): boolean {
    return this.status !== 500;
  }
}

export const invalidRequest = (issues: ProblemIssue[], detail = 'The request is not valid.') =>
  new ProblemError('invalid_request', { detail, issues });
