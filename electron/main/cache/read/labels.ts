/**
 * The addresses of a view for mailing labels (shared/labelSheets.ts): a contact view's contacts, or
 * an order view's recipients, in view order. A recipient carries no state (§2.3), so it takes its
 * cached contact's; one whose contact is gone, and any address a label cannot hold, is listed with
 * the reason instead of printed blank.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { addressProblem, MAX_LABELS, type LabelAddress, type LabelAddresses, type LabelRequest } from '../../../../shared/labelSheets.ts';
import type { ContactQuery, OrderQuery } from '../../../../shared/query.ts';
import { chained, orderedParts, splitParams } from './emptyOrder.ts';
import { contactViewSql, orderViewSql } from './list.ts';
import { viewScope } from './listScope.ts';
import { read } from './rows.ts';

interface AddressRow {
  id: string;
  full_name: string | null;
  company_name: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  cached?: number;
}

const text = (v: string | null): string => v ?? '';

/**
 * Reads the addresses of a view on one snapshot of the cache.
 * @throws LetterdeskError VALIDATION for an unknown source; NOT_FOUND for a saved view that does not exist
 */
export function labelAddresses(db: Database.Database, request: LabelRequest): LabelAddresses {
  if (request.source !== 'contacts' && request.source !== 'recipients') throw new LetterdeskError('VALIDATION', 'Labels are of contacts or of order recipients.');
  return read(db, () => {
    const contacts = request.source === 'contacts';
    const view = contacts
      ? contactViewSql(request.query as ContactQuery, undefined, viewScope(db, 'contacts', request.query.view))
      : orderViewSql(request.query as OrderQuery, undefined, viewScope(db, 'orders', request.query.view));
    const params = { ...view.params, ...splitParams(db, view.split), __limit: MAX_LABELS + 1 };
    const select = contacts ? 'c.id, c.full_name, c.company_name, c.address1, c.address2, c.city, c.state, c.zip' : 'o.id';
    const rows = chained(
      orderedParts(view).map((p) => () => db.prepare(`SELECT ${select} FROM ${view.from} WHERE ${p.where} ORDER BY ${p.orderBy} LIMIT :__limit`).iterate(params) as IterableIterator<AddressRow>),
    );
    const recipientsOf = contacts
      ? null
      : db.prepare(`SELECT r.order_id || ':' || r.id AS id, r.full_name, r.company_name, r.address1, r.address2, r.city, r.zip, c.state, c.id IS NOT NULL AS cached
          FROM order_recipients r LEFT JOIN contacts c ON c.id = r.contact_id WHERE r.order_id = ? ORDER BY r.position, r.id`);
    const out: LabelAddresses = { addresses: [], skipped: [], more: false };
    const take = (row: AddressRow): void => {
      const address: LabelAddress = {
        id: row.id, fullName: text(row.full_name), companyName: text(row.company_name), address1: text(row.address1), address2: text(row.address2),
        city: text(row.city), state: text(row.state), zip: text(row.zip),
      };
      const name = address.fullName || address.companyName || `#${row.id}`;
      const problem = addressProblem(address) ?? (row.cached === 0 ? 'its contact is no longer cached, so its state is unknown' : null);
      if (problem) out.skipped.push({ id: row.id, name, reason: problem });
      else out.addresses.push(address);
    };
    let records = 0;
    for (const row of rows) {
      if (++records > MAX_LABELS || out.addresses.length + out.skipped.length >= MAX_LABELS) {
        out.more = true;
        break;
      }
      if (recipientsOf) for (const r of recipientsOf.iterate(row.id) as IterableIterator<AddressRow>) take(r);
      else take(row);
    }
    return out;
  });
}
