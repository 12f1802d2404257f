/**
 * The sync's invariants (DESIGN.md "Sync") as reusable checks for the reliability tests: what the cache
 * shows, compared with what the server holds or with the previous snapshot; SQLite integrity; the
 * search index against the rows. All read the real cache file through their own connection.
 */
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { SampleDataset } from '../../electron/main/sampleApi/server.ts';

/** The visible records of a cache: id → parsed raw JSON, plus derived tables' sizes. */
export interface Snapshot {
  contacts: Map<string, unknown>;
  orders: Map<string, unknown>;
  recipients: number;
  labels: number;
  /** Ids of records kept with an `invalid_reason` (they failed validation; kept as sent). */
  invalid: Set<string>;
}

/** Reads the visible snapshot through a fresh read-only connection. */
export function readSnapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true });
  try {
    return db.transaction(() => {
      const contacts = new Map<string, unknown>();
      for (const row of db.prepare('SELECT id, raw FROM contacts').iterate() as Iterable<{ id: string; raw: string }>) contacts.set(row.id, JSON.parse(row.raw));
      const orders = new Map<string, unknown>();
      for (const row of db.prepare('SELECT id, raw FROM orders').iterate() as Iterable<{ id: string; raw: string }>) orders.set(row.id, JSON.parse(row.raw));
      const recipients = (db.prepare('SELECT count(*) AS n FROM order_recipients').get() as { n: number }).n;
      const labels = (db.prepare('SELECT count(*) AS n FROM labels').get() as { n: number }).n;
      const invalid = new Set<string>([
        ...(db.prepare('SELECT id FROM contacts WHERE invalid_reason IS NOT NULL').pluck().all() as string[]),
        ...(db.prepare('SELECT id FROM orders WHERE invalid_reason IS NOT NULL').pluck().all() as string[]),
      ]);
      return { contacts, orders, recipients, labels, invalid };
    })();
  } finally {
    db.close();
  }
}

/** What the sample API serves right now, in the same shape. */
export function serverSnapshot(dataset: SampleDataset): { contacts: Map<string, unknown>; orders: Map<string, unknown> } {
  const contacts = new Map<string, unknown>();
  for (const id of dataset.contactIds()) contacts.set(id, JSON.parse(JSON.stringify(dataset.contactById(id))));
  const orders = new Map<string, unknown>();
  for (const id of dataset.orderIds()) orders.set(id, JSON.parse(JSON.stringify(dataset.orderById(id))));
  return { contacts, orders };
}

/**
 * Compares two id → record maps and describes the first differences (ids missing, extra, changed),
 * or returns null when they are equal. Cheaper and more readable than a deep toEqual on thousands of rows.
 */
export function diffRecords(actual: Map<string, unknown>, expected: Map<string, unknown>): string | null {
  const missing: string[] = [];
  const extra: string[] = [];
  const changed: string[] = [];
  for (const [id, record] of expected) {
    if (!actual.has(id)) missing.push(id);
    else if (JSON.stringify(canonical(actual.get(id))) !== JSON.stringify(canonical(record))) changed.push(id);
  }
  for (const id of actual.keys()) if (!expected.has(id)) extra.push(id);
  if (missing.length + extra.length + changed.length === 0) return null;
  return `${missing.length} missing [${missing.slice(0, 5).join(', ')}], ${extra.length} extra [${extra.slice(0, 5).join(', ')}], ${changed.length} changed [${changed.slice(0, 5).join(', ')}] (actual ${actual.size}, expected ${expected.size})`;
}

/** JSON with object keys sorted (key order is not part of a record's meaning). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) Object.defineProperty(out, key, { value: canonical((value as Record<string, unknown>)[key]), enumerable: true });
    return out;
  }
  return value;
}

/** `PRAGMA integrity_check` on the file (with its WAL), through a fresh connection. */
export function integrityCheck(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/**
 * The search index matches the rows: FTS5's own integrity check passes, the index holds exactly
 * the rowids of the rows (none missing, none left over), the order recipients are exactly those of
 * the visible orders, and searching for sampled contacts' e-mail addresses and last names finds them.
 * @returns a description of the first mismatch, or null
 */
export function searchIndexProblem(file: string, samples = 5): string | null {
  const db = new Database(file, { readonly: true });
  try {
    return db.transaction(() => {
      for (const [table, fts] of [['contacts', 'contacts_fts'], ['orders', 'orders_fts']] as const) {
        try {
          db.prepare(`INSERT INTO ${fts} (${fts}, rank) VALUES ('integrity-check', 1)`).run();
        } catch (error) {
          // A read-only connection cannot run the command; fall through to the rowid comparison.
          if (!/readonly|read-only/i.test(String(error))) return `${fts} integrity-check: ${String(error)}`;
        }
        const rows = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        const indexed = (db.prepare(`SELECT count(*) AS n FROM ${fts}`).get() as { n: number }).n;
        if (rows !== indexed) return `${fts} holds ${indexed} entries for ${rows} ${table}`;
        const orphan = db.prepare(`SELECT f.rowid AS r FROM ${fts} f LEFT JOIN ${table} t ON t.rowid = f.rowid WHERE t.rowid IS NULL LIMIT 1`).get() as { r: number } | undefined;
        if (orphan) return `${fts} has an entry (rowid ${orphan.r}) with no row in ${table}`;
      }
      const recipients = db.prepare('SELECT (SELECT count(*) FROM order_recipients) AS n, (SELECT coalesce(sum(recipients), 0) FROM orders) AS expected').get() as { n: number; expected: number };
      if (recipients.n !== recipients.expected) return `order_recipients holds ${recipients.n} rows; the orders count ${recipients.expected} recipients`;
      const picks = db.prepare('SELECT rowid, id, email, last_name FROM contacts WHERE email <> \'\' AND invalid_reason IS NULL ORDER BY random() LIMIT ?').all(samples) as { rowid: number; id: string; email: string; last_name: string }[];
      for (const pick of picks) {
        for (const term of [pick.email, pick.last_name]) {
          const words = term.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
          if (words.length === 0) continue;
          const match = words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
          const hit = db.prepare('SELECT 1 FROM contacts_fts WHERE contacts_fts MATCH ? AND rowid = ?').get(match, pick.rowid);
          if (!hit) return `searching ${JSON.stringify(term)} does not find contact ${pick.id}`;
        }
      }
      return null;
    })();
  } finally {
    db.close();
  }
}

/** Asserts integrity_check = ok and the search index matches the rows. */
export function expectHealthyCache(file: string, context: string): void {
  expect(integrityCheck(file), `${context}: integrity_check`).toBe('ok');
  expect(searchIndexProblem(file), `${context}: search index`).toBeNull();
}
