// Spec part 5, Authentication > Customer authority (and the customer rows of Caller kinds and Credentials per consumer): a
// customer is authorized by its access token alone, the service is session-unaware, and the key that signs invited-agent
// contexts cannot create customer authority.
//
// Cart writes use the reference's request body ({ variant_id, quantity }: the spec does not show payloads) and the seed's
// variant ids; cart records are "not shown", so spec-level checks observe a cart only through the variant ids its body
// names (an empty cart names none) or by comparing two reads, and leave member names (`lines`) to reference-level checks.
import { randomUUID } from 'node:crypto';
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, expectSuccess, fail, expectSameJson } from '../lib/assert.js';
import { scopeWith, signWith } from '../lib/mint.js';
import { apiScopesOf, guardRefused, unknownScopeRefusal } from './_shared/caller-guard.js';
import { addAddress, createdAddressId } from './_shared/add-address.js';
import { cartLine } from './_shared/cart-lines.js';
import { expectNamesVariant, expectNotNamesVariant } from '../lib/expect/cart.js';
import { expectInvalidToken, expectOwnershipRefusal } from '../lib/expect/refusals.js';
import { VARIANT } from './_shared/seed-data.js';
import { expectUnchanged, readBaseline } from '../lib/compare.js';

// ------------------------------------------------------------------------------------------------- Customer authority

test(
  ...check(
    {
      id: 'authentication.customer.token-alone',
      title: 'a customer token alone (no other header, no registration) acts on the cart of its sub',
      clauses: ['AUTH-KIND-2', 'AUTH-KIND-3', 'AUTH-CUST-1', 'AUTH-CUST-4', 'AUTH-CRED-2'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const token = await shop.mint.customer({ sub });
      // Served at all, the website token without act is recognized as a customer (AUTH-KIND-2), served with its own token and
      // nothing else (AUTH-CRED-2), on its first request (AUTH-CUST-4): one observation of the three.
      expectSuccess(await shop.http.post('/v1/cart/items', { token, json: cartLine() }), {
        what: 'first request of a fresh token alone: add',
        clause: ['AUTH-CUST-4', 'AUTH-KIND-2', 'AUTH-CRED-2'],
      });
      // Two reads after the add: at once, judged in turn.
      const [same, other] = await Promise.all([
        (async () => shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }))(),
        (async () => shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust') }) }))(),
      ]);
      expectNamesVariant(same, VARIANT, { what: 'another token of the same sub reads the line', clause: 'AUTH-KIND-3' });
      expectNotNamesVariant(other, VARIANT, { what: "another sub's cart", clause: 'AUTH-KIND-3' });
    },
  ),
);

// The observable half of AUTH-CUST-5: the service keeps no account-wide cutoff before a token's expiry. A token issued
// long ago and still unexpired is served, and so is an older token after a newer one of the same sub was used (a new
// sign-in elsewhere). Revoking the web session itself is the storefront's, which the suite does not drive.
test(
  ...check(
    {
      id: 'authentication.customer.no-cutoff-before-expiry',
      title: 'an unexpired customer token is served however long ago it was issued, and after a newer token of its sub was used',
      clauses: ['AUTH-CUST-5'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const now = Math.floor(Date.now() / 1000);
      const old = await shop.mint.customer({ sub, claims: { iat: now - 55 * 60, exp: now + 5 * 60 } });
      expectSuccess(await shop.http.get('/v1/cart', { token: old }), {
        what: 'a token issued 55 minutes ago, 5 minutes left',
        clause: 'AUTH-CUST-5',
      });
      const first = await shop.mint.customer({ sub, claims: { iat: now - 60 } });
      expectSuccess(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), {
        what: 'a newer token of the sub',
        clause: 'AUTH-CUST-5',
      });
      expectSuccess(await shop.http.get('/v1/cart', { token: first }), {
        what: 'the older token, after the newer one was used',
        clause: 'AUTH-CUST-5',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.customer.account-of-its-sub',
      title: "a customer acts on the account of its sub: another sub's token neither lists nor deletes the address it added",
      clauses: ['AUTH-KIND-3'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const owner = await shop.mint.customer({ sub });
      const other = await shop.mint.customer({ sub: shop.subject('cust') });
      const id = createdAddressId(shop, await addAddress(shop, owner, { clause: 'AUTH-KIND-3' }));
      const path = `/v1/me/addresses/${encodeURIComponent(id)}`;
      const listed = await shop.http.get('/v1/me/addresses', { token: other });
      expectSuccess(listed, { what: "another sub's token lists its addresses", clause: 'AUTH-KIND-3' });
      // Looked for only when the id is distinctive (a short one, such as `7`, may occur in any text).
      if (id.length >= 8 && listed.text.includes(id))
        fail("another sub's addresses", `no ${id}`, listed.text.slice(0, 300), { clause: 'AUTH-KIND-3' });
      // The spec does not say whether another account's row is 403 or 404: either, with a problem document.
      expectOwnershipRefusal(shop, await shop.http.delete(path, { token: other }), {
        what: "another sub's token deletes the address",
        clause: 'AUTH-KIND-3',
      });
      // A fresh token of the owner's sub (no session, no registration) is the same account: its address is still there.
      const own = await shop.http.get('/v1/me/addresses', { token: await shop.mint.customer({ sub }) });
      expectSuccess(own, { what: "a fresh token of the owner's sub lists its addresses", clause: 'AUTH-KIND-3' });
      if (!own.text.includes(id)) fail("the owner's addresses", `still ${id}`, own.text.slice(0, 300), { clause: 'AUTH-KIND-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.customer.shop-session-ignored',
      title: "a Shop-Session header does not change a customer's answers (cart, account and checkout reads)",
      clauses: ['AUTH-CUST-2'],
      seed: true,
    },
    async (shop) => {
      // The token carries the checkout reads' API scopes as far as the spec or the documents name them.
      const scope = scopeWith(
        'customer',
        ['getIdentity', 'getCheckoutAddress'].flatMap((id) => apiScopesOf(id).scopes),
      );
      const token = await shop.mint.customer({ sub: shop.subject('cust'), scope });
      const stale = { 'shop-session': `stale-${randomUUID()}` };
      expectSuccess(await shop.http.post('/v1/cart/items', { token, headers: stale, json: cartLine() }), {
        what: 'add with a stale Shop-Session',
        clause: 'AUTH-CUST-2',
      });
      // Every customer route alike: the account reads and the checkout reads too. After the add, only reads: each resource
      // is a case of its own, its baseline and its read with the header in turn (nothing else on that resource in between),
      // the cart first.
      // [path, the checkout read's operationId]: what a checkout read answers a fresh account (200 with nothing, 404, ...) is
      // not shown, so any answer but the guard's refusal will do; it must not change with the header.
      const paths: [string, string?][] = [
        ['/v1/cart'],
        ['/v1/me/profile'],
        ['/v1/me/addresses'],
        ['/v1/me/orders'],
        ['/v1/me/identity', 'getIdentity'],
        ['/v1/me/checkout-address', 'getCheckoutAddress'],
      ];
      await judgeCases(paths, async ([path, checkoutRead]) => {
        const before = await readBaseline(() => shop.http.get(path, { token }));
        const after = await shop.http.get(path, { token, headers: stale });
        if (path === '/v1/cart') {
          expectNamesVariant(after, VARIANT, { what: 'read with a stale Shop-Session', clause: 'AUTH-CUST-2' });
          expectUnchanged(before, after, { what: 'the cart read with Shop-Session', clause: 'AUTH-CUST-2' });
          return;
        }
        if (checkoutRead === undefined) expectSuccess(after, { what: `GET ${path} with a stale Shop-Session`, clause: 'AUTH-CUST-2' });
        else if (guardRefused(after) && !unknownScopeRefusal(shop, after, checkoutRead, 'a customer'))
          fail(
            `GET ${path} with a stale Shop-Session`,
            'past the guard (any answer but 401, 403 caller_not_allowed/insufficient_scope)',
            brief(after),
            {
              clause: 'AUTH-CUST-2',
            },
          );
        expectUnchanged(before, after, { what: `GET ${path} with Shop-Session`, clause: 'AUTH-CUST-2' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.customer.session-claims-ignored',
      title: 'a customer token needs no sid, generation or epoch, and such claims change nothing',
      clauses: ['AUTH-CUST-3'],
      seed: true,
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const plain = await shop.mint.customer({ sub });
      const sessioned = await shop.mint.customer({ sub, claims: { sid: `sid_${randomUUID()}`, generation: 7, epoch: 3 } });
      expectSuccess(await shop.http.post('/v1/cart/items', { token: sessioned, json: cartLine() }), {
        what: 'add with sid/generation/epoch claims',
        clause: 'AUTH-CUST-3',
      });
      const baseline = await readBaseline(() => shop.http.get('/v1/cart', { token: plain }));
      const a = baseline.first;
      const b = await shop.http.get('/v1/cart', { token: sessioned });
      expectNamesVariant(a, VARIANT, { what: 'read without session claims', clause: 'AUTH-CUST-3' });
      expectUnchanged(baseline, b, { what: 'the cart read with session claims', clause: 'AUTH-CUST-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.customer.web-session-context-key',
      title: 'a token signed with WEB_SESSION_CONTEXT_KEY never creates customer authority',
      clauses: ['AUTH-CUST-8'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const key = shop.profile.secrets.webSessionContextKey;
      const d = shop.mint.draft.customer({ sub });
      const forged = await signWith(d.payload, { ...d.header, alg: 'HS256' }, key);
      // A genuine invited-agent context presented as the bearer token.
      const context = await shop.mint.invitedAgentContext({
        sub,
        agentId: 'agent_1',
        permissions: ['assistant:read'],
        forwarderToken: 'none',
      });
      // Two refusals of two reads, each token a case of its own.
      await judgeCases([forged, context], async (token) =>
        expectInvalidToken(shop, await shop.http.get('/v1/cart', { token }), { clause: 'AUTH-CUST-8' }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.me.customer.reference',
      title: 'GET /v1/me of a customer token: caller_kind customer, channel web, account of its sub',
      clauses: ['AUTH-KIND-2', 'END-LIST-6'],
      level: 'reference',
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const me = await shop.http.get('/v1/me', { token: await shop.mint.customer({ sub }) });
      expectSuccess(me, { what: 'GET /v1/me', clause: 'END-LIST-6' });
      const got = [me.body?.caller_kind, me.body?.channel, me.body?.account?.sub, me.body?.account?.state];
      const want = ['customer', 'web', sub, 'active'];
      expectSameJson(got, want, { what: 'GET /v1/me [caller_kind, channel, account.sub, account.state]', clause: 'AUTH-KIND-2' });
    },
  ),
);
