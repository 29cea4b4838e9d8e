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
  cacheStatements(db);
  return db;
}

/**
 * Statements are compiled once per connection and SQL text (compiling is a good part of a cheap read's cost). A cached
 * reader is handed out with pluck off, the mode every caller assumes unless it asks for pluck itself. The cache is bounded:
 * the SQL texts are the code's own (an IN list varies only with a bounded page size).
 */
function cacheStatements(db: Db, max = 1000): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = compile(sql);
      if (cache.size < max) cache.set(sql, statement);
    } else if (statement.reader) {
      statement.pluck(false);
    }
    return statement;
  }) as Db['prepare'];
}
