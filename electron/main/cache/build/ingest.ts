/**
 * Writing pages of service records into the staging tables (DESIGN.md "Sync"). Records are mapped to
 * the columns of docs/cache-schema.md; the raw JSON is kept whole. Invalid records (the API client
 * reports them with a reason) are kept too, with their columns filled as far as the raw JSON allows.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS, phoneDigits } from '../store/columns.ts';

/** A record as the API client hands it over (valid, or invalid with its raw JSON and reason). */
export type StagedRecord = { ok: true; record: unknown } | { ok: false; id?: string | null; raw: unknown; reason: string };

/** Text for a column: strings as-is, other JSON values serialised, null/undefined as NULL. */
export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asBool(value: unknown): number | null {
  return value === true ? 1 : value === false ? 0 : null;
}

function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The record's own id when it can serve as a key: a non-blank string, or a finite number (as text).
 * Anything else (missing, null, "", {}, [], true) is no id, and an invalid record without one is
 * kept under a placeholder instead (see `writePage`).
 */
export function usableId(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** Column values of a contact (valid or not), in {@link CONTACT_STAGE_COLUMNS} order. */
export function contactValues(raw: unknown, invalidReason: string | null, fallbackId: string | null): unknown[] {
  const r = obj(raw);
  const labels = Array.isArray(r.ContactLabels) ? r.ContactLabels.map(obj) : [];
  const phone = asText(r.phoneNo);
  return [
    usableId(r.id) ?? fallbackId ?? '', asText(r.firstName), asText(r.lastName), asText(r.fullName), asText(r.companyName),
    asText(r.address1), asText(r.address2), asText(r.city), asText(r.state), asText(r.zip),
    phone, asText(r.extension), asText(r.websiteUrl), asText(r.orgId), asText(r.email),
    asBool(r.isVerified), asBool(r.isLiveMode), asText(r.createdAt),
    JSON.stringify(labels.map((l) => asText(l.title) ?? '')),
    JSON.stringify(labels.map((l) => ({ id: asText(l.id) ?? '', title: asText(l.title) ?? '' }))),
    phoneDigits(phone), JSON.stringify(raw), invalidReason,
  ];
}

/** Column values of an order and of its recipients. */
export function orderValues(raw: unknown, invalidReason: string | null, fallbackId: string | null): { order: unknown[]; recipients: unknown[][] } {
  const r = obj(raw);
  const c = obj(r.campaign);
  const p = obj(r.product);
  const t = obj(r.template);
  const id = usableId(r.id) ?? fallbackId ?? '';
  const entries = Array.isArray(r.contacts) ? r.contacts.map(obj) : [];
  let delivered = 0;
  const recipients = entries.map((e, position) => {
    const s = obj(e.contact);
    if (e.isDelivered === true) delivered += 1;
    return [
      id, asText(e.id) ?? String(position), position, asText(s.id), asText(s.firstName), asText(s.lastName), asText(s.fullName),
      asText(s.companyName), asText(s.email), asText(s.phoneNo), asText(s.address1), asText(s.address2), asText(s.city),
      asText(s.zip), asText(s.websiteUrl), asText(e.trackingCode), asBool(e.isDelivered), asText(e.status), asText(e.meta),
    ];
  });
  const order = [
    id, asText(r.orgId), asText(r.fileUrl), typeof r.status === 'number' ? r.status : null, asBool(r.isLiveMode), asText(r.meta), asText(r.mergeVariables),
    asText(c.id), asText(c.name), asText(c.description), asText(c.scheduleType), asText(c.useType), asText(c.deliveryDate), asText(c.campaignType),
    asText(p.id), asText(p.name), asText(p.productType), asText(p.paperType), asText(p.paperSize), asText(p.deliveryType), asText(p.envelopeType), asText(p.postageType), asText(p.meta),
    asText(t.id), asText(t.title), asText(t.templateUrl), asText(t.templateType), asText(t.thumbnailUrl), asText(obj(t.creator).id), asText(obj(t.creator).fullName),
    entries.length, delivered, JSON.stringify(raw), invalidReason,
  ];
  return { order, recipients };
}

/** What replaces a field too deeply nested to serialise (JSON.stringify overflows the stack). */
export const TOO_DEEP = '[nested too deeply to store]';

/**
 * Computes column values, surviving records nested so deeply that `JSON.stringify` overflows the
 * stack (a hostile or broken service): the record is then kept with each such top-level field
 * replaced by {@link TOO_DEEP} and an invalid reason naming the fields, instead of failing the sync.
 * @param onReduced called when the record had to be reduced (it now counts as invalid)
 */
function storable<T>(raw: unknown, reason: string | null, values: (raw: unknown, reason: string | null) => T, onReduced: () => void): T {
  try {
    return values(raw, reason);
  } catch (error) {
    if (!(error instanceof RangeError) || typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw error;
    const reduced: Record<string, unknown> = {};
    const dropped: string[] = [];
    for (const [key, value] of Object.entries(raw)) {
      try {
        JSON.stringify(value);
        Object.defineProperty(reduced, key, { value, enumerable: true, configurable: true, writable: true });
      } catch {
        Object.defineProperty(reduced, key, { value: TOO_DEEP, enumerable: true, configurable: true, writable: true });
        dropped.push(key);
      }
    }
    onReduced();
    const why = `${reason ? `${reason}; ` : ''}field(s) ${dropped.join(', ')} nested too deeply to store; replaced by "${TOO_DEEP}"`;
    return values(reduced, why);
  }
}

/** `no-id-p<page>-r<row>` for an invalid row that carries no {@link usableId}, else null (its own id is used). */
export function noIdPlaceholder(raw: unknown, page: number, index: number): string | null {
  const id = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
  return usableId(id) === null ? `no-id-p${page}-r${index}` : null;
}

/** Result of writing one page into staging. */
export interface StagedPage {
  rows: number;
  invalid: number;
  ids: string[];
}

/** A page written into the mirror's staging: also the rowid its first row was staged under. */
export interface StagedMirrorPage extends StagedPage {
  /**
   * The staging rowid of the page's first row, or null for an empty page. Its rows are staged
   * under consecutive rowids from there, in the page's order, unless one replaced another.
   */
  firstRowid: number | null;
}

/**
 * A page's records as the column values a staging write inserts: computed without the database,
 * so that another thread can insert them ({@link StageWriter.writeValues}). Plain arrays of
 * strings, numbers and nulls, which a worker message copies as they are.
 */
export interface StagedValues {
  resource: Resource;
  /** Each record's values, in {@link CONTACT_STAGE_COLUMNS} or {@link ORDER_STAGE_COLUMNS} order (without `pass`). */
  rows: unknown[][];
  /** For orders, the recipients of `rows[i]` ({@link RECIPIENT_COLUMNS} order); empty for contacts. */
  recipients: unknown[][][];
  /** The id each row is staged under, in page order. */
  ids: string[];
  /** Records kept as invalid: reported so by the API client, or reduced to be stored. */
  invalid: number;
}

/**
 * Computes the column values of one page of records (see {@link StagedValues}).
 * @param page zero-based page number, which names the placeholder id of an invalid row without one
 * @param records the page's records in server order
 */
export function stagedValues(resource: Resource, page: number, records: readonly StagedRecord[]): StagedValues {
  const rows: unknown[][] = [];
  const recipients: unknown[][][] = [];
  const ids: string[] = [];
  let invalid = 0;
  for (const [index, rec] of records.entries()) {
    const raw = rec.ok ? rec.record : rec.raw;
    const reason = rec.ok ? null : rec.reason;
    // A row without a usable id (missing, null, "", {}, true …) is kept under a placeholder id
    // naming where it was served, so several of them are not merged into one row and nothing
    // is silently dropped.
    const fallbackId = rec.ok ? null : noIdPlaceholder(raw, page, index);
    if (!rec.ok) invalid += 1;
    const onReduced = () => {
      if (rec.ok) invalid += 1;
    };
    if (resource === 'contacts') {
      rows.push(storable(raw, reason, (r, why) => contactValues(r, why, fallbackId), onReduced));
    } else {
      const { order, recipients: of } = storable(raw, reason, (r, why) => orderValues(r, why, fallbackId), onReduced);
      rows.push(order);
      recipients.push(of);
    }
    ids.push(rows[rows.length - 1]?.[0] as string);
  }
  return { resource, rows, recipients, ids, invalid };
}

/**
 * Prepared staging writer for one connection. A page is written in its own transaction (rows
 * upserted by id with the current `pass`, recipients of a re-read order replaced) and recorded in
 * `sync_pages` so a restarted sync can skip it.
 */
export class StageWriter {
  private readonly db: Database.Database;
  private readonly insertContact: Database.Statement;
  private readonly insertOrder: Database.Statement;
  private readonly deleteRecipients: Database.Statement;
  private readonly insertRecipient: Database.Statement;
  private readonly insertPage: Database.Statement;

  constructor(db: Database.Database) {
    this.db = db;
    const ph = (n: number) => Array.from({ length: n }, () => '?').join(',');
    this.insertContact = db.prepare(`INSERT OR REPLACE INTO stage_contacts (${CONTACT_STAGE_COLUMNS.join(',')}, pass) VALUES (${ph(CONTACT_STAGE_COLUMNS.length + 1)})`);
    this.insertOrder = db.prepare(`INSERT OR REPLACE INTO stage_orders (${ORDER_STAGE_COLUMNS.join(',')}, pass) VALUES (${ph(ORDER_STAGE_COLUMNS.length + 1)})`);
    this.deleteRecipients = db.prepare('DELETE FROM stage_order_recipients WHERE order_id = ?');
    this.insertRecipient = db.prepare(`INSERT OR REPLACE INTO stage_order_recipients (${RECIPIENT_COLUMNS.join(',')}) VALUES (${ph(RECIPIENT_COLUMNS.length)})`);
    this.insertPage = db.prepare('INSERT OR REPLACE INTO sync_pages (resource, pass, page, rows, server_count) VALUES (?, ?, ?, ?, ?)');
  }

  /**
   * Writes one page (one transaction).
   * @param resource contacts or orders
   * @param pass the verification pass this page belongs to (1 = first read, 2+ = drift repair)
   * @param page zero-based page number
   * @param serverCount `data.count` the server reported with this page
   * @param records the page's records in server order
   */
  writePage(resource: Resource, pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): StagedMirrorPage {
    const values = stagedValues(resource, page, records);
    const firstRowid = this.writeValues(pass, page, serverCount, values);
    return { rows: values.rows.length, invalid: values.invalid, ids: values.ids, firstRowid };
  }

  /**
   * Writes one page's values ({@link stagedValues}) in one transaction.
   * @returns the staging rowid of the page's first row, or null for an empty page
   */
  writeValues(pass: number, page: number, serverCount: number, values: StagedValues): number | null {
    let firstRowid: number | null = null;
    this.db.transaction(() => {
      for (const [index, row] of values.rows.entries()) {
        const { lastInsertRowid } = (values.resource === 'contacts' ? this.insertContact : this.insertOrder).run(...row, pass);
        firstRowid ??= Number(lastInsertRowid);
        if (values.resource === 'orders') {
          this.deleteRecipients.run(row[0]);
          for (const recipient of values.recipients[index] ?? []) this.insertRecipient.run(...recipient);
        }
      }
      this.insertPage.run(values.resource, pass, page, values.rows.length, serverCount);
    })();
    return firstRowid;
  }
}
