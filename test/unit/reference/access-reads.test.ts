// Who may act is read on every request and kept while unchanged; a revocation, by this connection or another process's,
// takes effect on the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../reference/src/db/open.js';
import { authorizeAgent, connectAgent, getAgentAuthorization, getAssistantSession } from '../../../reference/src/store/internal.js';
import { ensureAccount, findAccount } from '../../../reference/src/store/accounts.js';

const NOW = new Date('2026-11-25T12:00:00Z');

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'access-reads-'));
  const a = openDatabase(join(dir, 'shop.db'));
  const b = openDatabase(join(dir, 'shop.db'));
  return { a, b, close: () => (a.close(), b.close(), rmSync(dir, { recursive: true, force: true })) };
}

const connect = (db: ReturnType<typeof openDatabase>) =>
  connectAgent(
    db,
    { subject: 'cust_1', agent_id: 'agent_1', client_id: 'client_1', permissions: ['cart:read'], session_id: 'sess_1' },
    NOW,
  );

test('a kept session is the same frozen object until a revocation on the same connection signs it out', () => {
  const { a, close } = twoConnections();
  try {
    connect(a);
    const first = getAssistantSession(a, 'sess_1');
    assert.equal(first?.state, 'signed_in');
    assert.equal(getAssistantSession(a, 'sess_1'), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first!.scopes));
    authorizeAgent(a, { subject: 'cust_1', agent_id: 'agent_1', permissions: [], decision: 'revoked' }, NOW);
    assert.equal(getAssistantSession(a, 'sess_1')?.state, 'signed_out');
    assert.equal(getAgentAuthorization(a, 'cust_1', 'agent_1')?.decision, 'revoked');
  } finally {
    close();
  }
});

test("another process's revocation and account change are seen by the next read", () => {
  const { a, b, close } = twoConnections();
  try {
    connect(a);
    ensureAccount(a, 'cust_1', NOW);
    assert.equal(getAssistantSession(a, 'sess_1')?.state, 'signed_in');
    assert.equal(findAccount(a, 'cust_1')?.state, 'active');
    authorizeAgent(b, { subject: 'cust_1', agent_id: 'agent_1', permissions: [], decision: 'revoked' }, NOW);
    b.prepare("UPDATE accounts SET state = 'deleting' WHERE sub = 'cust_1'").run();
    assert.equal(getAssistantSession(a, 'sess_1')?.state, 'signed_out');
    assert.equal(findAccount(a, 'cust_1')?.state, 'deleting');
  } finally {
    close();
  }
});
