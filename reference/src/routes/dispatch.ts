// Routing in one lookup (the public routes and the operations): a path without parameters by its method and path, the
// others by a short list of patterns. Express's router would test every route before the one that matches, in turn, on
// every request. Matching is what Express's would be with the app's settings: case-sensitive, strict (no trailing-slash
// twin), HEAD served by GET when the path has no HEAD route, parameters percent-decoded, a malformed escape the 400
// URIError Express raises.
import type { Request, RequestHandler } from 'express';

export interface Mounted {
  method: string;
  /** The operation's path template, e.g. /v1/me/orders/{id}. */
  path: string;
  handler: RequestHandler;
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
      next();
      return;
    }
    return handler(req, res, next);
  };
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
