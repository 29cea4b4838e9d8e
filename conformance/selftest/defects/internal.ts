// Leniency defects of the internal routes (END-PUBLIC-9..18) and of the recovery body (RES-RECOVERY-*, LIM-RECOVERY-*,
// END-RECOVERY-5/6): the proxy puts the right secret in place of a wrong or missing one, or repairs the body, so that the
// server behind accepts what it must refuse.
import { CLAUSES_BY_ID } from '../../clauses/index.js';
import { headerOf, withHeader, type ProxyAnswer, type ProxyRequest } from '../proxy.js';
import { lenient, notAStream, pathOf, problemCode, wire, type Defect, type DefectContext } from './types.js';

type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';

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

const SECRET_ROUTES: [clause: string, match: (p: string) => boolean, secret: SecretName, carrier: 'bearer' | 'x-proxy-idp-secret'][] = [
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

const isRecover = (req: ProxyRequest) => req.method === 'POST' && pathOf(req) === '/internal/account/recover';

/** The recovery body repaired by `fix` (which mutates it) before it goes upstream. */
const fixRecoveryBody = (fix: (b: Record<string, unknown>) => void) => () => ({
  requestBody(req: ProxyRequest, body: string): string {
    if (!isRecover(req)) return body;
    try {
      const b = JSON.parse(body) as unknown;
      if (!b || typeof b !== 'object' || Array.isArray(b)) return body;
      fix(b as Record<string, unknown>);
      return JSON.stringify(b);
    } catch {
      return body;
    }
  },
});
const KNOWN = ['subject', 'operationId', 'purpose'];
const stripUnknown = (b: Record<string, unknown>) => {
  for (const k of Object.keys(b)) if (!KNOWN.includes(k)) delete b[k];
};
const clip = (member: string, max: number) => (b: Record<string, unknown>) => {
  if (typeof b[member] !== 'string' || b[member] === '') b[member] = 'x';
  else b[member] = (b[member] as string).slice(0, max);
};

const recoveryStatus = (id: string, clause: string, from: string, to: string): Defect =>
  wire(id, clause, `a recovery operation that is ${from} answered with status \`${to}\``, (a, r) => {
    if (!isRecover(r) || a.status !== 200 || a.body === undefined) return a;
    return { ...a, body: a.body.replace(`"status":"${from}"`, `"status":"${to}"`) };
  });

export const INTERNAL_DEFECTS: readonly Defect[] = [
  ...SECRET_ROUTES.map(([clause, match, secret, carrier]) =>
    lenient(
      `internal.${clause.toLowerCase()}.any-credential-accepted`,
      clause,
      `${CLAUSES_BY_ID.get(clause)?.text.split(' ').slice(0, 3).join(' ') ?? clause}: any credential is accepted (the right secret is put in its place)`,
      fixSecret(match, secret, carrier),
    ),
  ),
  lenient(
    'internal.recovery-unknown-members-accepted',
    'RES-RECOVERY-4',
    'unknown members of a recovery body are ignored instead of refused',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'internal.recovery-email-accepted',
    'END-RECOVERY-5',
    'a recovery body naming an email is accepted (the member is dropped)',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'internal.recovery-command-accepted',
    'END-RECOVERY-6',
    'a recovery body naming a provider command is accepted (the member is dropped)',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'internal.recovery-subject-unbounded',
    'RES-RECOVERY-1',
    'an empty or overlong subject is accepted (clipped to 1–256)',
    fixRecoveryBody(clip('subject', 256)),
  ),
  lenient(
    'internal.recovery-subject-length',
    'LIM-RECOVERY-1',
    'a 257-character subject is accepted (clipped to 256)',
    fixRecoveryBody(clip('subject', 256)),
  ),
  lenient(
    'internal.recovery-operation-unbounded',
    'RES-RECOVERY-2',
    'an empty or overlong operationId is accepted (clipped to 1–128)',
    fixRecoveryBody(clip('operationId', 128)),
  ),
  lenient(
    'internal.recovery-operation-length',
    'LIM-RECOVERY-2',
    'a 129-character operationId is accepted (clipped to 128)',
    fixRecoveryBody(clip('operationId', 128)),
  ),
  lenient(
    'internal.recovery-any-purpose',
    'RES-RECOVERY-3',
    'any purpose is accepted (read as email)',
    fixRecoveryBody((b) => {
      if (b.purpose !== 'email' && b.purpose !== 'delete') b.purpose = 'email';
    }),
  ),
  recoveryStatus('internal.recovery-complete-as-pending', 'STA-RECOVERY-1', 'complete', 'pending'),
  recoveryStatus('internal.recovery-finished-as-pending', 'END-RECOVERY-8', 'complete', 'pending'),
  recoveryStatus('internal.recovery-pending-as-complete', 'STA-RECOVERY-2', 'pending', 'complete'),
  recoveryStatus('internal.recovery-remaining-as-complete', 'END-RECOVERY-9', 'pending', 'complete'),
  recoveryStatus('internal.recovery-cancelled-as-pending', 'STA-RECOVERY-3', 'cancelled', 'pending'),
  recoveryStatus('internal.recovery-retired-as-pending', 'END-RECOVERY-10', 'cancelled', 'pending'),
  {
    // Not every cancelled answer (that is STA-RECOVERY-3's defect): the retired authorization answers `cancelled` once, and
    // a repeat of the same operation finds it reopened. The proxy remembers, per operation, that it answered once.
    id: 'internal.recovery-cancelled-reopened',
    clause: 'STA-RECOVERY-4',
    description: 'a cancelled recovery authorization answers `cancelled` once, then is reopened: every repeat answers `pending`',
    kind: 'wire',
    rules: () => {
      const answered = new Set<string>();
      return {
        buffer: notAStream,
        response: (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer => {
          if (!isRecover(r) || a.status !== 200 || a.body === undefined || !a.body.includes('"status":"cancelled"')) return a;
          const operation = /"operationId":"([^"]*)"/.exec(a.body)?.[1] ?? '';
          if (!answered.has(operation)) {
            answered.add(operation);
            return a;
          }
          return { ...a, body: a.body.replace('"status":"cancelled"', '"status":"pending"') };
        },
      };
    },
  },
  wire('internal.recovery-not-found-as-400', 'END-RECOVERY-12', 'recovery_not_found answered 400', (a, r) =>
    isRecover(r) && problemCode(a) === 'recovery_not_found' ? { ...a, status: 400 } : a,
  ),
  wire(
    'internal.recovery-ownership-unchecked',
    'END-RECOVERY-1',
    'recovery_not_found answered 200 pending (ownership unchecked)',
    (a, r) =>
      isRecover(r) && problemCode(a) === 'recovery_not_found'
        ? {
            status: 200,
            headers: [
              ['Content-Type', 'application/json'],
              ['Cache-Control', 'no-store'],
              ...a.headers.filter(([k]) => k.toLowerCase() === 'x-request-id'),
            ],
            body: '{"status":"pending"}',
          }
        : a,
  ),
  wire('internal.recovery-credential-refusal-403', 'END-RECOVERY-11', 'a wrong recovery credential answered 403 instead of 401', (a, r) =>
    isRecover(r) && a.status === 401 && headerOf(r.headers, 'authorization') ? { ...a, status: 403 } : a,
  ),
  wire(
    'internal.proxy-secret-401-without-challenge',
    'END-PUBLIC-11',
    'a 401 on the X-Proxy-Idp-Secret routes carries no WWW-Authenticate (RFC 9110 requires one on every 401)',
    (a, r) =>
      a.status === 401 && pathOf(r) === '/internal/assistant/sessions/signed-out'
        ? { ...a, headers: a.headers.filter(([k]) => k.toLowerCase() !== 'www-authenticate') }
        : a,
  ),
];
