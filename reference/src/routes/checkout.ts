// Checkout [PUR-SERVE-3]: the preview of the account cart's totals and the saved-card checkout.
// Both operate on the caller's account cart; their callers are the agent-checkout list (the guard enforces it).
// There is no request idempotency ([PUR-IDEM-1], [PUR-IDEM-2], [PUR-IDEM-3]): Idempotency-Key is accepted and ignored, every
// successful submission places an order, and a submission after a paid order finds the cart empty.
import { checkoutPreviewSchema, checkoutSavedCardBody, createCheckoutPreviewBody, orderSchema } from '../schemas/checkout.js';
import { readCart, type Cart } from '../store/carts.js';
import { findVariant } from '../store/catalog.js';
import { findAddress, findPaymentMethod, newestAddress, newId, readOrder, type ShippingAddress } from '../store/checkout.js';
import { AttemptSettled, claimAttempt, completeAttempt, moveAttempt, type Attempt, type OrderPlan } from '../store/checkout-attempts.js';
import { refundAttempt, settleAttempt } from '../jobs/reconcile-checkouts.js';
import { crashPoint } from '../crash-point.js';
import { priceOrder, type Totals } from '../pricing.js';
import { ProblemError } from '../problem.js';
import type { Db } from '../db/open.js';
import type { Domain } from '../domain.js';
import type { SavedCard } from '../store/checkout.js';
import type { Actor } from '../pipeline/context.js';
import { defineRoute } from './define.js';

/** Where an order can be read: the Location of a placed order. */
export const orderPath = (id: string) => `/v1/me/orders/${id}`;

/** Longest Idempotency-Key kept for the audit trail; a longer one is kept truncated (never refused). */
const IDEMPOTENCY_KEY_MAX = 255;

/** The account and its cart; only account-bound actors reach checkout (domain policy, behind the guard). */
function accountOf(actor: Actor): { sub: string; cartOwner: string } {
  if (actor.accountSub === null || actor.cartOwner === null) {
    throw new ProblemError('caller_not_allowed', { detail: 'Checkout needs a signed-in account.' });
  }
  return { sub: actor.accountSub, cartOwner: actor.cartOwner };
}

/** The account cart, refused with 422 `cart_empty` when it has no lines ([ERR-TABLE-14]). */
function filledCart(db: Db, cartOwner: string): Cart {
  const cart = readCart(db, cartOwner);
  // [ERR-TABLE-14] a cart with no lines at checkout: 422 cart_empty.
  if (cart.lines.length === 0) throw new ProblemError('cart_empty', { detail: 'The cart has no lines: add items before checking out.' });
  return cart;
}

/** The address named (it must be the account's), else the account's newest; undefined when it has none. */
function shippingAddress(db: Db, sub: string, named: string | undefined): ShippingAddress | undefined {
  if (named === undefined) return newestAddress(db, sub);
  const found = findAddress(db, sub, named);
  if (!found)
    throw new ProblemError('address_required', {
      detail: 'The account has no address with this id: name one of its addresses, or save one first.',
    });
  return found;
}

const priced = (cart: Cart, address: ShippingAddress | undefined): Totals =>
  priceOrder(
    cart.lines.map((l) => ({ unitPriceCents: l.unit_price_cents, quantity: l.quantity })),
    address?.country ?? null,
  );

/**
 * Checkouts of one cart run one at a time in this process: a double submission waits for the first, then finds the cart
 * empty before anything is charged. Across processes sharing a database, the claim (claimCart) does the same.
 */
async function oneAtATime<T>(queue: Map<string, Promise<unknown>>, key: string, work: () => Promise<T>): Promise<T> {
  const before = queue.get(key) ?? Promise.resolve();
  const mine = before.then(work);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  queue.set(key, settled);
  try {
    return await mine;
  } finally {
    if (queue.get(key) === settled) queue.delete(key);
  }
}

/** How often a checkout that found its cart claimed by another process looks again. */
const CLAIM_POLL_MS = 25;
/** Claims lost to a cart changing between its read and the claim, before the checkout answers 409 `cart_changed`. */
const CLAIM_ROUNDS = 20;

type CheckoutRequest = Pick<OrderPlan, 'idempotencyKey' | 'audit'> & {
  sub: string;
  cartOwner: string;
  paymentMethodId: string;
  addressId: string | undefined;
};

/**
 * Reads and checks the cart, then claims it for one charge (claimAttempt): one charge per cart state, whichever process
 * checks out. When another process's attempt is still charging the same cart, waits for it to end, then reads the cart
 * again: after its order, the cart is empty (422 `cart_empty`, as for any submission after a paid order); after a decline,
 * this checkout charges in turn. An attempt older than CHECKOUT_RECONCILE_AFTER_SECONDS belongs to a stopped process (no
 * live request is that old): it is settled here, as the reconciler would, before going on.
 */
async function claimCart(domain: Domain, r: CheckoutRequest): Promise<{ attempt: Attempt; card: SavedCard }> {
  const { db, payments, clock, config } = domain;
  for (let round = 0; round < CLAIM_ROUNDS;) {
    // [PUR-IDEM-4] cart_empty first: a submission after a paid order is refused for its empty cart, whatever else it names.
    const cart = filledCart(db, r.cartOwner);
    const card = findPaymentMethod(db, r.sub, r.paymentMethodId);
    if (!card) throw new ProblemError('unknown_payment_method', { detail: 'The account has no saved card with this id.' });
    const address = shippingAddress(db, r.sub, r.addressId);
    if (!address) throw new ProblemError('address_required', { detail: 'The account has no address: save one, then check out.' });
    for (const line of cart.lines) {
      const stock = findVariant(db, line.variant_id)?.stock ?? 0;
      if (line.quantity > stock)
        throw new ProblemError('insufficient_stock', { detail: `Only ${stock} of ${line.variant_id} are in stock.` });
    }
    const totals = priced(cart, address);
    const attempt: Attempt = {
      id: newId('ord'),
      state: 'charging',
      provider: payments.name,
      providerRef: null,
      amountCents: totals.totalCents,
      currency: cart.currency,
      createdAt: clock().toISOString(),
      plan: {
        accountSub: r.sub,
        cartOwner: r.cartOwner,
        charged: cart,
        totals,
        addressId: address.id,
        paymentMethodId: card.id,
        idempotencyKey: r.idempotencyKey,
        audit: r.audit,
      },
    };
    const claim = claimAttempt(db, attempt.id, attempt.plan, payments.name, clock());
    if (claim.kind === 'claimed') return { attempt, card };
    if (claim.kind === 'changed') {
      round += 1;
      continue;
    }
    const other = claim.attempt;
    const staleAt = Date.parse(other.createdAt) + config.checkoutReconcileAfterSeconds * 1000;
    if (clock().getTime() >= staleAt) {
      await settleAttempt(domain, other);
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
  }
  throw new ProblemError('cart_changed', {
    detail: 'The cart kept changing while the checkout read it. Read the cart and check out again.',
  });
}

export const checkoutRoutes = [
  defineRoute({
    // [END-OPS-CREATECHECKOUTPREVIEW-1] POST /v1/checkout-previews (contract/operations.ts).
    operationId: 'createCheckoutPreview',
    summary: 'Preview the totals of a checkout of the account cart',
    body: createCheckoutPreviewBody,
    success: {
      status: 200,
      schema: checkoutPreviewSchema,
      description:
        "The cart's lines and totals for the address named or the account's newest. 200, not 201: a preview is computed, not stored, and has no URL.",
    },
    errors: ['cart_empty', 'address_required', 'unknown_payment_method'],
    handle: ({ domain, actor, input }) => {
      const { sub, cartOwner } = accountOf(actor);
      const { db } = domain;
      const cart = filledCart(db, cartOwner);
      const address = shippingAddress(db, sub, input.body.address_id);
      if (input.body.payment_method_id !== undefined && !findPaymentMethod(db, sub, input.body.payment_method_id)) {
        throw new ProblemError('unknown_payment_method', { detail: 'The account has no saved card with this id.' });
      }
      const t = priced(cart, address);
      return {
        status: 200,
        body: {
          lines: cart.lines,
          item_count: cart.item_count,
          currency: cart.currency,
          subtotal_cents: t.subtotalCents,
          shipping_cents: t.shippingCents,
          tax_cents: t.taxCents,
          total_cents: t.totalCents,
          address_id: address?.id ?? null,
          payment_method_id: input.body.payment_method_id ?? null,
        },
      };
    },
  }),
  defineRoute({
    // [END-OPS-CHECKOUTSAVEDCARD-1] POST /v1/checkouts/saved-card, the agent-checkout list, checkout (contract/operations.ts).
    operationId: 'checkoutSavedCard',
    summary: 'Place an order for the account cart, paid with a saved card',
    body: checkoutSavedCardBody,
    success: {
      status: 201,
      schema: orderSchema,
      description:
        'The order placed (status `paid`, or `pending_payment` while the provider settles), with `Location: /v1/me/orders/{id}`. The cart is emptied of the ordered lines. Idempotency-Key is accepted and ignored: every successful call places an order.',
    },
    errors: ['cart_empty', 'unknown_payment_method', 'address_required', 'insufficient_stock', 'cart_changed', 'payment_failed'],
    handle: async ({ domain, actor, input, req }) => {
      const { sub, cartOwner } = accountOf(actor);
      const { db, payments, log, clock, config } = domain;
      return oneAtATime(domain.checkoutQueue, cartOwner, async () => {
        // [PUR-IDEM-1] [PUR-IDEM-2] [PUR-IDEM-3] Idempotency-Key is never refused, kept for audit only: every call places an order.
        const key = req.get('idempotency-key');
        const { attempt, card } = await claimCart(domain, {
          sub,
          cartOwner,
          paymentMethodId: input.body.payment_method_id,
          addressId: input.body.address_id,
          idempotencyKey: key === undefined ? null : key.slice(0, IDEMPOTENCY_KEY_MAX),
          audit: { actor: `${actor.callerKind}:${sub}`, channel: actor.channel ?? null },
        });
        const orderId = attempt.id;
        const { totals, charged: cart } = attempt.plan;
        // Crash safety (docs/checkout.md): the attempt is committed before the card is charged, the charge's idempotency key
        // is the attempt id, and the order and the attempt's end commit together. A crash between any two steps leaves a
        // row the reconciler (jobs/reconcile-checkouts.ts) settles: an order, or no charge.
        crashPoint(config, 'checkout:attempt-written');
        let charge;
        try {
          charge = await payments.charge({
            orderId,
            amountCents: totals.totalCents,
            currency: cart.currency,
            paymentMethodRef: card.provider_ref,
            accountSub: sub,
          });
        } catch (err) {
          // The provider cannot say (an outage): the client is told nothing was charged, so a charge found later is refunded.
          moveAttempt(db, orderId, ['charging'], 'void_due', clock());
          throw err;
        }
        crashPoint(config, 'checkout:charged');
        if (charge.status === 'failed') {
          moveAttempt(db, orderId, ['charging'], 'declined', clock(), charge.providerRef);
          log.info('checkout_declined', { order_id: orderId, provider: payments.name, decline_code: charge.declineCode ?? null });
          throw new ProblemError('payment_failed', { detail: 'The card was declined. Nothing was ordered and the cart is unchanged.' });
        }

        try {
          completeAttempt(db, attempt, charge, clock());
        } catch (err) {
          // Settled meanwhile by the webhook or the reconciler (a charge slower than their age): answer as they decided.
          if (err instanceof AttemptSettled) return settledElsewhere(db, sub, orderId);
          // No order was written (the cart or the stock changed while the provider charged, or the write failed): give the
          // money back (the attempt is refund_due, committed), then answer with the error (a 4xx, or 500 for a failure).
          crashPoint(config, 'checkout:refund-due');
          try {
            await refundAttempt(domain, attempt, charge.providerRef);
          } catch (refundErr) {
            // The reconciler retries the refund; the request still gets its own answer.
            log.error('checkout_refund_failed', { order_id: orderId, payment_ref: charge.providerRef, error: String(refundErr) });
          }
          throw err;
        }
        crashPoint(config, 'checkout:order-written');
        const order = readOrder(db, sub, orderId);
        if (!order) throw new Error(`order ${orderId} was written but cannot be read`);
        // [END-CONV-1] [END-CONV-2] a placed order: 201 with the Location of its GET URL.
        return { status: 201, headers: { Location: orderPath(orderId) }, body: order };
      });
    },
  }),
];

/** The answer for an attempt another path settled: its order when it placed one, else the cart changed (refunded). */
function settledElsewhere(db: Db, sub: string, orderId: string) {
  const order = readOrder(db, sub, orderId);
  if (!order)
    throw new ProblemError('cart_changed', {
      detail: 'The cart changed while the payment was being taken; the charge was refunded. Read the cart and check out again.',
    });
  return { status: 201, headers: { Location: orderPath(orderId) }, body: order };
}
