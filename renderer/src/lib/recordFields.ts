/**
 * Every field the service sent, readable: the fields of a contact or an order that service-api.md
 * §2 does not name (the detail shows them under "Other fields from the service"), field names as
 * words ("lastMailedStatus" → "Last mailed status") and enum-like values as words
 * ("certified_letter" → "Certified letter"). The page only: exports and the raw JSON keep the
 * values exactly as the service sent them.
 */
import type { ContactAppearance } from '../../../shared/contract.ts';
import type { OrderRow, RecipientRow } from '../../../shared/query.ts';
import { formatDate, formatDateTime, jsonText } from './format.ts';

type Fields = { [key: string]: unknown };

/** §2.2 Contact's fields. */
const CONTACT_FIELDS = new Set([
  'id', 'firstName', 'lastName', 'fullName', 'companyName', 'address1', 'address2', 'city', 'state', 'zip',
  'phoneNo', 'extension', 'websiteUrl', 'orgId', 'email', 'isVerified', 'isLiveMode', 'ContactLabels', 'createdAt',
]);
/** §2.2 ContactLabel's fields. */
const LABEL_FIELDS = new Set(['id', 'title']);
/** §2.3 Order's fields. */
const ORDER_FIELDS = new Set(['id', 'orgId', 'fileUrl', 'mergeVariables', 'status', 'meta', 'isLiveMode', 'campaign', 'product', 'contacts', 'template']);
const CAMPAIGN_FIELDS = new Set(['id', 'name', 'description', 'scheduleType', 'useType', 'deliveryDate', 'campaignType']);
const PRODUCT_FIELDS = new Set(['id', 'paperType', 'paperSize', 'deliveryType', 'productType', 'envelopeType', 'postageType', 'name', 'meta']);
const RECIPIENT_FIELDS = new Set(['id', 'orderId', 'trackingCode', 'contact', 'isDelivered', 'status', 'meta']);
const SNAPSHOT_FIELDS = new Set(['id', 'zip', 'city', 'email', 'phoneNo', 'address1', 'address2', 'fullName', 'lastName', 'firstName', 'websiteUrl', 'companyName']);
const TEMPLATE_FIELDS = new Set(['id', 'title', 'templateUrl', 'templateType', 'thumbnailUrl', 'creator']);
const CREATOR_FIELDS = new Set(['id', 'fullName']);

/** A field the service sent that §2 does not name. */
export interface OtherField {
  /** Where it is, as a path of keys (`campaign.channel`, `contacts[1].priority`): the tooltip. */
  path: string;
  /** Its name in words, with the part of the record it belongs to ("Campaign · Channel"). */
  label: string;
  value: unknown;
}

const isFields = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

function collect(out: OtherField[], record: unknown, known: ReadonlySet<string>, path: string, where: string): void {
  if (!isFields(record)) return;
  for (const [key, value] of Object.entries(record)) {
    if (known.has(key)) continue;
    out.push({ path: path ? `${path}.${key}` : key, label: where ? `${where} · ${humanizeKey(key)}` : humanizeKey(key), value });
  }
}

/**
 * The fields of a contact that §2.2 does not name, its labels' included, in the order sent.
 * @param contact the contact as cached (any JSON value; a kept record may be anything)
 */
export function otherContactFields(contact: unknown): OtherField[] {
  const out: OtherField[] = [];
  collect(out, contact, CONTACT_FIELDS, '', '');
  const labels = isFields(contact) && Array.isArray(contact.ContactLabels) ? contact.ContactLabels : [];
  labels.forEach((l, i) => collect(out, l, LABEL_FIELDS, `ContactLabels[${i}]`, `Label ${i + 1}`));
  return out;
}

/**
 * The fields of an order that §2.3 does not name: its own, its campaign's, product's, template's
 * and creator's, and each recipient's and its snapshot's, in the order sent. `meta` objects are
 * user data, shown in the detail's own sections, so their keys are never "other".
 * @param order the order as cached (any JSON value)
 */
export function otherOrderFields(order: unknown): OtherField[] {
  const out: OtherField[] = [];
  if (!isFields(order)) return out;
  collect(out, order, ORDER_FIELDS, '', '');
  collect(out, order.campaign, CAMPAIGN_FIELDS, 'campaign', 'Campaign');
  collect(out, order.product, PRODUCT_FIELDS, 'product', 'Product');
  collect(out, order.template, TEMPLATE_FIELDS, 'template', 'Template');
  if (isFields(order.template)) collect(out, order.template.creator, CREATOR_FIELDS, 'template.creator', 'Creator');
  const recipients = Array.isArray(order.contacts) ? order.contacts : [];
  recipients.forEach((r, i) => {
    collect(out, r, RECIPIENT_FIELDS, `contacts[${i}]`, `Recipient ${i + 1}`);
    if (isFields(r)) collect(out, r.contact, SNAPSHOT_FIELDS, `contacts[${i}].contact`, `Recipient ${i + 1} snapshot`);
  });
  return out;
}

/** Short words written in capitals when a name or value is made readable. */
const ACRONYMS = new Set(['id', 'url', 'usps', 'ups', 'dhl', 'json', 'pdf', 'html', 'api', 'zip', 'qr', 'utc', 'sms']);

function words(parts: string[]): string {
  const text = parts
    .filter(Boolean)
    .map((w, i) => {
      const lower = w.toLowerCase();
      if (ACRONYMS.has(lower)) return lower.toUpperCase();
      return i === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
  return text;
}

/**
 * A field name in words: camelCase, PascalCase, snake_case and kebab-case split, the first word
 * capitalised ("lastMailedStatus" → "Last mailed status", "account_id" → "Account ID").
 * @returns the key itself when it has no letters to split on
 */
export function humanizeKey(key: string): string {
  const parts = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/);
  const text = words(parts);
  return text || key;
}

/** Values that read as identifiers: lowercase words joined by `_` or `-` ("certified_letter", "immediate"). */
const ENUM_LIKE = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;

/**
 * An enum-like service value in words ("certified_letter" → "Certified letter", "usps" → "USPS");
 * any other text (a name, a value already in words, "8.5x11") is returned as it is.
 */
export function humanizeValue(value: string): string {
  if (!ENUM_LIKE.test(value)) return value;
  return words(value.split(/[_-]/));
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Any value of a field the service sent, as the detail shows it: text in words (enum-like values
 * humanised, ISO timestamps as local dates and times, ISO days as dates), yes/no for booleans,
 * numbers as they are, lists and objects as one line of JSON.
 * @returns `{ text, mono }`: mono when the text is JSON or an identifier-like value
 */
export function fieldValueText(value: unknown): { text: string; mono: boolean } {
  if (value === null || value === undefined) return { text: '—', mono: false };
  if (typeof value === 'boolean') return { text: value ? 'Yes' : 'No', mono: false };
  if (typeof value === 'number') return { text: String(value), mono: true };
  if (typeof value === 'string') {
    if (value === '') return { text: '—', mono: false };
    if (ISO_INSTANT.test(value)) return { text: formatDateTime(value) || value, mono: false };
    if (ISO_DAY.test(value)) return { text: formatDate(value), mono: false };
    if (/^\d+$/.test(value)) return { text: value, mono: true };
    return { text: humanizeValue(value), mono: false };
  }
  return { text: jsonText(value), mono: true };
}

/** An address a recipient entry used, on one line ("1 Elm St, Apt 2, Boise, 83720"). */
export function addressLine(r: Pick<RecipientRow, 'address1' | 'address2' | 'city' | 'zip'>): string {
  return [r.address1, r.address2, r.city, r.zip].filter(Boolean).join(', ');
}

/** One order a contact appears in, with each distinct address the order used for it. */
export interface ContactOrder {
  order: OrderRow;
  /** `changed`: it differs from the contact's current address (RecipientRow `addressChanged`). */
  addresses: { text: string; changed: boolean }[];
}

/**
 * A contact's appearances as one entry per order, in their order (a contact may be a recipient of
 * one order more than once; each distinct address it was sent to is kept).
 */
export function ordersOfContact(appearances: readonly ContactAppearance[]): ContactOrder[] {
  const byId = new Map<string, ContactOrder>();
  for (const { order, recipient } of appearances) {
    let entry = byId.get(order.id);
    if (!entry) {
      entry = { order, addresses: [] };
      byId.set(order.id, entry);
    }
    const text = addressLine(recipient);
    if (!entry.addresses.some((a) => a.text === text)) entry.addresses.push({ text, changed: recipient.addressChanged });
  }
  return [...byId.values()];
}
