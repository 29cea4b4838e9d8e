// Chooses the payment adapter from the configuration (PAYMENT_PROVIDER).
import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { PaymentProvider } from './port.js';
import { createSimulatedProvider } from './simulated.js';
import { createStripeProvider } from './stripe.js';

export function createPaymentProvider(config: Config, db?: Db): PaymentProvider {
  switch (config.paymentProvider) {
    case 'simulated':
      return createSimulatedProvider(db);
    case 'stripe':
      // loadConfig refuses PAYMENT_PROVIDER=stripe without a test-mode STRIPE_SECRET_KEY; this guards other callers.
      if (!config.stripeSecretKey) throw new Error('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY');
      return createStripeProvider({ secretKey: config.stripeSecretKey });
  }
}
