// What the domain stage provides: database, clock, configuration, token verifier, rate limiter, logger.
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import type { Logger } from './log.js';
import type { TokenVerifier } from './auth/verify-token.js';
import type { RateLimiter } from './rate-limit.js';
import type { PaymentProvider } from './payments/port.js';

export type Clock = () => Date;

export interface Domain {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly verifier: TokenVerifier;
  readonly guestLimiter: RateLimiter;
  readonly payments: PaymentProvider;
}
