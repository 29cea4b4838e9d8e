// The routes that are not operations, as `explore` sends them (contract/routes.ts): the public routes and description
// documents (no credential), the internal routes (their shared secret in its carrier) and the payment webhook (the
// provider's signature over the raw body). A step resolves to the route's own path and a body of the spec's shape where
// the spec shows one (the recovery request), else the smallest JSON object; `secret:own` presents the route's credential,
// `secret:wrong` a wrong one in the same place, and any other caller its token, which these routes must not take.
import type { Profile } from '../../contract/profile.js';
import { fillPath, SPECIAL_ROWS, type RouteRow } from '../../contract/routes.js';
import { matchesTemplate } from '../../contract/requests.js';
import { bodyOf, present, ROUTES as INTERNAL_ROUTES, wrong, type InternalRoute } from '../lib/internal-routes.js';
import { SIGNATURE_HEADER, signPayload, stripeEvent, IGNORED_EVENT_TYPE } from '../lib/stripe-signature.js';
import type { Step } from './exchange.js';
import type { PlanStep } from './plan.js';
import { applyBodyShape } from './bodies.js';

export const specialRowOf = (id: string): RouteRow | undefined => SPECIAL_ROWS.find((r) => r.operationId === id);

/** The suite's own table of an internal route (lib/internal-routes.ts): its secret, carrier and valid body. */
const internalOf = (row: RouteRow): InternalRoute | undefined => INTERNAL_ROUTES.find((r) => matchesTemplate(row.path, r.path));

/** A special route's step: its path (an id nobody has for a conversation), and a body for a POST. */
export function resolveSpecial(row: RouteRow, p: PlanStep, run: string, profile: Profile): Step {
  const path = fillPath(row.path, { id: `conv_explore_${run}` });
  let body: Step['body'];
  if (row.kind === 'webhook') {
    // An event type the service does not process (it answers 200 all the same): a delivery changes nothing. Its bytes
    // compact, indented or tab-indented: the signature is over the raw bytes, whatever their formatting (END-PUBLIC-8).
    const event = stripeEvent(IGNORED_EVENT_TYPE, { object: 'balance', available: [] });
    body = { text: JSON.stringify(event, null, [undefined, 2, '\t'][p.quantity % 3]), contentType: 'application/json' };
  } else if (internalOf(row))
    // A valid body as the deployment takes it (its conventions for the proxy's reports and the security intent; the
    // spec's recovery request, for an operation nobody has): what the route's own secret is answered for.
    body = { json: bodyOf(internalOf(row)!, { profile }) };
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
 * its carrier (lib/internal-routes.ts `present`: the deployment's declared carrier of the action script's secret, else
 * both plausible ones), or a provider signature of the exact body made with the webhook secret (a wrong one: another
 * secret). Empty where the route has none, or the profile gives no secret (the route is then closed).
 */
export function routeCredential(row: RouteRow, step: Step, profile: Profile, own: boolean): Record<string, string> {
  if (row.auth.kind === 'provider-signature') {
    const secret = profile.secrets.stripeWebhookSecret;
    if (!secret) return {};
    const raw = step.body && 'text' in step.body ? step.body.text : JSON.stringify(step.body?.json ?? null);
    return { [SIGNATURE_HEADER]: signPayload(raw, own ? secret : `${secret}x`) };
  }
  const internal = internalOf(row);
  const secret = internal && profile.secrets[internal.secret];
  if (!internal || typeof secret !== 'string') return {};
  return present({ profile }, internal, own ? secret : wrong(secret), { spec: true });
}
