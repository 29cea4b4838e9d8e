// Account data [PUR-SERVE-4] (profile read, addresses, saved payment-method list, orders, identity) and the
// checkout reads. Every handler acts on `actor.accountSub` only: the guard admitted an account-bound caller whose account is
// active, and every query filters on that account, so another account's id answers 404 exactly like a missing one.
import {
  addAddressBody,
  addressListSchema,
  addressParams,
  addressSchema,
  cancelOrderBody,
  checkoutAddressSchema,
  checkoutMethodListSchema,
  identitySchema,
  listOrdersQuery,
  MAX_ADDRESSES,
  orderPageSchema,
  orderParams,
  orderSchema,
  paymentMethodListSchema,
  profileSchema,
  requestReturnBody,
} from '../schemas/account.js';
import {
  countAddresses,
  defaultAddress,
  deleteAddress,
  insertAddress,
  listAddresses,
  listCheckoutMethods,
  listOrders,
  listPaymentMethods,
  markRefunded,
  orderLines,
  orderPayments,
  orderReturns,
  orderStatus,
  readIdentity,
  readOrder,
  readProfile,
  RETURNABLE,
  writeCancellation,
  writeReturn,
  type Order,
  type PaymentRow,
} from '../store/account.js';
import type { Domain } from '../domain.js';
import type { Actor } from '../pipeline/context.js';
import { invalidRequest, ProblemError, type ProblemIssue } from '../problem.js';
import { audit, CANCELLABLE, exclusively } from '../store/orders.js';
import { defineRoute } from './define.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/** The account the request acts for. The guard admits only account-bound callers here, so a null is a wiring bug. */
function accountOf(actor: Actor): string {
  if (actor.accountSub === null) throw new Error(`account route reached without an account (caller kind ${actor.callerKind})`);
  return actor.accountSub;
}

const auditActor = (actor: Actor) => `${actor.callerKind}:${actor.accountSub ?? '-'}`;

const orderNotFound = () => new ProblemError('not_found', { detail: 'The account has no order with this id.' });

function ownOrder(domain: Domain, sub: string, id: string): Order {
  // [END-ME-1] [END-ME-2] another account's order answers 404 exactly like a missing one.
  const order = readOrder(domain.db, sub, id);
  if (!order) throw orderNotFound();
  return order;
}

/**
 * Cancellations in flight, per reference instance: the refund is awaited before the transaction, so a second cancellation
 * of the same order arriving meanwhile is refused instead of refunding twice.
 */

async function refundAll(
  domain: Domain,
  orderId: string,
  payments: readonly PaymentRow[],
): Promise<{ refunded: PaymentRow[]; failure?: unknown }> {
  const refunded: PaymentRow[] = [];
  for (const p of payments) {
    try {
      const result = await domain.payments.refund(p.provider_ref, p.amount_cents - p.refunded_cents);
      // A pending refund is one the provider accepted and will complete: the money is on its way back.
      if (result.status === 'failed') return { refunded, failure: new Error(`refund of ${p.id} failed at the provider`) };
      refunded.push(p);
    } catch (err) {
      domain.log.error('refund_failed', { orderId, paymentId: p.id, message: (err as Error).message });
      return { refunded, failure: err };
    }
  }
  return { refunded };
}

/** Return lines must name lines of the order, each at most once and for at most the ordered quantity. */
function checkReturnLines(lines: readonly { variant_id: string; quantity: number }[], ordered: ReadonlyMap<string, number>): void {
  const issues: ProblemIssue[] = [];
  const seen = new Set<string>();
  lines.forEach((l, i) => {
    const have = ordered.get(l.variant_id);
    if (have === undefined)
      issues.push({ path: `body.lines.${i}.variant_id`, code: 'not_in_order', message: `The order has no line for ${l.variant_id}.` });
    else if (l.quantity > have)
      issues.push({ path: `body.lines.${i}.quantity`, code: 'too_big', message: `The order holds ${have} of ${l.variant_id}.` });
    if (seen.has(l.variant_id))
      issues.push({ path: `body.lines.${i}.variant_id`, code: 'duplicate', message: `${l.variant_id} is named twice.` });
    seen.add(l.variant_id);
  });
  if (issues.length > 0) throw invalidRequest(issues, 'The return names lines the order does not have.');
}

export const accountRoutes = [
  defineRoute({
    // [END-OPS-GETPROFILE-1] GET /v1/me/profile, the account list, account:read (contract/operations.ts).
    operationId: 'getProfile',
    summary: 'Read the account profile',
    success: { status: 200, schema: profileSchema, description: 'The profile of the authenticated account.' },
    handle: ({ domain, actor }) => {
      const profile = readProfile(domain.db, accountOf(actor));
      if (!profile) throw new Error('active account without a row');
      return { status: 200, body: profile };
    },
  }),
  defineRoute({
    // [END-OPS-LISTADDRESSES-1] GET /v1/me/addresses, the account list, account:read (contract/operations.ts).
    operationId: 'listAddresses',
    summary: 'List saved addresses',
    success: { status: 200, schema: addressListSchema, description: 'Every address of the account, newest first.' },
    handle: ({ domain, actor }) => ({ status: 200, body: { items: listAddresses(domain.db, accountOf(actor)) } }),
  }),
  defineRoute({
    // [END-OPS-ADDADDRESS-1] POST /v1/me/addresses, the account list, account:write (contract/operations.ts).
    operationId: 'addAddress',
    summary: 'Save an address',
    body: addAddressBody,
    success: {
      status: 201,
      schema: addressSchema,
      description:
        'The saved address. No `Location`: the contract has no GET for one address (creates carry `Location` only where a GET URL exists); the address is read through listAddresses and deleted at `/v1/me/addresses/{id}`.',
    },
    handle: ({ domain, actor, input }) => {
      const sub = accountOf(actor);
      const { db, clock } = domain;
      const address = db
        .transaction(() => {
          if (countAddresses(db, sub) >= MAX_ADDRESSES) {
            throw invalidRequest(
              [
                {
                  path: 'body',
                  code: 'too_many_addresses',
                  message: `An account holds at most ${MAX_ADDRESSES} addresses; delete one first.`,
                },
              ],
              'The account has too many addresses.',
            );
          }
          return insertAddress(db, sub, input.body, clock());
        })
        .immediate();
      // [END-CONV-1] a create answers 201 ([END-CONV-2]: no GET URL for one address, so no Location).
      return { status: 201, body: address };
    },
  }),
  defineRoute({
    // [END-OPS-DELETEADDRESS-1] DELETE /v1/me/addresses/{id}, the account list, account:write (contract/operations.ts).
    operationId: 'deleteAddress',
    summary: 'Delete a saved address',
    params: addressParams,
    success: { status: 204, schema: null, description: 'The address is gone. Orders placed with it keep their `address_id`.' },
    errors: ['not_found'],
    handle: ({ domain, actor, input }) => {
      // [END-ME-2] [END-CONV-3] the account's own address only; 204 with no body.
      if (!deleteAddress(domain.db, accountOf(actor), input.params.id)) {
        throw new ProblemError('not_found', { detail: 'The account has no address with this id.' });
      }
      return { status: 204 };
    },
  }),
  defineRoute({
    // [END-OPS-LISTPAYMENTMETHODS-1] GET /v1/me/payment-methods, the account list, payment_methods:read (contract/operations.ts).
    operationId: 'listPaymentMethods',
    summary: 'List saved cards',
    success: {
      status: 200,
      schema: paymentMethodListSchema,
      description: 'Every saved card of the account, expired ones included and marked; never the provider reference.',
    },
    handle: ({ domain, actor }) => ({ status: 200, body: { items: listPaymentMethods(domain.db, accountOf(actor), domain.clock()) } }),
  }),
  defineRoute({
    // [END-OPS-LISTORDERS-1] GET /v1/me/orders, the account list, orders:read (contract/operations.ts).
    operationId: 'listOrders',
    summary: 'List orders',
    query: listOrdersQuery,
    success: { status: 200, schema: orderPageSchema, description: "A page of the account's orders, newest first." },
    handle: ({ domain, actor, input }) => {
      const offset = decodeCursor(input.query.cursor);
      const page = listOrders(domain.db, accountOf(actor), { status: input.query.status, offset, limit: input.query.limit });
      return { status: 200, body: { items: page.items, next_cursor: page.more ? encodeCursor(offset + input.query.limit) : null } };
    },
  }),
  defineRoute({
    // [END-OPS-GETORDER-1] GET /v1/me/orders/{id}, the account list, orders:read (contract/operations.ts).
    operationId: 'getOrder',
    summary: 'Read one order',
    params: orderParams,
    success: { status: 200, schema: orderSchema, description: 'The order with its lines, totals, payment and returns.' },
    errors: ['not_found'],
    handle: ({ domain, actor, input }) => ({ status: 200, body: ownOrder(domain, accountOf(actor), input.params.id) }),
  }),
  defineRoute({
    // [END-OPS-CANCELORDER-1] POST /v1/me/orders/{id}/cancel, the account list, orders:write (contract/operations.ts).
    operationId: 'cancelOrder',
    summary: 'Cancel an order',
    params: orderParams,
    body: cancelOrderBody,
    success: {
      status: 200,
      schema: orderSchema,
      description: 'The cancelled order. Allowed from `pending_payment` and `paid`; a succeeded payment is refunded in full first.',
    },
    errors: ['not_found', 'order_not_cancellable'],
    handle: async ({ domain, actor, input }) => {
      const sub = accountOf(actor);
      const { db, clock } = domain;
      const id = input.params.id;
      const notCancellable = (status: string) =>
        new ProblemError('order_not_cancellable', { detail: `An order in status ${status} cannot be cancelled.` });
      const status = orderStatus(db, sub, id);
      if (status === undefined) throw orderNotFound();
      if (!CANCELLABLE.has(status)) throw notCancellable(status);

      await exclusively(
        domain,
        id,
        new ProblemError('order_not_cancellable', { detail: 'A cancellation or refund of this order is already in progress.' }),
        async () => {
          const toRefund = orderPayments(db, id).filter((p) => p.status === 'succeeded' && p.amount_cents > p.refunded_cents);
          // The provider first; then every write of the cancellation in one transaction.
          const { refunded, failure } = await refundAll(domain, id, toRefund);
          const refundedIds = refunded.map((p) => p.id);
          const refundedCents = refunded.reduce((n, p) => n + p.amount_cents - p.refunded_cents, 0);
          db.transaction(() => {
            const now = clock();
            if (failure !== undefined) {
              // Money the provider did return is recorded; the order itself stays as it was.
              markRefunded(db, refundedIds, now);
              return;
            }
            const current = orderStatus(db, sub, id);
            if (current === undefined || !CANCELLABLE.has(current)) {
              // Another instance changed the order while the provider was called.
              markRefunded(db, refundedIds, now);
              if (refundedIds.length > 0) domain.log.error('refund_without_cancellation', { orderId: id, paymentIds: refundedIds });
              throw notCancellable(current ?? 'unknown');
            }
            writeCancellation(db, id, refundedIds, now);
            audit(db, {
              at: now,
              actor: auditActor(actor),
              action: 'order.cancelled',
              target: id,
              details: { from: current, reason: input.body?.reason ?? null, refunded_cents: refundedCents, refunded_payments: refundedIds },
            });
          }).immediate();
          if (failure !== undefined) {
            throw new ProblemError('internal_error', { detail: 'The refund failed at the payment provider.', cause: failure });
          }
        },
      );
      return { status: 200, body: ownOrder(domain, sub, id) };
    },
  }),
  defineRoute({
    // [END-OPS-REQUESTRETURN-1] POST /v1/me/orders/{id}/returns, the account list, orders:write (contract/operations.ts).
    operationId: 'requestReturn',
    summary: 'Request a return',
    params: orderParams,
    body: requestReturnBody,
    success: {
      status: 201,
      schema: orderSchema,
      description:
        "The order, now `return_requested`, with the new return in `returns`. `Location` is the order's URL, where the return is read.",
    },
    errors: ['not_found', 'order_not_returnable'],
    handle: ({ domain, actor, input }) => {
      const sub = accountOf(actor);
      const { db, clock } = domain;
      const id = input.params.id;
      const lines = orderLines(db, id);
      db.transaction(() => {
        const status = orderStatus(db, sub, id);
        if (status === undefined) throw orderNotFound();
        // Only a delivered order, and only once.
        if (status !== RETURNABLE || orderReturns(db, id).length > 0) {
          throw new ProblemError('order_not_returnable', {
            detail:
              status === RETURNABLE ? 'A return was already requested for this order.' : `An order in status ${status} cannot be returned.`,
          });
        }
        if (input.body.lines) checkReturnLines(input.body.lines, new Map(lines.map((l) => [l.variant_id, l.quantity])));
        const now = clock();
        const returnId = writeReturn(db, sub, id, input.body.reason, now);
        audit(db, {
          at: now,
          actor: auditActor(actor),
          action: 'order.return_requested',
          target: id,
          details: {
            return_id: returnId,
            reason: input.body.reason,
            lines: input.body.lines ?? lines.map((l) => ({ variant_id: l.variant_id, quantity: l.quantity })),
          },
        });
      }).immediate();
      // [END-CONV-1] [END-CONV-2] 201 with the Location of the order, where the return is read.
      return { status: 201, body: ownOrder(domain, sub, id), headers: { Location: `/v1/me/orders/${id}` } };
    },
  }),
  defineRoute({
    // [END-OPS-GETIDENTITY-1] GET /v1/me/identity, the checkout list (contract/operations.ts).
    operationId: 'getIdentity',
    summary: 'Read the identity shown in an agent banner',
    success: {
      status: 200,
      schema: identitySchema,
      description: 'The account display name and the self-service eligibility boolean; never the email or other personal data.',
    },
    handle: ({ domain, actor }) => {
      // [PUR-BANNER-1] [PUR-BANNER-2] [END-IDENT-1] [END-IDENT-2] the display name and the eligibility boolean only.
      const identity = readIdentity(domain.db, accountOf(actor));
      if (!identity) throw new Error('active account without a row');
      return { status: 200, body: identity };
    },
  }),
  defineRoute({
    // [END-OPS-GETCHECKOUTADDRESS-1] GET /v1/me/checkout-address, the checkout list (contract/operations.ts).
    operationId: 'getCheckoutAddress',
    summary: 'Read the default checkout address',
    success: { status: 200, schema: checkoutAddressSchema, description: 'The most recently added address, or `address: null`.' },
    handle: ({ domain, actor }) => ({ status: 200, body: { address: defaultAddress(domain.db, accountOf(actor)) ?? null } }),
  }),
  defineRoute({
    // [END-OPS-GETCHECKOUTMETHODS-1] GET /v1/me/checkout-methods, the checkout list (contract/operations.ts).
    operationId: 'getCheckoutMethods',
    summary: 'List the saved cards usable at checkout',
    success: { status: 200, schema: checkoutMethodListSchema, description: 'Saved cards that have not expired, newest first.' },
    handle: ({ domain, actor }) => ({ status: 200, body: { items: listCheckoutMethods(domain.db, accountOf(actor), domain.clock()) } }),
  }),
];
