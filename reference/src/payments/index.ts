// Chooses the payment adapter from the configuration (PAYMENT_PROVIDER).
import type { Config } from '../config.js';
import type { PaymentProvider } from './port.js';
import { createSimulatedProvider } from './simulated.js';

export function createPaymentProvider(config: Config): PaymentProvider {
  switch (config.paymentProvider) {
    case 'simulated':
      return createSimulatedProvider();
    case 'stripe':
      throw new Error('PAYMENT_PROVIDER=stripe: the Stripe adapter is not wired yet');
  }
}
