// Accounts, keyed by the token `sub`. An unknown subject with a valid token is provisioned on first sight: the identity
// provider, not this service, decides who has an account.
import type { Db } from '../db/open.js';
import { keptRead } from './kept-reads.js';

export type AccountState = 'active' | 'deleting' | 'deleted' | 'contact_transition';

export interface AccountRow {
  sub: string;
  email: string | null;
  display_name: string;
  state: AccountState;
  self_service_eligible: number;
}

export function findAccount(db: Db, sub: string): AccountRow | undefined {
  return keptRead(
    db,
    'access',
    `account\0${sub}`,
    () =>
      db.prepare('SELECT sub, email, display_name, state, self_service_eligible FROM accounts WHERE sub = ?').get(sub) as
        AccountRow | undefined,
  );
}

export function ensureAccount(db: Db, sub: string, now: Date, hints: { name?: unknown; email?: unknown } = {}): AccountRow {
  const found = findAccount(db, sub);
  if (found) return found;
  const name = typeof hints.name === 'string' && hints.name.length > 0 ? hints.name.slice(0, 120) : 'Customer';
  const email = typeof hints.email === 'string' && hints.email.length <= 254 ? hints.email : null;
  db.prepare(
    `INSERT OR IGNORE INTO accounts (sub, email, display_name, state, self_service_eligible, created_at)
    VALUES (?, ?, ?, 'active', 0, ?)`,
  ).run(sub, email, name, now.toISOString());
  return findAccount(db, sub)!;
}
