// Assembles the reference: the request stage app-wide, public routes, every operation through its pipeline, the
// catch-all, and the boundary.
import express, { type Express } from 'express';
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import { boundary } from './boundary.js';
import { withVerificationCache } from './auth/token-cache.js';
import { createTokenVerifier, type TokenVerifier } from './auth/verify-token.js';
import { createLogger, type Logger } from './log.js';
import { createRateLimiter } from './rate-limit.js';
import type { Clock, Domain } from './domain.js';
import { requestStage } from './pipeline/01-request.js';
import { dispatchRoutes } from './pipeline/dispatch.js';
import { pipelineFor } from './pipeline/groups.js';
import { isOperation, type OperationRouteDef, type RouteDef } from './pipeline/route.js';
import { catalogRoutes } from './routes/catalog.js';
import { cartRoutes } from './routes/cart.js';
import { meRoutes } from './routes/me.js';
import { accountRoutes } from './routes/account.js';
import { checkoutRoutes } from './routes/checkout.js';
import { opsRoutes } from './routes/ops.js';
import { conversationRoutes } from './routes/conversations.js';
import { webhookRoute } from './routes/webhook.js';
import { INTERNAL_ROUTES } from './routes/internal.js';
import { descriptionRoutes, healthRoute, VERSION } from './routes/public.js';
import { createPaymentProvider } from './payments/index.js';
import type { PaymentProvider } from './payments/port.js';
import { buildDescription } from './openapi.js';
import { createDpopNoncesFor } from './admission/assistant.js';
import { EventEmitter } from 'node:events';

export { VERSION };

/** The operations, in the order the description documents list them. */
export const ROUTES: readonly OperationRouteDef[] = [
  ...catalogRoutes,
  ...cartRoutes,
  ...meRoutes,
  ...accountRoutes,
  ...checkoutRoutes,
  ...opsRoutes,
  ...conversationRoutes,
].filter(isOperation);

/**
 * Every route but the two description documents (built per instance: `descriptionRoutes`), one RouteDef per contract row:
 * the operations, /health, the webhook, the internal routes.
 */
export const ALL_ROUTES: readonly RouteDef[] = [...ROUTES, healthRoute, webhookRoute, ...INTERNAL_ROUTES];

export interface AppOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  log?: Logger;
  verifier?: TokenVerifier;
  payments?: PaymentProvider;
}

/** The document the reference serves at /openapi.json (general) or /assistant/openapi.json. */
export function describeService(which: 'general' | 'assistant', docsUrl: string): Record<string, unknown> {
  return buildDescription(ALL_ROUTES, { which, version: VERSION, docsUrl });
}

export function createApp(o: AppOptions): { app: Express; domain: Domain } {
  const clock = o.clock ?? (() => new Date());
  const log = o.log ?? createLogger(o.config.logLevel);
  const domain: Domain = Object.freeze({
    config: o.config,
    db: o.db,
    clock,
    log,
    verifier:
      o.verifier ?? withVerificationCache(createTokenVerifier(o.config), { maxEntries: 5000, maxAgeSeconds: o.config.jwksCacheSeconds }),
    guestLimiter: createRateLimiter(o.config.guestRateLimitBudget, o.config.guestRateLimitWindowSeconds, clock),
    payments: o.payments ?? createPaymentProvider(o.config, o.db),
    assistantLimiters: {
      session: createRateLimiter(o.config.assistantSessionRateLimitBudget, o.config.assistantRateLimitWindowSeconds, clock),
      client: createRateLimiter(o.config.assistantClientRateLimitBudget, o.config.assistantRateLimitWindowSeconds, clock),
    },
    dpopNonces: createDpopNoncesFor(o.config, o.db, clock()),
    // One listener per open event stream: no arbitrary cap.
    conversationSignals: new EventEmitter().setMaxListeners(0),
    checkoutQueue: new Map<string, Promise<unknown>>(),
    ordersInFlight: new Set<string>(),
  });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag'); // Validators are set deliberately, on catalog reads only.
  app.set('query parser', 'simple');
  // Every operation has exactly one URL (spec, What the service does 1): no case-folded or trailing-slash twins.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestStage(log));

  const documents = { general: describeService('general', o.config.docsUrl), assistant: describeService('assistant', o.config.docsUrl) };
  // Every route in one lookup, through its group's stages (pipeline/groups.ts); what none serves is 405 or 404 there too.
  // The public routes first, then the operations: a path's Allow lists its methods in this order.
  const routes = [healthRoute, ...descriptionRoutes(documents), ...ROUTES, webhookRoute, ...INTERNAL_ROUTES];
  app.use(
    dispatchRoutes(
      routes.map((route) => ({
        method: route.row.method,
        path: route.row.path,
        handler: pipelineFor(route, domain),
        // As Express routers did for them: the webhook and internal routes answer any other method on their path themselves.
        ...(route.row.kind === 'webhook' ? { ownsPath: {} } : {}),
        ...(route.row.kind === 'internal' ? { ownsPath: { notAllowed: 'Only POST is allowed on this path.' } } : {}),
      })),
    ),
  );
  // A DPoP request refused before the authenticate stage still gets a fresh nonce; a nonce-key failure only omits it.
  const issueNonce = () => {
    try {
      return domain.dpopNonces.current(domain.clock());
    } catch {
      return undefined;
    }
  };
  app.use(boundary(o.config.docsUrl, log, issueNonce));
  return { app, domain };
}
