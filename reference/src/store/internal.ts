// What the internal routes record (docs/internal-routes.md): security intents of the identity provider's action script, and
// the assistant state the identity-provider proxy reports (sessions with their live scopes, connected agents, authorization
// decisions). The assistant caller kind reads these through getAssistantSession / getAgentAuthorization.
import type { Db } from '../db/open.js';
import { keptRead } from './kept-reads.js';

const list = (values: readonly string[]) => JSON.stringify([...new Set(values)]);
const parseList = (text: string): string[] => {
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

// ------------------------------------------------------------------------------------------------------ security intents

export interface SecurityIntentInput {
  intent_id: string;
  subject: string;
  kind: string;
  [key: string]: unknown;
}

/** Records an intent once per intent_id (the first recording wins); `created` is false for a repeat. */
export function recordSecurityIntent(db: Db, intent: SecurityIntentInput, now: Date): { created: boolean; receivedAt: string } {
  const at = now.toISOString();
  const r = db
    .prepare('INSERT OR IGNORE INTO security_intents (intent_id, subject, kind, payload, received_at) VALUES (?, ?, ?, ?, ?)')
    .run(intent.intent_id, intent.subject, intent.kind, JSON.stringify(intent), at);
  if (r.changes === 1) return { created: true, receivedAt: at };
  const row = db.prepare('SELECT received_at FROM security_intents WHERE intent_id = ?').get(intent.intent_id) as { received_at: string };
  return { created: false, receivedAt: row.received_at };
}

export function findSecurityIntent(
  db: Db,
  intentId: string,
): { intent_id: string; subject: string; kind: string; payload: unknown; received_at: string } | undefined {
  const row = db
    .prepare('SELECT intent_id, subject, kind, payload, received_at FROM security_intents WHERE intent_id = ?')
    .get(intentId) as { intent_id: string; subject: string; kind: string; payload: string; received_at: string } | undefined;
  return row && { ...row, payload: JSON.parse(row.payload) as unknown };
}

// ---------------------------------------------------------------------------------------------------- assistant sessions

export interface AssistantSession {
  session_id: string;
  client_id: string;
  state: 'signed_in' | 'signed_out';
  /** The account the session is signed in to; null when signed out. */
  subject: string | null;
  agent_id: string | null;
  /** The session's live scopes (permissions); an assistant's effective scopes are its token's intersected with these. */
  scopes: string[];
  created_at: string;
  updated_at: string;
}

interface SessionRow extends Omit<AssistantSession, 'scopes'> {
  scopes: string;
}

export function getAssistantSession(db: Db, sessionId: string): AssistantSession | undefined {
  return keptRead(db, 'access', `session\0${sessionId}`, () => readSession(db, sessionId));
}

function readSession(db: Db, sessionId: string): AssistantSession | undefined {
  const row = db
    .prepare(
      'SELECT session_id, client_id, state, subject, agent_id, scopes, created_at, updated_at FROM assistant_sessions WHERE session_id = ?',
    )
    .get(sessionId) as SessionRow | undefined;
  return row && { ...row, scopes: parseList(row.scopes) };
}

function upsertSession(db: Db, s: Omit<AssistantSession, 'created_at' | 'updated_at'>, now: Date): void {
  const at = now.toISOString();
  db.prepare(
    `INSERT INTO assistant_sessions (session_id, client_id, state, subject, agent_id, scopes, created_at, updated_at)
    VALUES (@session_id, @client_id, @state, @subject, @agent_id, @scopes, @at, @at)
    ON CONFLICT (session_id) DO UPDATE SET client_id = excluded.client_id, state = excluded.state, subject = excluded.subject,
      agent_id = excluded.agent_id, scopes = excluded.scopes, updated_at = excluded.updated_at`,
  ).run({ ...s, scopes: list(s.scopes), at });
}

/** A signed-out session (or a session that signed out): no account, the given live scopes. `created` on first sight. */
export function registerSignedOutSession(
  db: Db,
  input: { session_id: string; client_id: string; scopes: readonly string[] },
  now: Date,
): { created: boolean; session: AssistantSession } {
  return db
    .transaction(() => {
      const existed = getAssistantSession(db, input.session_id) !== undefined;
      upsertSession(
        db,
        {
          session_id: input.session_id,
          client_id: input.client_id,
          state: 'signed_out',
          subject: null,
          agent_id: null,
          scopes: [...input.scopes],
        },
        now,
      );
      return { created: !existed, session: getAssistantSession(db, input.session_id)! };
    })
    .immediate();
}

// ------------------------------------------------------------------------------------- connected agents, authorizations

export interface AgentAuthorization {
  subject: string;
  agent_id: string;
  permissions: string[];
  decision: 'granted' | 'revoked';
  updated_at: string;
}

export function getAgentAuthorization(db: Db, subject: string, agentId: string): AgentAuthorization | undefined {
  return keptRead(db, 'access', `authorization\0${subject}\0${agentId}`, () => readAuthorization(db, subject, agentId));
}

function readAuthorization(db: Db, subject: string, agentId: string): AgentAuthorization | undefined {
  const row = db
    .prepare('SELECT subject, agent_id, permissions, decision, updated_at FROM agent_authorizations WHERE subject = ? AND agent_id = ?')
    .get(subject, agentId) as (Omit<AgentAuthorization, 'permissions'> & { permissions: string }) | undefined;
  return row && { ...row, permissions: parseList(row.permissions) };
}

export function getConnectedAgent(
  db: Db,
  subject: string,
  agentId: string,
): { subject: string; agent_id: string; client_id: string; permissions: string[]; connected_at: string } | undefined {
  const row = db
    .prepare('SELECT subject, agent_id, client_id, permissions, connected_at FROM connected_agents WHERE subject = ? AND agent_id = ?')
    .get(subject, agentId) as
    { subject: string; agent_id: string; client_id: string; permissions: string; connected_at: string } | undefined;
  return row && { ...row, permissions: parseList(row.permissions) };
}

function upsertAuthorization(
  db: Db,
  subject: string,
  agentId: string,
  permissions: readonly string[],
  decision: 'granted' | 'revoked',
  at: string,
): void {
  db.prepare(
    `INSERT INTO agent_authorizations (subject, agent_id, permissions, decision, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (subject, agent_id) DO UPDATE SET permissions = excluded.permissions, decision = excluded.decision, updated_at = excluded.updated_at`,
  ).run(subject, agentId, list(permissions), decision, at);
}

/**
 * A customer connected an agent: the connection and a `granted` authorization with its permissions are recorded; with a
 * `session_id`, that assistant session is now signed in to the account with the permissions as its live scopes.
 */
export function connectAgent(
  db: Db,
  input: { subject: string; agent_id: string; client_id: string; permissions: readonly string[]; session_id?: string | undefined },
  now: Date,
): { created: boolean } {
  const at = now.toISOString();
  return db
    .transaction(() => {
      const existed = getConnectedAgent(db, input.subject, input.agent_id) !== undefined;
      db.prepare(
        `INSERT INTO connected_agents (subject, agent_id, client_id, permissions, connected_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (subject, agent_id) DO UPDATE SET client_id = excluded.client_id, permissions = excluded.permissions, updated_at = excluded.updated_at`,
      ).run(input.subject, input.agent_id, input.client_id, list(input.permissions), at, at);
      upsertAuthorization(db, input.subject, input.agent_id, input.permissions, 'granted', at);
      if (input.session_id !== undefined) {
        upsertSession(
          db,
          {
            session_id: input.session_id,
            client_id: input.client_id,
            state: 'signed_in',
            subject: input.subject,
            agent_id: input.agent_id,
            scopes: [...input.permissions],
          },
          now,
        );
      }
      return { created: !existed };
    })
    .immediate();
}

/**
 * The account's decision about an agent. `granted` sets the permissions, and the live scopes of the agent's signed-in
 * sessions; `revoked` signs those sessions out with no scopes (they keep only the base authority).
 */
export function authorizeAgent(
  db: Db,
  input: { subject: string; agent_id: string; permissions: readonly string[]; decision: 'granted' | 'revoked' },
  now: Date,
): { created: boolean; authorization: AgentAuthorization } {
  const at = now.toISOString();
  return db
    .transaction(() => {
      const existed = getAgentAuthorization(db, input.subject, input.agent_id) !== undefined;
      upsertAuthorization(db, input.subject, input.agent_id, input.decision === 'revoked' ? [] : input.permissions, input.decision, at);
      if (input.decision === 'granted') {
        db.prepare(
          `UPDATE assistant_sessions SET scopes = ?, updated_at = ? WHERE subject = ? AND agent_id = ? AND state = 'signed_in'`,
        ).run(list(input.permissions), at, input.subject, input.agent_id);
      } else {
        db.prepare(
          `UPDATE assistant_sessions SET state = 'signed_out', subject = NULL, agent_id = NULL, scopes = '[]', updated_at = ? WHERE subject = ? AND agent_id = ?`,
        ).run(at, input.subject, input.agent_id);
      }
      return { created: !existed, authorization: getAgentAuthorization(db, input.subject, input.agent_id)! };
    })
    .immediate();
}

/** Ends every agent's authority over an account (its deletion): authorizations revoked, its sessions signed out. */
export function endAgentAuthority(db: Db, subject: string, now: Date): void {
  const at = now.toISOString();
  db.prepare(`UPDATE agent_authorizations SET decision = 'revoked', permissions = '[]', updated_at = ? WHERE subject = ?`).run(at, subject);
  db.prepare(
    `UPDATE assistant_sessions SET state = 'signed_out', subject = NULL, agent_id = NULL, scopes = '[]', updated_at = ? WHERE subject = ?`,
  ).run(at, subject);
}
