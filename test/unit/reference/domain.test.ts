// Per-instance state lives in Domain, made by createApp: two references in one process share none of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../../../reference/src/app.js';
import { loadConfig } from '../../../reference/src/config.js';
import { openDatabase } from '../../../reference/src/db/open.js';

test('two apps in one process: separate budgets, nonce issuers, event signals, checkout queues and in-flight sets', () => {
  const config = loadConfig({ env: {}, overrides: { databasePath: ':memory:' } });
  const a = createApp({ config, db: openDatabase(':memory:') }).domain;
  const b = createApp({ config, db: openDatabase(':memory:') }).domain;
  for (const key of ['assistantLimiters', 'dpopNonces', 'conversationSignals', 'checkoutQueue', 'ordersInFlight'] as const) {
    assert.notEqual(a[key], b[key], key);
  }
  // A spent session budget in one instance leaves the other's untouched.
  for (let i = 0; i < config.assistantSessionRateLimitBudget; i += 1) a.assistantLimiters.session.hit('session:s1');
  assert.equal(a.assistantLimiters.session.hit('session:s1').allowed, false);
  assert.equal(b.assistantLimiters.session.hit('session:s1').allowed, true);
  a.db.close();
  b.db.close();
});
