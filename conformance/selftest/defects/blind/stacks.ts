// Blind defects of servers built on other stacks: what their URL parser, their permission table or their HTTP parser does
// before (or instead of) the service's own code. Each breaks one clause the way such a server plausibly would: a router
// fed by a WHATWG or servlet URL parser (PUR-RULE-1), a permission table that is a plain JavaScript object
// (AUTH-SCOPE-10), an HTTP layer that refuses a request with its own bare answer (ERR-PROBLEM-1, ERR-PROBLEM-7).
import { createHmac, randomUUID } from 'node:crypto';
import { AGENT_FORWARD_SCOPE, PERMISSIONS } from '../../../../contract/scopes.js';
import { signWith } from '../../../lib/jws.js';
import type { Fields, ProxyAnswer, ProxyRequest } from '../../proxy.js';
import {
  editJson,
  editJsonBody,
  headerOf,
  jsonSegment,
  mapHeader,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  type Claims,
} from '../helpers.js';
import { lenient, wireWith, type Defect, type DefectContext } from '../types.js';
import { statefulWire } from './shared.js';

// ------------------------------------------------------------------------------------------------ one URL per operation

/** The request with its path (the part before `?`) replaced by `path`, its query kept. */
const withPath = (r: ProxyRequest, path: string): ProxyRequest => {
  const at = r.path.indexOf('?');
  return { ...r, path: at < 0 ? path : `${path}${r.path.slice(at)}` };
};

// ------------------------------------------------------------------------------------------------- the permission table

/** Names a plain object answers for although nobody put them there: Object.prototype's members. */
const OBJECT_MEMBERS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

const isObjectMember = (p: unknown): boolean => typeof p === 'string' && OBJECT_MEMBERS.has(p);

/** The permissions a lookup in a plain object turns into "every account permission" (its non-array entries read as `*`). */
const widened = (permissions: unknown[]): unknown[] =>
  permissions.some(isObjectMember) ? [...new Set([...permissions.filter((p) => !isObjectMember(p)), ...PERMISSIONS])] : permissions;

const contextHeader = (ctx: DefectContext): string => ctx.profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';

const hmac = (input: string, key: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(input).digest('base64url');

/** The header and claims of a compact HS256 JWS that verifies with `key`; undefined otherwise (forgeries stay refused). */
function verifiedContext(value: string | undefined, key: string): { header: Claims; claims: Claims } | undefined {
  const m = /^([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(value ?? '');
  if (!m || hmac(`${m[1]}.${m[2]}`, key) !== m[3]) return undefined;
  const header = jsonSegment(m[1]!);
  const claims = jsonSegment(m[2]!);
  return header?.alg === 'HS256' && claims ? { header, claims } : undefined;
}

/** The permissions of the request's invited-agent context (unverified); undefined without a context. */
function contextPermissions(r: ProxyRequest, ctx: DefectContext): unknown[] | undefined {
  const payload = headerOf(r.headers, contextHeader(ctx))?.split('.')[1];
  const permissions = payload ? jsonSegment(payload)?.permissions : undefined;
  return Array.isArray(permissions) ? permissions : undefined;
}

/** The `scope` member of a problem answer. */
function problemScope(a: ProxyAnswer): unknown {
  try {
    return (JSON.parse(a.body ?? '') as { scope?: unknown }).scope;
  } catch {
    return undefined;
  }
}

/** The routes through which the identity-provider proxy sets an assistant session's live scopes. */
const LIVE_SCOPE_ROUTES = new Set(['/internal/assistant/agents/connected', '/internal/agent-authorization']);

// --------------------------------------------------------------------------------------------- the HTTP layer's refusals

/** Bytes of the request's head as it came: request line and header field lines. */
const headBytes = (r: ProxyRequest): number =>
  Buffer.byteLength(`${r.method} ${r.path} HTTP/1.1\r\n`) + r.headers.reduce((n, [k, v]) => n + Buffer.byteLength(`${k}: ${v}\r\n`), 2);

const hostLines = (r: ProxyRequest): number => r.headers.filter(([k]) => k.toLowerCase() === 'host').length;

/** The HTTP layer's own answer: no problem document, no X-Request-Id, no Cache-Control. */
const bare = (status: number, headers: Fields, body = ''): ProxyAnswer => ({
  status,
  headers: [...headers, ['Connection', 'close']],
  body,
});

/**
 * A refusal the HTTP layer makes before the service runs: `refuses` picks the requests (seen as they came), which go
 * upstream only as a harmless GET /health (nothing they ask is done), and `answer` is what the client gets instead.
 */
const parserRefusal = (
  id: string,
  clause: string,
  description: string,
  refuses: (r: ProxyRequest, a?: ProxyAnswer) => boolean,
  answer: (a: ProxyAnswer, ctx: DefectContext) => ProxyAnswer,
): Defect =>
  statefulWire(id, clause, description, (ctx) => {
    const refused = new WeakSet<ProxyRequest>();
    return {
      buffer: notAStream,
      request(r) {
        if (!refuses(r)) return r;
        refused.add(r);
        return { ...r, method: 'GET', path: '/health' };
      },
      response: (a, r) => (refused.has(r) || refuses(r, a) ? answer(a, ctx) : a),
    };
  });

export const BLIND_STACKS_DEFECTS: readonly Defect[] = [
  // Purpose rule 1: "Every operation has exactly one URL." Broken by a router that reads `new URL(req.url, base)`: a
  // request-target that starts with `//` is a network-path reference, its first segment is taken as the host, and
  // `//anything/v1/cart` is served as /v1/cart.
  lenient(
    'blind.stacks.double-slash-target-as-authority',
    'PUR-RULE-1',
    'a request-target `//<anything>/v1/...` is served as `/v1/...` (its first segment parsed as a host)',
    () => ({
      request(r) {
        if (!/^\/[/\\]/.test(r.path)) return r;
        const url = new URL(r.path, 'http://service.invalid');
        return { ...r, path: `${url.pathname}${url.search}` };
      },
    }),
  ),
  // Same rule. Broken by a URL parser that treats `\` as `/` in the path (the WHATWG parser of special schemes does):
  // `/v1\cart` and `/v1\me\orders` are served as /v1/cart and /v1/me/orders.
  lenient('blind.stacks.backslash-as-slash', 'PUR-RULE-1', 'backslashes in the path are read as slashes (`/v1\\cart` is /v1/cart)', () => ({
    request: (r) => (pathOf(r).includes('\\') ? withPath(r, pathOf(r).replace(/\\/g, '/')) : r),
  })),
  // Same rule. Broken by a servlet container that strips path parameters before routing: `/v1/cart;jsessionid=1` and
  // `/v1;x/me/orders` are served as /v1/cart and /v1/me/orders.
  lenient(
    'blind.stacks.path-parameters-stripped',
    'PUR-RULE-1',
    'path parameters (`;name=value` in a segment) are stripped before routing (`/v1/cart;x=1` is /v1/cart)',
    () => ({
      request: (r) =>
        pathOf(r).includes(';')
          ? withPath(
              r,
              pathOf(r)
                .split('/')
                .map((s) => s.split(';')[0])
                .join('/'),
            )
          : r,
    }),
  ),

  // Scope translation: "Unknown permissions unlock nothing beyond the base scopes." Broken for invited agents by a
  // permission table that is a plain object: the guard iterates `TABLE[permission]`, which for `constructor`, `toString`,
  // `__proto__`… is a member of Object.prototype, not a list, and throws: every guarded request is 500 internal_error.
  wireWith(
    'blind.stacks.invited-object-member-permission-crashes',
    'AUTH-SCOPE-10',
    'an invited agent whose context holds a permission named like an Object.prototype member (`constructor`, `__proto__`…) gets 500 internal_error',
    (ctx) => (a, r) => {
      if (!contextPermissions(r, ctx)?.some(isObjectMember)) return a;
      // Refusals made before the guard maps permissions stand: the context itself, the caller list, agent:forward.
      const code = problemCode(a);
      if (a.status === 401 || code === 'caller_not_allowed') return a;
      if (code === 'insufficient_scope' && problemScope(a) === AGENT_FORWARD_SCOPE) return a;
      return problemAnswer(ctx, a, 500, 'internal_error', 'Internal Server Error');
    },
  ),
  // Same sentence. Broken for invited agents the other way: the plain object's lookup of `constructor` (or any
  // Object.prototype member) finds an entry, and an entry that is not a list of API scopes is read as the wildcard, so the
  // agent gets every account permission. Emulated: the genuine context is re-signed with the three permissions added.
  lenient(
    'blind.stacks.invited-object-member-permission-unlocks',
    'AUTH-SCOPE-10',
    'an invited agent whose context holds a permission named like an Object.prototype member acts with every account permission',
    (ctx) => ({
      async request(r) {
        const key = ctx.profile.secrets.webSessionContextKey;
        const name = contextHeader(ctx);
        const c = verifiedContext(headerOf(r.headers, name), key);
        const permissions = c?.claims.permissions;
        if (!c || !Array.isArray(permissions) || !permissions.some(isObjectMember)) return r;
        const signed = await signWith({ ...c.claims, permissions: widened(permissions) } as never, c.header as never, key);
        return { ...r, headers: mapHeader(r.headers, name, () => signed) };
      },
    }),
  ),
  // Same sentence. Broken for assistants: the session's live scopes, reported through POST
  // /internal/assistant/agents/connected (or /internal/agent-authorization), are mapped through the same plain object,
  // so a live scope `__proto__` or `toString` becomes every account permission. Emulated: the report is stored with the
  // three permissions in its place; its answer still echoes the permissions as sent.
  statefulWire(
    'blind.stacks.assistant-object-member-live-scope-unlocks',
    'AUTH-SCOPE-10',
    "an assistant session whose live scopes hold a name like an Object.prototype member acts with every account permission (intersected with its token's)",
    () => {
      const sent = new WeakMap<ProxyRequest, unknown[]>();
      return {
        buffer: notAStream,
        requestBody(r, body) {
          if (r.method !== 'POST' || !LIVE_SCOPE_ROUTES.has(pathOf(r))) return body;
          return editJsonBody(body, (b) => {
            if (!Array.isArray(b.permissions) || !b.permissions.some(isObjectMember)) return false;
            sent.set(r, b.permissions);
            b.permissions = widened(b.permissions);
          });
        },
        response(a, r) {
          const original = sent.get(r);
          return original && a.status < 300 ? editJson(a, (b) => void (b.permissions = [...new Set(original)])) : a;
        },
      };
    },
  ),

  // Errors: "All failures ... use the problem document of the Resources part." Broken for a header section over the HTTP
  // layer's limit: Node's own answer when no clientError handler is installed, a bare 431 with an empty body.
  parserRefusal(
    'blind.stacks.header-overflow-bare-431',
    'ERR-PROBLEM-1',
    'a header section over the limit (any 431, or a head over 32 KiB) is refused with a bare 431: no body, no X-Request-Id',
    (r, a) => headBytes(r) > 32 * 1024 || a?.status === 431,
    () => bare(431, []),
  ),
  // Same sentence. Broken for a request with two Host fields (RFC 9112 asks for a 400): Go's net/http refuses it itself,
  // "400 Bad Request: too many Host headers" in text/plain.
  parserRefusal(
    'blind.stacks.duplicate-host-bare-400',
    'ERR-PROBLEM-1',
    'a request with two Host fields is refused with a text/plain 400 written by the HTTP layer',
    (r) => hostLines(r) > 1,
    () => bare(400, [['Content-Type', 'text/plain; charset=utf-8']], '400 Bad Request: too many Host headers'),
  ),
  // Errors: "... and writes `X-Request-Id` on every response." Broken for a header section over 32 KiB (the HTTP layer's
  // limit of this stack): its clientError handler writes a 431 problem document on the raw socket, `instance` an id of
  // its own, but no X-Request-Id field (the request stage that sets it never ran).
  parserRefusal(
    'blind.stacks.header-overflow-431-no-request-id',
    'ERR-PROBLEM-7',
    'a header section over 32 KiB is refused with a 431 problem document that carries no X-Request-Id',
    (r) => headBytes(r) > 32 * 1024,
    (_a, ctx) => ({
      status: 431,
      headers: [
        ['Content-Type', 'application/problem+json'],
        ['Cache-Control', 'no-store'],
        ['Connection', 'close'],
      ],
      body: JSON.stringify({
        type: `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/header_too_large`,
        title: 'Request Header Fields Too Large',
        status: 431,
        error: 'header_too_large',
        detail: 'The request headers are too large.',
        instance: randomUUID(),
      }),
    }),
  ),
];
