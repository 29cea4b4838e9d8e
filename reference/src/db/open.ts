// Opens the SQLite database: WAL and busy_timeout on every connection (several processes may share one file).
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

export type Db = Database.Database;

export function openDatabase(path: string): Db {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  migrate(db);
  return db;
}
