// Spec part 5, Authentication > Scope translation (delegated callers), with the API scopes of customers and guests and the
// caller list of the storefront operations: a token without an operation's API scope is 403 insufficient_scope naming
// it, and writes nothing; a delegated token acts on the account cart of its sub.
//
// Cart writes use the reference's request body ({ variant_id, quantity }: the spec does not show payloads) and the seed's
// variant ids; cart records are "not shown", so spec-level checks observe a cart only through the variant ids its body
// names (an empty cart names none) or by comparing two reads, and leave member names (`lines`) to reference-level checks.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectNoHeader, expectProblem, expectSuccess, fail, is4xx, expectSameJson } from '../lib/assert.js';
import { freshShopperIp } from '../lib/shopper.js';
import { credentialsFor } from './_shared/caller-guard.js';
import { cartLine, cartQuantity } from './_shared/cart-lines.js';
import { expectNamesVariant, expectNotNamesVariant } from '../lib/expect/cart.js';
import { VARIANT } from './_shared/seed-data.js';

// --------------------------------------------------------------------------------------------------------------- Scopes

test(
  ...check(
    {
      id: 'authentication.scope.customer-missing-cart-write',
      title: 'a customer token without cart:write is 403 insufficient_scope (scope cart:write) on cart writes, and nothing is written',
      clauses: ['AUTH-CUST-1', 'ERR-TABLE-9', 'RES-PROBLEM-11'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const narrow = await shop.mint.customer({ sub, scope: 'catalog:read cart:read' });
      const writes: [string, () => Promise<ShopResponse>][] = [
        ['addCartItem', () => shop.http.post('/v1/cart/items', { token: narrow, json: cartLine() })],
        ['updateCartItem', () => shop.http.patch(`/v1/cart/items/${VARIANT}`, { token: narrow, json: cartQuantity(2) })],
        ['removeCartItem', () => shop.http.delete(`/v1/cart/items/${VARIANT}`, { token: narrow })],
      ];
      // Each write is refused for the scope before the cart is looked at, whatever it holds: the three are cases of no order
      // between them; the cart is read after all of them.
      await judgeCases(writes, async ([what, send]) => {
        const res = await send();
        // Refused for the missing scope: the customer's scopes are checked (AUTH-CUST-1) and the answer is the Errors table's
        // row (ERR-TABLE-9); the document's `scope` member is the table's alone.
        if (res.status !== 403 || res.body?.error !== 'insufficient_scope')
          fail(`${what} without cart:write`, '403 insufficient_scope', brief(res), { clause: ['AUTH-CUST-1', 'ERR-TABLE-9'] });
        expectProblem(res, {
          status: 403,
          error: 'insufficient_scope',
          scope: 'cart:write',
          docsUrl: shop.docsUrl,
          clause: 'ERR-TABLE-9',
        });
      });
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token: narrow }), VARIANT, {
        what: 'the cart after the refused writes (cart:read suffices)',
        clause: 'AUTH-CUST-1',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scope.guest-missing-catalog-read',
      title: 'a guest token with only cart:read is 403 insufficient_scope (scope catalog:read) on the catalog',
      clauses: ['ERR-TABLE-9', 'RES-PROBLEM-11'],
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest({ scope: 'cart:read' });
      const headers = { authorization: `Bearer ${token}`, 'shopper-ip': freshShopperIp() };
      // Reads only, one case each: the catalog reads refused, then the control.
      const reads: [string, 'refused' | 'control'][] = [
        ['/v1/catalog/products', 'refused'],
        ['/v1/catalog/collections', 'refused'],
        ['/v1/cart', 'control'],
      ];
      await judgeCases(reads, async ([path, expected]) => {
        const res = await shop.http.get(path, { headers });
        if (expected === 'control')
          return expectSuccess(res, { what: 'control: the same token on getCart (cart:read)', clause: 'ERR-TABLE-9' });
        expectProblem(res, {
          status: 403,
          error: 'insufficient_scope',
          scope: 'catalog:read',
          docsUrl: shop.docsUrl,
          clause: 'ERR-TABLE-9',
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scope.operator-on-storefront',
      title: 'an operator is 403 caller_not_allowed on storefront operations (catalog, cart read and write)',
      clauses: ['END-LIST-1', 'END-LIST-5', 'ERR-TABLE-8', 'AUTH-ACTIVE-3'],
      requires: ['operators'],
      seed: true,
    },
    async (shop) => {
      // The token carries the API scopes of these operations too: the guard's checks are not ordered, so only the caller
      // refusal applies.
      const { token, headers } = await credentialsFor(shop, 'operator', ['getCart', 'addCartItem', 'searchProducts', 'listCollections']);
      // [operation, call, whether serving it would grant customer authority]: a cart is customer (or guest) authority, which
      // an operator token never grants (AUTH-ACTIVE-3); the catalog is the storefront list's alone.
      const calls: [string, () => Promise<ShopResponse>, boolean][] = [
        ['getCart', () => shop.http.get('/v1/cart', { token, headers }), true],
        ['addCartItem', () => shop.http.post('/v1/cart/items', { token, headers, json: cartLine() }), true],
        ['searchProducts', () => shop.http.get('/v1/catalog/products', { token, headers }), false],
        ['listCollections', () => shop.http.get('/v1/catalog/collections', { token, headers }), false],
      ];
      // Every call is a case, refused by the guard (an operator has no cart).
      await judgeCases(calls, async ([what, send, customerAuthority]) => {
        const res = await send();
        if (customerAuthority && !is4xx(res))
          fail(`operator on ${what}: refused`, '403 caller_not_allowed', brief(res), { clause: ['END-LIST-1', 'AUTH-ACTIVE-3'] });
        expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'END-LIST-1' });
        expectNoHeader(res, 'www-authenticate', { what: 'WWW-Authenticate on caller_not_allowed', clause: 'ERR-TABLE-8' });
      });
    },
  ),
);

// ---------------------------------------------------------------------------------------------------- Delegated callers

test(
  ...check(
    {
      id: 'authentication.delegated.account-cart',
      title: 'a delegated token acts on the account cart of its sub, the one the customer sees',
      clauses: ['AUTH-KIND-5', 'AUTH-KIND-6', 'AUTH-CRED-3'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const delegated = await shop.mint.delegated({ sub, actChain: ['agent_client_1'] });
      // Served at all, the on-behalf-of token is the agent-protocol server's credential (AUTH-CRED-3), recognized as delegated.
      expectSuccess(await shop.http.post('/v1/cart/items', { token: delegated, json: cartLine() }), {
        what: 'delegated add',
        clause: ['AUTH-KIND-5', 'AUTH-CRED-3'],
      });
      // After the write, the two reads go at once, judged in turn.
      const [asCustomer, asDelegated] = await Promise.all([
        shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }),
        shop.http.get('/v1/cart', { token: delegated }),
      ]);
      expectNamesVariant(asCustomer, VARIANT, { what: 'the customer of the same sub reads the line', clause: 'AUTH-KIND-6' });
      expectNamesVariant(asDelegated, VARIANT, { what: 'the delegated caller reads the line', clause: 'AUTH-KIND-6' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.delegated.missing-cart-write',
      title: 'a delegated token without cart:write is 403 insufficient_scope (scope cart:write), and nothing is written',
      clauses: ['AUTH-SCOPE-2', 'ERR-TABLE-9'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const narrow = await shop.mint.delegated({ sub, scope: 'catalog:read cart:read' });
      expectProblem(await shop.http.post('/v1/cart/items', { token: narrow, json: cartLine() }), {
        status: 403,
        error: 'insufficient_scope',
        scope: 'cart:write',
        docsUrl: shop.docsUrl,
        clause: 'AUTH-SCOPE-2',
      });
      expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), VARIANT, {
        what: 'the account cart after the refused write',
        clause: 'AUTH-SCOPE-2',
      });
    },
  ),
);

// The channel of a delegated actor is visible only on the diagnostic read, whose shape is the reference's.
test(
  ...check(
    {
      id: 'authentication.delegated.channel.reference',
      title: 'GET /v1/me: delegated for the agent audience is channel mcp, for the API audience openapi, both reach the cart',
      clauses: ['AUTH-KIND-5', 'END-LIST-6'],
      level: 'reference',
      requires: ['delegated'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      // Reads only, of one account: each channel is a case, reading the diagnostic read and the cart at once.
      const channels = ['mcp', 'openapi'] as const;
      await judgeCases(channels, async (channel) => {
        const token = await shop.mint.delegated({ sub, channel, actChain: ['agent_client_1'] });
        const [me, cart] = await Promise.all([shop.http.get('/v1/me', { token }), shop.http.get('/v1/cart', { token })]);
        expectSuccess(me, { what: `GET /v1/me (${channel})`, clause: 'END-LIST-6' });
        const got = [me.body?.caller_kind, me.body?.channel, me.body?.origin, me.body?.account?.sub];
        const want = ['delegated', channel, 'oauth', sub];
        expectSameJson(got, want, { what: 'GET /v1/me [caller_kind, channel, origin, account.sub]', clause: 'AUTH-KIND-5' });
        const chain = me.body?.actor_chain;
        if (!Array.isArray(chain) || chain[0] !== shop.profile.clients.agentProtocol)
          fail('GET /v1/me "actor_chain"[0]', shop.profile.clients.agentProtocol, chain, { clause: 'AUTH-KIND-5' });
        expectSuccess(cart, { what: `getCart (${channel})`, clause: 'AUTH-KIND-5' });
      });
    },
  ),
);
