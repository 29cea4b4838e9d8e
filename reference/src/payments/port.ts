// The payment-provider port: what checkout, cancellation and refunds need from a provider. Adapters: simulated (offline,
// the default) and Stripe (test-mode keys). Amounts are integer minor units.

export type ChargeStatus = 'succeeded' | 'pending' | 'failed';

export interface ChargeRequest {
  /**
   * The checkout's order id: the provider's idempotency key of the charge, so the same order is never charged twice, while
   * a retried checkout request, a new order, is charged again ([PUR-IDEM-3]).
   */
  orderId: string;
  amountCents: number;
  currency: string;
  /** The saved card's provider reference (e.g. `pm_card_visa_4242`). */
  paymentMethodRef: string;
  accountSub: string;
}

export interface ChargeResult {
  status: ChargeStatus;
  /** The provider's id of the payment (e.g. a PaymentIntent id). */
  providerRef: string;
  /** Why a failed charge failed, in the provider's words (never shown to clients verbatim). */
  declineCode?: string;
}

export interface RefundResult {
  status: 'succeeded' | 'pending' | 'failed';
  providerRef: string;
}

export interface RefundOptions {
  /** Makes a repeated refund (a retry after a crash) a no-op at the provider. Operator refunds pass none. */
  idempotencyKey?: string;
}

export interface PaymentProvider {
  readonly name: 'simulated' | 'stripe';
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /** The charge made for an order id, if the provider made one: how a crashed checkout learns what happened. */
  findCharge(orderId: string): Promise<ChargeResult | undefined>;
  refund(paymentRef: string, amountCents: number, o?: RefundOptions): Promise<RefundResult>;
}
