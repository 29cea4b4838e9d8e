// Defects of the Purpose part (PUR-*) and of Versioning (VER-*): routes that must not exist answer, CORS is offered.
import type { ProxyRequest } from '../proxy.js';
import {
  bareProblem,
  editJson,
  headerOf,
  jsonAnswer,
  jsonSegment,
  pathOf,
  problemAnswer,
  problemCode,
  tokenClaims,
  usesDpop,
  withHeaderLast,
} from './helpers.js';
import { wire, wireWith, type Defect, type DefectContext } from './types.js';

/** The request carries a signed invited-agent context (a JWS whose header says `typ: invited-agent+jwt`) in any field. */
const carriesInvitedContext = (r: ProxyRequest): boolean =>
  r.headers.some(([, v]) => {
    const m = /^([\w-]+)\.[\w-]+\.[\w-]+$/.exec(v.trim());
    return m !== null && jsonSegment(m[1]!)?.typ === 'invited-agent+jwt';
  });

/** Answers 200 {} where the target has no route: a server that serves what the spec says is not a service endpoint. */
const servesUnknownRoutes = (id: string, clause: string, what: string): Defect =>
  wire(id, clause, `${what} answered 200 {} (every unmatched route is served)`, (a) =>
    (a.status === 404 || a.status === 405) &&
    problemCode(a) !== undefined &&
    !/recovery|order|address|conversation|not_configured/.test(problemCode(a)!)
      ? jsonAnswer(a, 200, '{}')
      : a,
  );

/** The agent caller kind of a request, as the banner defects tell them apart; undefined for other callers. */
function agentKind(r: ProxyRequest, ctx: DefectContext): 'invited-agent' | 'assistant' | 'assistant-browser' | 'delegated' | undefined {
  if (usesDpop(r)) return 'assistant';
  const claims = tokenClaims(r);
  if (claims?.client_id === ctx.profile.clients.agentProtocol && 'act' in claims) return 'delegated';
  if (claims?.client_id !== ctx.profile.clients.webAgentForwarder) return undefined;
  return carriesInvitedContext(r) ? 'invited-agent' : 'assistant-browser';
}

/** The identity read, for one agent caller kind alone, carries what the banner must not show (`leak` edits the body). */
const bannerLeak = (id: string, clause: string, kind: string, what: string, leak: (b: Record<string, unknown>) => void): Defect => ({
  id,
  clause,
  description: `the identity read for ${kind} callers alone carries ${what}`,
  kind: 'wire',
  rules: (ctx) => ({
    response: (a, r) => (pathOf(r) === '/v1/me/identity' && a.status === 200 && agentKind(r, ctx) === kind ? editJson(a, leak) : a),
  }),
});
const withEmail = (b: Record<string, unknown>) => {
  b.email = 'ada@example.test';
};
const withPhone = (b: Record<string, unknown>) => {
  b.phone = '+1 718 555 0101';
};

const BANNER_DEFECTS: readonly Defect[] = [
  bannerLeak('purpose.identity-email-to-invited-agent', 'PUR-BANNER-2', 'invited-agent', 'the account email', withEmail),
  bannerLeak('purpose.identity-email-to-assistant', 'PUR-BANNER-2', 'assistant', 'the account email', withEmail),
  bannerLeak('purpose.identity-email-to-assistant-browser', 'PUR-BANNER-2', 'assistant-browser', 'the account email', withEmail),
  bannerLeak('purpose.identity-phone-to-invited-agent', 'PUR-BANNER-1', 'invited-agent', 'a telephone number', withPhone),
  bannerLeak('purpose.identity-phone-to-assistant', 'PUR-BANNER-1', 'assistant', 'a telephone number', withPhone),
];

export const PURPOSE_DEFECTS: readonly Defect[] = [
  ...BANNER_DEFECTS,
  // A service built for the storefront, agent-protocol server, backoffice and assistants that never learned invited agents:
  // the web-agent-forwarder's requests with a context fall to the guard as a machine client of no list.
  wireWith(
    'purpose.invited-agents-not-accepted',
    'PUR-CALLERS-1',
    'invited agents in a website session are not served: a forwarder token with an invited-agent context gets 403 caller_not_allowed',
    (ctx) => (a, r) => (carriesInvitedContext(r) && a.status < 400 ? problemAnswer(ctx, a, 403, 'caller_not_allowed', 'Forbidden') : a),
  ),
  wire('purpose.cors-offered', 'PUR-PROTO-3', 'Access-Control-Allow-Origin: * on answers to requests with Origin', (a, r) =>
    headerOf(r.headers, 'origin')
      ? {
          ...a,
          headers: withHeaderLast(
            withHeaderLast(a.headers, 'Access-Control-Allow-Origin', '*'),
            'Access-Control-Allow-Methods',
            'GET, POST',
          ),
        }
      : a,
  ),
  // A CDN rule that answers browsers only (Sec-Fetch-Mode: cors, which no HTTP client sends unasked): only a real browser
  // sees it (check purpose.no-cors.browser).
  wire(
    'purpose.cors-for-browsers',
    'PUR-PROTO-3',
    'CORS granted to browsers only (Sec-Fetch-Mode: cors): the Origin echoed with credentials, preflights answered 204 allowing all',
    (a, r) => {
      const origin = headerOf(r.headers, 'origin');
      if (headerOf(r.headers, 'sec-fetch-mode') !== 'cors' || !origin) return a;
      const granted = withHeaderLast(
        withHeaderLast(a.headers, 'Access-Control-Allow-Origin', origin),
        'Access-Control-Allow-Credentials',
        'true',
      );
      if (r.method !== 'OPTIONS') return { ...a, headers: granted };
      const allow = headerOf(r.headers, 'access-control-request-headers') ?? '';
      return {
        status: 204,
        headers: withHeaderLast(
          withHeaderLast(granted, 'Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE'),
          'Access-Control-Allow-Headers',
          allow,
        ),
        body: '',
      };
    },
  ),
  servesUnknownRoutes('purpose.rpc-endpoint-served', 'PUR-PROTO-1', 'an RPC endpoint'),
  servesUnknownRoutes('purpose.batch-endpoint-served', 'PUR-PROTO-2', 'a batch endpoint'),
  servesUnknownRoutes('purpose.alias-paths-served', 'PUR-RULE-1', 'a second path of an operation'),
  servesUnknownRoutes('purpose.storefront-prefix-served', 'PUR-RULE-6', 'a storefront-prefixed route'),
  ...Array.from({ length: 14 }, (_, i) =>
    servesUnknownRoutes(`purpose.storefront-capability-${i + 1}-served`, `PUR-STOREFRONT-${i + 1}`, 'a storefront-only capability'),
  ),
  servesUnknownRoutes('purpose.human-only-route-served', 'PUR-HUMAN-3', 'a human-only operation'),
  servesUnknownRoutes('versioning.website-checkout-paths-served', 'VER-ROUTES-2', 'an earlier website-prefixed checkout read'),
  servesUnknownRoutes('versioning.old-paths-aliased', 'VER-ROUTES-3', 'an old path'),
  wire('versioning.assistant-document-missing', 'VER-DOCS-1', '/assistant/openapi.json answers 404', (a, r) =>
    pathOf(r) === '/assistant/openapi.json' ? bareProblem(404, 'not_found', 'Not Found') : a,
  ),
];
