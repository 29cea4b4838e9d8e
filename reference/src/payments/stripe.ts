// The Stripe adapter of the payment port (PAYMENT_PROVIDER=stripe, STRIPE_SECRET_KEY=sk_test_… only). A charge is one
// PaymentIntent created and confirmed off-session with the saved card; a refund is one Refund of that PaymentIntent.
//
// Outcomes, as the port names them:
// - PaymentIntent `succeeded` → succeeded; `processing` (and `requires_capture`: authorised, not captured) → pending;
//   `requires_payment_method`, `requires_action`, `requires_confirmation`, `canceled` → failed. An off-session charge
//   cannot ask the shopper for anything, so every `requires_*` but capture is a failure.
// - A card error (402 `card_error`: declined, expired, authentication required) → failed, with the decline code.
// - Stripe unreachable (connection error, timeout), Stripe's own 5xx, or its rate limit → ProblemError `unavailable` with
//   `Retry-After: 5`: the spec's outage answer (it names the verifier and identity proxy; the reference extends it to the
//   payment provider, see docs/checkout.md). The charge did not happen or is unknown, and checkout writes nothing.
// - Anything else (a wrong key, an invalid request) is a bug or a misconfiguration: thrown as is, answered 500.
import { stripeLib } from './stripe-module.js';
import { LIMITS } from '../../../contract/limits.js';
import { ProblemError } from '../problem.js';
import type { ChargeResult, ChargeStatus, PaymentProvider, RefundResult } from './port.js';

export interface StripeProviderOptions {
  secretKey: string;
  /** Retries of a request that failed on the network or with a 5xx; Stripe's idempotency key makes them safe. */
  maxNetworkRetries?: number;
  /** Per request, in milliseconds (the reference's request time limit is 30 s). */
  timeoutMs?: number;
}

const PENDING = new Set(['processing', 'requires_capture']);

export function intentStatus(status: string): ChargeStatus {
  if (status === 'succeeded') return 'succeeded';
  if (PENDING.has(status)) return 'pending';
  return 'failed';
}

function refundStatus(status: string | null): RefundResult['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'pending' || status === 'requires_action') return 'pending';
  return 'failed';
}

/** Stripe's outages as the service's 503; other errors pass through. */
function outage(err: unknown): unknown {
  if (
    err instanceof stripeLib().errors.StripeConnectionError ||
    err instanceof stripeLib().errors.StripeAPIError ||
    err instanceof stripeLib().errors.StripeRateLimitError ||
    (err instanceof stripeLib().errors.StripeError && (err.statusCode ?? 0) >= 500)
  ) {
    return new ProblemError('unavailable', {
      detail: 'The payment provider cannot be reached; nothing was charged or ordered. Retry later.',
      headers: { 'Retry-After': String(LIMITS.outageRetryAfterSeconds) },
      cause: err,
    });
  }
  return err;
}

export function createStripeProvider(o: StripeProviderOptions): PaymentProvider {
  // Test mode only: the configuration refuses live keys too, this keeps the adapter safe on its own.
  if (!/^(sk|rk)_test_/.test(o.secretKey)) throw new Error('the Stripe adapter takes test-mode keys only (sk_test_… or rk_test_…)');
  const stripe = new (stripeLib())(o.secretKey, {
    maxNetworkRetries: o.maxNetworkRetries ?? 1,
    timeout: o.timeoutMs ?? 10_000,
    telemetry: false,
    appInfo: { name: 'shop-conformance reference' },
  });

  return {
    name: 'stripe',
    async charge(r): Promise<ChargeResult> {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: r.amountCents,
            currency: r.currency.toLowerCase(),
            payment_method: r.paymentMethodRef,
            // Cards only (this API version names the list allowed_payment_method_types): no redirect-based method off-session.
            allowed_payment_method_types: ['card'],
            confirm: true,
            off_session: true,
            metadata: { order_id: r.orderId },
          },
          {
            // Stripe's own idempotency, per attempt: the order id is new for every checkout request, so a network retry of
            // this call never charges twice while two checkout requests still charge twice (PUR-IDEM-3: no request idempotency).
            // [PUR-IDEM-3] keyed on the new order id, never on the client's Idempotency-Key.
            idempotencyKey: `charge-${r.orderId}`,
          },
        );
        const status = intentStatus(intent.status);
        const declineCode = intent.last_payment_error?.decline_code || intent.last_payment_error?.code || intent.status;
        return { status, providerRef: intent.id, ...(status === 'failed' && declineCode ? { declineCode } : {}) };
      } catch (err) {
        if (err instanceof stripeLib().errors.StripeCardError) {
          return {
            status: 'failed',
            providerRef: err.payment_intent?.id ?? err.requestId ?? 'stripe_card_error',
            declineCode: err.decline_code || err.code || 'card_declined',
          };
        }
        throw outage(err);
      }
    },
    async findCharge(orderId): Promise<ChargeResult | undefined> {
      try {
        // The PaymentIntent checkout created carries metadata.order_id. Search is eventually consistent (Stripe indexes
        // within about a minute), which is why reconciliation waits before it judges an attempt (docs/checkout.md).
        const found = await stripe.paymentIntents.search({ query: `metadata['order_id']:'${orderId}'`, limit: 1 });
        const intent = found.data[0];
        return intent && { status: intentStatus(intent.status), providerRef: intent.id };
      } catch (err) {
        throw outage(err);
      }
    },
    async refund(paymentRef, amountCents, ro = {}): Promise<RefundResult> {
      try {
        // Operator refunds pass no key (two refunds of one amount may both be meant; the SDK keys its own network
        // retries); a checkout's refund passes one, so a refund retried after a crash is made once.
        const refund = await stripe.refunds.create(
          { payment_intent: paymentRef, amount: amountCents },
          ro.idempotencyKey === undefined ? {} : { idempotencyKey: ro.idempotencyKey },
        );
        return { status: refundStatus(refund.status), providerRef: refund.id };
      } catch (err) {
        throw outage(err);
      }
    },
  };
}
