// What DPoP needs to share between the instances on one database file (docs/assistants.md): the accepted proofs, so that a
// replay is refused by every instance, and the nonce key when none is configured.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open.js';
import { dpopProofKey } from './dpop-key.js';

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Records an accepted proof (key thumbprint + jti) until `expiresAt`. Atomic set-if-absent: true when this call recorded
 * it, false when the pair is already there (a replay). Errors of the store propagate; callers fail closed.
 */
// [AUTH-ASST-11] [AUTH-ASST-12] accepted proofs are recorded in the shared database: every instance refuses a replay.
export function recordDpopProof(db: Db, proof: { jkt: string; jti: string; expiresAt: Date }): boolean {
  const r = db
    .prepare('INSERT INTO dpop_proofs (proof, expires_at) VALUES (?, ?) ON CONFLICT (proof) DO NOTHING')
    .run(dpopProofKey(proof.jkt, proof.jti), epoch(proof.expiresAt));
  return r.changes === 1;
}

/** When the recorded proof of this key and jti expires (epoch seconds); undefined when none is recorded. */
export function dpopProofExpiry(db: Db, jkt: string, jti: string): number | undefined {
  return db.prepare('SELECT expires_at FROM dpop_proofs WHERE proof = ?').pluck().get(dpopProofKey(jkt, jti)) as number | undefined;
}

/** Deletes the proofs whose retention ended before `now`; returns how many. */
// [AUTH-ASST-13] the job clean_dpop_proofs removes recorded proofs once their retention ended.
export function deleteExpiredDpopProofs(db: Db, now: Date): number {
  return db.prepare('DELETE FROM dpop_proofs WHERE expires_at < ?').run(epoch(now)).changes;
}

export function countDpopProofs(db: Db): number {
  return db.prepare('SELECT COUNT(*) FROM dpop_proofs').pluck().get() as number;
}

/**
 * A random secret named `name`, created by the first instance that asks and shared by every instance on the file (the
 * first insert wins, so two instances starting together agree).
 */
export function sharedSecret(db: Db, name: string, now: Date): string {
  db.prepare('INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING').run(
    name,
    randomBytes(32).toString('base64url'),
    now.toISOString(),
  );
  return db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck().get(name) as string;
}
