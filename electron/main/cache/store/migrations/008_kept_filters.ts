/**
 * Migration 8: kept filters (shared/keptFilters.ts; columns in docs/cache-schema.md). Nothing that
 * exists changes.
 *
 *  - `kept_filters`: one row per kept value of a service filter (resource, parameter, value), with
 *    the query its last read sent, the local day a date preset was computed from, when it was read,
 *    its counts and the last read's failure. Seeded with the defaults: address status (Failed,
 *    Verified, Corrected), last mailed in the last 30 days, every order status and payment status.
 *  - `kept_members`: the ids the service returned for each kept value, replaced whole by each read
 *    that succeeds (a read is staged in the saved views' staging tables under the view id
 *    `kept-<fid>` first). Keyed by id, not by the mirror's rowid, so a publish of the mirror
 *    changes nothing here.
 *
 * Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

const DEFAULTS: readonly [string, string, string][] = [
  ['contacts', 'addressStatus', 'Failed'], ['contacts', 'addressStatus', 'Verified'], ['contacts', 'addressStatus', 'Corrected'],
  ['contacts', 'lastMailedDate', '30d'],
  ['orders', 'orderStatus', 'ON_HOLD'], ['orders', 'orderStatus', 'SCHEDULED'], ['orders', 'orderStatus', 'PROCESSING'], ['orders', 'orderStatus', 'MAILED'], ['orders', 'orderStatus', 'CANCELED'],
  ['orders', 'paymentStatus', 'PENDING'], ['orders', 'paymentStatus', 'PAID'], ['orders', 'paymentStatus', 'PAYMENT_FAILED'], ['orders', 'paymentStatus', 'NOT_CHARGED'],
];

export const migration: Migration = {
  version: 8,
  name: 'kept_filters',
  sql: `
CREATE TABLE kept_filters (
  fid INTEGER PRIMARY KEY,
  resource TEXT NOT NULL CHECK (resource IN ('contacts', 'orders')),
  param TEXT NOT NULL,
  value TEXT NOT NULL,
  query TEXT,
  as_of_day TEXT,
  read_at TEXT,
  server_count INTEGER,
  members INTEGER,
  error_code TEXT,
  error_message TEXT,
  error_at TEXT,
  UNIQUE (resource, param, value)
);
CREATE TABLE kept_members (fid INTEGER NOT NULL, id TEXT NOT NULL, PRIMARY KEY (fid, id)) WITHOUT ROWID;
CREATE INDEX kept_members_id ON kept_members(id, fid);
INSERT INTO kept_filters (resource, param, value) VALUES
${DEFAULTS.map(([r, p, v]) => `  ('${r}', '${p}', '${v}')`).join(',\n')};
`,
};
