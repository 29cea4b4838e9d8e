// Spec part 4, Endpoints > Public and special routes: the conversation hub's routes refuse a missing or wrong
// CONVERSATION_HUB_SECRET for a conversation that exists. endpoints.internal.secret-required.* names a conversation nobody has, whose
// answer is a refusal even to the right secret; here the wrong secret must be refused where the right one reaches a
// conversation, so a route that never looks at the secret is seen.
//
// Levels. The hub's bodies are not shown: the reference's are sent, and only refusals are judged (any 4xx problem). A
// handoff conversation is opened with the reference's body; a deployment that takes another leaves the handoff route to
// endpoints.internal.secret-required (noted).
import { check, test } from '../engine/runner/check.js';
import { fail, inCase } from '../lib/assert.js';
import { AssistantAgent } from './_shared/assistant.js';
import { bearer, wrong } from '../lib/internal-routes.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { freshId } from '../lib/fresh-id.js';
import { conversationRoute, openConversation } from './_shared/open-conversation.js';
import { SPECIAL_PATHS, fillPath } from '../../contract/routes.js';

test(
  ...check(
    {
      id: 'endpoints.internal.conversation-hub.live-conversation',
      title:
        'POST /internal/conversations/{id}/turn and /handoff-timeout refuse a missing or wrong CONVERSATION_HUB_SECRET for a conversation that exists',
      clauses: ['END-PUBLIC-14', 'END-PUBLIC-15'],
      requires: ['assistants'],
    },
    async (shop) => {
      const secret = shop.profile.secrets.conversationHubSecret;
      const agent = await AssistantAgent.create(shop);
      const direct = (await openConversation(agent, 'direct')).id;
      const { method, path } = conversationRoute('openConversation');
      const handoff = (await agent.request(method, path, { json: { mode: 'handoff' } })).res;
      const handoffId = handoff.status >= 200 && handoff.status < 300 && typeof handoff.body?.id === 'string' ? handoff.body.id : null;
      if (handoffId === null)
        shop.info.annotations.push({
          type: 'note',
          description: `a handoff conversation did not open with the reference's body (${handoff.status}): handoff-timeout is judged by endpoints.internal.secret-required only`,
        });
      const calls: [string, string, string, () => Record<string, unknown>][] = [
        [
          'turn',
          fillPath(SPECIAL_PATHS.recordConversationTurn, { id: encodeURIComponent(direct) }),
          'END-PUBLIC-14',
          () => ({ turn_id: freshId('turn'), author: 'agent', text: 'Hello from the conformance suite.' }),
        ],
        ...(handoffId === null
          ? []
          : ([
              [
                'handoff-timeout',
                fillPath(SPECIAL_PATHS.recordConversationHandoffTimeout, { id: encodeURIComponent(handoffId) }),
                'END-PUBLIC-15',
                () => ({ handoff_id: freshId('handoff'), timed_out_at: new Date().toISOString() }),
              ],
            ] as [string, string, string, () => Record<string, unknown>][])),
      ];
      for (const [name, route, clause, body] of calls) {
        for (const [what, headers] of [
          ['no credential', {}],
          ['a wrong secret', bearer(wrong(secret))],
        ] as const) {
          const res = await shop.http.post(route, { headers, json: body() });
          inCase(`${name}, ${what}`, () => {
            expectRefusal(shop, res, { clause });
            if (res.status === 401 && res.headers.get('www-authenticate') === null)
              fail('WWW-Authenticate on a 401 (RFC 9110 §15.5.2)', 'a challenge', null, { clause });
          });
        }
      }
    },
  ),
);
