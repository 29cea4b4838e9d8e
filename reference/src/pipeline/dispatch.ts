// The one dispatcher: every route of the contract in one lookup, a path without parameters by its method and path, the
// others by a short list of patterns; then the one refusal of what no route serves (405 with Allow, else 404). Express's
// router would test every route before the one that matches, in turn, on every request. Matching is what Express's would
// be with the app's settings: case-sensitive, strict (no trailing-slash twin), HEAD served by GET when the path has no
// HEAD route, parameters percent-decoded, a malformed escape the 400 URIError Express raises.
import type { Request, RequestHandler } from 'express';
import { ProblemError } from '../problem.js';

export interface Mounted {
  method: string;
  /** The route's path template, e.g. /v1/me/orders/{id}. */
  path: string;
  handler: RequestHandler;
  /**
   * A route that answers every method on its path itself (the webhook and internal routes): its parameters are decoded
   * before the method is looked at (a malformed escape is 400 whatever the method), and another method's 405 says this.
   */
  ownsPath?: { notAllowed?: string };
}

interface Pattern {
  method: string;
  regex: RegExp;
  names: string[];
  handler: RequestHandler;
}

const PARAM = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A path template as an anchored pattern, one capturing group per parameter (a whole, non-empty segment). */
export function templatePattern(template: string): RegExp {
  const source = template
    .split(PARAM)
    .map((part, i) => (i % 2 === 0 ? escapeRegex(part) : '([^/]+)'))
    .join('');
  return new RegExp(`^${source}$`);
}

export function dispatchRoutes(routes: readonly Mounted[]): RequestHandler {
  const exact = new Map<string, RequestHandler>();
  const patterns: Pattern[] = [];
  const known = routes.map((r) => ({ route: r, regex: templatePattern(r.path), names: [...r.path.matchAll(PARAM)].map((m) => m[1]!) }));
  for (const r of routes) {
    const names = [...r.path.matchAll(PARAM)].map((m) => m[1]!);
    if (names.length === 0) {
      exact.set(`${r.method} ${r.path}`, r.handler);
      continue;
    }
    patterns.push({ method: r.method, regex: templatePattern(r.path), names, handler: r.handler });
  }
  const find = (method: string, path: string, req: Request): RequestHandler | undefined => {
    const handler = exact.get(`${method} ${path}`);
    if (handler) {
      req.params = {};
      return handler;
    }
    for (const p of patterns) {
      if (p.method !== method) continue;
      const m = p.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      p.names.forEach((name, i) => (params[name] = decodeParam(m[i + 1]!, name)));
      req.params = params;
      return p.handler;
    }
    return undefined;
  };
  return (req, res, next) => {
    const path = req.path;
    let handler: RequestHandler | undefined;
    try {
      handler = find(req.method, path, req) ?? (req.method === 'HEAD' ? find('GET', path, req) : undefined);
    } catch (err) {
      next(err);
      return;
    }
    if (handler === undefined) {
      try {
        refuseUnserved(req, path);
      } catch (err) {
        next(err);
      }
      return;
    }
    return handler(req, res, next);
  };

  /** What no route serves: a path of some route with another method is 405 with Allow, any other path 404. */
  function refuseUnserved(req: Request, path: string): never {
    const matching = known.filter((k) => k.regex.test(path));
    for (const k of matching) {
      if (!k.route.ownsPath) continue;
      const m = k.regex.exec(path)!;
      k.names.forEach((name, i) => decodeParam(m[i + 1]!, name));
    }
    const allowed = [...new Set(matching.map((k) => k.route.method))];
    // [PUR-RULE-1] [ERR-PROBLEM-2] A path that exists with other methods: 405 with Allow (HEAD beside GET), as a problem.
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      throw new ProblemError('method_not_allowed', {
        detail:
          matching.find((k) => k.route.ownsPath?.notAllowed)?.route.ownsPath?.notAllowed ?? `${req.method} is not allowed on this path.`,
        headers: { Allow: allowed.join(', ') },
      });
    }
    // [PUR-RULE-1] [VER-ROUTES-3] Every route has exactly one URL: a case-folded or trailing-slash twin, an old or unknown path is 404.
    throw new ProblemError('not_found', { detail: 'No route matches this path.' });
  }
}

/** As Express decodes a path parameter: a malformed escape is a URIError with status 400. */
function decodeParam(value: string, name: string): string {
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${name}'`;
      (err as URIError & { status: number }).status = 400;
    }
    throw err;
  }
}
