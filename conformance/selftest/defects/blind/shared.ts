// What the blind defects share: which caller kind a request speaks as (read from its unverified token and headers, as a
// server's own buggy branch would), route matching, and problem-body edits. Written from the spec and the contract alone;
// token claims, header fields and bodies come from the library's one set of helpers (../helpers.ts).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS, ROUTES } from '../../../../contract/operations.js';
import { isConversationPath, templatePattern } from '../../../../contract/requests.js';
import { REASON_PHRASES } from '../../../../contract/errors.js';
import type { Profile } from '../../../../contract/profile.js';
import type { ProxyAnswer, ProxyRequest } from '../../proxy.js';
import { bearerOf, editJson, headerOf, pathOf, problemCode, tokenClaims, usesDpop } from '../helpers.js';
import type { Defect, DefectContext } from '../types.js';

export type Kind = 'customer' | 'delegated' | 'guest' | 'invited-agent' | 'operator' | 'assistant' | 'unknown';

const invitedHeader = (p: Profile) => p.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';

/** The caller kind the request presents itself as (unverified). */
export function kindOf(p: Profile, r: ProxyRequest): Kind {
  if (usesDpop(r)) return 'assistant';
  const claims = tokenClaims(r);
  if (!claims) return 'unknown';
  const client = claims.client_id;
  if (client === p.clients.website) return claims.act === undefined ? 'customer' : 'unknown';
  if (client === p.clients.agentProtocol) return 'delegated';
  if (client === p.clients.storefront) return 'guest';
  if (client === p.clients.backoffice) return 'operator';
  if (client === p.clients.webAgentForwarder) return headerOf(r.headers, invitedHeader(p)) !== undefined ? 'invited-agent' : 'assistant';
  if (client === p.clients.personalAgentProxy || client === p.clients.mcpAgentForwarder) return 'assistant';
  return 'unknown';
}

export const isDpop = (r: ProxyRequest): boolean => usesDpop(r) || headerOf(r.headers, 'dpop') !== undefined;

/** The request targets the operation `operationId` (method and path template). */
export function isOperation(r: ProxyRequest, operationId: string): boolean {
  const op = OPERATIONS.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  const method = r.method === 'HEAD' ? 'GET' : r.method;
  return method === op.method && templateRegExp(op.path).test(pathOf(r));
}

const templateRegExp = (template: string) => templatePattern(template, { trailingSlash: true });

/** Whether any route of the contract (operation or special route) has this path, whatever the method. */
export function isKnownPath(path: string): boolean {
  return isConversationPath(path) || ROUTES.some((r) => templateRegExp(r.path).test(path));
}

/** A problem answer with its status (and the body's `status` and `title`) changed. */
export function withStatus(a: ProxyAnswer, status: number): ProxyAnswer {
  return editJson({ ...a, status }, (b) => {
    b.status = status;
    b.title = REASON_PHRASES[status] ?? b.title;
  });
}

/** A problem answer with its `error` (and `type`) changed to `code`. */
export function withCode(ctx: DefectContext, a: ProxyAnswer, code: string): ProxyAnswer {
  return editJson(a, (b) => {
    b.error = code;
    b.type = `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/${code}`;
  });
}

export const isCode = (a: ProxyAnswer, code: string): boolean => problemCode(a) === code;

/** The `sub` of the request's access token (unverified). */
export const subOf = (r: ProxyRequest): string | undefined => {
  const sub = tokenClaims(r)?.sub;
  return typeof sub === 'string' ? sub : undefined;
};

/** The scopes of the request's access token, as a list. */
export const scopesOf = (r: ProxyRequest): string[] => {
  const s = tokenClaims(r)?.scope;
  return typeof s === 'string' ? s.split(' ').filter(Boolean) : [];
};

/** The bearer token of the request, if any (the library's own helper). */
export { bearerOf };

/** Subjects of the ended lifecycle states: the profile's, else the fixture seed's (contract/profile.ts data defaults). */
export function endedAccounts(p: Profile): { deleting: string; deleted: string; contactTransition: string } {
  return p.data?.endedAccounts ?? { deleting: 'cust_deleting', deleted: 'cust_deleted', contactTransition: 'cust_transition' };
}

/** A wire defect whose rules keep state for one run (a fresh closure per start), e.g. what it has already answered. */
export const statefulWire = (id: string, clause: string, description: string, rules: Defect['rules']): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules,
});

/** The fixture seed's file, found from source and from dist/ alike (the package's root holds fixtures/). */
export function fixtureSeedFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'fixtures', 'seed.json');
}
