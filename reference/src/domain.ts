// What the domain stage provides: database, clock, configuration, token verifier, rate limiter, logger.
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import type { Logger } from './log.js';
import type { TokenVerifier } from './auth/verify-token.js';
import type { RateLimiter } from './rate-limit.js';
import type { PaymentProvider } from './payments/port.js';
import type { EventEmitter } from 'node:events';
import type { DpopNonces } from './auth/dpop-nonce.js';

export type Clock = () => Date;

export interface Domain {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly verifier: TokenVerifier;
  readonly guestLimiter: RateLimiter;
  readonly payments: PaymentProvider;

  // State of this instance (this process, this createApp), never shared through the database file: made once here, so that
  // two references in one process (tests, the embedded variants) never share it by accident.
  /** Assistant budgets per session and per agent client (spec, Limits > Rate limiting). */
  readonly assistantLimiters: { readonly session: RateLimiter; readonly client: RateLimiter };
  /** The DPoP nonce issuer: DPOP_NONCE_KEY, else a key kept in the database (shared by the instances on one file). */
  readonly dpopNonces: DpopNonces;
  /** Signal of new conversation events, emitted with the conversation id after each commit; event streams listen. */
  readonly conversationSignals: EventEmitter;
  /** Account carts with a checkout running here: a second checkout of one cart waits for the first (docs/checkout.md). */
  readonly checkoutQueue: Map<string, Promise<unknown>>;
  /** Orders with a provider call (refund, cancellation) in flight here. */
  readonly ordersInFlight: Set<string>;
}
