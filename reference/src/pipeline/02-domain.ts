// Stage "domain": provides database, clock and providers to the stages after it.
import type { RequestHandler } from 'express';
import type { Domain } from '../domain.js';
import { contextOf } from './context.js';

export function domainStage(domain: Domain): RequestHandler {
  return (_req, res, next) => {
    // [AUTH-ORDER-14] database, clock and providers for the stages after this one.
    contextOf(res).domain = domain;
    next();
  };
}
