// Which cell of a clause's domain an exchange falls in (contract/clauses/domains.ts): its operation (method and path
// against the operations table's route templates), its caller kind (the spec's "Caller kinds" recognition rules, read
// from the token's claims, the profile's client ids and the caller headers), its route group, method, status and error
// code. One classifier for the self-test's narrowed defects (selftest/scoped.ts) and the run's domain coverage.
import type { CallerKind } from '../../../contract/callers.js';
import { ROUTES } from '../../../contract/operations.js';
import { credentialsOf, isConversationPath, isOperationPath, mayBeDpopRequest, peekSegment, routeOf } from '../../../contract/requests.js';
import type { Profile } from '../../../contract/profile.js';
import { type Cell, type Dimension, type DomainAxis, type RouteGroup } from '../../../contract/clauses/domains.js';
import { INTERNAL_PREFIX, WEBHOOK_PREFIX } from '../../../contract/routes.js';

/** An exchange as the classifier reads it: header names in any case, the path relative to the target's base. */
export interface Exchanged {
  method: string;
  /** Path with its query, as sent (the target's base path is removed by `classify`). */
  path: string;
  headers: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
  status?: number;
  /** The answer's body, for the problem document's `error`. */
  body?: string;
}

/** What the classifier needs of the profile, and the target's base path. */
export interface CellContext {
  clients: Profile['clients'];
  /** Header names of the forwarded agent artifacts (profile conventions; defaults otherwise). */
  invitedAgentHeader: string;
  browserSessionHeader: string;
  basePath: string;
}

export const cellContext = (profile: Profile, target: string): CellContext => ({
  clients: profile.clients,
  invitedAgentHeader: profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context',
  browserSessionHeader: profile.conventions?.headers?.assistantBrowserSession ?? 'Assistant-Browser-Session',
  basePath: new URL(target).pathname.replace(/\/+$/, ''),
});

/** The coordinates of one exchange; `caller` is `anonymous` without a token and `unknown` when no rule recognizes it. */
export interface Facts {
  operation?: string;
  caller: CallerKind | 'anonymous' | 'unknown';
  group: RouteGroup;
  method: string;
  status?: string;
  error?: string;
  dpop: boolean;
}

const PUBLIC = ROUTES.filter((r) => r.kind !== 'operation' && r.auth.kind === 'none').map((r) => r.path);

function header(h: Exchanged['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  if (Array.isArray(h)) return (h as readonly (readonly [string, string])[]).find(([k]) => k.toLowerCase() === lower)?.[1];
  for (const [k, v] of Object.entries(h as Record<string, string>)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** The operation of a method and path (HEAD as GET), by the operations table's templates (contract/requests.ts routeOf). */
export const operationOf = (method: string, path: string): string | undefined => routeOf(method, path)?.operationId;

export function groupOf(path: string): RouteGroup {
  if (isConversationPath(path)) return 'conversation';
  if (PUBLIC.includes(path)) return 'public';
  if (path.startsWith(INTERNAL_PREFIX)) return 'internal';
  if (path.startsWith(WEBHOOK_PREFIX)) return 'webhook';
  if (isOperationPath(path)) return 'operations';
  return 'unmatched';
}

/** The spec's "Caller kinds" recognition, from the credential a request carries. */
export function callerOf(headers: Exchanged['headers'], ctx: CellContext): Facts['caller'] {
  const authorization = header(headers, 'authorization');
  const m = /^(Bearer|DPoP)\s+([\w-]+\.[\w-]+\.[\w-]*)$/i.exec(authorization ?? '');
  if (!m) return authorization ? 'unknown' : 'anonymous';
  const jose = peekSegment(m[2]!, 0);
  const claims = peekSegment(m[2]!, 1);
  if (!claims) return 'unknown';
  const c = ctx.clients;
  const client = claims.client_id;
  const act = claims.act as { sub?: unknown } | undefined;
  // A signed-out proxy token (HS256) or an identity-provider exchange token, presented directly with a proof.
  if (mayBeDpopRequest(credentialsOf({ authorization })) && (jose?.alg === 'HS256' || client === c.personalAgentProxy)) return 'assistant';
  if (client === c.mcpAgentForwarder) return 'assistant';
  if (client === c.webAgentForwarder) {
    if (header(headers, ctx.browserSessionHeader) !== undefined) return 'assistant';
    return header(headers, ctx.invitedAgentHeader) !== undefined ? 'invited-agent' : 'unknown';
  }
  if (client === c.storefront && claims.sub === `${c.storefront}@clients`) return 'guest';
  if (client === c.backoffice && claims.sub === `${c.backoffice}@clients`) return 'operator';
  if (client === c.agentProtocol && act?.sub === c.agentProtocol) return 'delegated';
  if (client === c.website && act === undefined && typeof claims.sub === 'string' && !claims.sub.endsWith('@clients')) return 'customer';
  return 'unknown';
}

function problemCode(status: number | undefined, body: string | undefined): string | undefined {
  if (status === undefined || status < 400 || !body) return undefined;
  try {
    const code = (JSON.parse(body) as { error?: unknown }).error;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export function classify(x: Exchanged, ctx: CellContext): Facts {
  let path = x.path.split('?')[0]!;
  if (ctx.basePath && (path === ctx.basePath || path.startsWith(`${ctx.basePath}/`))) path = path.slice(ctx.basePath.length) || '/';
  const error = problemCode(x.status, x.body);
  const operation = operationOf(x.method, path);
  return {
    ...(operation ? { operation } : {}),
    caller: callerOf(x.headers, ctx),
    group: groupOf(path),
    method: x.method.toUpperCase(),
    ...(x.status !== undefined ? { status: String(x.status) } : {}),
    ...(error ? { error } : {}),
    dpop: header(x.headers, 'dpop') !== undefined,
  };
}

/** The value of a dimension in these facts (undefined: the exchange has none, e.g. no answer yet). */
export const valueOf = (f: Facts, d: Dimension): string | undefined => (d === 'caller' ? f.caller : f[d]);

/** Whether the facts lie within an axis's fixed coordinates (`where`). */
export function within(f: Facts, where: DomainAxis['where']): boolean {
  if (!where) return true;
  if (where.operation && !(f.operation && where.operation.includes(f.operation))) return false;
  if (where.dpop !== undefined && f.dpop !== where.dpop) return false;
  if (where.statusClass && !(f.status && where.statusClass.includes(`${f.status[0]}xx`))) return false;
  return true;
}

export const inCell = (f: Facts, cell: Cell): boolean => valueOf(f, cell.dimension) === cell.value;

/** The distinct facts of a check's exchanges, encoded (what a check records for domain coverage). */
export const pointsOf = (all: readonly Facts[]): string[] => [...new Set(all.map(encodeFacts))];

/** One exchange's facts as one string (`op|caller|group|method|status|error|dpop`), so that `where` can be applied later. */
export const encodeFacts = (f: Facts): string =>
  [f.operation ?? '', f.caller, f.group, f.method, f.status ?? '', f.error ?? '', f.dpop ? '1' : '0'].join('|');

export function decodeFacts(s: string): Facts {
  const [operation, caller, group, method, status, error, dpop] = s.split('|');
  return {
    ...(operation ? { operation } : {}),
    caller: caller as Facts['caller'],
    group: group as RouteGroup,
    method: method!,
    ...(status ? { status } : {}),
    ...(error ? { error } : {}),
    dpop: dpop === '1',
  };
}
