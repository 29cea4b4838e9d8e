// Defects of the internal routes' credentials (END-PUBLIC-9..18, END-RECOVERY-11): the proxy puts the right secret in
// place of a wrong or missing one (any credential accepted), or spoils the right one (the rightful caller refused).
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import type { ProxyRequest } from '../proxy.js';
import { pathOf, withHeader, withoutHeader } from './helpers.js';
import { lenient, wire, type Defect, type DefectContext } from './types.js';

export type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';

const fixSecret =
  (match: (path: string) => boolean, secret: SecretName, carrier: 'bearer' | 'x-proxy-idp-secret') => (ctx: DefectContext) => ({
    request(req: ProxyRequest): ProxyRequest {
      const value = ctx.profile.secrets[secret];
      if (req.method !== 'POST' || !match(pathOf(req)) || typeof value !== 'string') return req;
      return carrier === 'bearer'
        ? { ...req, headers: withHeader(withHeader(req.headers, 'Authorization', `Bearer ${value}`), 'X-Idp-Action-Secret', value) }
        : { ...req, headers: withHeader(req.headers, 'X-Proxy-Idp-Secret', value) };
    },
  });

export const SECRET_ROUTES: [
  clause: string,
  match: (p: string) => boolean,
  secret: SecretName,
  carrier: 'bearer' | 'x-proxy-idp-secret',
][] = [
  ['END-PUBLIC-9', (p) => p === '/internal/account/security-intents', 'idpActionSecret', 'bearer'],
  ['END-PUBLIC-11', (p) => p === '/internal/assistant/sessions/signed-out', 'proxyIdpSecret', 'x-proxy-idp-secret'],
  ['END-PUBLIC-12', (p) => p === '/internal/assistant/agents/connected', 'proxyIdpSecret', 'x-proxy-idp-secret'],
  ['END-PUBLIC-13', (p) => p === '/internal/agent-authorization', 'proxyIdpSecret', 'x-proxy-idp-secret'],
  ['END-PUBLIC-14', (p) => /^\/internal\/conversations\/[^/]+\/turn$/.test(p), 'conversationHubSecret', 'bearer'],
  ['END-PUBLIC-15', (p) => /^\/internal\/conversations\/[^/]+\/handoff-timeout$/.test(p), 'conversationHubSecret', 'bearer'],
  ['END-PUBLIC-16', (p) => p === '/internal/account/recover', 'accountRecoverySecret', 'bearer'],
  ['END-PUBLIC-18', (p) => p === '/internal/account/recover', 'accountRecoverySecret', 'bearer'],
  ['END-RECOVERY-11', (p) => p === '/internal/account/recover', 'accountRecoverySecret', 'bearer'],
];

/**
 * An internal route that compares its credential with a stale value (a secret rotated on one side only): the proxy spoils
 * the right secret wherever the request carries it, so the route refuses every caller, the rightful one included.
 */
const staleSecret = (match: (path: string) => boolean, secret: SecretName) => (ctx: DefectContext) => ({
  request(req: ProxyRequest): ProxyRequest {
    const value = ctx.profile.secrets[secret];
    if (req.method !== 'POST' || !match(pathOf(req)) || typeof value !== 'string') return req;
    return { ...req, headers: req.headers.map(([k, v]) => [k, v.split(value).join(`${value}-stale`)] as [string, string]) };
  },
});

export const ENDPOINTS_INTERNAL_DEFECTS: readonly Defect[] = [
  ...SECRET_ROUTES.map(([clause, match, secret, carrier]) =>
    lenient(
      `endpoints.internal.${clause.toLowerCase()}.any-credential-accepted`,
      clause,
      `${CLAUSES_BY_ID.get(clause)?.text.split(' ').slice(0, 3).join(' ') ?? clause}: any credential is accepted (the right secret is put in its place)`,
      fixSecret(match, secret, carrier),
    ),
  ),
  wire(
    'endpoints.internal.proxy-secret-401-without-challenge',
    'END-PUBLIC-11',
    'a 401 on the X-Proxy-Idp-Secret routes carries no WWW-Authenticate (RFC 9110 requires one on every 401)',
    (a, r) =>
      a.status === 401 && pathOf(r) === '/internal/assistant/sessions/signed-out'
        ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') }
        : a,
  ),
  ...SECRET_ROUTES.filter(([clause]) => /^END-PUBLIC-(9|1[1-6])$/.test(clause)).map(
    ([clause, match, secret]) =>
      ({
        id: `endpoints.strength.${clause.toLowerCase()}.own-secret-refused`,
        clause,
        description: 'the route refuses every credential, its own secret included (compared with a stale value)',
        kind: 'wire',
        rules: staleSecret(match, secret),
      }) satisfies Defect,
  ),
];
