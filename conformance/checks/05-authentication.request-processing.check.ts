// Spec part 5, Authentication > Request processing order: the request stage (X-Request-Id, traceparent), decoding before
// authentication, authentication before input validation, the guard before the rate limit and the rate limit before
// input validation; and the admit-caller stage, which admits only the headers that fit the caller kind (the guest headers
// are refused on website tokens, Guest sessions 5; the Operator header belongs to the backoffice, Credentials per
// consumer).
//
// Cart writes use the body the target's documents describe (cartLine: the spec does not show payloads) and the seed's
// variant ids; cart records are "not shown", so spec-level checks observe a cart only through the variant ids its body
// names (an empty cart names none) or by comparing two reads, and leave member names (`lines`) to reference-level checks.
import { randomUUID } from 'node:crypto';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { expectProblem, expectStatus, expectSuccess, fail, failSoft } from '../lib/assert.js';
import { createForeignKey, signWith } from '../lib/mint.js';
import { freshShopperIp } from '../lib/shopper.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectNotNamesVariant } from '../lib/expect/cart.js';
import { expectInvalidToken, expectRefusal } from '../lib/expect/refusals.js';
import { guestHeaders } from '../lib/callers.js';
import { spendConcurrently, spendWithinWindow, guestBudget } from './_shared/spend-budget.js';
import { VARIANT } from './_shared/seed-data.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';

// ------------------------------------------------------------------------------- Caller-specific headers on other kinds

const GUEST_HEADERS = (shop: Shop): [string, string][] => [
  ['guest-session', shop.guestSession()],
  ['shopper-ip', '203.0.113.9'],
];

test(
  ...check(
    {
      id: 'authentication.headers.guest-headers-on-website-tokens',
      title: 'Guest-Session and Shopper-IP are each refused with a customer (website) token, and nothing is written',
      clauses: ['AUTH-GUEST-11', 'AUTH-GUEST-8', 'AUTH-ORDER-6'],
      seed: true,
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      // The control read (judged on its status alone) and the requests to be refused go at once, and are judged in the order
      // listed; the read that shows nothing was written waits for all of them.
      const refused = GUEST_HEADERS(shop).flatMap(([name, value]): [string, () => Promise<ShopResponse>][] => {
        const headers = { [name]: value };
        return [
          [`cart read with ${name}`, () => shop.http.get('/v1/cart', { token, headers })],
          [`cart write with ${name}`, () => shop.http.post('/v1/cart/items', { token, headers, json: cartLine() })],
          [`catalog read with ${name}`, () => shop.http.get('/v1/catalog/collections', { token, headers })],
        ];
      });
      const [control, answers] = await Promise.all([shop.http.get('/v1/cart', { token }), mapCases(refused, ([, send]) => send())]);
      expectSuccess(control, { what: 'control: the customer token without guest headers', clause: 'AUTH-GUEST-11' });
      refused.forEach(([what], i) => expectRefusal(shop, answers[i]!, { clause: 'AUTH-GUEST-11', what }));
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token }), VARIANT, {
        what: 'the customer cart after the refused writes',
        clause: 'AUTH-GUEST-11',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.headers.guest-headers-on-website-tokens.reference',
      title: 'guest headers with a customer token are 400 invalid_request',
      clauses: ['AUTH-GUEST-11'],
      level: 'reference',
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      // Refused reads, one case per header.
      await judgeCases(GUEST_HEADERS(shop), async ([name, value]) => {
        const res = await shop.http.get('/v1/cart', { token, headers: { [name]: value } });
        expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-11' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.headers.guest-headers-on-delegated',
      title: 'Guest-Session and Shopper-IP are refused with a delegated token',
      clauses: ['AUTH-GUEST-8', 'AUTH-ORDER-6'],
      requires: ['delegated'],
    },
    async (shop) => {
      const token = await shop.mint.delegated({ sub: shop.subject('cust') });
      // Reads, the control and those to be refused: at once, judged in turn.
      const pairs = GUEST_HEADERS(shop);
      const [control, answers] = await Promise.all([
        shop.http.get('/v1/cart', { token }),
        mapCases(pairs, ([name, value]) => shop.http.get('/v1/cart', { token, headers: { [name]: value } })),
      ]);
      expectSuccess(control, { what: 'control: the delegated token without guest headers', clause: 'AUTH-ORDER-6' });
      pairs.forEach(([name], i) =>
        expectRefusal(shop, answers[i]!, {
          clause: name === 'shopper-ip' ? 'AUTH-GUEST-8' : 'AUTH-ORDER-6',
          what: `cart read with ${name}`,
        }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.headers.operator-header-on-customer',
      title: 'the Operator header is refused with a customer token',
      clauses: ['AUTH-ORDER-6'],
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      expectRefusal(shop, await shop.http.get('/v1/cart', { token, headers: { operator: operatorAttribution(shop.profile) } }), {
        clause: 'AUTH-ORDER-6',
        what: 'cart read with Operator',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.headers.guest-headers-on-operator.reference',
      title: 'guest headers with an operator token are 400 invalid_request (GET /v1/me)',
      clauses: ['AUTH-GUEST-8', 'AUTH-ORDER-6'],
      level: 'reference',
      requires: ['operators'],
    },
    async (shop) => {
      const token = await shop.mint.operator();
      // Refused reads, one case per header.
      await judgeCases(GUEST_HEADERS(shop), async ([name, value]) => {
        const res = await shop.http.get('/v1/me', { token, headers: { operator: operatorAttribution(shop.profile), [name]: value } });
        expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-8' });
      });
    },
  ),
);

// Killed by a server that answers the header-less backoffice token 400 invalid_request (the answer before issue 10) or 200.
test(
  ...check(
    {
      id: 'authentication.operator.header-required.reference',
      title: 'an operator token without the Operator header matches no caller kind (403 caller_not_allowed); with it, an operator',
      clauses: ['AUTH-CRED-4', 'AUTH-KIND-11', 'AUTH-TOKEN-8'],
      level: 'reference',
      requires: ['operators'],
    },
    async (shop) => {
      const token = await shop.mint.operator();
      // Two reads: at once, judged in turn.
      const [without, res] = await Promise.all([
        shop.http.get('/v1/me', { token }),
        shop.http.get('/v1/me', { token, headers: { operator: operatorAttribution(shop.profile) } }),
      ]);
      expectProblem(without, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-CRED-4' });
      expectSuccess(res, { what: 'GET /v1/me with Operator', clause: 'AUTH-KIND-11' });
      if (res.body?.caller_kind !== 'operator')
        fail('GET /v1/me "caller_kind"', 'operator', res.body?.caller_kind, { clause: 'AUTH-KIND-11' });
    },
  ),
);

// ------------------------------------------------------------------------------------- Request processing order

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test(
  ...check(
    {
      id: 'authentication.order.request-stage',
      title: 'every response carries X-Request-Id; a valid traceparent is echoed, an invalid one is not',
      clauses: ['AUTH-ORDER-2', 'AUTH-ORDER-3', 'ERR-PROBLEM-7'],
    },
    async (shop) => {
      // Every method, not GETs alone: a write (here refused for want of a token) echoes it as well.
      const requests: [string, string][] = [
        ['GET', SPECIAL_PATHS.getHealth],
        ['GET', '/v1/cart'],
        ['GET', `/no-such-route-${randomUUID()}`],
        ['POST', '/v1/cart/items'],
        ['DELETE', `/v1/cart/items/${VARIANT}`],
      ];
      const bad = [
        '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
        'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        'not-a-traceparent',
      ];
      // The cases: each request with the valid traceparent, then a health read with each invalid one. No request carries a
      // credential, so none changes anything.
      const cases: { method: string; path: string; traceparent: string }[] = [
        ...requests.map(([method, path]) => ({ method, path, traceparent: TRACEPARENT })),
        ...bad.map((traceparent) => ({ method: 'GET', path: SPECIAL_PATHS.getHealth, traceparent })),
      ];
      await judgeCases(cases, async ({ method, path, traceparent }) => {
        const res = await shop.http.request(method, path, { headers: { traceparent }, ...(method === 'POST' ? { json: cartLine() } : {}) });
        if (traceparent !== TRACEPARENT) {
          if (res.headers.get('traceparent') === traceparent)
            fail(`invalid traceparent ${traceparent}`, 'not echoed', traceparent, { clause: 'AUTH-ORDER-3' });
          return;
        }
        if (!res.headers.get('x-request-id')) {
          // The same requirement twice in the spec (request stage; every response, success or failure): both clauses fail.
          failSoft(`${path}: X-Request-Id`, 'present', null, { clause: 'ERR-PROBLEM-7' });
          fail(`${path}: X-Request-Id`, 'present', null, { clause: 'AUTH-ORDER-2' });
        }
        if (res.headers.get('traceparent') !== TRACEPARENT)
          fail(`${path}: traceparent echoed`, TRACEPARENT, res.headers.get('traceparent'), { clause: 'AUTH-ORDER-3' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.order.token-before-validation',
      title: 'a bad token with an invalid body is answered 401, not 400 (authentication precedes input validation)',
      clauses: ['AUTH-ORDER-10', 'ERR-TABLE-2'],
    },
    async (shop) => {
      const d = shop.mint.draft.customer({ sub: shop.subject('cust') });
      const badlySigned = await signWith(d.payload, d.header, (await createForeignKey()).privateKey);
      // Refused writes, one case per invalid body.
      await judgeCases([{ variant_id: 42, quantity: 'many', extra: true }, [], 'text'], async (json) =>
        expectInvalidToken(shop, await shop.http.post('/v1/cart/items', { token: badlySigned, json }), { clause: 'AUTH-ORDER-10' }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.order.decoding-before-authentication',
      title: 'a malformed JSON body is 400 with no token, with a bad token and with a good one (decoding precedes authentication)',
      clauses: ['AUTH-ORDER-11', 'ERR-PROBLEM-2'],
    },
    async (shop) => {
      const tokens: [string, string | undefined][] = [
        ['no token', undefined],
        ['a bad token', 'not.a.token'],
        ['a good token', await shop.mint.customer({ sub: shop.subject('cust') })],
      ];
      // Bodies no one can decode, so nothing is written: one case per token.
      await judgeCases(tokens, async ([what, token]) => {
        const res = await shop.http.post('/v1/cart/items', {
          token,
          body: '{"variant_id": "var_0101", ',
          headers: { 'content-type': 'application/json' },
        });
        expectStatus(res, 400, { what: `malformed JSON with ${what}: status`, clause: 'AUTH-ORDER-11' });
        expectProblem(res, { status: 400, error: String(res.body?.error ?? '<missing>'), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-2' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.order.guard-before-rate-limit',
      everyResponse: true,
      title: 'with the guest budget of an operation spent, a request the guard refuses is still 403, not 429',
      clauses: ['AUTH-ORDER-8', 'ERR-TABLE-9'],
      requires: ['guests'],
    },
    async (shop) => {
      const budget = guestBudget(shop);
      const full = await shop.mint.guest();
      const narrow = await shop.mint.guest({ scope: 'cart:read cart:write' });
      const window = shop.profile.rateLimits?.guestWindowSeconds;
      const as = (token: string, ip: string) => ({ token, headers: { 'shopper-ip': ip } });
      // The budget spent several requests at once from a fresh shopper, then up to two more (_shared/spend-budget.ts).
      const { limited, value: ip } = await spendWithinWindow(window, async () => {
        const ip = freshShopperIp();
        const answers = await spendConcurrently(budget, () => shop.http.get('/v1/catalog/collections', as(full, ip)));
        let spent = answers.some((res) => res.status === 429);
        for (let i = 0; i < 2 && !spent; i++) spent = (await shop.http.get('/v1/catalog/collections', as(full, ip))).status === 429;
        return { limited: spent, value: ip };
      });
      if (!limited)
        fail('the budget of listCollections is spent', 'a 429 within budget + 2 requests', 'no 429', { clause: 'AUTH-ORDER-8' });
      const refused = await shop.http.get('/v1/catalog/collections', as(narrow, ip));
      expectProblem(refused, {
        status: 403,
        error: 'insufficient_scope',
        docsUrl: shop.docsUrl,
        scope: 'catalog:read',
        clause: 'AUTH-ORDER-8',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.order.rate-limit-before-validation',
      title: 'over the guest budget, a request with an invalid body is 429, not 400 (the rate limit precedes input validation)',
      clauses: ['AUTH-ORDER-9', 'ERR-TABLE-12'],
      requires: ['guests'],
    },
    async (shop) => {
      const budget = guestBudget(shop);
      // An invalid body by the target's own schema: its addCartItem body with the quantity member of the wrong type.
      const quantity = learned().roleValue('addCartItem', cartLine(), 'quantity');
      const wrongTyped = learned().body('addCartItem', { variant: VARIANT, quantity: typeof quantity === 'number' ? 'two' : 12345 });
      // The budget spent several requests at once from a fresh shopper (_shared/spend-budget.ts).
      const { value: over } = await spendWithinWindow(shop.profile.rateLimits?.guestWindowSeconds, async () => {
        const headers = await guestHeaders(shop, shop.guestSession());
        const invalid = { headers, json: wrongTyped };
        const answers = await spendConcurrently(budget, () => shop.http.post('/v1/cart/items', invalid));
        const first = answers[0];
        if (first && first.status !== 400)
          fail('an invalid body within budget: status', 400, `${first.status} ${first.text.slice(0, 200)}`, { clause: 'AUTH-ORDER-9' });
        const over = await shop.http.post('/v1/cart/items', invalid);
        return { limited: over.status === 429, value: over };
      });
      expectProblem(over, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-9' });
      if (!over.headers.get('retry-after')) fail('Retry-After', 'present', null, { clause: 'ERR-TABLE-12' });
    },
  ),
);
