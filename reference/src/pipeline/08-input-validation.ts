// Stage "input validation": path parameters, query and body against the route's zod schemas; failures are 400
// `invalid_request` with at most 20 issues ([ERR-TABLE-11], [LIM-ISSUES-1]).
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';
import { invalidRequest, type ProblemIssue } from '../problem.js';
import { contextAt } from './context.js';
import type { RouteDef } from './route.js';

export function toIssues(location: string, error: z.ZodError): ProblemIssue[] {
  // [RES-PROBLEM-9] [RES-PROBLEM-10] [LIM-ISSUES-1] at most 20 issues, each with path, code and message.
  return error.issues.slice(0, LIMITS.validationIssues).map((i) => ({
    path: [location, ...i.path.map(String)].join('.'),
    code: i.code,
    message: i.message,
  }));
}

/** Every route's input stage: the route's schemas, against what the body stage before it left in `req.body`. */
export function inputValidationStage(route: RouteDef): RequestHandler {
  return (req, res, next) => {
    const ctx = contextAt(res, 'bound');
    const issues: ProblemIssue[] = [];
    const parse = (location: string, schema: z.ZodType | undefined, value: unknown) => {
      if (!schema) return undefined;
      const r = schema.safeParse(value);
      if (r.success) return r.data;
      issues.push(...toIssues(location, r.error));
      return undefined;
    };
    const params = parse('params', route.params, req.params);
    const query = parse('query', route.query, { ...(req.query as object) });
    const body = parse('body', route.body, req.body);
    // [ERR-TABLE-11] a validation failure: 400 invalid_request with issues and no WWW-Authenticate.
    if (issues.length > 0) throw invalidRequest(issues);
    ctx.input = { params, query, body };
    next();
  };
}
