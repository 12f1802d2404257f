/**
 * Copies the mailing tables (build/mailing.ts) and the duplicate groups (build/duplicates.ts) of a
 * synced cache into a reference cache built from some of its records, so that rows and sorts that
 * read them compare: a reference holds one resource, its own build would give every order the time
 * of that build, and its own groups would be those among its subset of the contacts only.
 */
import type Database from 'better-sqlite3';

/** Replaces `contact_mailing`, `order_first_seen` and the duplicate groups of each of `refs` with those of `db`. */
export function copyMailingTables(db: Database.Database, refs: readonly Database.Database[]): void {
  for (const table of ['contact_mailing', 'order_first_seen', 'contact_duplicates', 'contact_duplicates_state'] as const) {
    const rows = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    const cols = Object.keys(rows[0] ?? {});
    for (const ref of refs) {
      ref.exec(`DELETE FROM ${table}`);
      if (cols.length === 0) continue;
      const insert = ref.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`);
      ref.transaction(() => rows.forEach((r) => insert.run(r)))();
    }
  }
}
