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
/** The statement reading each counter, prepared once per connection (a read of a kept value is otherwise only this). */
const VERSION_READS = new WeakMap<Db, Map<Counter, () => number>>();

function versionOf(db: Db, counter: Counter): number {
  let reads = VERSION_READS.get(db);
  if (!reads) VERSION_READS.set(db, (reads = new Map()));
  let read = reads.get(counter);
  if (!read) {
    const statement = db.prepare(`SELECT v FROM ${counter}_version`).pluck();
    reads.set(counter, (read = () => statement.get() as number));
  }
  return read();
}

export function keptRead<T>(db: Db, counter: Counter, key: string, read: () => T): T {
  // Inside a transaction a read may see writes that are then rolled back: never kept.
  if (db.inTransaction) return read();
  const version = versionOf(db, counter);
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
