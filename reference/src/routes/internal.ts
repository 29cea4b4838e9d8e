// The internal routes (spec, Public and special routes): shared-secret callers, not operations; mounted by app.ts.
import { Router } from 'express';
import type { Domain } from '../domain.js';

export function internalRouter(_domain: Domain): Router {
  return Router();
}
