// The routes that are not operations, as `explore` sends them (contract/routes.ts): the public routes and description
// documents (no credential), the internal routes (their shared secret in its carrier) and the payment webhook (the
// provider's signature over the raw body). A step resolves to the route's own path and a body of the spec's shape where
// the spec shows one (the recovery request), else the smallest JSON object; `secret:own` presents the route's credential,
// `secret:wrong` a wrong one in the same place, and any other caller its token, which these routes must not take.
import type { Profile } from '../../contract/profile.js';
import { fillPath, SPECIAL_ROWS, type RouteRow, type SharedSecret } from '../../contract/routes.js';
import { SIGNATURE_HEADER, signPayload, stripeEvent, IGNORED_EVENT_TYPE } from '../lib/stripe-signature.js';
import type { Step } from './exchange.js';
import type { PlanStep } from './plan.js';
import { applyBodyShape } from './bodies.js';

/** The profile's secret of each shared secret the contract names. */
const PROFILE_SECRET: Readonly<Record<SharedSecret, keyof Profile['secrets']>> = {
  IDP_ACTION_SECRET: 'idpActionSecret',
  PROXY_IDP_SECRET: 'proxyIdpSecret',
  CONVERSATION_HUB_SECRET: 'conversationHubSecret',
  ACCOUNT_RECOVERY_SECRET: 'accountRecoverySecret',
};

export const specialRowOf = (id: string): RouteRow | undefined => SPECIAL_ROWS.find((r) => r.operationId === id);

/** A special route's step: its path (an id nobody has for a conversation), and a body for a POST. */
export function resolveSpecial(row: RouteRow, p: PlanStep, run: string): Step {
  const path = fillPath(row.path, { id: `conv_explore_${run}` });
  let body: Step['body'];
  if (row.kind === 'webhook') {
    // An event type the service does not process (it answers 200 all the same): a delivery changes nothing. Its bytes
    // compact, indented or tab-indented: the signature is over the raw bytes, whatever their formatting (END-PUBLIC-8).
    const event = stripeEvent(IGNORED_EVENT_TYPE, { object: 'balance', available: [] });
    body = { text: JSON.stringify(event, null, [undefined, 2, '\t'][p.quantity % 3]), contentType: 'application/json' };
  } else if (row.operationId === 'recoverAccount')
    // The spec's request (Resources, Account recovery request) for an operation nobody has: 404 recovery_not_found.
    body = { json: { subject: `explore-${run}`, operationId: `explore-op-${run}`, purpose: 'email' } };
  else if (row.method === 'POST') body = { json: {} };
  const generatedFrom =
    p.mutation === 'body-shape' && p.bodyShape && row.kind !== 'webhook' ? (body && 'json' in body ? body.json : {}) : undefined;
  if (p.bodyShape && generatedFrom !== undefined) body = applyBodyShape(generatedFrom, p.bodyShape);
  return {
    operationId: row.operationId,
    method: p.mutation === 'wrong-method' ? 'PUT' : row.method,
    path,
    caller: p.caller,
    headers: {},
    ...(body ? { body } : {}),
    ...(p.mutation ? { mutation: p.mutation } : {}),
    ...(generatedFrom !== undefined ? { generatedFrom } : {}),
  };
}

/**
 * The route's own credential (`own`) or a wrong one in its place, for a step to a special route: the shared secret in
 * its carrier, or a provider signature of the exact body made with the webhook secret (a wrong one: another secret).
 * Empty where the route has none, or the profile gives no secret (the route is then closed).
 */
export function routeCredential(row: RouteRow, step: Step, profile: Profile, own: boolean): Record<string, string> {
  const auth = row.auth;
  if (auth.kind === 'provider-signature') {
    const secret = profile.secrets.stripeWebhookSecret;
    if (!secret) return {};
    const raw = step.body && 'text' in step.body ? step.body.text : JSON.stringify(step.body?.json ?? null);
    return { [SIGNATURE_HEADER]: signPayload(raw, own ? secret : `${secret}x`) };
  }
  if (auth.kind !== 'shared-secret') return {};
  const secret = profile.secrets[PROFILE_SECRET[auth.secret]];
  if (typeof secret !== 'string') return {};
  const value = own ? secret : `${secret}-wrong`;
  return auth.carrier.kind === 'bearer' ? { authorization: `Bearer ${value}` } : { [auth.carrier.name.toLowerCase()]: value };
}
