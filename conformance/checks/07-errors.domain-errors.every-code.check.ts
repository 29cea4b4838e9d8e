// Spec part 7, Errors (ERR-PROBLEM-8): a domain error carries no challenge and no nonce; only Retry-After, RateLimit and
// RateLimit-Policy may travel with it. "Domain errors" are every code of the error table whose row names no challenge of
// its own, so the clause is judged on every such code a black-box client can provoke without changing what others read:
// the decoding and validation refusals, unmatched methods, caller and session refusals, unknown variants and stock, orders
// in a state that refuses the write, a checkout the account cannot pay, the webhook's signature refusals. Each answer is
// judged on its own and by the code it carries: a deployment that refuses in another order, or with another domain code,
// is judged on the code it sent. The same answers extend the every-response rules (request id, the boundary's headers, the
// problem members) to the statuses the other checks do not provoke: 405, 409, 402.
// insufficient_scope is left out: the spec leaves its headers to the error mapper (an RFC 6750 §3.1 challenge may come).
import { HEADERS } from '../../contract/headers.js';
import { LIMITS } from '../../contract/limits.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { mapCases } from '../engine/runner/cases.js';
import { SIGNATURE_HEADER } from '../lib/stripe-signature.js';
import { AssistantAgent } from './_shared/assistant.js';
import { operator, route, send } from './_shared/call-ops.js';
import { conversationRoute, openBody } from './_shared/open-conversation.js';
import { postWebhook } from './_shared/deliver-webhook.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import {
  answerOf,
  EVERY_RESPONSE_CLAUSES,
  expectDomainErrorHeaders,
  expectEveryResponse,
  type Answer,
} from '../lib/expect/every-response.js';
import { customerToken, delegatedToken, guestHeaders } from '../lib/callers.js';
import { attemptCheckout, checkoutBody } from './_shared/place-order.js';
import { ABSENT_IDS, ADA, LOW_STOCK_VARIANT, ORDERS, OUT_OF_STOCK_VARIANT } from './_shared/seed-data.js';

type Add = (what: string, res: ShopResponse) => void;

/** A second direct conversation of one assistant session while the first is open (409 direct_conversation_open). */
async function conversationRefusal(shop: Shop, add: Add): Promise<void> {
  const agent = await AssistantAgent.create(shop);
  const { method, path } = conversationRoute('openConversation');
  for (const n of [1, 2]) add(`openConversation ${n} (DPoP)`, (await agent.request(method, path, { json: openBody() })).res);
}

/** A cart line padded with spaces to one byte over the body cap. */
const oversize = (): string => {
  const line = JSON.stringify(cartLine());
  return line + ' '.repeat(LIMITS.requestBodyBytes + 1 - line.length);
};

/**
 * Refusals of writes the domain forbids in the order's state: nothing changes. A `reason` goes where the body declares
 * one (the spec shows no payloads): a body without that role is sent as its document describes it.
 */
async function orderRefusals(shop: Shop, add: Add): Promise<void> {
  const token = await customerToken(shop, ADA.sub);
  const cancel = learned().path('cancelOrder', ORDERS.adaDelivered.id);
  add(
    'cancelOrder of a delivered order',
    await shop.http.post(cancel, { token, json: learned().body('cancelOrder', {}, { reason: 'conformance' }) }),
  );
  // The reference's refund route, where the target describes one by that id (the spec shows no operator operation).
  if (shop.profile.capabilities.operators && learned().has('refundOpsOrder')) {
    const who = await operator(shop);
    const json = learned().body('refundOpsOrder', {}, { reason: 'conformance' });
    add('refundOpsOrder of a refunded order', await send(shop, { ...route('refundOpsOrder', ORDERS.adaRefunded.id), json }, who));
  }
  const ret = learned().path('requestReturn', ORDERS.adaFulfilled.id);
  add(
    'requestReturn of an order not delivered',
    await shop.http.post(ret, { token, json: learned().body('requestReturn', {}, { reason: 'conformance' }) }),
  );
}

test(
  ...check(
    {
      id: 'errors.domain-errors.every-code',
      title:
        'every domain error the suite can provoke carries no challenge and no nonce: 400, 404, 405, 409, 413, 415, 422, the webhook; and the every-response rules on each',
      clauses: ['ERR-PROBLEM-8', ...EVERY_RESPONSE_CLAUSES],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Each request is refused and changes nothing, so they go at once; a sequence whose requests build on one another
      // (a cart filled, then checked out) goes in turn. The answers are judged in the order listed.
      const collected =
        (gather: (add: Add) => Promise<void>): (() => Promise<Answer[]>) =>
        async () => {
          const out: Answer[] = [];
          await gather((what, res) => out.push([what, res]));
          return out;
        };
      const json = { 'content-type': 'application/json' };
      const sequences: (() => Promise<Answer[]>)[] = [
        answerOf('malformed JSON', () => shop.http.post('/v1/cart/items', { token, body: '{"x":', headers: json })),
        answerOf('a body as text/plain', () =>
          shop.http.post('/v1/cart/items', { token, body: '{}', headers: { 'content-type': 'text/plain' } }),
        ),
        answerOf('a body over the cap', () => shop.http.post('/v1/cart/items', { token, body: oversize(), headers: json })),
        answerOf('an invalid cart line', () => shop.http.post('/v1/cart/items', { token, json: { conformance_probe: true } })),
        answerOf('an unknown variant', () => shop.http.post('/v1/cart/items', { token, json: cartLine(ABSENT_IDS.variant, 1) })),
        answerOf('a line above the stock', () =>
          shop.http.post('/v1/cart/items', { token, json: cartLine(LOW_STOCK_VARIANT.id, LOW_STOCK_VARIANT.stock + 1) }),
        ),
        answerOf('an out-of-stock variant', () => shop.http.post('/v1/cart/items', { token, json: cartLine(OUT_OF_STOCK_VARIANT, 1) })),
        answerOf('a quantity for a line not in the cart', () =>
          shop.http.patch(`/v1/cart/items/${ABSENT_IDS.variant}`, { token, json: cartQuantity(1) }),
        ),
        answerOf('a method the cart lines do not take', () => shop.http.request('PUT', '/v1/cart/items', { token, json: cartLine() })),
        answerOf('an order nobody has', () => shop.http.get(`/v1/me/orders/${ABSENT_IDS.order}`, { token })),
        answerOf('an address nobody has', () => shop.http.delete(learned().path('deleteAddress', ABSENT_IDS.address), { token })),
      ];
      if (shop.profile.capabilities.operators)
        sequences.push(
          answerOf('an operator on getCart', async () =>
            shop.http.get('/v1/cart', {
              token: await shop.mint.operator(),
              headers: { [HEADERS.operator]: operatorAttribution(shop.profile) },
            }),
          ),
        );
      if (shop.profile.capabilities.guests)
        sequences.push(
          answerOf('a guest write without a session', async () =>
            shop.http.post('/v1/cart/items', { headers: await guestHeaders(shop), json: cartLine() }),
          ),
        );
      if (shop.profile.capabilities.delegated)
        sequences.push(
          collected(async (add) => {
            // A fresh account, its cart empty, then with a line, and no such card: refused (cart_empty, unknown_payment_method,
            // address_required, or a 400 for a card id of another form, …), each answer judged by the code it carries.
            const delegated = await delegatedToken(shop);
            add('checkoutSavedCard of an empty cart', await attemptCheckout(shop, delegated, checkoutBody(ABSENT_IDS.card)));
            const line = await shop.http.post('/v1/cart/items', { token: delegated, json: cartLine() });
            if (line.status === 201 || line.status === 200)
              add(
                'checkoutSavedCard with a card the account does not hold',
                await attemptCheckout(shop, delegated, checkoutBody(ABSENT_IDS.card)),
              );
          }),
        );
      sequences.push(
        collected((add) => orderRefusals(shop, add)),
        answerOf('the webhook without a signature', () => postWebhook(shop, '{}')),
        answerOf('the webhook with a signature that does not verify', () =>
          postWebhook(shop, '{}', { [SIGNATURE_HEADER]: `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }),
        ),
      );
      if (shop.profile.capabilities.assistants && learned().has('openConversation'))
        sequences.push(collected((add) => conversationRefusal(shop, add)));
      const answers = (await mapCases(sequences, (sequence) => sequence())).flat();
      for (const [what, res] of answers) expectDomainErrorHeaders(res, what, what.endsWith('(DPoP)'));
      expectEveryResponse(answers, { docsUrl: shop.docsUrl, dpop: false, cacheable: () => false });
    },
  ),
);
