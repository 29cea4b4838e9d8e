// The internal routes of the spec (Endpoints > Public and special routes), each behind its shared secret: how each carries
// its secret, the reference's body of each, and ways to get a credential wrong. The spec does not say where the identity
// provider's action script puts its secret, nor the security intent's body: a deployment declares both
// (conventions.actionSecret, conventions.securityIntent); undeclared, spec-level requests send the secret both as
// `Authorization: Bearer` and as `X-Idp-Action-Secret` (the reference reads the former) with the reference's body.
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { freshId } from './fresh-id.js';
import { PROXY_REPORTS, proxyPayload } from './credential-formats.js';
import type { JsonObject } from './jws.js';
import { setPointer } from './openapi-schema.js';
import { SPECIAL_PATHS, fillPath } from '../../contract/routes.js';

/** What these helpers read of a run: its profile (a check's `shop`, or explore's world). */
type WithProfile = { readonly profile: Profile };

type Secrets = Profile['secrets'];
export type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';

/** A value that is not the secret: the secret with its last character changed, or a random one when it is unset. */
export function wrong(secret: string | null): string {
  if (secret === null) return `wrong-${randomUUID()}`;
  return secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
}

/** The profile's other secrets and keys (never the one named), non-null and distinct from it. */
export function otherSecrets(secrets: Secrets, except: SecretName): [string, string][] {
  const own = secrets[except];
  const names = [
    'idpActionSecret',
    'proxyIdpSecret',
    'conversationHubSecret',
    'accountRecoverySecret',
    'guestSessionKey',
    'webSessionContextKey',
    'stripeWebhookSecret',
  ] as const;
  return names
    .filter((n) => n !== except)
    .flatMap((n) => {
      const v = secrets[n];
      return typeof v === 'string' && v !== own ? [[n, v] as [string, string]] : [];
    });
}

/** An Authorization header in the Bearer scheme. */
export const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

// ------------------------------------------------------------------------------------------- the reference's route bodies

export interface InternalRoute {
  path: string;
  secret: SecretName;
  /** How the spec (or, for the action script, the reference) carries the secret. */
  carrier: 'bearer' | 'x-proxy-idp-secret';
  clause: string;
  /** A valid body of the reference's shape. */
  body: () => Record<string, unknown>;
  /** What the reference answers a valid request with its own secret. */
  accepted: { status: number; error?: string };
}

/** The internal routes; conversation routes name a conversation nobody has. */
export const ROUTES: readonly InternalRoute[] = [
  {
    path: SPECIAL_PATHS.recordSecurityIntent,
    secret: 'idpActionSecret',
    carrier: 'bearer',
    clause: 'END-PUBLIC-9',
    body: () => ({ intent_id: freshId('int'), subject: freshId('chk'), kind: 'email_change' }),
    accepted: { status: 202 },
  },
  {
    path: SPECIAL_PATHS.registerSignedOutAssistantSession,
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    clause: 'END-PUBLIC-11',
    body: () => ({ session_id: freshId('sess'), client_id: 'conformance-agent', scopes: [] }),
    accepted: { status: 201 },
  },
  {
    path: SPECIAL_PATHS.recordConnectedAgent,
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    clause: 'END-PUBLIC-12',
    body: () => ({ subject: freshId('chk'), agent_id: freshId('agent'), client_id: 'conformance-agent', permissions: ['assistant:read'] }),
    accepted: { status: 201 },
  },
  {
    path: SPECIAL_PATHS.recordAgentAuthorization,
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    clause: 'END-PUBLIC-13',
    body: () => ({ subject: freshId('chk'), agent_id: freshId('agent'), permissions: ['assistant:read'], decision: 'granted' }),
    accepted: { status: 200 },
  },
  {
    path: fillPath(SPECIAL_PATHS.recordConversationTurn, { id: freshId('conv') }),
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    clause: 'END-PUBLIC-14',
    body: () => ({ turn_id: freshId('turn'), author: 'agent', text: 'Hello from the conformance suite.' }),
    accepted: { status: 404, error: 'not_found' },
  },
  {
    path: fillPath(SPECIAL_PATHS.recordConversationHandoffTimeout, { id: freshId('conv') }),
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    clause: 'END-PUBLIC-15',
    body: () => ({ handoff_id: freshId('handoff'), timed_out_at: new Date().toISOString() }),
    accepted: { status: 404, error: 'not_found' },
  },
  {
    path: SPECIAL_PATHS.recoverAccount,
    secret: 'accountRecoverySecret',
    carrier: 'bearer',
    clause: 'END-PUBLIC-16',
    body: () => ({ subject: freshId('chk'), operationId: freshId('recop'), purpose: 'email' }),
    accepted: { status: 404, error: 'recovery_not_found' },
  },
];

/**
 * A valid body of the route, as the deployment takes it: an identity-provider proxy report with the profile's conventions
 * (members and values); a security intent of the deployment's declared shape (conventions.securityIntent) with a fresh
 * intent id and subject, else the reference's.
 */
export function bodyOf(r: InternalRoute, shop: WithProfile): Record<string, unknown> {
  const report = PROXY_REPORTS[r.path];
  if (report) return proxyPayload(shop.profile.conventions, report, r.body() as JsonObject);
  const intent = shop.profile.conventions?.securityIntent;
  if (r.secret === 'idpActionSecret' && intent) {
    let body: unknown = structuredClone(intent.example);
    body = setPointer(body, intent.intentId ?? '/intent_id', freshId('int'));
    body = setPointer(body, intent.subject ?? '/subject', freshId('chk'));
    return body as Record<string, unknown>;
  }
  return r.body();
}

/** The route whose path starts or ends with `path`. */
export const route = (path: string) => ROUTES.find((r) => r.path.startsWith(path) || r.path.endsWith(path))!;

/** Whether the deployment declares where the action script's secret goes (conventions.actionSecret). */
export const declaresActionSecret = (shop: WithProfile): boolean => shop.profile.conventions?.actionSecret !== undefined;

/**
 * The headers that present `value` in the route's carrier. The action script's carrier is the deployment's declaration
 * (conventions.actionSecret); undeclared, spec-level requests send both plausible carriers (`Authorization: Bearer` and
 * `X-Idp-Action-Secret`), reference-level ones the reference's (Bearer).
 */
export function present(shop: WithProfile, r: InternalRoute, value: string, o: { spec?: boolean } = {}): Record<string, string> {
  if (r.carrier === 'x-proxy-idp-secret') return { 'x-proxy-idp-secret': value };
  const declared = shop.profile.conventions?.actionSecret;
  if (r.secret === 'idpActionSecret' && declared)
    return { [declared.header.toLowerCase()]: declared.scheme ? `${declared.scheme} ${value}` : value };
  if (r.secret === 'idpActionSecret' && o.spec) return { ...bearer(value), 'x-idp-action-secret': value };
  return bearer(value);
}
