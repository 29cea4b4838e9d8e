// Spec part 4, Endpoints > Public and special routes, for the conversation event stream, with Events > Streaming and its
// row of Limits: responses that are event streams get a keep-alive comment every 15 seconds. The stream itself is the
// reference's (GET /assistant/conversations/{id}/events): the spec does not say which endpoints stream.
//
// Levels. The spec shows neither the methods nor the payloads of the conversation routes, nor which endpoints stream. The
// spec-level checks drive the target's own routes and bodies, learned from its description documents (operationIds
// openConversation, streamConversationEvents), and judge only what the spec says.
//
// Order. The keep-alive check holds the run's longest wait: flagged `long`, it is handed out first (engine/runner/
// long-first.ts; this file sorts first of the files with a long check, the checks longest at a long round trip), and
// every other check runs during the wait. The wait is a comment within 15 s of the open, then
// the next within 15 s of that one: about 15 s against a deployment that opens its streams with a comment (the
// reference does), up to 30 s against one whose first comment comes a beat after the open. Both conform; a first
// comment later than 15 s, or a gap over 15 s between the two, fails.
//
// Data. Every check provisions its own assistant session (conformance/checks/_shared/assistant.ts): nothing is shared between checks.
import { check, learned, notApplicable, test } from '../engine/runner/check.js';
import { AssistantAgent } from './_shared/assistant.js';
import { brief, expectDpopNonce, expectNoStore, expectStatus, fail } from '../lib/assert.js';
import { freshId } from '../lib/fresh-id.js';
import { LIMITS } from '../../contract/limits.js';
import { COLLECTION, conversationRoute, openConversation } from './_shared/open-conversation.js';
import { eventsOf, hasComment, isStream, openEventStream } from './_shared/read-event-stream.js';
import { SPECIAL_PATHS, fillPath } from '../../contract/routes.js';

const KEEP_ALIVE_MS = LIMITS.eventStreamKeepAliveSeconds * 1000;
/** Scheduling and network slack allowed on top of the 15 seconds. */
const KEEP_ALIVE_SLACK_MS = 1500;

/** The complete comment lines (WHATWG HTML §9.2.6: a line starting with a colon) of what was read. */
const comments = (text: string): number =>
  text
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith(':')).length;

test(
  ...check(
    {
      id: 'endpoints.conversations.event-stream.keep-alive',
      long: true,
      title:
        'the conversation event stream (text/event-stream, Cache-Control: no-store) gets a keep-alive comment within 15 seconds, and the next within 15 seconds of it',
      clauses: ['EVT-STREAM-1', 'LIM-STREAM-1', 'END-CONV-9'],
      requires: ['assistants'],
    },
    async (shop) => {
      // The one check that waits for keep-alives: two beats of up to 15 s plus slack each (the first may come at once).
      shop.info.setTimeout(shop.info.timeout + 2 * KEEP_ALIVE_MS + 15_000);
      // The spec does not say which endpoints stream: the target's documents name its conversation event stream.
      if (!learned().has('streamConversationEvents'))
        return notApplicable(
          'the description documents describe no streamConversationEvents operation: the spec does not say which endpoints stream',
        );
      const agent = await AssistantAgent.create(shop);
      const { id } = await openConversation(agent);
      const { path } = conversationRoute('streamConversationEvents', id);
      const stream = await openEventStream(shop, agent, path);
      if (!isStream(stream)) {
        return fail(`GET ${path}`, '200 text/event-stream', brief(stream), { clause: 'EVT-STREAM-1' });
      }
      try {
        expectNoStore({ headers: stream.res.headers }, { clause: 'END-CONV-9' });
        const ms = await stream.until(hasComment, KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS);
        if (ms === null)
          fail(
            'a keep-alive comment on the event stream',
            `within ${LIMITS.eventStreamKeepAliveSeconds} s`,
            `none after ${((KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS) / 1000).toFixed(1)} s (read: ${JSON.stringify(stream.text().slice(-200))})`,
            { clause: 'EVT-STREAM-1' },
          );
        // "Every 15 seconds", not once: the next comment comes within 15 s of the first (never longer without one).
        const first = comments(stream.text());
        const next = await stream.until((text) => comments(text) > first, KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS);
        if (next === null)
          fail(
            'the keep-alive comment after the first',
            `within ${LIMITS.eventStreamKeepAliveSeconds} s of the first`,
            `none ${((KEEP_ALIVE_MS + KEEP_ALIVE_SLACK_MS) / 1000).toFixed(1)} s after it (read: ${JSON.stringify(stream.text().slice(-200))})`,
            { clause: 'EVT-STREAM-1' },
          );
        shop.info.annotations.push({ type: 'note', description: `keep-alive comments after ${ms} ms and ${next} ms` });
      } finally {
        stream.close();
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.conversations.event-stream.reference',
      title:
        "the event stream replays the conversation's events, carries a hub turn as it happens (`message`), and ends after the `status` event of a close",
      clauses: ['EVT-STREAM-1', 'END-PUBLIC-14', 'AUTH-ORDER-4'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      const hubSecret = shop.profile.secrets.conversationHubSecret;
      if (hubSecret === null) return notApplicable('the profile has no conversationHubSecret: the suite cannot deliver a hub turn');
      const agent = await AssistantAgent.create(shop);
      const { id } = await openConversation(agent, 'direct');
      const wrote = (await agent.post(`${COLLECTION}/${id}/messages`, { json: { text: 'Before the stream' } })).res;
      expectStatus(wrote, 201, { clause: 'EVT-STREAM-1' });
      const stream = await openEventStream(shop, agent, `${COLLECTION}/${id}/events`);
      if (!isStream(stream)) return fail('the event stream', '200 text/event-stream', brief(stream), { clause: 'EVT-STREAM-1' });
      try {
        expectDpopNonce(stream.res, { at: 'the event stream' });
        if ((await stream.until((t) => eventsOf(t).length >= 1, 3000)) === null)
          fail('the replayed message', 'an event', stream.text(), { clause: 'EVT-STREAM-1' });
        const first = eventsOf(stream.text())[0]!;
        if (first.event !== 'message' || first.id !== String(wrote.body?.seq))
          fail('the replayed event', `message with id ${wrote.body?.seq}`, first, { clause: 'EVT-STREAM-1' });

        const turn = await shop.http.post(fillPath(SPECIAL_PATHS.recordConversationTurn, { id: id }), {
          token: hubSecret,
          json: { turn_id: freshId('turn'), author: 'agent', text: 'Hello from the store' },
        });
        expectStatus(turn, 202, { clause: 'END-PUBLIC-14' });
        const withTurn = await stream.until((t) => eventsOf(t).some((e) => (e.data as { author?: unknown })?.author === 'agent'), 3000);
        if (withTurn === null) fail('the hub turn on the stream', 'a message event by agent', stream.text(), { clause: 'EVT-STREAM-1' });

        expectStatus((await agent.post(`${COLLECTION}/${id}/close`)).res, 200, { clause: 'EVT-STREAM-1' });
        const ended = await stream.until((t) => eventsOf(t).some((e) => e.event === 'status'), 3000);
        if (ended === null) fail('the status event of the close', 'event: status', stream.text(), { clause: 'EVT-STREAM-1' });
        const status = eventsOf(stream.text()).find((e) => e.event === 'status')!;
        if ((status.data as { status?: unknown })?.status !== 'closed')
          fail('data of the status event', { status: 'closed' }, status.data, { clause: 'EVT-STREAM-1' });
      } finally {
        stream.close();
      }
    },
  ),
);
