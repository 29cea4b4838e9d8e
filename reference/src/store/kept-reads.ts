// Reads kept in memory, per connection, while a version counter is unchanged. Triggers move each counter in every
// transaction that changes its tables (migration 7): a change by any connection or process is seen by the next read,
// and writes to other tables keep what is kept. Kept values are frozen, so no caller can change what the next one gets
// (and the output stage may keep what it rendered of them).
import type { Db } from '../db/open.js';
import { remember } from '../bounded.js';

/** The counters: the catalog (products, variants, collections), and who may act (accounts, assistant state). */
export type Counter = 'catalog' | 'access';

const MAX_KEPT = 500;
interface Kept {
  version: number;
  reads: Map<string, unknown>;
}
const KEPT = new WeakMap<Db, Map<Counter, Kept>>();

export function keptRead<T>(db: Db, counter: Counter, key: string, read: () => T): T {
  // Inside a transaction a read may see writes that are then rolled back: never kept.
  if (db.inTransaction) return read();
  const version = db.prepare(`SELECT v FROM ${counter}_version`).pluck().get() as number;
  let byCounter = KEPT.get(db);
  if (!byCounter) KEPT.set(db, (byCounter = new Map()));
  let kept = byCounter.get(counter);
  if (!kept || kept.version !== version) byCounter.set(counter, (kept = { version, reads: new Map() }));
  if (kept.reads.has(key)) return kept.reads.get(key) as T;
  return remember(kept.reads, key, deepFreeze(read()), MAX_KEPT) as T;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
