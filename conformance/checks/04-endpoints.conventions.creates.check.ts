// Spec part 4, Endpoints > Conventions, and part 9, Versioning: creates answer 201 with a `Location` where a GET URL
// exists, deletes answer 204, and every response but a catalog GET or a description document is `no-store`. The clause is
// about every create and every delete, whoever calls: each create the target's documents declare (201 its one success) is
// judged for each caller kind that may call it, and so is each delete. checkoutSavedCard is judged where the suite places
// orders (01-purpose.idempotency), requestReturn nowhere (it needs a delivered order of the caller's own, which no request
// of the suite can make).
//
// Levels. Payloads are the target's own (its description documents); a body it refuses fails the operation's clause as
// setup. Whether an operation is a create is the target's word (its documents), not the reference's.
import { check, learned, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectStatus, expectSuccess } from '../lib/assert.js';
import { addressBody, createdAddressId } from './_shared/add-address.js';
import { AssistantAgent } from './_shared/assistant.js';
import { cartLine } from './_shared/cart-lines.js';
import { callers } from './_shared/send-as.js';
import { expectCreateConventions, expectDeleteConventions } from '../lib/expect/created.js';
import { conversationRoute, messageOf, openConversation } from './_shared/open-conversation.js';
import { VARIANT } from './_shared/seed-data.js';

test(
  ...check(
    {
      id: 'endpoints.conventions.creates.cart',
      title:
        'addCartItem and removeCartItem by every caller kind of the storefront list: 201 where the documents declare a create, 204 for the delete, no-store',
      clauses: ['END-CONV-1', 'END-CONV-3', 'END-CONV-9'],
      seed: true,
    },
    async (shop) => {
      // Each caller kind is a fresh account (or guest session) of its own, a case: each adds then removes its line in turn.
      await judgeCases(await callers(shop, 'storefront'), async ([who, send]) => {
        const added = await send('POST', '/v1/cart/items', cartLine());
        expectSuccess(added, { what: `addCartItem as ${who}`, clause: 'END-OPS-ADDCARTITEM-1' });
        expectCreateConventions(added, { what: `addCartItem as ${who}`, declared: learned().declaresCreate('addCartItem') });
        expectDeleteConventions(await send('DELETE', `/v1/cart/items/${VARIANT}`), `removeCartItem as ${who}`);
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conventions.creates.addresses',
      title: 'addAddress and deleteAddress by every caller kind of the account list: 201, 204, no-store',
      clauses: ['END-CONV-1', 'END-CONV-3', 'END-CONV-9'],
    },
    async (shop) => {
      // Each caller kind is a fresh account of its own, a case: each creates then deletes its address in turn.
      await judgeCases(await callers(shop, 'account'), async ([who, send]) => {
        const created = await send('POST', '/v1/me/addresses', addressBody());
        expectSuccess(created, { what: `addAddress as ${who}`, clause: 'END-OPS-ADDADDRESS-1' });
        // addAddress is the spec's own example of a create: 201 whatever the documents say.
        expectStatus(created, 201, { what: `addAddress as ${who}: status of a create`, clause: 'END-CONV-1' });
        expectCreateConventions(created, { what: `addAddress as ${who}`, declared: learned().declaresCreate('addAddress') });
        const id = createdAddressId(shop, created);
        expectDeleteConventions(await send('DELETE', `/v1/me/addresses/${encodeURIComponent(id)}`), `deleteAddress as ${who}`);
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conventions.creates.conversations',
      title:
        'the conversation creates the documents declare (open, message): 201, a Location for the conversation (it has a GET URL), no-store',
      clauses: ['END-CONV-1', 'END-CONV-2', 'END-CONV-9'],
      requires: ['assistants'],
    },
    async (shop) => {
      const agent = await AssistantAgent.create(shop);
      const { id, res: opened } = await openConversation(agent);
      expectCreateConventions(opened, {
        what: 'openConversation',
        declared: learned().declaresCreate('openConversation'),
        getUrl: learned().has('getConversation'),
      });
      if (learned().has('postConversationMessage')) {
        const { method, path } = conversationRoute('postConversationMessage', id);
        const wrote = (await agent.request(method, path, { json: messageOf('Hello from the conformance suite.') })).res;
        expectSuccess(wrote, { what: `${method} ${path} (postConversationMessage)`, clause: 'END-PUBLIC-19' });
        expectCreateConventions(wrote, { what: 'postConversationMessage', declared: learned().declaresCreate('postConversationMessage') });
      }
    },
  ),
);
