// Spec part 5, Request processing order (admit caller) and Guest sessions 5: Guest-Session and Shopper-IP are admitted only
// from guests, Operator only from operators; "others are refused". The clause is about every other caller kind: each kind
// the profile claims is tried on a request it is otherwise served (the control), with each header that does not fit it.
// The customer's refusal of the guest headers, with writes, is judged in 05-authentication.request-processing.
import { operatorAttribution } from '../lib/credential-formats.js';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectSuccess, inCase } from '../lib/assert.js';
import { freshShopperIp } from '../lib/shopper.js';
import { AssistantAgent } from './_shared/assistant.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { delegatedToken, guestHeaders } from '../lib/callers.js';
import { invitedAgent } from './_shared/probe-agents.js';
import { operator, undeclaredScopeRefusal } from './_shared/call-ops.js';

/** Sends the caller's request, with extra header fields. */
type Send = (extra: Record<string, string>) => Promise<ShopResponse>;

/** A caller kind, a request it is served, the headers that do not fit it and, for the operator, its read's operationId. */
type Kind = [string, Send, ('guest' | 'operator')[], string?];

/** Each claimed caller kind, with a request it is served and the headers that do not fit it. */
async function kinds(shop: Shop): Promise<Kind[]> {
  const caps = shop.profile.capabilities;
  const out: Kind[] = [];
  const customer = await shop.mint.customer({ sub: shop.subject('cust') });
  out.push(['customer', (h) => shop.http.get('/v1/cart', { token: customer, headers: h }), ['operator']]);
  if (caps.delegated) {
    const token = await delegatedToken(shop);
    out.push(['delegated', (h) => shop.http.get('/v1/cart', { token, headers: h }), ['guest', 'operator']]);
  }
  if (caps.guests) {
    const headers = await guestHeaders(shop, shop.guestSession());
    out.push(['guest', (h) => shop.http.get('/v1/cart', { headers: { ...headers, ...h } }), ['operator']]);
  }
  // The operator's read is any described read under /v1/ops/ that names no record (the spec shows none); documents that
  // describe none leave the operator's row unjudged.
  const list = caps.operators ? learned().operatorRead() : undefined;
  if (list) {
    // The token carries the scopes the documents declare for /v1/ops/ (else the suite's default).
    const { token } = await operator(shop);
    out.push([
      'operator',
      (h) => shop.http.request(list.method, list.path, { token, headers: { operator: operatorAttribution(shop.profile), ...h } }),
      ['guest'],
      list.operationId,
    ]);
  }
  if (caps.invitedAgents) {
    const inv = await invitedAgent(shop);
    out.push(['invited agent', (h) => shop.http.get('/v1/cart', { headers: { ...inv.headers, ...h } }), ['guest', 'operator']]);
  }
  if (caps.assistants) {
    const agent = await AssistantAgent.create(shop);
    out.push(['assistant', async (h) => (await agent.get('/v1/cart', { headers: h })).res, ['guest', 'operator']]);
  }
  return out;
}

test(
  ...check(
    {
      id: 'authentication.headers.every-kind',
      title:
        'Guest-Session and Shopper-IP are refused from every caller kind but guests, Operator from every caller kind but operators (each kind served without them)',
      clauses: ['AUTH-ORDER-6', 'AUTH-GUEST-8'],
    },
    async (shop) => {
      // Each kind is a case, a caller of its own; each kind's requests in turn (its control, then its misfits).
      await judgeCases(await kinds(shop), async ([who, send, misfits, opsRead]) => {
        const control = await send({});
        // The operator's read is the target's own (not shown): a 400 for a query parameter it wants, or a 403
        // insufficient_scope where the documents declare no scopes for it, leaves nothing the misfits' refusals could
        // be told from: the kind is not judged (the others still are).
        if (opsRead !== undefined && (control.status === 400 || undeclaredScopeRefusal(control, opsRead))) {
          shop.info.annotations.push({
            type: 'note',
            description: `${who} not judged: its control read answered ${control.status} ${String(control.body?.error ?? '')}`,
          });
          return;
        }
        expectSuccess(control, { what: `control: ${who} without the headers of other kinds`, clause: 'AUTH-ORDER-6' });
        const cases: [string, Record<string, string>, string][] = [];
        if (misfits.includes('guest'))
          cases.push(
            ['Guest-Session', { 'guest-session': shop.guestSession() }, 'AUTH-ORDER-6'],
            ['Shopper-IP', { 'shopper-ip': freshShopperIp() }, 'AUTH-GUEST-8'],
          );
        if (misfits.includes('operator')) cases.push(['Operator', { operator: operatorAttribution(shop.profile) }, 'AUTH-ORDER-6']);
        for (const [name, headers, clause] of cases) {
          const res = await send(headers);
          inCase(`${who} with ${name}`, () => expectRefusal(shop, res, { clause }));
        }
      });
    },
  ),
);
