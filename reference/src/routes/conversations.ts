// Assistant conversations (/assistant/conversations…): operations of their own group; app.ts registers every route here.
// The spec gives the routes "DPoP plus live session admission" (Public and special routes), a 64 KiB cap on conversation
// writes checked via Content-Length (Limits), keep-alive comments on event streams (Events > Streaming) and the error
// `direct_conversation_open` with `conversation_id` (Errors); methods, paths and payloads are the reference's choice
// (docs/conversations.md).
//
// Who may call: the guard admits the `conversation` caller list (assistants) and, the group being account-bound, only a
// session signed in to an account (403 `sign_in_required` otherwise). Admission refuses assistant browser sessions on these
// paths; `conversationOwner` refuses every other forwarded assistant too, since a forwarder's Bearer token is never DPoP.
import type { Request } from 'express';
import { LIMITS } from '../../../contract/limits.js';
import { CONVERSATIONS_PATH } from '../../../contract/routes.js';
import type { ErrorCode } from '../../../contract/errors.js';
import type { Actor, HandlerResult, Validated } from '../pipeline/context.js';
import { ProblemError } from '../problem.js';
import {
  conversationListSchema,
  conversationParams,
  conversationSchema,
  conversationMessageSchema,
  openConversationBody,
  postMessageBody,
} from '../schemas/conversations.js';
import {
  closeConversation,
  conversationStatus,
  eventsAfter,
  getConversation,
  listConversations,
  onConversationEvent,
  openConversation,
  postMessage,
  type ConversationEvent,
  type ConversationOwner,
} from '../store/conversations.js';
import { defineRoute, type RouteDef } from './define.js';

/** Errors every conversation operation may answer beyond the pipeline's own (the DPoP refusals, the session, the cap). */
const COMMON_ERRORS: readonly ErrorCode[] = [
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'sign_in_required',
  'payload_too_large',
  'rate_limited',
];

const notFound = () => new ProblemError('not_found', { detail: 'No conversation of this session has this id.' });

/**
 * Conversation writes are capped at 64 KiB, checked via Content-Length (spec, Limits). A declared length over the cap is
 * refused with 413. A body without Content-Length (chunked) is measured as decoded: its compact JSON form over the cap is
 * refused too (the general 256 KiB cap of decoding bounds what is read).
 */
export function checkConversationWriteSize(req: Request): void {
  const declared = req.get('content-length');
  const over = declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > LIMITS.conversationWriteBytes;
  const measured =
    declared === undefined && req.body !== undefined && Buffer.byteLength(JSON.stringify(req.body) ?? '') > LIMITS.conversationWriteBytes;
  if (over || measured) {
    throw new ProblemError('payload_too_large', {
      detail: `Conversation writes are capped at ${LIMITS.conversationWriteBytes} bytes (Content-Length).`,
    });
  }
}

/**
 * The owner of the conversations this request may see: the assistant's live session and the account it is signed in to.
 * Only a direct (DPoP) assistant session signed in to an account qualifies.
 */
export function conversationOwner(req: Request, actor: Actor): ConversationOwner {
  checkConversationWriteSize(req);
  const agent = actor.agent;
  if (actor.callerKind !== 'assistant' || agent === undefined || agent.kind !== 'assistant') {
    throw new ProblemError('caller_not_allowed', { detail: 'Conversations are for assistant agents.' });
  }
  if (agent.forwarderScopes !== null) {
    // "DPoP plus live session admission": a forwarder presents a Bearer machine token, never a DPoP-bound session token.
    throw new ProblemError('caller_not_allowed', {
      detail: "Conversations need the assistant's own DPoP session; forwarded assistants are not admitted.",
    });
  }
  if (!agent.signedIn || agent.accountSub === null || agent.sessionId === null) {
    throw new ProblemError('sign_in_required', {
      detail: 'Conversations need an assistant session signed in to an account.',
      challenge: { kind: 'chosen', error: 'sign_in_required' },
    });
  }
  return { sessionId: agent.sessionId, accountSub: agent.accountSub, agentId: agent.agentId };
}

/** Last-Event-ID as a sequence number: a non-negative integer, anything else means "from the start". */
export function parseLastEventId(value: string | undefined): number {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return 0;
  return Number(value.trim());
}

function eventFor(e: ConversationEvent) {
  return e.kind === 'message'
    ? { id: e.seq, event: 'message', data: e.message }
    : { id: e.seq, event: 'status', data: { status: e.status, at: e.at } };
}

/**
 * The event stream of one conversation: every event after Last-Event-ID (all of them without it), then new ones as they
 * are committed, a `: keep-alive` comment every EVENT_STREAM_KEEPALIVE_MS; it ends after the event that ends the
 * conversation, when the access token expires, or when the client goes away. An unknown conversation is refused before
 * anything is written; the output stage opens the stream (with the headers of any success) and runs the producer.
 */
function eventStreamOf(args: { ctx: Validated; req: Request; owner: ConversationOwner; id: string }): HandlerResult {
  const { ctx, req, id } = args;
  const { db, clock, log, config, conversationSignals } = ctx.domain;
  const status = conversationStatus(db, args.owner, id);
  if (status === undefined) throw notFound();
  return {
    status: 200,
    stream: async (stream) => {
      if (req.method === 'HEAD') {
        stream.close();
        return;
      }

      let last = parseLastEventId(req.get('last-event-id'));
      const pump = () => {
        if (stream.closed) return;
        let ended = false;
        try {
          for (const e of eventsAfter(db, id, last)) {
            stream.send(eventFor(e));
            last = e.seq;
            if (e.kind === 'status' && e.status !== 'open') ended = true;
          }
        } catch (err) {
          log.warn('event_stream_failed', {
            requestId: ctx.requestId,
            conversationId: id,
            error: err instanceof Error ? err.message : String(err),
          });
          ended = true;
        }
        if (ended) stream.close();
      };

      // Subscribe first, then replay: nothing committed in between is missed (pump reads everything after `last`).
      stream.onClose(onConversationEvent(conversationSignals, id, pump));
      // Events committed by another process on the same database file arrive with the next beat at the latest.
      const poll = setInterval(pump, config.eventStreamKeepAliveMs);
      poll.unref?.();
      stream.onClose(() => clearInterval(poll));
      // Authority was checked when the stream opened; it does not outlive the access token.
      const exp = typeof ctx.token?.claims.exp === 'number' ? ctx.token.claims.exp * 1000 - clock().getTime() : undefined;
      if (exp !== undefined) {
        const expiry = setTimeout(() => stream.close(), Math.max(0, Math.min(exp, 2 ** 31 - 1)));
        expiry.unref?.();
        stream.onClose(() => clearTimeout(expiry));
      }
      pump();
      // An ended conversation has nothing more to say, even when Last-Event-ID was past its last event.
      if (status !== 'open') stream.close();
      await stream.done;
    },
  };
}

export const conversationRoutes: RouteDef[] = [
  defineRoute({
    operationId: 'listConversations',
    summary: 'List the conversations of the assistant session',
    success: {
      status: 200,
      schema: conversationListSchema,
      description: 'The conversations of this session and account, newest first, without their messages.',
    },
    errors: COMMON_ERRORS,
    handle: ({ domain, actor, req }) => ({
      status: 200,
      body: { conversations: listConversations(domain.db, conversationOwner(req, actor)) },
    }),
  }),
  defineRoute({
    operationId: 'openConversation',
    summary: 'Open a conversation',
    body: openConversationBody,
    success: {
      status: 201,
      schema: conversationSchema,
      description:
        'The new, open conversation; `Location` is its URL. A session has at most one open `direct` conversation: another is 409 `direct_conversation_open` naming it in `conversation_id`.',
    },
    errors: [...COMMON_ERRORS, 'direct_conversation_open'],
    handle: ({ domain, actor, input, req }) => {
      const owner = conversationOwner(req, actor);
      const r = openConversation(domain.db, owner, input.body, domain.clock());
      if (!r.ok) {
        throw new ProblemError('direct_conversation_open', {
          detail: 'This session already has an open direct conversation.',
          conversationId: r.openDirectId,
        });
      }
      return { status: 201, body: r.conversation, headers: { Location: `${CONVERSATIONS_PATH}/${r.conversation.id}` } };
    },
  }),
  defineRoute({
    operationId: 'getConversation',
    summary: 'Read a conversation with its messages',
    params: conversationParams,
    success: { status: 200, schema: conversationSchema, description: 'The conversation and every message, oldest first.' },
    errors: [...COMMON_ERRORS, 'not_found'],
    handle: ({ domain, actor, input, req }) => {
      const conversation = getConversation(domain.db, conversationOwner(req, actor), input.params.id);
      if (!conversation) throw notFound();
      return { status: 200, body: conversation };
    },
  }),
  defineRoute({
    operationId: 'postConversationMessage',
    summary: 'Write a message into an open conversation',
    params: conversationParams,
    body: postMessageBody,
    success: {
      status: 201,
      schema: conversationMessageSchema,
      description:
        'The message as recorded. No Location: a message is read with its conversation. The request is capped at 64 KiB by its Content-Length (413 `payload_too_large`); a conversation that is not open takes no message (400 `invalid_request`).',
    },
    errors: [...COMMON_ERRORS, 'not_found'],
    handle: ({ domain, actor, input, req }) => {
      const r = postMessage(domain, conversationOwner(req, actor), input.params.id, input.body.text, domain.clock());
      if (r.ok) return { status: 201, body: r.value };
      if (r.reason === 'not_found') throw notFound();
      throw new ProblemError('invalid_request', {
        detail: 'The conversation is not open.',
        issues: [{ path: 'params.id', code: 'conversation_not_open', message: 'Only an open conversation takes messages.' }],
      });
    },
  }),
  defineRoute({
    operationId: 'streamConversationEvents',
    summary: 'Follow a conversation as an event stream',
    params: conversationParams,
    success: {
      status: 200,
      schema: null,
      description:
        '`text/event-stream` with `Cache-Control: no-store`: the events after `Last-Event-ID` (every event without it), then new ones as they happen. ' +
        "Events: `message` (data: a ConversationMessage) and `status` (data: `{ status, at }`); each event's `id` is its position in the conversation. " +
        'A `: keep-alive` comment every 15 seconds (EVENT_STREAM_KEEPALIVE_MS). The stream ends after the `status` event that ends the conversation and when the access token expires.',
    },
    errors: [...COMMON_ERRORS, 'not_found'],
    handle: ({ ctx, actor, input, req }) => eventStreamOf({ ctx, req, owner: conversationOwner(req, actor), id: input.params.id }),
  }),
  defineRoute({
    operationId: 'closeConversation',
    summary: 'Close a conversation',
    params: conversationParams,
    success: {
      status: 200,
      schema: conversationSchema,
      description: 'The conversation, now `closed`; one that had already ended is returned unchanged.',
    },
    errors: [...COMMON_ERRORS, 'not_found'],
    handle: ({ domain, actor, input, req }) => {
      const r = closeConversation(domain, conversationOwner(req, actor), input.params.id, domain.clock());
      if (!r.ok) throw notFound();
      return { status: 200, body: r.value };
    },
  }),
];
