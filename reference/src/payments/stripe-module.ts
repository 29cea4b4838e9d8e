// The stripe package, loaded on first use: a deployment that never verifies a delivery or charges through Stripe keeps its
// memory (about 16 MB resident) and its start-up time. One loader, so that `instanceof` on its errors sees one module.
import { createRequire } from 'node:module';
import type Stripe from 'stripe';

let loaded: typeof Stripe | undefined;

export const stripeLib = (): typeof Stripe => (loaded ??= createRequire(import.meta.url)('stripe') as typeof Stripe);
