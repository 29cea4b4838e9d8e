// Spec part 4, Endpoints > Operations and Additional route facts, for orders: every row under /v1/me/* is scoped by
// ownership of the token's `sub`: reads, cancellations and returns of another account's orders (and the deletion of
// another account's address) are refused and change nothing.
//
// Ownership: the spec says every row is scoped by ownership; it does not say whether another account's id answers 403 or
// 404, so spec-level checks accept either, and the reference's 404 (exactly as a nonexistent id) is checked at its level.
//
// Data. Seed orders are never moved to another state here: every cancellation and return sent is one the spec refuses,
// which leaves the order as it was, so reruns and parallel workers see the seed as docs/seed.md describes it.
import { mapCases } from '../engine/runner/cases.js';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectProblem, expectSuccess, fail } from '../lib/assert.js';
import { expectOwnershipRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import { ABSENT_IDS, ADA, BEN, ORDERS } from './_shared/seed-data.js';
import { type Baseline, expectUnchanged, readBaseline } from '../lib/compare.js';

/**
 * The cancellation and return bodies: the target's own (the spec shows no payload), a reason set wherever the body
 * declares one (x-shop-role "reason").
 */
const ownershipBodies = () => ({
  cancel: learned().body('cancelOrder', {}, { reason: 'not mine' }),
  ret: learned().body('requestReturn', {}, { reason: 'not mine' }),
});

/**
 * A write to another account's row refused: 403 or 404 as not the caller's, or a 400 invalid_request (input validation
 * comes before the handler, and the body is built from the target's documents); the owner's reads afterwards judge that
 * nothing changed.
 */
function expectWriteRefused(shop: Shop, res: ShopResponse, { what, clause }: { what: string; clause: string }): void {
  if (res.status === 400) expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause });
  else expectOwnershipRefusal(shop, res, { what, clause });
}

/** An order as its owner reads it, for before/after comparisons. */
async function ownOrder(shop: Shop, token: string, id: string, { clause }: { clause: string }): Promise<ShopResponse> {
  const res = await shop.http.get(`/v1/me/orders/${id}`, { token });
  expectSuccess(res, { what: `the owner reads ${id}`, clause });
  return res;
}

test(
  ...check(
    {
      id: 'endpoints.account.ownership.orders',
      title:
        "reading cust_ada's orders, cancelling cust_ben's paid order, returning a delivered order or deleting an address of another account is refused (403 or 404) and nothing changes",
      clauses: ['END-ME-2', 'END-ME-1', 'END-OPS-GETORDER-1', 'END-OPS-CANCELORDER-1', 'END-OPS-REQUESTRETURN-1'],
      seed: true,
    },
    async (shop) => {
      const ada = await customerToken(shop, ADA.sub);
      const ben = await customerToken(shop, BEN.sub);
      const other = await customerToken(shop);
      // Ben's paid order is cancellable by him, Ada's delivered one returnable by her: a leak would change them. (Not Ada's
      // pending order: the webhook checks settle it, so its state is not stable within a run.)
      const { benPaid: paid, adaDelivered: delivered } = ORDERS;
      const twice = readBaseline;
      // Reads only, before any write: the three baselines (each its own resource, read twice with nothing in between) and
      // the fresh account's reads of Ada's orders (a case each) go at once; judged in this order. The writes that follow go
      // in turn (seed rows), and the reads afterwards at once again.
      const baselines: (() => Promise<Baseline<ShopResponse>>)[] = [
        () => twice(() => ownOrder(shop, ben, paid.id, { clause: 'END-ME-2' })),
        () => twice(() => ownOrder(shop, ada, delivered.id, { clause: 'END-ME-2' })),
        () => twice(() => shop.http.get('/v1/me/addresses', { token: ada })),
      ];
      const [[paidBefore, deliveredBefore, addressesBefore], reads] = await Promise.all([
        mapCases(baselines, (read) => read()),
        mapCases(ADA.orderIds, (id) => shop.http.get(`/v1/me/orders/${id}`, { token: other })),
      ]);
      const before = { paid: paidBefore!, delivered: deliveredBefore!, addresses: addressesBefore! };
      for (const [i, id] of ADA.orderIds.entries()) {
        const res = reads[i]!;
        // Served, it is a row not scoped by the token's sub and another account's data seen.
        expectOwnershipRefusal(shop, res, { what: `a fresh account reads ${id}`, clause: ['END-ME-2', 'END-ME-1'] });
        if (res.text.includes(ADA.name) || res.text.includes(ADA.line1))
          fail(`refusal of ${id}`, 'nothing of Ada', res.text.slice(0, 300), { clause: 'END-ME-1' });
      }
      // The bodies are the target's own (the spec shows none), with a reason wherever they declare one.
      const { cancel, ret } = ownershipBodies();
      expectWriteRefused(shop, await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token: other, json: cancel }), {
        what: `a fresh account cancels ${BEN.sub}'s ${paid.id}`,
        clause: 'END-ME-2',
      });
      expectWriteRefused(shop, await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token: ada, json: cancel }), {
        what: `${ADA.sub} cancels ${BEN.sub}'s ${paid.id}`,
        clause: 'END-ME-2',
      });
      expectWriteRefused(shop, await shop.http.post(`/v1/me/orders/${delivered.id}/returns`, { token: other, json: ret }), {
        what: `a fresh account returns ${delivered.id}`,
        clause: 'END-ME-2',
      });
      expectOwnershipRefusal(shop, await shop.http.delete(`/v1/me/addresses/${ADA.addressIds[1]}`, { token: other }), {
        what: `a fresh account deletes ${ADA.addressIds[1]}`,
        clause: 'END-ME-2',
      });
      const [paidAfter, deliveredAfter, addressesAfter] = await Promise.all([
        shop.http.get(`/v1/me/orders/${paid.id}`, { token: ben }),
        shop.http.get(`/v1/me/orders/${delivered.id}`, { token: ada }),
        shop.http.get('/v1/me/addresses', { token: ada }),
      ]);
      expectSuccess(paidAfter, { what: `the owner reads ${paid.id}`, clause: 'END-ME-2' });
      expectUnchanged(before.paid, paidAfter, { what: `${BEN.sub}'s ${paid.id} after others' cancellations`, clause: 'END-ME-2' });
      expectSuccess(deliveredAfter, { what: `the owner reads ${delivered.id}`, clause: 'END-ME-2' });
      expectUnchanged(before.delivered, deliveredAfter, {
        what: `${ADA.sub}'s ${delivered.id} after another account's return`,
        clause: 'END-ME-2',
      });
      expectUnchanged(before.addresses, addressesAfter, {
        what: `${ADA.sub}'s addresses after another account's delete`,
        clause: 'END-ME-2',
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.ownership.reference',
      title: "another account's order or address answers 404 not_found exactly like an id that does not exist",
      clauses: ['END-ME-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const same = (what: string, mine: ShopResponse, missing: ShopResponse) => {
        const a = expectProblem(mine, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
        const b = expectProblem(missing, { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'END-ME-2' });
        if (a.detail !== b.detail)
          fail(`${what}: the refusal tells nothing of the row's existence`, b.detail, a.detail, { clause: 'END-ME-2' });
      };
      const { order: none, address: noAddress } = ABSENT_IDS;
      const { adaDelivered: delivered, benPaid: paid } = ORDERS;
      same(
        'getOrder',
        await shop.http.get(`/v1/me/orders/${delivered.id}`, { token }),
        await shop.http.get(`/v1/me/orders/${none}`, { token }),
      );
      same(
        'cancelOrder',
        await shop.http.post(`/v1/me/orders/${paid.id}/cancellation`, { token, json: {} }),
        await shop.http.post(`/v1/me/orders/${none}/cancellation`, { token, json: {} }),
      );
      same(
        'requestReturn',
        await shop.http.post(`/v1/me/orders/${delivered.id}/returns`, { token, json: { reason: 'x' } }),
        await shop.http.post(`/v1/me/orders/${none}/returns`, { token, json: { reason: 'x' } }),
      );
      same(
        'deleteAddress',
        await shop.http.delete(`/v1/me/addresses/${ADA.addressIds[1]}`, { token }),
        await shop.http.delete(`/v1/me/addresses/${noAddress}`, { token }),
      );
    },
  ),
);
