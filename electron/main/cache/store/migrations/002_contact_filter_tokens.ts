/**
 * Migration 2: filter tokens in the contacts search index (issue 8, typeahead with filters).
 *
 * `contacts_fts` gains a last column `f` that holds each contact's filter tokens (state, verified,
 * live mode, labels; the scheme is documented at read/list.ts `CONTACT_FILTER_TOKENS`), so that a search
 * combined with filters is answered inside the search index. The table is contentless, so it is
 * recreated and refilled from the visible `contacts` rows: a one-time cost on the first open after
 * the update (about a minute for 1,000,000 contacts), inside the migration's transaction.
 *
 * Append-only: never edit this file once released. The SQL below is a frozen copy of what
 * build/publish.ts `buildNext` wrote when this migration was added; later changes to the token scheme
 * need a migration of their own.
 */
import type { Migration } from './index.ts';

const FTS_OPTIONS = `content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'`;

export const migration: Migration = {
  version: 2,
  name: 'contact_filter_tokens',
  sql: `
DROP TABLE IF EXISTS contacts_fts;
CREATE VIRTUAL TABLE contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, f, ${FTS_OPTIONS});
INSERT INTO contacts_fts (rowid, name, company, email, phone, address, city, state, zip, labels, f)
  SELECT c.rowid, concat_ws(' ', c.full_name, c.first_name, c.last_name), c.company_name, c.email, concat_ws(' ', c.phone_no, c.phone_digits),
    concat_ws(' ', c.address1, c.address2), c.city, c.state, c.zip, (SELECT group_concat(value, ' ') FROM json_each(c.labels)),
    concat_ws(' ', 'zs' || hex(c.state),
      CASE WHEN c.is_verified = 1 THEN 'zv1' WHEN c.is_verified = 0 THEN 'zv0' WHEN c.is_verified IS NULL THEN 'zvn' END,
      CASE WHEN c.is_live_mode = 1 THEN 'zl1' WHEN c.is_live_mode = 0 THEN 'zl0' END,
      (SELECT group_concat('zb' || hex(l.id) || ' zt' || hex(l.title), ' ') FROM contact_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.contact_id = c.id))
  FROM contacts c;
INSERT INTO contacts_fts (contacts_fts) VALUES ('optimize');
`,
};
