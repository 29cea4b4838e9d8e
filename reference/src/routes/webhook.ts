// POST /webhooks/stripe (spec, Events): a special route, not an operation; mounted by app.ts.
import { Router } from 'express';
import type { Domain } from '../domain.js';

export function webhookRouter(_domain: Domain): Router {
  return Router();
}
