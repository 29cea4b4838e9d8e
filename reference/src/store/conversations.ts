// Assistant conversations (docs/conversations.md): conversations owned by one assistant session signed in to one account,
// and their events (messages and status changes), numbered per conversation. Every write runs in one IMMEDIATE transaction
// and then signals the listeners of that conversation in this process (event streams); listeners read what is new from the
// database, so the database stays the one source of truth and order.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Db } from '../db/open.js';
import type {
  Conversation,
  ConversationMessage,
  ConversationMode,
  ConversationStatus,
  ConversationSummary,
  MessageAuthor,
} from '../schemas/conversations.js';

/** Who a conversation belongs to: the assistant session and the account it is signed in to. */
export interface ConversationOwner {
  sessionId: string;
  accountSub: string;
  agentId: string;
}

interface ConversationRow {
  id: string;
  session_id: string;
  account_sub: string;
  agent_id: string;
  mode: ConversationMode;
  status: ConversationStatus;
  topic: string | null;
  handoff_id: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

interface EventRow {
  conversation_id: string;
  seq: number;
  kind: 'message' | 'status';
  message_id: string | null;
  author: MessageAuthor | null;
  text: string | null;
  turn_id: string | null;
  status: ConversationStatus | null;
  at: string;
}

/** One event of a conversation, as the event stream writes it (`id` = seq). */
export type ConversationEvent =
  { seq: number; kind: 'message'; message: ConversationMessage } | { seq: number; kind: 'status'; status: ConversationStatus; at: string };

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

// ------------------------------------------------------------------------------------------------------------ signals

/**
 * What the writes need: the database, and the instance's signal of new events (Domain.conversationSignals), emitted with
 * the conversation id after each commit so that this instance's event streams read what is new.
 */
export interface ConversationStore {
  readonly db: Db;
  readonly conversationSignals: EventEmitter;
}

let subscriptions = 0;

/** Calls `listener` whenever an event of the conversation was committed in this process; returns the unsubscribe (idempotent). */
export function onConversationEvent(signals: EventEmitter, conversationId: string, listener: () => void): () => void {
  signals.on(conversationId, listener);
  subscriptions += 1;
  let active = true;
  return () => {
    if (!active) return;
    active = false;
    subscriptions -= 1;
    signals.off(conversationId, listener);
  };
}

/** Open subscriptions in this process, over every instance (a gauge of open event streams). */
export function activeConversationSubscriptions(): number {
  return subscriptions;
}

// -------------------------------------------------------------------------------------------------------------- reads

const ROW_COLUMNS = 'id, session_id, account_sub, agent_id, mode, status, topic, handoff_id, created_at, updated_at, ended_at';
const EVENT_COLUMNS = 'conversation_id, seq, kind, message_id, author, text, turn_id, status, at';

function findRow(db: Db, id: string): ConversationRow | undefined {
  return db.prepare(`SELECT ${ROW_COLUMNS} FROM conversations WHERE id = ?`).get(id) as ConversationRow | undefined;
}

function ownedRow(db: Db, owner: ConversationOwner, id: string): ConversationRow | undefined {
  const row = findRow(db, id);
  return row && row.session_id === owner.sessionId && row.account_sub === owner.accountSub ? row : undefined;
}

const toMessage = (e: EventRow): ConversationMessage => ({
  id: e.message_id!,
  seq: e.seq,
  author: e.author!,
  text: e.text!,
  sent_at: e.at,
});

function toEvent(e: EventRow): ConversationEvent {
  return e.kind === 'message'
    ? { seq: e.seq, kind: 'message', message: toMessage(e) }
    : { seq: e.seq, kind: 'status', status: e.status!, at: e.at };
}

function fields(row: ConversationRow) {
  return {
    id: row.id,
    mode: row.mode,
    status: row.status,
    topic: row.topic,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ended_at: row.ended_at,
  };
}

function toConversation(db: Db, row: ConversationRow): Conversation {
  const messages = (
    db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM conversation_events WHERE conversation_id = ? AND kind = 'message' ORDER BY seq`)
      .all(row.id) as EventRow[]
  ).map(toMessage);
  return { ...fields(row), messages };
}

/** The owner's conversation, or undefined when it does not exist for this owner (another session's is undefined too). */
export function getConversation(db: Db, owner: ConversationOwner, id: string): Conversation | undefined {
  const row = ownedRow(db, owner, id);
  return row && toConversation(db, row);
}

/** Status of the owner's conversation, without its messages; undefined as for getConversation. */
export function conversationStatus(db: Db, owner: ConversationOwner, id: string): ConversationStatus | undefined {
  return ownedRow(db, owner, id)?.status;
}

export function listConversations(db: Db, owner: ConversationOwner): ConversationSummary[] {
  const rows = db
    .prepare(
      `SELECT ${ROW_COLUMNS}, (SELECT COUNT(*) FROM conversation_events e WHERE e.conversation_id = c.id AND e.kind = 'message') AS message_count
    FROM conversations c WHERE session_id = ? AND account_sub = ? ORDER BY created_at DESC, id DESC`,
    )
    .all(owner.sessionId, owner.accountSub) as (ConversationRow & { message_count: number })[];
  return rows.map((r) => ({ ...fields(r), message_count: r.message_count }));
}

/** Events of a conversation after `afterSeq`, oldest first (the event stream's replay and catch-up). */
export function eventsAfter(db: Db, conversationId: string, afterSeq: number): ConversationEvent[] {
  return (
    db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM conversation_events WHERE conversation_id = ? AND seq > ? ORDER BY seq`)
      .all(conversationId, afterSeq) as EventRow[]
  ).map(toEvent);
}

// ------------------------------------------------------------------------------------------------------------- writes

function appendEvent(db: Db, conversationId: string, e: Omit<EventRow, 'conversation_id' | 'seq'>): number {
  const seq = db
    .prepare('SELECT COALESCE(MAX(seq), 0) + 1 FROM conversation_events WHERE conversation_id = ?')
    .pluck()
    .get(conversationId) as number;
  db.prepare(
    `INSERT INTO conversation_events (${EVENT_COLUMNS}) VALUES (@conversation_id, @seq, @kind, @message_id, @author, @text, @turn_id, @status, @at)`,
  ).run({ conversation_id: conversationId, seq, ...e });
  db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(e.at, conversationId);
  return seq;
}

export type OpenResult = { ok: true; conversation: Conversation } | { ok: false; openDirectId: string };

/** Opens a conversation; a second open direct conversation of the same owner is refused with the id of the open one. */
export function openConversation(
  db: Db,
  owner: ConversationOwner,
  input: { mode: ConversationMode; topic?: string | undefined },
  now: Date,
): OpenResult {
  return db
    .transaction((): OpenResult => {
      if (input.mode === 'direct') {
        const open = db
          .prepare(`SELECT id FROM conversations WHERE session_id = ? AND account_sub = ? AND mode = 'direct' AND status = 'open'`)
          .pluck()
          .get(owner.sessionId, owner.accountSub) as string | undefined;
        // [ERR-TABLE-15] one open direct conversation per session and account: direct_conversation_open.
        if (open !== undefined) return { ok: false, openDirectId: open };
      }
      const id = newId('conv');
      const at = now.toISOString();
      db.prepare(`INSERT INTO conversations (${ROW_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'open', ?, NULL, ?, ?, NULL)`).run(
        id,
        owner.sessionId,
        owner.accountSub,
        owner.agentId,
        input.mode,
        input.topic ?? null,
        at,
        at,
      );
      return { ok: true, conversation: toConversation(db, findRow(db, id)!) };
    })
    .immediate();
}

export type WriteResult<T> = { ok: true; value: T } | { ok: false; reason: 'not_found' | 'not_open' };

/** The assistant writes a message into its open conversation. */
export function postMessage(
  store: ConversationStore,
  owner: ConversationOwner,
  id: string,
  text: string,
  now: Date,
): WriteResult<ConversationMessage> {
  const { db } = store;
  const result = db
    .transaction((): WriteResult<ConversationMessage> => {
      const row = ownedRow(db, owner, id);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.status !== 'open') return { ok: false, reason: 'not_open' };
      const message_id = newId('msg');
      const at = now.toISOString();
      const seq = appendEvent(db, id, { kind: 'message', message_id, author: 'assistant', text, turn_id: null, status: null, at });
      return { ok: true, value: { id: message_id, seq, author: 'assistant', text, sent_at: at } };
    })
    .immediate();
  if (result.ok) store.conversationSignals.emit(id);
  return result;
}

/** The assistant closes its conversation; closing a conversation that already ended changes nothing. */
export function closeConversation(store: ConversationStore, owner: ConversationOwner, id: string, now: Date): WriteResult<Conversation> {
  const { db } = store;
  let changed = false;
  const result = db
    .transaction((): WriteResult<Conversation> => {
      const row = ownedRow(db, owner, id);
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.status === 'open') {
        endConversation(db, id, 'closed', now);
        changed = true;
      }
      return { ok: true, value: toConversation(db, findRow(db, id)!) };
    })
    .immediate();
  if (changed) store.conversationSignals.emit(id);
  return result;
}

function endConversation(db: Db, id: string, status: 'closed' | 'timed_out', now: Date, handoffId: string | null = null): void {
  const at = now.toISOString();
  db.prepare('UPDATE conversations SET status = ?, ended_at = ?, handoff_id = COALESCE(?, handoff_id) WHERE id = ?').run(
    status,
    at,
    handoffId,
    id,
  );
  appendEvent(db, id, { kind: 'status', message_id: null, author: null, text: null, turn_id: null, status, at });
}

// ------------------------------------------------------------------------------------------- the conversation hub

export type HubResult = { ok: true; duplicate: boolean } | { ok: false; reason: 'not_found' | 'not_open' };

/**
 * A turn of the conversation hub (POST /internal/conversations/{id}/turn): appended once per `turn_id` to an open
 * conversation. A repeated `turn_id` is answered as accepted without a second message, whatever the conversation's status.
 */
export function recordHubTurn(
  store: ConversationStore,
  id: string,
  turn: { turn_id: string; author: 'agent' | 'operator' | 'system'; text: string; sent_at?: string | undefined },
  now: Date,
): HubResult {
  const { db } = store;
  const result = db
    .transaction((): HubResult => {
      const row = findRow(db, id);
      if (!row) return { ok: false, reason: 'not_found' };
      if (db.prepare('SELECT 1 FROM conversation_events WHERE conversation_id = ? AND turn_id = ?').get(id, turn.turn_id))
        return { ok: true, duplicate: true };
      if (row.status !== 'open') return { ok: false, reason: 'not_open' };
      // The time the service recorded the turn: sent_at of the hub is informative only, and never reorders the conversation.
      appendEvent(db, id, {
        kind: 'message',
        message_id: newId('msg'),
        author: turn.author,
        text: turn.text,
        turn_id: turn.turn_id,
        status: null,
        at: now.toISOString(),
      });
      return { ok: true, duplicate: false };
    })
    .immediate();
  if (result.ok && !result.duplicate) store.conversationSignals.emit(id);
  return result;
}

/**
 * The hub reports that a handoff timed out (POST /internal/conversations/{id}/handoff-timeout): an open handoff
 * conversation becomes `timed_out`. A direct conversation has no handoff (not_found); one that already ended is left as it
 * is (duplicate).
 */
export function recordHandoffTimeout(
  store: ConversationStore,
  id: string,
  input: { handoff_id: string; timed_out_at: string },
  now: Date,
): HubResult {
  const { db } = store;
  const result = db
    .transaction((): HubResult => {
      const row = findRow(db, id);
      if (!row || row.mode !== 'handoff') return { ok: false, reason: 'not_found' };
      if (row.status !== 'open') return { ok: true, duplicate: true };
      endConversation(db, id, 'timed_out', now, input.handoff_id);
      return { ok: true, duplicate: false };
    })
    .immediate();
  if (result.ok && !result.duplicate) store.conversationSignals.emit(id);
  return result;
}
