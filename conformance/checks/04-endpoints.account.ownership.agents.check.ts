// Spec part 4, Additional route facts: account data routes return data of the authenticated account only, and every row
// under /v1/me/* is scoped by ownership of the token's `sub`, whoever calls. The customer's side is judged in
// 04-endpoints.account.orders.ownership; here each agent caller kind of the account list (delegated, invited agent,
// assistant), on a fresh account of its own, reads, cancels, returns and deletes another account's rows by id, and reads
// its own account's lists: refused, nothing of the other account seen, nothing changed.
//
// Data. Seed orders are never moved to another state: every cancellation and return sent is one the spec refuses.
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { check, learned, test } from '../engine/runner/check.js';
import { expectProblem, expectSuccess, fail, inCase } from '../lib/assert.js';
import { expectUnchanged, readBaseline } from '../lib/compare.js';
import { expectOwnershipRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';
import { ADA, BEN, NOT_ADAS, ORDERS } from './_shared/seed-data.js';
import { callers } from './_shared/send-as.js';

test(
  ...check(
    {
      id: 'endpoints.account.ownership.agents',
      title:
        "each agent caller kind (delegated, invited agent, assistant) is refused another account's orders and addresses by id, and its account lists show nothing of another account",
      clauses: ['END-ME-2', 'END-ME-1'],
      seed: true,
    },
    async (shop) => {
      const ada = await customerToken(shop, ADA.sub);
      const ben = await customerToken(shop, BEN.sub);
      const { benPaid: paid, adaDelivered: delivered } = ORDERS;
      // The baselines (with the callers' provisioning beside them: fresh accounts of their own) and the reads afterwards each
      // go at once; the callers are cases of their own. Each caller's reads are cases too, its writes (seed rows) go in turn;
      // the assistant's requests all go in turn (one lane), through its one agent and the agent's one server nonce.
      const [[paidBefore, deliveredBefore, addressesBefore], agents] = await Promise.all([
        Promise.all([
          readBaseline(() => shop.http.get(`/v1/me/orders/${paid.id}`, { token: ben })),
          readBaseline(() => shop.http.get(`/v1/me/orders/${delivered.id}`, { token: ada })),
          readBaseline(() => shop.http.get('/v1/me/addresses', { token: ada })),
        ]),
        // A failed provisioning is reported after the control below, as when it came after it.
        callers(shop, 'agentCheckout').then(
          (list) => ({ list }),
          (err: unknown) => ({ err }),
        ),
      ]);
      const before = { paid: paidBefore, delivered: deliveredBefore, addresses: addressesBefore };
      expectSuccess(before.paid.first, { what: `control: ${BEN.sub} reads ${paid.id}`, clause: 'END-ME-2' });
      if ('err' in agents) throw agents.err;
      const needles = [ADA.name, ADA.line1, ...ADA.orderIds, ...ADA.addressIds, ...NOT_ADAS];
      await judgeCases(agents.list, async ([who, send]) => {
        const inTurn = who === 'assistant' ? { lane: () => 'assistant' } : {};
        const reads = await mapCases(ADA.orderIds, (id) => send('GET', `/v1/me/orders/${id}`), inTurn);
        for (const [i, id] of ADA.orderIds.entries()) {
          const res = reads[i]!;
          inCase(who, () => expectOwnershipRefusal(shop, res, { what: `reads ${ADA.sub}'s ${id}`, clause: ['END-ME-2', 'END-ME-1'] }));
        }
        // The bodies are the target's own (the spec shows none), with a reason wherever they declare one.
        const body = (operationId: string) => learned().body(operationId, {}, { reason: 'not mine' });
        const writes: [string, string, string, unknown][] = [
          [`cancels ${BEN.sub}'s ${paid.id}`, 'POST', `/v1/me/orders/${paid.id}/cancellation`, body('cancelOrder')],
          [`returns ${ADA.sub}'s ${delivered.id}`, 'POST', `/v1/me/orders/${delivered.id}/returns`, body('requestReturn')],
          [`deletes ${ADA.sub}'s ${ADA.addressIds[1]}`, 'DELETE', `/v1/me/addresses/${ADA.addressIds[1]}`, undefined],
        ];
        for (const [what, method, path, json] of writes) {
          const res = await send(method, path, json);
          // A 400 invalid_request to a body built from the documents is input validation, before the handler: the
          // owner's reads afterwards judge that nothing changed.
          if (json !== undefined && res.status === 400)
            inCase(who, () => expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'END-ME-2' }));
          else inCase(who, () => expectOwnershipRefusal(shop, res, { what, clause: 'END-ME-2' }));
        }
        const lists = ['/v1/me/profile', '/v1/me/addresses', '/v1/me/payment-methods', '/v1/me/orders'];
        const own = await mapCases(lists, (path) => send('GET', path), inTurn);
        for (const [i, path] of lists.entries()) {
          const res = own[i]!;
          expectSuccess(res, { what: `GET ${path} as ${who} of a fresh account`, clause: 'END-ME-1' });
          const seen = needles.filter((n) => res.text.includes(n));
          if (seen.length > 0)
            fail(`GET ${path} as ${who} of a fresh account`, `nothing of ${seen.join(', ')}`, res.text.slice(0, 300), {
              clause: 'END-ME-1',
            });
        }
      });
      const [paidAfter, deliveredAfter, addressesAfter] = await Promise.all([
        shop.http.get(`/v1/me/orders/${paid.id}`, { token: ben }),
        shop.http.get(`/v1/me/orders/${delivered.id}`, { token: ada }),
        shop.http.get('/v1/me/addresses', { token: ada }),
      ]);
      expectUnchanged(before.paid, paidAfter, { what: `${paid.id} after agents' cancellations`, clause: 'END-ME-2' });
      expectUnchanged(before.delivered, deliveredAfter, { what: `${delivered.id} after agents' returns`, clause: 'END-ME-2' });
      expectUnchanged(before.addresses, addressesAfter, { what: `${ADA.sub}'s addresses after agents' deletes`, clause: 'END-ME-2' });
    },
  ),
);
