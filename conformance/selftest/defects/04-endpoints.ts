// Defects of Endpoints (spec part 4): the operations table (END-OPS-*, derived from the catalogue's own text), the caller
// lists (END-LIST-*; PUR-RULE-2/3 and AUTH-ACTIVE-3 use the same builder) and the account reads (END-ME-*, END-IDENT-*).
import { CLAUSES } from '../../../contract/clauses/index.js';
import type { ProxyAnswer, ProxyRequest } from '../proxy.js';
import {
  editJson,
  headerOf,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  served,
  servedWithTrace,
  tokenClaims,
  usesDpop,
} from './helpers.js';
import { wire, wireWith, type Defect, type DefectContext } from './types.js';

export const notFound = (a: ProxyAnswer): ProxyAnswer => ({
  status: 404,
  headers: [
    ['Content-Type', 'application/problem+json'],
    ['Cache-Control', 'no-store'],
    ...a.headers.filter(([k]) => k.toLowerCase() === 'x-request-id'),
  ],
  body: JSON.stringify({ type: 'about:blank', error: 'not_found', title: 'Not Found', status: 404 }),
});

const template = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);

export const unserved = (id: string, clause: string, what: string, match: (r: ProxyRequest) => boolean): Defect =>
  wire(id, clause, `${what} not served (404)`, (a, r) => (match(r) ? notFound(a) : a));

const OPERATION_DEFECTS: Defect[] = CLAUSES.flatMap((c) => {
  const m = /^(\w+) is (GET|POST|PATCH|DELETE|PUT) (\S+?):?\s/.exec(c.text);
  if (!c.id.startsWith('END-OPS-') || !m) return [];
  const [, op, method, path] = m;
  const re = template(path!);
  return [unserved(`endpoints.routes.${op}-unserved`, c.id, `${method} ${path}`, (r) => r.method === method && re.test(pathOf(r)))];
});

export const servesRefused = (
  id: string,
  clause: string,
  code: string,
  what: string,
  when: (r: ProxyRequest) => boolean = () => true,
): Defect => wire(id, clause, `${what}: ${code} answered 200 {}`, (a, r) => (problemCode(a) === code && when(r) ? servedWithTrace(a) : a));

/**
 * A caller list (or the guard of an operation) that admits any caller: caller_not_allowed answered 200 {}. `section`: the
 * spec part of the file that lists the defect (its id begins with it).
 */
export const admitsAny = (clause: string, what: string, when: (r: ProxyRequest) => boolean, section = 'endpoints'): Defect =>
  servesRefused(`${section}.callers.${clause.toLowerCase()}.admits-any`, clause, 'caller_not_allowed', what, when);

export const othersRowServed = (id: string, clause: string): Defect =>
  wire(id, clause, "another account's order or address by id is served (404 answered 200 {})", (a, r) =>
    a.status === 404 && /^\/v1\/me\/(orders|addresses)\/[^/]+/.test(pathOf(r)) ? served(a, '{"id":"x"}') : a,
  );

export const ENDPOINTS_DEFECTS: readonly Defect[] = [
  // ------------------------------------------------------------------------------------------------- the diagnostic read
  // A server that reuses the account list for GET /v1/me: guests and operators cannot diagnose their credentials.
  wireWith(
    'endpoints.me-under-account-list',
    'END-LIST-6',
    'GET /v1/me is guarded by the account list instead of its own: a guest or an operator gets 403 caller_not_allowed',
    (ctx) => (a, r) =>
      pathOf(r) === '/v1/me' && a.status === 200 && (headerOf(r.headers, 'guest-session') || headerOf(r.headers, 'operator'))
        ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden')
        : a,
  ),
  ...OPERATION_DEFECTS,
  admitsAny('END-LIST-1', 'the storefront list admits any caller', (r) => /^\/v1\/(catalog|cart)/.test(pathOf(r))),
  admitsAny('END-LIST-2', 'the account list admits any caller', (r) =>
    /^\/v1\/me\/(profile|addresses|payment-methods|orders)/.test(pathOf(r)),
  ),
  admitsAny('END-LIST-3', 'the checkout list admits any caller', (r) => /^\/v1\/me\/(identity|checkout-)/.test(pathOf(r))),
  admitsAny('END-LIST-4', 'the agent-checkout list admits any caller', (r) => pathOf(r).startsWith('/v1/checkouts')),
  admitsAny('END-LIST-5', 'the operator list admits any caller', (r) => pathOf(r).startsWith('/v1/ops/') || pathOf(r).startsWith('/v1/')),
  othersRowServed('endpoints.account.others-rows-served', 'END-ME-2'),
  ...(
    [
      ['assistants', (r: ProxyRequest) => usesDpop(r)],
      ['delegated', (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.agentProtocol],
      ['invited-agents', (r: ProxyRequest, ctx: DefectContext) => tokenClaims(r)?.client_id === ctx.profile.clients.webAgentForwarder],
    ] as const
  ).map(([kind, is]): Defect => ({
    id: `endpoints.account.others-rows-served-to-${kind}`,
    clause: 'END-ME-2',
    kind: 'wire',
    description: `another account's order or address by id is served to ${kind} alone (404 answered 200 {})`,
    rules: (ctx) => ({
      buffer: notAStream,
      response: (a, r) =>
        a.status === 404 && /^\/v1\/me\/(orders|addresses)\/[^/]+/.test(pathOf(r)) && is(r, ctx) ? served(a, '{"id":"x"}') : a,
    }),
  })),
  othersRowServed('endpoints.account.others-data-served', 'END-ME-1'),
  wire('endpoints.account.identity-without-eligibility', 'END-IDENT-1', 'the identity read lacks its eligibility boolean', (a, r) =>
    pathOf(r) === '/v1/me/identity' && a.status === 200
      ? editJson(a, (b) => {
          for (const [k, v] of Object.entries(b)) if (typeof v === 'boolean') delete b[k];
        })
      : a,
  ),
  wire(
    'endpoints.account.identity-carries-idp-url',
    'END-IDENT-2',
    'the identity read carries a self-service URL of the identity provider',
    (a, r) =>
      pathOf(r) === '/v1/me/identity' && a.status === 200
        ? editJson(a, (b) => {
            b.self_service_url = 'https://idp.example/account';
          })
        : a,
  ),
];
