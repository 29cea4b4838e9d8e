// The simulated payment provider: offline and deterministic. A card reference containing `decline` is declined, one
// containing `async` stays pending until the payment webhook settles it; every other card is charged at once.
import { randomBytes } from 'node:crypto';
import type { PaymentProvider } from './port.js';

const id = (prefix: string) => `${prefix}_sim_${randomBytes(12).toString('hex')}`;

export function createSimulatedProvider(): PaymentProvider {
  return {
    name: 'simulated',
    async charge(r) {
      if (r.paymentMethodRef.includes('decline')) return { status: 'failed', providerRef: id('pi'), declineCode: 'card_declined' };
      if (r.paymentMethodRef.includes('async')) return { status: 'pending', providerRef: id('pi') };
      return { status: 'succeeded', providerRef: id('pi') };
    },
    async refund() {
      return { status: 'succeeded', providerRef: id('re') };
    },
  };
}
