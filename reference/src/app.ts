// Assembles the reference: the request stage app-wide, public routes, every operation through its pipeline, the
// catch-all, and the boundary.
import express, { type Express, type RequestHandler } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import { boundary, unmatched } from './boundary.js';
import { withVerificationCache } from './auth/token-cache.js';
import { createTokenVerifier, type TokenVerifier } from './auth/verify-token.js';
import { createLogger, type Logger } from './log.js';
import { createRateLimiter } from './rate-limit.js';
import type { Clock, Domain } from './domain.js';
import { requestStage } from './pipeline/01-request.js';
import { groupOf, pipelineFor } from './pipeline/groups.js';
import { catalogRoutes } from './routes/catalog.js';
import { cartRoutes } from './routes/cart.js';
import { meRoutes } from './routes/me.js';
import { accountRoutes } from './routes/account.js';
import { checkoutRoutes } from './routes/checkout.js';
import { opsRoutes } from './routes/ops.js';
import { conversationRoutes } from './routes/conversations.js';
import { dispatchRoutes, templatePattern } from './routes/dispatch.js';
import { webhookPaths, webhookRouter } from './routes/webhook.js';
import { internalPaths, internalRouter, internalSecuritySchemes } from './routes/internal.js';
import { createPaymentProvider } from './payments/index.js';
import type { PaymentProvider } from './payments/port.js';
import { type RouteDef } from './routes/define.js';
import { buildDescription } from './openapi.js';
import { LIMITS } from '../../contract/limits.js';
import { PACKAGE_ROOT } from './paths.js';
import { ProblemError } from './problem.js';
import { createDpopNoncesFor } from './admission/assistant.js';
import { EventEmitter } from 'node:events';

export const ROUTES: readonly RouteDef[] = [
  ...catalogRoutes,
  ...cartRoutes,
  ...meRoutes,
  ...accountRoutes,
  ...checkoutRoutes,
  ...opsRoutes,
  ...conversationRoutes,
];

export const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

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
  return buildDescription(ROUTES, {
    which,
    version: VERSION,
    docsUrl,
    specialPaths: { ...webhookPaths, ...internalPaths },
    specialSecuritySchemes: internalSecuritySchemes,
  });
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

  const health: RequestHandler = (_req, res) => {
    try {
      o.db.prepare('SELECT 1').get();
    } catch (err) {
      throw new ProblemError('unavailable', {
        detail: 'The database does not answer.',
        headers: { 'Retry-After': String(LIMITS.outageRetryAfterSeconds) },
        cause: err,
      });
    }
    res.status(200).json({ status: 'ok', version: VERSION, checks: { database: 'ok' } });
  };

  const general = JSON.stringify(describeService('general', o.config.docsUrl));
  const assistant = JSON.stringify(describeService('assistant', o.config.docsUrl));
  const describing =
    (doc: string): RequestHandler =>
    (_req, res) => {
      res.set('Cache-Control', `public, max-age=${LIMITS.descriptionCacheSeconds}`).type('application/json').send(doc);
    };

  // Every route of the public and operation groups by one lookup (routes/dispatch.ts), first: most requests are theirs.
  const mounted = [
    { method: 'GET', path: '/health', handler: pipelineFor('public', health, domain) },
    { method: 'GET', path: '/openapi.json', handler: pipelineFor('public', describing(general), domain) },
    { method: 'GET', path: '/assistant/openapi.json', handler: pipelineFor('public', describing(assistant), domain) },
    ...ROUTES.map((route) => ({
      method: route.operation.method,
      path: route.operation.path,
      handler: pipelineFor(groupOf(route), route, domain),
    })),
  ];
  app.use(dispatchRoutes(mounted));

  // Special routes: their own groups of the stage table (pipeline/groups.ts), with no JSON decoding of their own.
  // Entered only by their own paths: every other request would walk their routes' patterns in vain.
  const webhooks = webhookRouter(pipelineFor('webhook', null, domain));
  const internal = internalRouter((route) => pipelineFor('internal', route, domain));
  app.use((req, res, next) => (req.path.startsWith('/webhooks/') ? webhooks(req, res, next) : next()));
  app.use((req, res, next) => (req.path.startsWith('/internal/') ? internal(req, res, next) : next()));

  // A path of those routes with another method: 405 with Allow; any other path: 404.
  app.use(unmatched(mounted.map((r) => ({ method: r.method, pattern: templatePattern(r.path) }))));
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
