// The payment-provider webhook and the internal routes (identity-provider action script, identity-provider proxy,
// conversation hub, account recovery). Each has its own shared-secret credential; none takes an access token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
import type { Config } from './config.js';
import { HttpError, headerValues, sendJson, type RequestContext } from './http.js';
import * as S from './schemas.js';
import { BodyReader, decodeJson, parseWith, BODY_CAP } from './body.js';
import type { App } from './server.js';

type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';

export interface InternalRoute {
  id: string;
  path: string;
  secret: SecretName;
  /** how the secret is presented */
  carrier: 'bearer' | 'x-proxy-idp-secret';
  cap: number;
  params?: ZodType;
  body: ZodType;
  summary: string;
  success: { status: number; schema: string };
  handler: (app: App, params: Record<string, string>, body: any) => { status: number; body: unknown };
}

function secretEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export const INTERNAL_ROUTES: InternalRoute[] = [
  {
    id: 'recordSecurityIntent',
    path: '/internal/account/security-intents',
    secret: 'idpActionSecret',
    carrier: 'bearer',
    cap: 8 * 1024,
    body: S.securityIntentBody,
    summary: 'Identity provider action script: record a fresh-verification approval (freshIntentId) for an account.',
    success: { status: 201, schema: 'SecurityIntentRecorded' },
    handler: (app, _params, body) => {
      const existing = app.store.securityIntents.get(body.freshIntentId);
      if (existing) {
        if (existing.subject !== body.subject || existing.purpose !== body.purpose) {
          throw new HttpError(409, 'intent_conflict', 'This freshIntentId was recorded with other values.');
        }
        return { status: 200, body: { freshIntentId: existing.freshIntentId, recorded: true } };
      }
      app.store.securityIntents.set(body.freshIntentId, {
        freshIntentId: body.freshIntentId,
        subject: body.subject,
        purpose: body.purpose,
        operationId: body.operationId ?? null,
        recordedAt: new Date().toISOString(),
      });
      return { status: 201, body: { freshIntentId: body.freshIntentId, recorded: true } };
    },
  },
  {
    id: 'reportAssistantSessionSignedOut',
    path: '/internal/assistant/sessions/signed-out',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    cap: BODY_CAP,
    body: S.sessionSignedOutBody,
    summary: 'Identity-provider proxy: an assistant session is (now) signed out.',
    success: { status: 200, schema: 'Recorded' },
    handler: (app, _params, body) => {
      app.store.assistantSessions.set(body.session_id, {
        state: 'signed_out',
        clientId: body.client_id,
        scopes: body.scopes,
        at: new Date().toISOString(),
      });
      return { status: 200, body: { recorded: true } };
    },
  },
  {
    id: 'reportAssistantAgentConnected',
    path: '/internal/assistant/agents/connected',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    cap: BODY_CAP,
    body: S.agentConnectedBody,
    summary: 'Identity-provider proxy: an account connected an assistant agent (its session is signed in).',
    success: { status: 200, schema: 'Recorded' },
    handler: (app, _params, body) => {
      const now = new Date().toISOString();
      app.store.assistantSessions.set(body.session_id, {
        state: 'signed_in',
        subject: body.subject,
        agentId: body.agent_id,
        clientId: body.client_id,
        scopes: body.permissions,
        at: now,
      });
      app.store.authorizations.set(app.store.authorizationKey(body.subject, body.agent_id), {
        subject: body.subject,
        agentId: body.agent_id,
        permissions: body.permissions,
        decision: 'granted',
        at: now,
      });
      return { status: 200, body: { recorded: true } };
    },
  },
  {
    id: 'reportAgentAuthorization',
    path: '/internal/agent-authorization',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    cap: BODY_CAP,
    body: S.agentAuthorizationBody,
    summary: "Identity-provider proxy: an account's decision about an agent (granted or revoked).",
    success: { status: 200, schema: 'Recorded' },
    handler: (app, _params, body) => {
      app.store.authorizations.set(app.store.authorizationKey(body.subject, body.agent_id), {
        subject: body.subject,
        agentId: body.agent_id,
        permissions: body.permissions,
        decision: body.decision,
        at: new Date().toISOString(),
      });
      return { status: 200, body: { recorded: true } };
    },
  },
  {
    id: 'hubConversationTurn',
    path: '/internal/conversations/{id}/turn',
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    cap: 64 * 1024,
    params: S.conversationIdParams,
    body: S.hubTurnBody,
    summary: 'Conversation hub: append a turn to an open conversation.',
    success: { status: 202, schema: 'Recorded' },
    handler: () => {
      throw new HttpError(404, 'not_found', 'No open conversation has this id.');
    },
  },
  {
    id: 'hubConversationHandoffTimeout',
    path: '/internal/conversations/{id}/handoff-timeout',
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    cap: 64 * 1024,
    params: S.conversationIdParams,
    body: S.hubTimeoutBody,
    summary: 'Conversation hub: a handoff conversation timed out.',
    success: { status: 202, schema: 'Recorded' },
    handler: () => {
      throw new HttpError(404, 'not_found', 'No handoff conversation has this id.');
    },
  },
  {
    id: 'recoverAccountOperation',
    path: '/internal/account/recover',
    secret: 'accountRecoverySecret',
    carrier: 'bearer',
    cap: BODY_CAP,
    body: S.recoveryBody,
    summary: 'Operator recovery: resume an approved email change or account deletion that partly failed.',
    success: { status: 200, schema: 'RecoveryResult' },
    handler: (app, _params, body) => recover(app, body),
  },
];

const inFlight = new Set<string>();

function recover(app: App, body: { subject: string; operationId: string; purpose: 'email' | 'delete' }) {
  const op = app.store.recovery.get(body.operationId);
  if (!op || op.subject !== body.subject || op.purpose !== body.purpose) {
    throw new HttpError(404, 'recovery_not_found', 'No matching resumable authorization.');
  }
  const answer = (status: 'complete' | 'pending' | 'cancelled') => ({
    status: 200,
    body: { status, operationId: op.operationId },
  });
  switch (op.phase) {
    case 'proof_pending':
      // The approval was never consumed: recovery cannot begin an operation from unconsumed proof.
      throw new HttpError(404, 'recovery_not_found', 'No matching resumable authorization.');
    case 'complete':
      return answer('complete');
    case 'cancelled':
      return answer('cancelled');
    case 'provider_pending':
      return answer('pending');
    case 'approved': {
      if (inFlight.has(op.operationId)) {
        throw new HttpError(409, 'recovery_pending', 'This operation is being resumed; retry it later.');
      }
      inFlight.add(op.operationId);
      try {
        const account = app.store.accounts.get(op.subject);
        if (op.purpose === 'email') {
          if (account && op.pendingEmail) account.email = op.pendingEmail;
          if (account && account.state === 'contact_transition') account.state = 'active';
        } else {
          if (account) account.state = 'deleted';
          for (const rec of app.store.authorizations.values()) {
            if (rec.subject === op.subject) rec.decision = 'revoked';
          }
        }
        op.phase = 'complete';
        return answer('complete');
      } finally {
        inFlight.delete(op.operationId);
      }
    }
  }
}

export async function handleInternal(
  app: App,
  route: InternalRoute,
  rawParams: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
): Promise<void> {
  const secret = app.config[route.secret];
  if (!secret) {
    await BodyReader.drain(req);
    throw new HttpError(404, 'not_configured', 'This route is closed on this deployment.');
  }
  const raw = await BodyReader.read(req, route.cap);
  const decoded = decodeJson(req, raw);
  checkSecret(req, route, secret);
  const params = route.params ? parseWith(route.params, rawParams, 'params') : {};
  if (!decoded.present) {
    throw new HttpError(400, 'invalid_request', 'A JSON body is required.', {
      extra: { issues: [{ path: 'body', code: 'required', message: 'A JSON body is required.' }] },
    });
  }
  const body = parseWith(route.body, decoded.value, 'body');
  const result = route.handler(app, params, body);
  sendJson(res, ctx, result.status, result.body);
}

function checkSecret(req: IncomingMessage, route: InternalRoute, secret: string): void {
  if (route.carrier === 'x-proxy-idp-secret') {
    const values = headerValues(req, 'x-proxy-idp-secret');
    if (values.length !== 1 || !secretEquals(values[0]!, secret)) {
      throw new HttpError(401, 'invalid_credentials', 'The X-Proxy-Idp-Secret header is missing or wrong.');
    }
    return;
  }
  const values = headerValues(req, 'authorization');
  const m = values.length === 1 ? /^Bearer +(\S+)$/i.exec(values[0]!.trim()) : null;
  if (!m || !secretEquals(m[1]!, secret)) {
    throw new HttpError(401, 'invalid_token', 'The credential of this route is missing or wrong.', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
}

// ---------- the payment-provider webhook ----------

// The provider library takes about 0.4 s to load: loaded on the first delivery, so that the server starts fast.
let stripeModule: Promise<typeof import('stripe').default> | null = null;
function loadStripe(): Promise<typeof import('stripe').default> {
  stripeModule ??= import('stripe').then((m) => m.default);
  return stripeModule;
}

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', msg: 'payment_webhook', ...entry })}\n`);
}

export async function handleWebhook(app: App, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
  const config: Config = app.config;
  if (!config.paymentWebhookEnabled) {
    await BodyReader.drain(req);
    throw new HttpError(404, 'not_configured', 'The payment webhook is not configured on this deployment.');
  }
  if (!config.stripeWebhookSecret) {
    await BodyReader.drain(req);
    throw new HttpError(503, 'webhook_secret_missing', 'The webhook signing secret is not configured.');
  }
  const raw = await BodyReader.read(req, BODY_CAP);
  const sigs = headerValues(req, 'stripe-signature');
  if (sigs.length === 0 || sigs[0]!.trim() === '') {
    throw new HttpError(400, 'missing_signature', 'The Stripe-Signature header is absent.');
  }
  let event: { id: string; type: string; data?: { object?: unknown } };
  try {
    if (sigs.length > 1) throw new Error('several signature headers');
    const Stripe = await loadStripe();
    event = Stripe.webhooks.constructEvent(raw, sigs[0]!, config.stripeWebhookSecret) as unknown as typeof event;
  } catch {
    throw new HttpError(400, 'invalid_signature', 'The webhook signature does not verify.');
  }
  let outcome: string;
  try {
    outcome = processEvent(app, event);
  } catch (e) {
    log({ event_type: event.type, event_id: event.id, outcome: 'failed' });
    if (e instanceof HttpError) throw e;
    throw new HttpError(500, 'processing_failed', 'The delivery could not be processed.');
  }
  log({ event_type: event.type, event_id: event.id, outcome });
  sendJson(res, ctx, 200, { received: true });
}

function processingFailed(detail: string): HttpError {
  return new HttpError(500, 'processing_failed', detail);
}

function processEvent(app: App, event: { id: string; type: string; data?: { object?: unknown } }): string {
  const store = app.store;
  const obj = event.data?.object as Record<string, unknown> | undefined;
  const needObject = (): Record<string, unknown> => {
    if (!obj || typeof obj !== 'object' || typeof obj.id !== 'string') {
      throw processingFailed('The event carries no object with an id.');
    }
    return obj;
  };
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled': {
      const o = needObject();
      let payment = store.payments.get(o.id as string);
      const meta = o.metadata as Record<string, unknown> | undefined;
      if (!payment && meta && typeof meta.order_id === 'string') {
        payment = [...store.payments.values()].find((p) => p.orderId === meta.order_id);
      }
      if (!payment) return 'ignored_unknown_payment';
      const order = store.orders.get(payment.orderId);
      if (event.type === 'payment_intent.succeeded') {
        if (payment.status === 'succeeded') return 'already_settled';
        if (payment.status !== 'pending') return `ignored_payment_${payment.status}`;
        payment.status = 'succeeded';
        if (order && order.status === 'pending_payment') order.status = 'paid';
        return 'settled';
      }
      if (payment.status !== 'pending') return `ignored_payment_${payment.status}`;
      payment.status = event.type === 'payment_intent.canceled' ? 'cancelled' : 'failed';
      return 'payment_failed';
    }
    case 'setup_intent.succeeded': {
      const o = needObject();
      const setup = store.cardSetups.get(o.id as string);
      if (!setup) return 'ignored_unadmitted_setup';
      if (setup.completed) return 'already_completed';
      const account = store.accounts.get(setup.accountSub);
      if (!account) throw processingFailed('The account of the card setup is gone.');
      const pmField = o.payment_method;
      const pmObj = pmField && typeof pmField === 'object' ? (pmField as Record<string, unknown>) : null;
      const card = (pmObj?.card ?? {}) as Record<string, unknown>;
      const providerRef =
        typeof pmField === 'string' ? pmField : typeof pmObj?.id === 'string' ? (pmObj.id as string) : `pm_${o.id as string}`;
      account.paymentMethods.push({
        id: `pm_${randomBytes(8).toString('hex')}`,
        brand: typeof card.brand === 'string' ? card.brand : 'visa',
        last4: typeof card.last4 === 'string' && /^\d{4}$/.test(card.last4) ? card.last4 : '4242',
        expMonth: typeof card.exp_month === 'number' ? card.exp_month : 12,
        expYear: typeof card.exp_year === 'number' ? card.exp_year : new Date().getUTCFullYear() + 3,
        providerRef,
      });
      setup.completed = true;
      return 'card_saved';
    }
    default:
      return 'ignored_type';
  }
}
