/**
 * A second, read-only connection for a long read (an export, the records of a view): it reads one
 * snapshot inside one read transaction, so counts and rows agree even while a sync publishes, and
 * the connection it is opened next to stays free for other queries while the long read yields.
 */
import Database from 'better-sqlite3';
import { registerLocaleKey } from './collation.ts';
import { attachHistoryOnOpen } from './history.ts';

/** An open snapshot: `db` reads it; {@link Snapshot.end} ends the transaction and closes `db`. */
export interface Snapshot {
  readonly db: Database.Database;
  /** Ends the read transaction and closes the connection (idempotent). */
  end(): void;
}

/**
 * Opens a read-only connection to the file of `db` and begins a read transaction on it (the
 * snapshot is taken at its first read). An in-memory database has no file: its own connection is
 * used, and left open.
 * @throws SqliteError when the file cannot be opened
 */
export function openSnapshot(db: Database.Database): Snapshot {
  const own = !(db.memory || !db.name || db.name === ':memory:');
  const reader = own ? new Database(db.name, { readonly: true, fileMustExist: true }) : db;
  if (own) {
    reader.pragma('busy_timeout = 5000');
    registerLocaleKey(reader);
    // A streaming scan needs little cache; no mmap, so a scan of a large cache does not map the
    // whole file into the process (mapped pages count as its memory).
    reader.pragma('cache_size = -8192');
    reader.pragma('mmap_size = 0');
    // The observed history, for the filters that read it (the orders delivered since a day).
    attachHistoryOnOpen(reader, true);
  }
  let open = true;
  try {
    reader.exec('BEGIN');
  } catch (error) {
    if (own) reader.close();
    throw error;
  }
  return {
    db: reader,
    end() {
      if (!open) return;
      open = false;
      try {
        if (reader.inTransaction) reader.exec('ROLLBACK');
      } catch {
        // nothing to roll back
      }
      if (own) reader.close();
    },
  };
}
