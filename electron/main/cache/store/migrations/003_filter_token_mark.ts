/**
 * Migration 3: filter tokens start with a private-use character instead of `z` (issue 8, typeahead).
 *
 * The filter tokens of migration 2 (`zs…`, `zv1`, `zb…` …) all began with `z`, so the 1-letter
 * prefix `z` — a thing people type — read the doclist of every contact's filter tokens (≈ 5 per
 * contact; 33–69 ms at 1,000,000 contacts, against 1–3 ms for any other letter). They now begin
 * with U+E000, a private-use character: unicode61 keeps it as a token character (its default
 * categories are L*, N* and Co), and nobody types it (compileSearch drops it from a search). The
 * contentless index is recreated and refilled from the visible rows, as in migration 2: a one-time
 * cost on the first open after the update (3.2 s measured for 100,000 contacts; roughly ten times
 * that for 1,000,000).
 *
 * Append-only: never edit this file once released. The SQL is a frozen copy of what build/publish.ts
 * `buildNext` writes when this migration was added (`char(57344)` is U+E000).
 */
import type { Migration } from './index.ts';

const FTS_OPTIONS = `content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'`;

export const migration: Migration = {
  version: 3,
  name: 'filter_token_mark',
  sql: `
DROP TABLE IF EXISTS contacts_fts;
CREATE VIRTUAL TABLE contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, f, ${FTS_OPTIONS});
INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', 0);
INSERT INTO contacts_fts (rowid, name, company, email, phone, address, city, state, zip, labels, f)
  SELECT c.rowid, concat_ws(' ', c.full_name, c.first_name, c.last_name), c.company_name, c.email, concat_ws(' ', c.phone_no, c.phone_digits),
    concat_ws(' ', c.address1, c.address2), c.city, c.state, c.zip, (SELECT group_concat(value, ' ') FROM json_each(c.labels)),
    concat_ws(' ', char(57344) || 's' || hex(c.state),
      CASE WHEN c.is_verified = 1 THEN char(57344) || 'v1' WHEN c.is_verified = 0 THEN char(57344) || 'v0' WHEN c.is_verified IS NULL THEN char(57344) || 'vn' END,
      CASE WHEN c.is_live_mode = 1 THEN char(57344) || 'l1' WHEN c.is_live_mode = 0 THEN char(57344) || 'l0' END,
      (SELECT group_concat(char(57344) || 'b' || hex(l.id) || ' ' || char(57344) || 't' || hex(l.title), ' ') FROM contact_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.contact_id = c.id))
  FROM contacts c;
INSERT INTO contacts_fts (contacts_fts) VALUES ('optimize');
INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', 4);
`,
};
