// Assistant conversations (docs/conversations.md). The spec shows no payload of /assistant/conversations…: every shape here
// is the reference's choice. Request bodies are strict (an unknown member is 400 `invalid_request`).
import { z } from 'zod';
import { chars } from './internal.js';

export const CONVERSATION_MODES = ['direct', 'handoff'] as const;
export const CONVERSATION_STATUSES = ['open', 'closed', 'timed_out'] as const;
export const MESSAGE_AUTHORS = ['assistant', 'agent', 'operator', 'system'] as const;
/** Characters of one message the assistant writes (code points): 16 000 × at most 4 UTF-8 bytes stays under 64 KiB. */
export const MAX_MESSAGE_CHARS = 16_000;
export const MAX_TOPIC_CHARS = 200;

/** Ids the reference mints: `conv_` plus 32 hex digits. Any id the hub's routes accept is a well-formed path parameter. */
export const conversationIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'Expected a conversation id of 1–128 characters [A-Za-z0-9._:-].')
  .describe('The conversation.');

export const conversationParams = z.strictObject({ id: conversationIdSchema });

// Role `conversation-mode`: the suite opens `direct` conversations (spec: direct_conversation_open).
export const openConversationBody = z
  .strictObject({
    mode: z
      .enum(CONVERSATION_MODES)
      .describe(
        "`direct`: the assistant talks with the store's agent (at most one open per session); `handoff`: the conversation is handed to a person through the conversation hub, and may time out.",
      ),
    topic: chars(1, MAX_TOPIC_CHARS, 'What the conversation is about (free text).').optional(),
  })
  .meta({ examples: [{ mode: 'direct', topic: 'Order status' }] });

export const postMessageBody = z
  .strictObject({
    text: chars(1, MAX_MESSAGE_CHARS, 'The message. The whole request is capped at 64 KiB by its Content-Length.').meta({
      'x-shop-role': 'message-text',
    }),
  })
  .meta({ examples: [{ text: 'Where is my order?' }] });

export const conversationMessageSchema = z
  .object({
    id: z.string().describe('Message id (`msg_…`).'),
    seq: z.number().int().min(1).describe('Position in the conversation; also the `id` of the event that carried it on the event stream.'),
    author: z
      .enum(MESSAGE_AUTHORS)
      .describe('`assistant`: written by the assistant; `agent`, `operator`, `system`: a turn of the conversation hub.'),
    text: z.string(),
    sent_at: z.string().describe('ISO 8601 date-time.'),
  })
  .meta({ id: 'ConversationMessage' });

const conversationFields = {
  id: z.string().describe('Conversation id (`conv_…`).'),
  mode: z.enum(CONVERSATION_MODES),
  status: z
    .enum(CONVERSATION_STATUSES)
    .describe(
      '`open`; `closed` by the assistant; `timed_out`: the hub reported that the handoff timed out. Only `open` conversations take messages.',
    ),
  topic: z.string().nullable(),
  created_at: z.string().describe('ISO 8601 date-time.'),
  updated_at: z.string().describe('ISO 8601 date-time.'),
  ended_at: z.string().nullable().describe('When the conversation was closed or timed out; null while open.'),
};

export const conversationSchema = z
  .object({
    ...conversationFields,
    messages: z.array(conversationMessageSchema).describe('Every message, oldest first.'),
  })
  .meta({ id: 'Conversation' });

export const conversationSummarySchema = z
  .object({
    ...conversationFields,
    message_count: z.number().int().min(0),
  })
  .meta({ id: 'ConversationSummary' });

export const conversationListSchema = z
  .object({
    conversations: z.array(conversationSummarySchema).describe("The session's conversations, newest first."),
  })
  .meta({ id: 'ConversationList' });

export type ConversationMessage = z.infer<typeof conversationMessageSchema>;
export type Conversation = z.infer<typeof conversationSchema>;
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;
export type ConversationMode = (typeof CONVERSATION_MODES)[number];
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export type MessageAuthor = (typeof MESSAGE_AUTHORS)[number];
