// Spec part 4, Endpoints > Conventions and Operations, for addresses: addAddress answers 201 and deleteAddress 204, the
// address is listed and then gone, the reference validates the body, and another account cannot delete an address.
//
// Levels. The addAddress body `{ name, line1, city, postal_code, country, ... }` and every response member are the
// reference's (docs/account.md). Spec-level checks send the reference's body and are not applicable when the service
// refuses it with a 4xx.
// Ownership: the spec says every row is scoped by ownership; it does not say whether another account's id answers 403 or
// 404, so spec-level checks accept either, and the reference's 404 (exactly as a nonexistent id) is checked at its level.
import { check, test } from '../engine/runner/check.js';
import {
  brief,
  expectCreated,
  expectNoContent,
  expectNoHeader,
  expectNoStore,
  expectProblem,
  expectSuccess,
  fail,
  expectSameJson,
} from '../lib/assert.js';
import { ADDRESS, addAddress, createdAddressId } from './_shared/add-address.js';
import { locationOf } from './_shared/location.js';
import { expectOwnershipRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';

// --- creates and deletes ---------------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.account.address-create-delete',
      title: 'addAddress answers 201; the address is listed; deleteAddress answers 204 with no body and the address is gone',
      clauses: ['END-CONV-1', 'END-CONV-2', 'END-CONV-3', 'END-CONV-9', 'PUR-SERVE-4', 'END-OPS-ADDADDRESS-1', 'END-OPS-DELETEADDRESS-1'],
    },
    async (shop) => {
      const token = await customerToken(shop);
      const created = await addAddress(shop, token, { clause: 'END-CONV-1' });
      expectCreated(created, { clause: 'END-CONV-1' });
      expectNoStore(created, { clause: 'END-CONV-9' });
      const id = createdAddressId(shop, created);
      // Location only where a GET URL exists (killed by a Location that answers 404 or 405 to GET).
      const location = locationOf(shop, created, '/v1/me/addresses');
      if (location === null)
        fail('Location of addAddress', 'a URI reference (or no Location)', created.headers.get('location'), { clause: 'END-CONV-2' });
      if (location) {
        const read = await shop.http.get(location.url.href, { token });
        if (read.status === 404 || read.status === 405)
          fail('GET on the Location of addAddress', 'a readable URL (or no Location)', brief(read), { clause: 'END-CONV-2' });
      }
      const listed = await shop.http.get('/v1/me/addresses', { token });
      expectSuccess(listed, { what: 'listAddresses after the add', clause: 'PUR-SERVE-4' });
      if (!listed.text.includes(id))
        fail('listAddresses after the add', `a list naming ${id}`, listed.text.slice(0, 300), { clause: 'PUR-SERVE-4' });
      const del = await shop.http.delete(`/v1/me/addresses/${encodeURIComponent(id)}`, { token });
      expectNoContent(del, { clause: 'END-CONV-3' });
      expectNoStore(del, { clause: 'END-CONV-9' });
      const after = await shop.http.get('/v1/me/addresses', { token });
      expectSuccess(after, { what: 'listAddresses after the delete', clause: 'PUR-SERVE-4' });
      if (after.text.includes(id)) fail('listAddresses after the delete', `no ${id}`, after.text.slice(0, 300), { clause: 'END-CONV-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.address-create-delete.reference',
      title:
        'addAddress: 201 with the address and no Location (no GET URL for one address); DELETE /v1/me/addresses/<id> answers 204; again 404 not_found',
      clauses: ['END-CONV-1', 'END-CONV-2', 'END-CONV-3'],
      level: 'reference',
    },
    async (shop) => {
      const token = await customerToken(shop);
      const created = await shop.http.post('/v1/me/addresses', { token, json: { ...ADDRESS, line2: 'Unit 2', phone: '+1 217 555 0100' } });
      expectCreated(created, { clause: 'END-CONV-1' });
      expectNoHeader(created, 'location', { what: 'Location of addAddress', clause: 'END-CONV-2' });
      const location = `/v1/me/addresses/${created.body?.id}`;
      const expected = { ...ADDRESS, line2: 'Unit 2', phone: '+1 217 555 0100' };
      for (const [k, v] of Object.entries(expected))
        if (created.body?.[k] !== v) fail(`created address "${k}"`, v, created.body?.[k], { clause: 'END-CONV-1' });
      const list = await shop.http.get('/v1/me/addresses', { token });
      expectSameJson(list.body?.items, [created.body], { what: 'listAddresses of a new account after one add', clause: 'END-CONV-1' });
      const checkout = await shop.http.get('/v1/me/checkout-address', { token });
      if (checkout.body?.address?.id !== created.body.id)
        fail('getCheckoutAddress: the newest address', created.body.id, checkout.body, { clause: 'END-CONV-1' });
      expectNoContent(await shop.http.delete(location, { token }), { clause: 'END-CONV-3' });
      expectProblem(await shop.http.delete(location, { token }), {
        status: 404,
        error: 'not_found',
        docsUrl: shop.docsUrl,
        clause: 'END-CONV-3',
      });
      const none = await shop.http.get('/v1/me/checkout-address', { token });
      expectSameJson(none.body, { address: null }, { what: 'getCheckoutAddress with no address', clause: 'END-CONV-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.address-validation.reference',
      title:
        'addAddress refuses a country that is not ISO 3166-1 alpha-2, an over-long name and unknown members with 400 invalid_request; nothing is saved',
      clauses: ['ERR-TABLE-11', 'RES-PROBLEM-10'],
      level: 'reference',
    },
    async (shop) => {
      const token = await customerToken(shop);
      const cases: [string, unknown, string][] = [
        ['country XX', { ...ADDRESS, country: 'XX' }, 'body.country'],
        ['country usa', { ...ADDRESS, country: 'usa' }, 'body.country'],
        ['a 101-character name', { ...ADDRESS, name: 'n'.repeat(101) }, 'body.name'],
        ['an unknown member', { ...ADDRESS, is_default: true }, 'body'],
        ['no line1', { ...ADDRESS, line1: undefined }, 'body.line1'],
      ];
      for (const [what, body, path] of cases) {
        const res = await shop.http.post('/v1/me/addresses', { token, json: body });
        const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-11' });
        const issues = doc.issues as { path: string }[] | undefined;
        if (!Array.isArray(issues) || !issues.some((i) => i.path === path))
          fail(`issues of addAddress with ${what}`, `an issue at ${path}`, issues, { clause: 'ERR-TABLE-11' });
      }
      expectProblem(await shop.http.delete('/v1/me/addresses/not-an-id', { token }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: shop.docsUrl,
        clause: 'ERR-TABLE-11',
      });
      const list = await shop.http.get('/v1/me/addresses', { token });
      expectSameJson(list.body, { items: [] }, { what: 'addresses after refused adds', clause: 'ERR-TABLE-11' });
    },
  ),
);

// --- ownership of rows by id ---------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.account.ownership.address',
      title: "another account cannot delete an account's address: refused (403 or 404) and the address is still listed for its owner",
      clauses: ['END-ME-2', 'END-OPS-DELETEADDRESS-1'],
    },
    async (shop) => {
      const a = await customerToken(shop);
      const b = await customerToken(shop);
      const id = createdAddressId(shop, await addAddress(shop, a, { clause: 'END-ME-2' }));
      expectOwnershipRefusal(shop, await shop.http.delete(`/v1/me/addresses/${encodeURIComponent(id)}`, { token: b }), {
        what: "B deletes A's address",
        clause: 'END-ME-2',
      });
      const listed = await shop.http.get('/v1/me/addresses', { token: a });
      expectSuccess(listed, { what: 'A lists its addresses', clause: 'END-ME-2' });
      if (!listed.text.includes(id))
        fail("A's address after B's delete", `still listed (${id})`, listed.text.slice(0, 300), { clause: 'END-ME-2' });
      const bList = await shop.http.get('/v1/me/addresses', { token: b });
      if (bList.text.includes(id)) fail("B's addresses", `no ${id}`, bList.text.slice(0, 300), { clause: 'END-ME-1' });
    },
  ),
);
