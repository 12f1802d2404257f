/**
 * What the contact and order views ask the cache for, and the row shapes they get back.
 * Shared by the IPC contract, the CLI's filters and CSV export ("export the current view" means
 * exactly the rows a {@link ContactQuery} / {@link OrderQuery} selects, in its sort order).
 */
import { z } from 'zod';
import { MAILED_AT_LEAST, MAX_QUERY_IDS, MAX_THEN_BY } from './queryLimits.ts';
import { KEPT_PARAM_NAMES, MAX_KEPT_VALUE, deliveredSinceStart, type DeliveredSincePreset, type KeptFacet } from './keptFilters.ts';
import { viewIdSchema } from './views.ts';
import { DUPLICATE_LEVELS, type DuplicateLevel } from './addressKey.ts';

export { MAILED_AT_LEAST, MAX_QUERY_IDS, MAX_THEN_BY };

const MAX_SEARCH = 200;
const MAX_LIST = 200;
const isoDate = z.iso.date(); // YYYY-MM-DD, interpreted in UTC
const isoInstant = z.iso.datetime(); // YYYY-MM-DDTHH:MM:SS(.sss)Z

export const sortDirection = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof sortDirection>;

/**
 * Columns a contact view can sort by. `lastName`: the person's name by last name, then first name;
 * `address` / `line2`: address line 1 / 2; `timesMailed`, `deliveredCount`, `lastOrder`: the
 * contact's mailings ({@link ContactRow}).
 */
export const CONTACT_SORT_COLUMNS = [
  'name', 'lastName', 'company', 'email', 'phone', 'address', 'line2', 'city', 'state', 'zip', 'labels', 'verified', 'createdAt',
  'timesMailed', 'deliveredCount', 'lastOrder',
] as const;
export const contactSortColumn = z.enum(CONTACT_SORT_COLUMNS);
export type ContactSortColumn = z.infer<typeof contactSortColumn>;

/** Verified filter: §2.2 `isVerified` is true, false or null ("unknown"). */
export const verifiedState = z.enum(['yes', 'no', 'unknown']);
export type VerifiedState = z.infer<typeof verifiedState>;

/** How the label filter's labels combine: a contact with any of them, or with all of them. */
export const labelsMode = z.enum(['any', 'all']);
export type LabelsMode = z.infer<typeof labelsMode>;

/** Live-mode filter (§9: records carry `isLiveMode`). */
export const liveModeFilter = z.enum(['live', 'test']);

/**
 * How a record changed in the last sync that published its resource, compared with the copy that
 * sync replaced: `added` (its id was not there), `changed` (its raw JSON differs), `removed` (the
 * service no longer lists it; the cache keeps its last copy until the next sync of the resource
 * publishes). A resource's first sync marks nothing: there is no copy to compare with.
 */
export const RECORD_CHANGES = ['added', 'changed', 'removed'] as const;
export const recordChange = z.enum(RECORD_CHANGES);
export type RecordChange = z.infer<typeof recordChange>;

/** The change filter: records of these kinds of change in the last sync (removed ones from their kept copies). */
const changedFilter = z.array(recordChange).max(3).optional();
/**
 * Kept filters (shared/keptFilters.ts) of one resource: per parameter, the rows of any of its
 * values (OR) as the service answered them at its last read; several parameters combine with AND.
 */
const keptFilter = (params: readonly string[]) =>
  z.array(z.object({ param: z.enum(params as [string, ...string[]]), values: z.array(z.string().min(1).max(MAX_KEPT_VALUE)).min(1).max(MAX_LIST) }).strict()).max(params.length).optional();
/** Bounds on a contact's times mailed ({@link ContactRow} `timesMailed`), at least one of them. */
export const timesMailedFilter = z
  .object({ min: z.number().int().min(0).max(1_000_000).optional(), max: z.number().int().min(0).max(1_000_000).optional() })
  .strict()
  .refine((b) => b.min !== undefined || b.max !== undefined, 'give min, max or both')
  .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, 'min is at most max');
/**
 * "Possible duplicates": the contacts in a duplicate group at `level` (shared/duplicates.ts, as the
 * last sync of contacts found them), or with `key` only the members of that one group (the
 * Duplicates page's "Open these contacts").
 */
export const duplicatesFilter = z.object({ level: z.enum(DUPLICATE_LEVELS), key: z.string().min(1).max(4096).optional() }).strict();
export type DuplicatesFilter = z.infer<typeof duplicatesFilter>;
/** "Only records kept as invalid": records that did not match §2, kept with their reason. */
const invalidOnlyFilter = z.boolean().optional();

/**
 * A record's id as the cache keys it: digits (§2), or whatever a record kept as invalid carried as
 * its id (any text without control characters), so that such a record can be named too. Only ever
 * bound as a value, never part of SQL.
 */
// eslint-disable-next-line no-control-regex
export const recordIdSchema = z.string().min(1).max(1024).regex(/^[^\u0000-\u001f\u007f]+$/, 'a record id holds no control characters');
/**
 * Only the records with these ids (what a person selected in the table), still in the query's own
 * order and under its other filters. At least one id; a list of ids is not a filter that can be empty.
 */
const idsFilter = z.array(recordIdSchema).min(1).max(MAX_QUERY_IDS).optional();

/**
 * A contact view: free-text search plus filters plus sort. Every list filter is OR within itself
 * (the labels too unless `labelsMode` is `all`) and AND across filters. Empty or missing = no filter.
 */
export const contactQuerySchema = z
  .object({
    search: z.string().max(MAX_SEARCH).optional(),
    labels: z.array(z.string().max(64)).max(MAX_LIST).optional(),
    /** `all`: only contacts with every label of `labels`; `any` (the default): with at least one of them. */
    labelsMode: labelsMode.optional(),
    states: z.array(z.string().max(64)).max(MAX_LIST).optional(),
    verified: z.array(verifiedState).max(3).optional(),
    liveMode: z.array(liveModeFilter).max(2).optional(),
    /** Inclusive lower bound on `createdAt`, a UTC day. */
    createdFrom: isoDate.optional(),
    /** Inclusive upper bound on `createdAt`, a UTC day. */
    createdTo: isoDate.optional(),
    /**
     * Inclusive lower bound on `createdAt`, an instant. The app sends where the first day of its
     * Created filter begins in the person's time zone (the table shows createdAt in local time), so
     * the filter and the column agree; the CLI's `createdFrom`/`createdTo` are UTC days.
     */
    createdAfter: isoInstant.optional(),
    /** Exclusive upper bound on `createdAt`, an instant (where the day after the filter's last day begins). */
    createdBefore: isoInstant.optional(),
    /** Changed in the last sync of contacts ({@link RecordChange}); with `removed`, the removed contacts' kept copies are rows of the view. */
    changed: changedFilter,
    /** Only contacts kept as invalid (`invalidReason` set). */
    invalidOnly: invalidOnlyFilter,
    /** The service's filters kept offline: address status, last mailed, return address (shared/keptFilters.ts). */
    kept: keptFilter(KEPT_PARAM_NAMES.contacts),
    /**
     * How many cached orders list the contact (each order once), inclusive bounds: `{ max: 0 }` is
     * "never mailed", `{ min: 3 }` "mailed at least 3 times".
     */
    timesMailed: timesMailedFilter.optional(),
    /** Only the contacts in a duplicate group at a level, or of one group ({@link duplicatesFilter}). */
    duplicates: duplicatesFilter.optional(),
    /** Only the contacts with these ids (a selection), in the query's order. */
    ids: idsFilter,
    sort: z.object({ column: contactSortColumn, direction: sortDirection }).strict().optional(),
    /** Further sort keys, applied in turn among rows that `sort` (and the keys before) leave equal. */
    thenBy: z.array(z.object({ column: contactSortColumn, direction: sortDirection }).strict()).max(MAX_THEN_BY).optional(),
    /**
     * A saved view (shared/views.ts) whose members the query is limited to: the mirrored records
     * whose ids its service query returned, and the records it returned that the mirror does not
     * hold yet. A view without a service query limits nothing.
     */
    view: viewIdSchema.optional(),
  })
  .strict();
export type ContactQuery = z.infer<typeof contactQuerySchema>;

export const ORDER_SORT_COLUMNS = ['id', 'campaign', 'product', 'template', 'status', 'recipients', 'delivered', 'liveMode', 'scheduleType', 'deliveryDate'] as const;
export const orderSortColumn = z.enum(ORDER_SORT_COLUMNS);
export type OrderSortColumn = z.infer<typeof orderSortColumn>;

/** A template's or campaign's id as the orders carry it (digits per §2; any text of an order kept as invalid). */
const summaryId = z.string().max(128);

/** A range of the person's local days, YYYY-MM-DD, both included. */
const localDayRange = z
  .object({ from: isoDate, to: isoDate })
  .strict()
  .refine((r) => r.from <= r.to, 'from is on or before to');
export type LocalDayRange = z.infer<typeof localDayRange>;

/** Delivered state of an order: all, some or none of its recipients delivered. */
export const deliveredState = z.enum(['all', 'some', 'none']);
export type DeliveredState = z.infer<typeof deliveredState>;

/** An order view. Same conventions as {@link contactQuerySchema}. */
export const orderQuerySchema = z
  .object({
    search: z.string().max(MAX_SEARCH).optional(),
    statuses: z.array(z.number().int()).max(MAX_LIST).optional(),
    productTypes: z.array(z.string().max(128)).max(MAX_LIST).optional(),
    campaignTypes: z.array(z.string().max(128)).max(MAX_LIST).optional(),
    scheduleTypes: z.array(z.string().max(128)).max(MAX_LIST).optional(),
    liveMode: z.array(liveModeFilter).max(2).optional(),
    delivered: z.array(deliveredState).max(3).optional(),
    /**
     * Orders with a recipient a sync observed delivered (`isDelivered` false → true) in a read that
     * ended since: `7d` or `30d` (the last 7 or 30 local days, today included, counted when the
     * query runs) or a local day `YYYY-MM-DD` (keptFilters.ts `deliveredSinceStart`). The observed
     * history, docs/cache-schema.md.
     */
    deliveredSince: z
      .string()
      .max(10)
      .refine((v) => deliveredSinceStart(v, new Date()) !== null, 'deliveredSince is 7d, 30d or a day YYYY-MM-DD')
      .optional(),
    /** Orders whose product's envelope type (§2.3 `product.envelopeType`) is one of these ('' : none sent). */
    envelopeTypes: z.array(z.string().max(128)).max(MAX_LIST).optional(),
    /** Orders whose product's postage type (§2.3 `product.postageType`) is one of these ('' : none sent). */
    postageTypes: z.array(z.string().max(128)).max(MAX_LIST).optional(),
    /**
     * Orders with a recipient a sync observed delivered in a read that ended within these local
     * days, both included (the Overview's deliveries chart: one bar's day, week or month).
     */
    deliveredBetween: localDayRange.optional(),
    /** Orders the cache first saw (its first-seen time) within these local days, both included. */
    firstSeenBetween: localDayRange.optional(),
    /** Orders that include this contact id (the contact detail's "orders" list). */
    contactId: z.string().regex(/^\d+$/).max(40).optional(),
    /** Orders of this template (§2.3 `template.id`; '' = orders that carry none): a template's detail. */
    templateId: summaryId.optional(),
    /** Orders of this campaign (§2.3 `campaign.id`; '' = orders that carry none): a campaign's detail. */
    campaignId: summaryId.optional(),
    /** Changed in the last sync of orders (see {@link contactQuerySchema}). */
    changed: changedFilter,
    /** Only orders kept as invalid (`invalidReason` set). */
    invalidOnly: invalidOnlyFilter,
    /** The service's filters kept offline: order status, payment, source, dates, created by (shared/keptFilters.ts). */
    kept: keptFilter(KEPT_PARAM_NAMES.orders),
    /** Only the orders with these ids (a selection), in the query's order. */
    ids: idsFilter,
    sort: z.object({ column: orderSortColumn, direction: sortDirection }).strict().optional(),
    /** Further sort keys (see {@link contactQuerySchema}). */
    thenBy: z.array(z.object({ column: orderSortColumn, direction: sortDirection }).strict()).max(MAX_THEN_BY).optional(),
    /** A saved view whose members the query is limited to (see {@link contactQuerySchema}). */
    view: viewIdSchema.optional(),
  })
  .strict();
export type OrderQuery = z.infer<typeof orderQuerySchema>;

/** A window of rows: the virtualized table asks for what is on screen (plus a margin). */
export const windowSchema = z
  .object({
    offset: z.number().int().min(0).max(100_000_000),
    limit: z.number().int().min(1).max(1000),
  })
  .strict();
export type RowWindow = z.infer<typeof windowSchema>;

/** One row of the contacts table (a projection of §2.2; the full record comes with the detail). */
export interface ContactRow {
  id: string;
  fullName: string;
  firstName: string;
  lastName: string;
  companyName: string;
  email: string;
  phoneNo: string;
  extension: string;
  /** Address line 1 (the street address) and line 2 (unit, suite). */
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
  /** Label titles, in the order the service sent them. */
  labels: string[];
  isVerified: boolean | null;
  isLiveMode: boolean;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  /** Why the record was kept as invalid (it does not match §2.2; its columns hold what could be read), or null. */
  invalidReason: string | null;
  /** How it changed in the last sync of contacts, or null (unchanged, or no earlier copy to compare with). */
  change: RecordChange | null;
  /** How many cached orders list the contact as a recipient, each order once. */
  timesMailed: number;
  /** In how many of those orders the contact's recipient is delivered. */
  deliveredCount: number;
  /** When a sync first saw the newest of those orders (ISO 8601 UTC), or null: never mailed. */
  lastOrderSeenAt: string | null;
  /**
   * In a duplicate group at the household level (shared/duplicates.ts, the default level): a
   * "possible duplicate" the table marks.
   */
  possibleDuplicate: boolean;
}

/** One row of the orders table. */
export interface OrderRow {
  id: string;
  status: number;
  isLiveMode: boolean;
  campaignName: string;
  campaignType: string;
  scheduleType: string;
  deliveryDate: string | null;
  productName: string;
  productType: string;
  templateTitle: string;
  /** Number of recipients (OrderContact entries). */
  recipients: number;
  /** Recipients with `isDelivered` true. */
  delivered: number;
  /** Why the record was kept as invalid (it does not match §2.3; `status` is 0 when it had none), or null. */
  invalidReason: string | null;
  /** How it changed in the last sync of orders, or null. */
  change: RecordChange | null;
  /** When a sync first saw the order (ISO 8601 UTC; kept across syncs), or null for a copy outside the mirror. */
  firstSeenAt: string | null;
}

/** The fields of a recipient's snapshot (§2.3 OrderContact.contact), by the service's names. */
export const SNAPSHOT_FIELDS = ['firstName', 'lastName', 'fullName', 'companyName', 'email', 'phoneNo', 'address1', 'address2', 'city', 'zip', 'websiteUrl'] as const;
export type SnapshotField = (typeof SNAPSHOT_FIELDS)[number];
/** The snapshot fields that make up the postal address (the snapshot has no state). */
export const ADDRESS_FIELDS = ['address1', 'address2', 'city', 'zip'] as const satisfies readonly SnapshotField[];

/**
 * One recipient of an order, as the order detail shows it: the snapshot of the contact the order
 * kept (§2.3 OrderContact.contact), compared with the contact as cached now.
 */
export interface RecipientRow {
  id: string;
  orderId: string;
  contactId: string;
  firstName: string;
  lastName: string;
  fullName: string;
  companyName: string;
  email: string;
  phoneNo: string;
  address1: string;
  address2: string;
  city: string;
  zip: string;
  /** The service sends any JSON value here (§2.3 gap); shown as text. */
  trackingCode: string | null;
  isDelivered: boolean;
  status: string | null;
  websiteUrl: string;
  /**
   * The contact (`contactId`) is in the cached contacts. False: the service no longer lists it (or it
   * was never synced); the fields above are the snapshot the order kept, all there is to show.
   */
  contactInCache: boolean;
  /**
   * Snapshot fields whose value differs from the cached contact's current one (compared trimmed,
   * with runs of blanks as one and without regard to case); empty when the contact is not cached.
   */
  changedSinceOrder: SnapshotField[];
  /** One of {@link ADDRESS_FIELDS} is in `changedSinceOrder`: the letter went to another address than the contact's current one. */
  addressChanged: boolean;
}

/**
 * A row count. On huge match sets the cache may answer fast with a lower bound first
 * (`exact: false`, shown as "10,000+") and the exact number later.
 */
export interface RowCount {
  count: number;
  exact: boolean;
}

/** One page of a view. */
export interface RowPage<Row> {
  rows: Row[];
  /** Offset of `rows[0]` in the whole ordered result. */
  offset: number;
  total: RowCount;
}

/** A filter option with the number of rows it would match within the current view. */
export interface FacetOption<Value> {
  value: Value;
  label: string;
  count: number;
}

export interface ContactFacets {
  labels: FacetOption<string>[];
  states: FacetOption<string>[];
  verified: FacetOption<VerifiedState>[];
  liveMode: FacetOption<'live' | 'test'>[];
  /**
   * Times mailed (the `timesMailed` filter left out): `never`, then each of {@link MAILED_AT_LEAST}
   * as its text ("3": mailed at least 3 times).
   */
  timesMailed: FacetOption<string>[];
  /**
   * Possible duplicates (the `duplicates` filter left out): the view's contacts in a group at each
   * level, household first (shared/duplicates.ts DUPLICATE_LEVELS_SHOWN); empty before the groups
   * were first found.
   */
  duplicates: FacetOption<DuplicateLevel>[];
  /** Records of each kind of change in the last sync (removed ones counted from their kept copies); empty when none. */
  changed: FacetOption<RecordChange>[];
  /** Records of the view kept as invalid (the `invalidOnly` filter left out). */
  invalid: number;
  /** The kept service filters (shared/keptFilters.ts) with their values' counts. */
  kept: KeptFacet[];
}

export interface OrderFacets {
  statuses: FacetOption<number>[];
  productTypes: FacetOption<string>[];
  campaignTypes: FacetOption<string>[];
  scheduleTypes: FacetOption<string>[];
  liveMode: FacetOption<'live' | 'test'>[];
  delivered: FacetOption<DeliveredState>[];
  /** Orders a sync saw delivered in the last 7 and 30 local days (the `deliveredSince` filter left out). */
  deliveredSince: FacetOption<DeliveredSincePreset>[];
  /** See {@link ContactFacets.changed}. */
  changed: FacetOption<RecordChange>[];
  /** See {@link ContactFacets.invalid}. */
  invalid: number;
  /** See {@link ContactFacets.kept}. */
  kept: KeptFacet[];
}
