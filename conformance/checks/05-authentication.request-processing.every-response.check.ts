// Spec part 5, Request processing order, and part 7, Errors: the request stage writes X-Request-Id on every response, and
// a DPoP request gets a fresh DPoP-Nonce on every response. "Every" is judged over every status class the suite can
// provoke (2xx including 201, 204 and 304; 400, 401, 403, 404, 413, 415, 422; 429 in the rate checks, 08-limits.rate)
// and every group of routes (operations, public routes, description documents, the webhook, the internal routes), each
// answer judged on its own so that a header missing on one status or one route alone is seen. The same answers are judged
// on the boundary's other rules for every response: problem documents, application/problem+json and no-store on every
// failure, no-store on every other answer but catalog GETs and description documents; and every failure's problem
// document, member by member (Resources > Problem document).
import { randomUUID } from 'node:crypto';
import { LIMITS } from '../../contract/limits.js';
import { check, learned, test } from '../engine/runner/check.js';
import { mapCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { AssistantAgent } from './_shared/assistant.js';
import { bodyOf, present, route, ROUTES, wrong } from '../lib/internal-routes.js';
import { cartLine } from './_shared/cart-lines.js';
import { answerOf, EVERY_RESPONSE_CLAUSES, expectEveryResponse, type Answer } from '../lib/expect/every-response.js';
import { customerToken, delegatedToken, guestHeaders } from '../lib/callers.js';
import { conversationRoute, openBody } from './_shared/open-conversation.js';
import { CHECKOUT, checkoutBody } from './_shared/place-order.js';
import { ABSENT_IDS, PRODUCT_HANDLE, VARIANT } from './_shared/seed-data.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

/** The answers gathered here that are catalog GETs or description documents (no no-store default). */
const CACHEABLE = /^(getProduct|GET \/(assistant\/)?openapi\.json)/;

const oversize = (): string => {
  const json = JSON.stringify(cartLine());
  return json + ' '.repeat(LIMITS.requestBodyBytes + 1 - json.length);
};

/** A conditional GET of a catalog read whose ETag is known: a 304 where the target validates it. */
async function conditional(send: (headers: Record<string, string>) => Promise<ShopResponse>): Promise<ShopResponse[]> {
  const first = await send({});
  const etag = first.headers.get('etag');
  return etag === null ? [first] : [first, await send({ 'if-none-match': etag })];
}

test(
  ...check(
    {
      id: 'authentication.order.request-id.every-response',
      title:
        'X-Request-Id on every response: 200, 201, 204, 304, 400, 401, 403, 404, 413, 415, 422; public routes, description documents, webhook, internal routes',
      clauses: [...EVERY_RESPONSE_CLAUSES],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      // Each sequence of requests is a case, independent of the others; inside one (a cart changed, then read) they go in
      // turn. The answers are judged in the order listed, whatever order they came in.
      const sequences: (() => Promise<Answer[]>)[] = [];
      for (const path of [SPECIAL_PATHS.getHealth, SPECIAL_PATHS.getDescription, SPECIAL_PATHS.getAssistantDescription])
        sequences.push(answerOf(`GET ${path}`, () => shop.http.get(path)));
      // A method the public routes do not take: a failure of the public group (405, or whatever the deployment answers).
      for (const path of [SPECIAL_PATHS.getHealth, SPECIAL_PATHS.getDescription])
        sequences.push(answerOf(`DELETE ${path}`, () => shop.http.delete(path)));
      sequences.push(async () =>
        (await conditional((headers) => shop.http.get(`/v1/catalog/products/${PRODUCT_HANDLE}`, { token, headers }))).map((res): Answer => [
          'getProduct (conditional)',
          res,
        ]),
      );
      // The customer's cart, in turn: added to, emptied, then an invalid update.
      sequences.push(async () => [
        ['addCartItem', await shop.http.post('/v1/cart/items', { token, json: cartLine() })],
        ['removeCartItem', await shop.http.delete(`/v1/cart/items/${VARIANT}`, { token })],
        [
          'updateCartItem with an invalid body',
          await shop.http.patch(`/v1/cart/items/${VARIANT}`, { token, json: { conformance_probe: true } }),
        ],
      ]);
      sequences.push(
        answerOf('malformed JSON', () =>
          shop.http.post('/v1/cart/items', { token, body: '{"x":', headers: { 'content-type': 'application/json' } }),
        ),
        answerOf('a body as text/plain', () =>
          shop.http.post('/v1/cart/items', { token, body: '{}', headers: { 'content-type': 'text/plain' } }),
        ),
        answerOf('a body over the cap', () =>
          shop.http.post('/v1/cart/items', { token, body: oversize(), headers: { 'content-type': 'application/json' } }),
        ),
      );
      sequences.push(
        answerOf('no token', () => shop.http.get('/v1/cart')),
        answerOf('an order nobody has', () => shop.http.get(`/v1/me/orders/${ABSENT_IDS.order}`, { token })),
        answerOf('an unmatched route', () => shop.http.get(`/v1/no-such-route-${randomUUID()}`, { token })),
        answerOf('a customer on checkoutSavedCard', () => shop.http.post(CHECKOUT, { token, json: checkoutBody(ABSENT_IDS.card) })),
      );
      if (shop.profile.capabilities.guests)
        sequences.push(
          answerOf('a guest on getProfile', async () => shop.http.get('/v1/me/profile', { headers: await guestHeaders(shop) })),
          answerOf('a guest write without a session', async () =>
            shop.http.post('/v1/cart/items', { headers: await guestHeaders(shop), json: cartLine() }),
          ),
        );
      if (shop.profile.capabilities.delegated)
        // A fresh account's cart is empty: the checkout is refused (422 cart_empty).
        sequences.push(
          answerOf('checkoutSavedCard of an empty cart', async () =>
            shop.http.post(CHECKOUT, { token: await delegatedToken(shop), json: checkoutBody(ABSENT_IDS.card) }),
          ),
        );
      sequences.push(
        answerOf('the webhook without a signature', () =>
          shop.http.post(SPECIAL_PATHS.receivePaymentWebhook, { body: '{}', headers: { 'content-type': 'application/json' } }),
        ),
      );
      const proxySecret = shop.profile.secrets.proxyIdpSecret;
      if (proxySecret !== null) {
        const report = route(SPECIAL_PATHS.registerSignedOutAssistantSession);
        sequences.push(
          answerOf('a signed-out session report', () =>
            shop.http.post(report.path, { headers: present(shop, report, proxySecret), json: bodyOf(report, shop) }),
          ),
        );
      }
      for (const r of ROUTES) {
        const secret = shop.profile.secrets[r.secret];
        sequences.push(
          answerOf(`${r.path} with a wrong credential`, () =>
            shop.http.post(r.path, { headers: present(shop, r, wrong(secret)), json: bodyOf(r, shop) }),
          ),
        );
      }
      const answers = (await mapCases(sequences, (sequence) => sequence())).flat();
      expectEveryResponse(answers, { docsUrl: shop.docsUrl, dpop: false, cacheable: (what) => CACHEABLE.test(what) });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.order.dpop-nonce.every-response',
      title:
        'a DPoP request gets DPoP-Nonce on every response: 200, 201, 204, 304, 400, 401, 403, 404, 405, 409, 413, 415, 422 (and X-Request-Id on each)',
      clauses: ['AUTH-ORDER-4', ...EVERY_RESPONSE_CLAUSES],
      requires: ['assistants'],
      seed: true,
    },
    async (shop) => {
      // Four sessions of their own (each its own fresh account) go at once. What depends on what came before stays in turn
      // on one session: the cart added to, emptied, then checked out empty; a proof for another method once the session
      // has a nonce; a second conversation while the first is open. So do all of a session's requests (each carries the
      // nonce of the answer before: a deployment may honour only its newest). The answers are judged in the order listed
      // (the rank of each), whatever order they came in.
      const [cart, catalog, reads, other] = await Promise.all([
        AssistantAgent.create(shop),
        AssistantAgent.create(shop),
        AssistantAgent.create(shop),
        AssistantAgent.create(shop),
      ]);
      type Ranked = [rank: number, what: string, res: ShopResponse];
      const sessions: (() => Promise<Ranked[]>)[] = [
        async () => [
          [0, 'getCart', (await cart.get('/v1/cart')).res],
          [2, 'addCartItem', (await cart.post('/v1/cart/items', { json: cartLine() })).res],
          [3, 'removeCartItem', (await cart.delete(`/v1/cart/items/${VARIANT}`)).res],
          // The session's account cart is empty: the checkout is refused (422 cart_empty).
          [9, 'checkoutSavedCard of an empty cart', (await cart.post(CHECKOUT, { json: checkoutBody(ABSENT_IDS.card) })).res],
        ],
        async () => [
          ...(await conditional(async (headers) => (await catalog.get(`/v1/catalog/products/${PRODUCT_HANDLE}`, { headers })).res)).map(
            (res): Ranked => [1, 'getProduct (conditional)', res],
          ),
          [
            4,
            'malformed JSON',
            (await catalog.post('/v1/cart/items', { body: '{"x":', headers: { 'content-type': 'application/json' } })).res,
          ],
          [
            5,
            'a body over the cap',
            (await catalog.post('/v1/cart/items', { body: oversize(), headers: { 'content-type': 'application/json' } })).res,
          ],
          [6, 'a proof for another method', (await catalog.get('/v1/cart', { proof: { htm: 'PUT' }, retryOnNonce: false })).res],
        ],
        async () => {
          const order: Ranked = [7, 'an order nobody has', (await reads.get(`/v1/me/orders/${ABSENT_IDS.order}`)).res];
          // A token of the base scopes only: account reads are refused (403 insufficient_scope).
          const narrow = await reads.mintToken({ scope: 'catalog:read cart:read' });
          return [
            order,
            [10, 'getProfile with base scopes only', (await reads.get('/v1/me/profile', { token: narrow })).res],
            [11, 'an unmatched route', (await reads.get(`/v1/no-such-route-${randomUUID()}`)).res],
            [
              8,
              'updateCartItem with an invalid body',
              (await reads.patch(`/v1/cart/items/${VARIANT}`, { json: { conformance_probe: true } })).res,
            ],
          ];
        },
        async () => {
          const answers: Ranked[] = [
            [
              12,
              'a body as text/plain',
              (await other.post('/v1/cart/items', { body: '{}', headers: { 'content-type': 'text/plain' } })).res,
            ],
            // A method the path does not take (405, or the deployment's own refusal): PUT, the one method no operation uses.
            [13, 'PUT on the cart lines', (await other.request('PUT', '/v1/cart/items', { json: cartLine() })).res],
          ];
          if (learned().has('openConversation')) {
            // A second direct conversation while one is open is refused (direct_conversation_open).
            const { method, path } = conversationRoute('openConversation');
            for (const n of [1, 2])
              answers.push([13 + n, `openConversation ${n}`, (await other.request(method, path, { json: openBody() })).res]);
          }
          return answers;
        },
      ];
      const answers = (await mapCases(sessions, (session) => session()))
        .flat()
        .sort(([a], [b]) => a - b)
        .map(([, what, res]): [string, ShopResponse] => [what, res]);
      expectEveryResponse(answers, { docsUrl: shop.docsUrl, dpop: true, cacheable: (what) => CACHEABLE.test(what) });
    },
  ),
);
