/**
 * The IPC contract: the one place that names every call and event between the page and the main
 * process (DESIGN.md "The IPC contract"). From it derive
 *  - the preload's `window.letterdesk` (electron/preload/index.ts),
 *  - the main-side handler table, which `satisfies` {@link Handlers} (electron/main/handlers.ts),
 *  - the renderer's typed client (renderer/src/lib/api.ts),
 *  - the test harness that binds the real handlers into a Chromium page (test/e2e/harness.ts).
 *
 * Each call has a zod schema for its input (validated in main before any work) and an output type.
 * Every call resolves to a {@link Result}: errors are values, never rejections.
 */
import { z } from 'zod';
import type { Result } from './errors.ts';
import {
  contactQuerySchema,
  orderQuerySchema,
  recordIdSchema,
  windowSchema,
  type ContactFacets,
  type ContactRow,
  type OrderFacets,
  type OrderRow,
  type RecipientRow,
  type RecordChange,
  type RowCount,
  type RowPage,
} from './query.ts';
import { MAX_KEPT_VALUE, MAX_KEPT_VALUES_PER_PARAM, type KeptSettings } from './keptFilters.ts';
import type { LabelAddresses } from './labelSheets.ts';
import { DUPLICATE_LEVELS, MAX_DUPLICATE_GROUPS, type DuplicateGroupsPage, type DuplicateLevel } from './duplicates.ts';
import type { Contact, Order, Resource } from './serviceRecords.ts';
import { queryEncodingSchema, type QueryEncoding } from './serviceQuery.ts';
import { statusNamesSchema, type LearnedStatusNames, type StatusNames } from './statusNames.ts';
import { campaignQuerySchema, templateQuerySchema, type CampaignRow, type TemplateRow } from './summaries.ts';
import { boundedJsonObjectSchema, viewIdSchema, viewNameSchema, viewSettingsSchema, type JsonValue, type SavedView, type ViewRefresh } from './views.ts';

// ---------------------------------------------------------------------------------------------
// Value types that cross the boundary
// ---------------------------------------------------------------------------------------------

export const ENVIRONMENTS = ['demo', 'production', 'custom'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const profileId = z.string().regex(/^[a-z0-9-]{1,64}$/, 'a profile id is 1–64 lowercase letters, digits or dashes');
const resourceSchema = z.enum(['contacts', 'orders']);

/** What a profile holds (no secrets). `sampleData` profiles talk to the embedded sample API. */
export interface Profile {
  id: string;
  name: string;
  environment: Environment;
  /** https (http only for loopback), ends in `/api/v1` (§9). */
  baseUrl: string;
  /** Passed as `meta.account_id` to both endpoints during sync (§4.1, §4.2). */
  accountId: string | null;
  /** Rows per request, 1–1000. */
  pageSize: number;
  sampleData: boolean;
  createdAt: string;
  /**
   * Download the templates' previews (§2.3 `thumbnailUrl`) during a sync, so orders show them
   * offline. Absent (profiles saved before the setting existed) means on.
   */
  previews?: boolean;
  /**
   * After a sync, read the memberships of the kept filters (shared/keptFilters.ts), so the
   * service's own filters work offline. Absent (profiles saved before the setting existed) means on.
   */
  keptFilters?: boolean;
  /**
   * Days the observed history (what syncs saw change: docs/cache-schema.md "Observed history") is
   * kept, 1–3650. Absent (profiles saved before the setting existed) means
   * {@link DEFAULT_HISTORY_RETENTION_DAYS}.
   */
  historyRetentionDays?: number;
  /**
   * How service queries write §4.1's lists and dates (serviceQuery.ts `QueryEncoding`). Absent
   * (profiles saved before the setting existed) means `DEFAULT_QUERY_ENCODING`: encoded, year-month-day.
   */
  queryEncoding?: QueryEncoding;
  /**
   * Names of the order status codes (§2.3 `status`; §3 gives them no meaning): shown in tables,
   * filters, details and CSV exports. Absent (profiles saved before the setting existed) means none:
   * every code reads "Status N" (shared/statusNames.ts `statusName`).
   */
  statusNames?: StatusNames;
}

/** Where a profile's tokens are and whether the service accepted them. Never the tokens. */
export interface CredentialStatus {
  profileId: string;
  stored: boolean;
  /** `keychain` = OS keychain; `session` = memory only, gone when the app quits. */
  storage: 'keychain' | 'session' | null;
  savedAt: string | null;
  /** The service answered 401/403 with these tokens. */
  rejected: boolean;
  /** The service the tokens were saved for (origin of the base URL, account scope); null for tokens saved before binding existed. */
  boundTo: { origin: string; accountId: string | null } | null;
  /** Set when the keychain cannot be used: what is wrong and how to fix it. */
  keychainProblem: string | null;
}

export interface ProfileList {
  profiles: Profile[];
  activeProfileId: string | null;
  /** Set when the profiles file was damaged and moved aside at load: what happened, where the file is. */
  loadProblem?: string | null;
  /**
   * Set by `removeProfile` when the keychain could not be reached: the removed profile's tokens may
   * still be stored there (cause and fix). The renderer must tell the person.
   */
  credentialsProblem?: string | null;
}

/** Days a profile keeps its observed history when it does not say: one year. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
/** The longest retention a profile may choose, in days (ten years). */
export const MAX_HISTORY_RETENTION_DAYS = 3650;

/** The days `profile` keeps its observed history: `historyRetentionDays`, absent meaning {@link DEFAULT_HISTORY_RETENTION_DAYS}. */
export function historyRetentionDaysOf(profile: Pick<Profile, 'historyRetentionDays'>): number {
  return profile.historyRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS;
}

/** Whether a sync of `profile` reads its kept filters after the records: `keptFilters`, absent meaning on. */
export function readsKeptFilters(profile: Pick<Profile, 'keptFilters'>): boolean {
  return profile.keptFilters !== false;
}

export const profileInputSchema = z
  .object({
    /** Present to edit an existing profile, absent to create one. */
    id: profileId.optional(),
    name: z.string().trim().min(1, 'a profile needs a name').max(80),
    environment: z.enum(ENVIRONMENTS),
    baseUrl: z.string().trim().min(1).max(2048),
    accountId: z.string().trim().max(128).nullable(),
    pageSize: z.number().int().min(1).max(1000),
    /** Download template previews during a sync; absent: on for a new profile, unchanged on edit. */
    previews: z.boolean().optional(),
    /** Read the kept filters after a sync; absent: on for a new profile, unchanged on edit. */
    keptFilters: z.boolean().optional(),
    /** Days the observed history is kept; absent: the default for a new profile, unchanged on edit. */
    historyRetentionDays: z.number().int().min(1, 'keep the history at least 1 day').max(MAX_HISTORY_RETENTION_DAYS, `keep the history at most ${MAX_HISTORY_RETENTION_DAYS} days`).optional(),
    /** How service queries are written; absent: the default for a new profile, unchanged on edit. */
    queryEncoding: queryEncodingSchema.optional(),
    /** Names of the order status codes; absent: none for a new profile, unchanged on edit; `{}` removes them all. */
    statusNames: statusNamesSchema.optional(),
  })
  .strict();
export type ProfileInput = z.infer<typeof profileInputSchema>;

/** Tokens as the person pastes them, and where to keep them (the keychain, or this session only). */
export const tokensInputSchema = z
  .object({
    accessToken: z.string().min(1).max(8192),
    refreshToken: z.string().max(8192).nullable(),
    /** Keep in memory for this session only (when the keychain is unavailable, or by choice). */
    sessionOnly: z.boolean(),
  })
  .strict();
export type TokensInput = z.infer<typeof tokensInputSchema>;

/**
 * `saveProfile`'s input: the profile's fields and, optionally, its tokens. With tokens the save is
 * one step: they are checked before anything is written, and a new profile whose tokens cannot be
 * stored is not created (nor made active), so a failed "Connect" leaves nothing half-made behind.
 */
export const saveProfileInputSchema = profileInputSchema.extend({ credentials: tokensInputSchema.optional() }).strict();
export type SaveProfileInput = z.infer<typeof saveProfileInputSchema>;

export const SYNC_PHASES = ['starting', 'fetching', 'verifying', 'indexing', 'publishing', 'done'] as const;
export type SyncPhase = (typeof SYNC_PHASES)[number];

/** Live progress of a sync of one resource. */
export interface SyncProgress {
  profileId: string;
  runId: string;
  resource: Resource;
  phase: SyncPhase;
  pagesDone: number;
  pagesTotal: number | null;
  rowsDone: number;
  rowsTotal: number | null;
  rowsPerSecond: number;
  /** Seconds left at the current rate, null while unknown. */
  etaSeconds: number | null;
}

/** One finished (or running) sync of one resource, as kept in the history. */
export interface SyncRun {
  runId: string;
  resource: Resource;
  startedAt: string;
  endedAt: string | null;
  outcome: 'running' | 'succeeded' | 'failed' | 'cancelled';
  rows: number;
  /** Records that failed validation but were kept (raw JSON), with their ids. */
  invalidRecords: number;
  /**
   * Records added, changed (raw JSON differs) and removed compared with the copy this run replaced
   * (shared/query.ts `RecordChange`). Null when the run did not publish, when there was no copy
   * to compare with (the resource's first sync), or for runs recorded before changes were.
   * The cache always sets it; absent only on a run the core announces without the cache (a sync
   * that could not start), which means null.
   */
  changes?: RecordChangeCounts | null;
  /**
   * What the run stored in the observed history (docs/cache-schema.md "Observed history"): the
   * changes of observed fields and the bytes the history file grew by. Null or absent when it
   * stored none (a first sync, no observed field changed, or a run since dropped by the retention).
   */
  observed?: { observations: number; bytes: number } | null;
  error: { code: string; message: string } | null;
}

/** Failures that say the whole service is out of reach or refuses the profile, not one resource. */
const SYNC_ENDING_ERRORS: ReadonlySet<string> = new Set(['AUTH_REJECTED', 'NETWORK_UNREACHABLE', 'TIMEOUT']);

/** How many records of a resource one sync added, changed and removed. */
export interface RecordChangeCounts {
  added: number;
  changed: number;
  removed: number;
}

/**
 * Whether a resource's run ends the whole sync: a cancel, tokens the service rejected, or a service
 * that cannot be reached (after the client's retries) leave the resources after it unattempted —
 * the next one would only fail the same way. Any other failure (a server error, a bad page, drift)
 * lets the next resource run. The sync engine stops on this rule; the core uses it to announce a
 * run as soon as it ends.
 * @param run a run that has ended (outcome other than `running`)
 * @returns true when no resource after it is attempted
 */
export function endsSync(run: Pick<SyncRun, 'outcome' | 'error'>): boolean {
  return run.outcome === 'cancelled' || (run.error !== null && SYNC_ENDING_ERRORS.has(run.error.code));
}

export interface ResourceState {
  rows: number;
  /**
   * Cached records kept as invalid (they do not match §2; their reason is on each row). The cache
   * always sets it; absent only for a cache never opened (nothing synced), which means 0.
   */
  invalidRecords?: number;
  lastSyncedAt: string | null;
  lastError: { code: string; message: string } | null;
  /**
   * Where the published copy came from: the origin of the profile's base URL and its account scope
   * at the sync that published it. Null when no copy was published, or it predates this record.
   */
  source?: DataSource | null;
}

/** The service address and account scope a cached copy was read from. */
export interface DataSource {
  /** Origin of the base URL (`https://api.example.com`), no path. */
  origin: string;
  /** `meta.account_id` the sync was scoped to; null for the token's own account. */
  accountId: string | null;
}

/** Connectivity as learned from real requests, not from the OS flag alone. */
export type ConnectivityState = 'unknown' | 'online' | 'offline' | 'unreachable' | 'auth-needed';

export interface Connectivity {
  profileId: string | null;
  state: ConnectivityState;
  /** When the last request to the service succeeded. */
  lastSuccessAt: string | null;
  message: string | null;
}

export interface SyncStatus {
  profileId: string;
  running: boolean;
  resources: Record<Resource, ResourceState>;
  history: SyncRun[];
  connectivity: Connectivity;
}

/** Exports of records: contacts, orders (one row per order), recipients (one row per order recipient). */
export const EXPORT_KINDS = ['contacts', 'orders', 'recipients'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
/** Exports of the lists over the cached orders (shared/summaries.ts): one row per template, per campaign. */
export const SUMMARY_EXPORT_KINDS = ['templates', 'campaigns'] as const;
export type SummaryExportKind = (typeof SUMMARY_EXPORT_KINDS)[number];
/** The export of the duplicate groups (shared/duplicates.ts): one row per member, with its group. */
export const DUPLICATES_EXPORT_KIND = 'duplicates';
/** Every kind of CSV export. */
export const ALL_EXPORT_KINDS = [...EXPORT_KINDS, ...SUMMARY_EXPORT_KINDS, DUPLICATES_EXPORT_KIND] as const;
export type AnyExportKind = ExportKind | SummaryExportKind | typeof DUPLICATES_EXPORT_KIND;

export const csvOptionsSchema = z
  .object({
    delimiter: z.enum(['comma', 'semicolon', 'tab']),
    bom: z.boolean(),
    /** OWASP CSV-injection neutralisation; on by default. */
    neutralizeFormulas: z.boolean(),
  })
  .strict();
export type CsvOptions = z.infer<typeof csvOptionsSchema>;

const exportColumnsSchema = z.array(z.string().max(64)).max(100).nullable();
/** The file formats of an export: CSV (with {@link CsvOptions}) or an Excel workbook. */
export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/**
 * What every export request may add: its file format (default `csv`; an xlsx workbook ignores the
 * CSV options) and the name of the workbook's sheet (the view's name; made valid for Excel).
 */
const exportFileFields = { format: z.enum(EXPORT_FORMATS).optional(), sheetName: z.string().max(200).optional() };
export const exportRequestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('contacts'), query: contactQuerySchema.nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, ...exportFileFields }).strict(),
  z
    .object({
      kind: z.literal('orders'), query: orderQuerySchema.nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, ...exportFileFields,
      /** Names of the status codes for the "Status name" column; the app's handler sets the active profile's. */
      statusNames: statusNamesSchema.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('recipients'), query: orderQuerySchema.nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, statusNames: statusNamesSchema.optional(), ...exportFileFields }).strict(),
  z.object({ kind: z.literal('templates'), query: templateQuerySchema.nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, ...exportFileFields }).strict(),
  z.object({ kind: z.literal('campaigns'), query: campaignQuerySchema.nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, ...exportFileFields }).strict(),
  /** `query: null`: the default level (household). */
  z.object({ kind: z.literal('duplicates'), query: z.object({ level: z.enum(DUPLICATE_LEVELS) }).strict().nullable(), columns: exportColumnsSchema, options: csvOptionsSchema, ...exportFileFields }).strict(),
]);
/**
 * `query: null` = everything; `columns: null` = the default columns in their order (every column
 * but the opt-in ones, such as the raw JSON).
 */
export type ExportRequest = z.infer<typeof exportRequestSchema>;
/** An export of records (contacts, orders, recipients), whose query is a table's view. */
export type RecordExportRequest = Extract<ExportRequest, { kind: ExportKind }>;

export interface ExportColumn {
  key: string;
  header: string;
  /** In the default set (`columns: null`); false for opt-in columns such as "Raw JSON". */
  inDefault: boolean;
}

export interface ExportProgress {
  exportId: string;
  rowsDone: number;
  rowsTotal: number;
}

export interface ExportResult {
  exportId: string;
  /** Absolute path of the written file; null when the user cancelled the save dialog. */
  path: string | null;
  rows: number;
  /** The sheets of an xlsx workbook, in order (more than one past Excel's rows a sheet); absent for CSV. */
  sheets?: string[];
}

/**
 * A record kept as invalid, as cached: whatever the service sent, so any field §2 names may be
 * missing or of another type. A record that was not even a JSON object reads as `{}` (its JSON
 * text is the detail's `raw`).
 */
export type KeptRecord = { [field: string]: JsonValue };

/**
 * One change a sync observed in a record (docs/cache-schema.md "Observed history"): `field` is the
 * record's own field name (`status`, `isDelivered`, `trackingCode`, `address1`, `ContactLabels`, …),
 * or `record` for a record added (`from` "absent", `to` "present") or removed (the reverse);
 * `from` and `to` are its JSON values. The service does not say when it changed: it happened
 * after `after` (the previous successful read's start) and at or before `atOrBefore` (this read's
 * end), both ISO 8601 UTC.
 */
export interface Observation {
  field: string;
  from: JsonValue;
  to: JsonValue;
  /** The recipient entry's `id`, for an order's recipient fields (`isDelivered`, `trackingCode`, `status`). */
  recipientId?: string;
  after: string;
  atOrBefore: string;
}

/** One value of a grouped count in the {@link Overview} ('' : the records that carry none). */
export interface OverviewCount {
  value: string;
  count: number;
}

/** Records per local day (YYYY-MM-DD), oldest first. */
export interface OverviewDay {
  day: string;
  count: number;
}

/**
 * A profile's mailing at a glance (`letterdesk overview --json`; the Overview page; cache/read/overview.ts),
 * from the cache and its observed history. The numbers that come from the records are computed
 * when a sync publishes (the build), so the page reads them at once.
 */
export interface Overview {
  /** When the record numbers were last computed (a publish), ISO 8601 UTC; null before the first sync. */
  computedAt: string | null;
  /**
   * Contacts cached, and per state by USPS code (`IL`); `other`: empty, outside the US or not a
   * state. `stateValues`: the states as the records spell them, per code (what the contacts'
   * state filter takes to open a code's contacts). `invalid`: contacts kept as invalid.
   */
  contacts: { total: number; byState: Record<string, number>; stateValues: Record<string, string[]>; invalid: number };
  /**
   * Orders cached: per §2.3 status code (null: none sent), most first, with the code's name where
   * one is known; per product type, envelope type and postage type, most first; orders first seen
   * per local day (the cache's first-seen time, docs/cache-schema.md); kept as invalid.
   */
  orders: {
    total: number;
    byStatus: { code: number | null; name: string | null; count: number }[];
    byProductType: OverviewCount[];
    byEnvelope: OverviewCount[];
    byPostage: OverviewCount[];
    firstSeenByDay: OverviewDay[];
    invalid: number;
  };
  /** Recipient entries of the cached orders, and those delivered. */
  recipients: { total: number; delivered: number };
  /** Recipients observed delivered per local day of the sync that saw it (YYYY-MM-DD), oldest first. */
  deliveriesByDay: OverviewDay[];
  /** The campaigns of the cached orders, most letters delivered first: the first 100 (a large account has tens of thousands). */
  campaigns: { id: string; name: string; recipients: number; delivered: number }[];
  /** The templates of the cached orders, most used (orders) first: the first 100. */
  templates: { id: string; title: string; orders: number; recipients: number }[];
  /** The kept service filters (shared/keptFilters.ts) read at least once: each value's member count and when it was read. */
  kept: { resource: Resource; param: string; value: string; members: number; readAt: string }[];
}

/** What every record's detail carries besides the record. */
export interface RecordDetailBase {
  /** The record's JSON exactly as cached (as the service sent it). */
  raw: string;
  /** How it changed in the last sync of its resource; `removed`: the service no longer lists it and this is its kept copy. */
  change: RecordChange | null;
  /** The changes syncs observed in it, oldest first (empty before a second sync, or when the history holds none). */
  timeline: Observation[];
}

/** One recipient entry that names a contact: the order and the snapshot of the contact it kept. */
export interface ContactAppearance {
  order: OrderRow;
  /** The address and names the order used then, compared with the contact's current ones (`changedSinceOrder`, `addressChanged`). */
  recipient: RecipientRow;
}

/** One resource's answer to a connection test. */
export interface ConnectionCheck {
  ok: boolean;
  /** The resource's `count` when it answered. */
  count: number | null;
  /** The error code when it failed. */
  code: string | null;
  /** What failed, in words a person understands, and what to do. */
  message: string | null;
  /** The technical detail (the request and the error), for the person who asks. */
  detail: string | null;
}

/** What {@link calls.testConnection} answers: one small request to each resource. */
export interface ConnectionTest {
  ok: boolean;
  contacts: ConnectionCheck;
  orders: ConnectionCheck;
}

/** A contact's mailings: see {@link ContactRow} `timesMailed`, `deliveredCount`, `lastOrderSeenAt`. */
export type ContactMailing = Pick<ContactRow, 'timesMailed' | 'deliveredCount' | 'lastOrderSeenAt'>;

/**
 * A contact's detail. `invalidReason` tells the shape: null, and `contact` is a §2.2 Contact; set,
 * and `contact` is a {@link KeptRecord} (check each field before use).
 */
export type ContactDetail = RecordDetailBase & {
  /** Orders that include this contact as a recipient (newest first, at most 1,000). */
  orders: OrderRow[];
  /** Each recipient entry of those orders that names this contact (newest order first, at most 1,000). */
  appearances: ContactAppearance[];
  /** Its mailings over every cached order (not only the 1,000 listed), as the contacts table shows them. */
  mailing: ContactMailing;
  /** The duplicate groups it is in, one per level at most, household first (shared/duplicates.ts). */
  duplicates: ContactDuplicateGroup[];
} & ({ invalidReason: null; contact: Contact } | { invalidReason: string; contact: KeptRecord });

/** A duplicate group a contact is in, with its other members. */
export interface ContactDuplicateGroup {
  level: DuplicateLevel;
  key: string;
  /** The group's other cached members, by id. */
  others: { id: string; fullName: string }[];
}

/** An order's detail; `invalidReason` tells the shape of `order` as for {@link ContactDetail}. */
export type OrderDetail = RecordDetailBase & {
  /** Its recipients in service order, each the snapshot the order kept, compared with the contact as cached now. */
  recipients: RecipientRow[];
} & ({ invalidReason: null; order: Order } | { invalidReason: string; order: KeptRecord });

/** What {@link calls.previewServiceQuery} answers. */
export interface ServiceQueryPreview {
  /** `count` of the query's page 0. */
  count: number;
  /** `count` of the resource with no filter but the profile's account scope. */
  unfilteredCount: number;
  /** Path and query string of the query's first page at the profile's page size, relative to the base URL. */
  request: string;
}

export interface AppInfo {
  version: string;
  platform: string;
  dataDir: string;
  logFile: string | null;
}

/** Commands the native menu (or its accelerators) sends to the page. */
export const MENU_COMMANDS = ['find', 'sync', 'export', 'view-overview', 'view-contacts', 'view-orders', 'view-templates', 'view-campaigns', 'view-duplicates', 'view-sync', 'view-profiles', 'shortcuts', 'back', 'forward', 'toggle-sidebar'] as const;
export type MenuCommand = (typeof MENU_COMMANDS)[number];

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

/** Phantom marker carrying an output type. */
export interface Out<T> {
  readonly __out?: T;
}
const out = <T>(): Out<T> => ({});

const empty = z.object({}).strict();
/** A service query's parameters by the spec's names, checked against the resource's schema by the handler. */
const serviceQueryParamsSchema = boundedJsonObjectSchema;
const byProfile = z.object({ profileId }).strict();
/**
 * A record's id as the cache keys it: digits (§2), or whatever a record kept as invalid carried as
 * its id (any text without control characters; `no-id-p<page>-r<row>` for one without a usable
 * id), so that such a record opens too. Only ever bound as a value, never part of SQL.
 */
const recordId = recordIdSchema;
/** A template's or campaign's id ('' = the orders that carry none). */
const summaryId = z.string().max(128);

/** Every call: its input schema and output type. The key is the call name; the channel is `letterdesk:<name>`. */
/** Most characters of a chart image the page may send (`saveChartImage`'s `data`): a PNG of a large chart as base64. */
export const MAX_CHART_IMAGE_CHARS = 30_000_000;

export const calls = {
  getAppInfo: { input: empty, output: out<AppInfo>() },

  listProfiles: { input: empty, output: out<ProfileList>() },
  saveProfile: { input: saveProfileInputSchema, output: out<Profile>() },
  removeProfile: { input: z.object({ profileId, purgeCache: z.boolean() }).strict(), output: out<ProfileList>() },
  useProfile: { input: byProfile, output: out<ProfileList>() },
  /** First run: create (or reuse) the profile that syncs from the embedded sample API. */
  createSampleProfile: { input: empty, output: out<Profile>() },
  /**
   * Tests a profile's address and tokens before saving: page 0 of each resource, one row. Tokens are
   * those given, else the stored tokens of `profileId` when they were saved for this address.
   */
  testConnection: {
    input: z
      .object({ baseUrl: z.string().min(1).max(2048), accountId: z.string().max(200).nullable(), tokens: tokensInputSchema.pick({ accessToken: true, refreshToken: true }).nullable(), profileId: profileId.optional() })
      .strict(),
    output: out<ConnectionTest>(),
  },

  getCredentialStatus: { input: byProfile, output: out<CredentialStatus>() },
  setCredentials: { input: tokensInputSchema.extend({ profileId }).strict(), output: out<CredentialStatus>() },
  clearCredentials: { input: byProfile, output: out<CredentialStatus>() },

  startSync: { input: z.object({ resources: z.array(resourceSchema).min(1).max(2) }).strict(), output: out<{ runId: string }>() },
  cancelSync: { input: empty, output: out<{ cancelled: boolean }>() },
  getSyncStatus: { input: empty, output: out<SyncStatus>() },
  /** The names the service's kept order statuses give the status codes, and the codes they disagree on. */
  learnedStatusNames: { input: empty, output: out<LearnedStatusNames>() },
  /** A profile's kept service filters (shared/keptFilters.ts) with what their costs are estimated from. */
  keptSettings: { input: byProfile, output: out<KeptSettings>() },
  /**
   * Makes `values` the kept values of one service filter of a profile (the others stay); they are
   * read from the service after the next sync.
   */
  setKeptValues: {
    input: z.object({ profileId, resource: resourceSchema, param: z.string().min(1).max(64), values: z.array(z.string().max(MAX_KEPT_VALUE)).max(MAX_KEPT_VALUES_PER_PARAM) }).strict(),
    output: out<KeptSettings>(),
  },
  /** Delete the active profile's cache and start a full sync. */
  clearCacheAndResync: { input: empty, output: out<{ runId: string }>() },

  /** The active profile's saved views (of one resource, or both), with their memberships. */
  listViews: { input: z.object({ resource: resourceSchema.optional() }).strict(), output: out<SavedView[]>() },
  /** Saves a new view; one with a service query is read from the service at once (its membership). */
  createView: {
    input: z
      .object({ resource: resourceSchema, name: viewNameSchema, serviceQuery: serviceQueryParamsSchema.nullable().default(null), settings: viewSettingsSchema.default({}), refreshAfterSync: z.boolean().default(true) })
      .strict(),
    output: out<SavedView>(),
  },
  /** Renames or changes a view (absent fields stay); a changed service query is read again. */
  updateView: {
    input: z
      .object({ id: viewIdSchema, name: viewNameSchema.optional(), serviceQuery: serviceQueryParamsSchema.nullable().optional(), settings: viewSettingsSchema.optional(), refreshAfterSync: z.boolean().optional() })
      .strict(),
    output: out<SavedView>(),
  },
  duplicateView: { input: z.object({ id: viewIdSchema, name: viewNameSchema.optional() }).strict(), output: out<SavedView>() },
  deleteView: { input: z.object({ id: viewIdSchema }).strict(), output: out<null>() },
  /** Reads the memberships of these views from the service again (a sync run of its own). */
  refreshViews: { input: z.object({ ids: z.array(viewIdSchema).min(1).max(200) }).strict(), output: out<{ runId: string }>() },
  /** Ids of a view's members that the last full sync did not bring (shown, marked newer than the mirror). */
  viewNewerIds: { input: z.object({ id: viewIdSchema }).strict(), output: out<string[]>() },
  /**
   * Asks the service for page 0 of a service query and of the same resource unfiltered: both counts
   * (a filter the service ignores shows as equal counts) and the exact request of the query's
   * first page (path and query string; never a token).
   */
  previewServiceQuery: { input: z.object({ resource: resourceSchema, params: serviceQueryParamsSchema }).strict(), output: out<ServiceQueryPreview>() },

  queryContacts: { input: z.object({ query: contactQuerySchema, window: windowSchema }).strict(), output: out<RowPage<ContactRow>>() },
  countContacts: { input: z.object({ query: contactQuerySchema }).strict(), output: out<RowCount>() },
  contactFacets: { input: z.object({ query: contactQuerySchema }).strict(), output: out<ContactFacets>() },
  /** A contact of the mirror, a saved view's newer member, or a removed contact's kept copy. */
  getContact: { input: z.object({ id: recordId }).strict(), output: out<ContactDetail>() },

  queryOrders: { input: z.object({ query: orderQuerySchema, window: windowSchema }).strict(), output: out<RowPage<OrderRow>>() },
  countOrders: { input: z.object({ query: orderQuerySchema }).strict(), output: out<RowCount>() },
  orderFacets: { input: z.object({ query: orderQuerySchema }).strict(), output: out<OrderFacets>() },
  getOrder: { input: z.object({ id: recordId }).strict(), output: out<OrderDetail>() },

  /** A window of the templates of the cached orders; the total is exact (the list is small). */
  queryTemplates: { input: z.object({ query: templateQuerySchema, window: windowSchema }).strict(), output: out<RowPage<TemplateRow>>() },
  /** One template; its orders are `queryOrders` with `templateId`. NOT_FOUND when no cached order uses it. */
  getTemplate: { input: z.object({ id: summaryId }).strict(), output: out<TemplateRow>() },
  /** A window of the campaigns of the cached orders (grouped by `campaign.id`); the total is exact. */
  queryCampaigns: { input: z.object({ query: campaignQuerySchema, window: windowSchema }).strict(), output: out<RowPage<CampaignRow>>() },
  /** One campaign; its orders are `queryOrders` with `campaignId`. NOT_FOUND when no cached order has it. */
  getCampaign: { input: z.object({ id: summaryId }).strict(), output: out<CampaignRow>() },
  /**
   * The addresses for mailing labels (shared/labelSheets.ts): a contact view's contacts or an order
   * view's recipients, in view order, at most MAX_LABELS; those a label cannot hold listed apart.
   */
  labelAddresses: {
    input: z.discriminatedUnion('source', [
      z.object({ source: z.literal('contacts'), query: contactQuerySchema }).strict(),
      z.object({ source: z.literal('recipients'), query: orderQuerySchema }).strict(),
    ]),
    output: out<LabelAddresses>(),
  },
  /**
   * Shows the save dialog and prints the window to PDF there: when printed, the page shows only
   * what is to print (the label sheets, or a printable list), each page at its CSS page size.
   * `what` names the file. Resolves with the path and its pages, or a null path when cancelled.
   */
  savePrintPdf: { input: z.object({ what: z.enum(['labels', 'list']) }).strict(), output: out<{ path: string | null; pages: number }>() },
  /** The active profile's mailing at a glance ({@link Overview}), offline; status names as the tables show them. */
  overview: { input: z.object({}).strict(), output: out<Overview>() },
  /**
   * A window of the active profile's duplicate groups at `level` ({@link DuplicateGroupsPage}):
   * contacts that would receive the same letter twice, found after each sync of contacts.
   */
  duplicateGroups: {
    input: z.object({ level: z.enum(DUPLICATE_LEVELS), offset: z.number().int().min(0).max(10_000_000), limit: z.number().int().min(1).max(MAX_DUPLICATE_GROUPS) }).strict(),
    output: out<DuplicateGroupsPage>(),
  },

  /** Columns an export offers, in default order (the opt-in ones, `inDefault: false`, last). */
  exportColumns: { input: z.object({ kind: z.enum(ALL_EXPORT_KINDS) }).strict(), output: out<ExportColumn[]>() },
  /** Shows the native save dialog, then streams the CSV; resolves when the file is in place. */
  exportFile: { input: exportRequestSchema, output: out<ExportResult>() },
  cancelExport: { input: z.object({ exportId: z.string().max(64) }).strict(), output: out<{ cancelled: boolean }>() },
  showInFolder: { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: out<null>() },
  /**
   * Shows the save dialog for a chart of the Overview page and writes it: `data` is the PNG's
   * base64 or the SVG's text. Resolves with the path written, or null when the person cancelled.
   */
  saveChartImage: {
    input: z.object({ fileName: z.string().min(1).max(200), format: z.enum(['png', 'svg']), data: z.string().min(1).max(MAX_CHART_IMAGE_CHARS) }).strict(),
    output: out<{ path: string | null }>(),
  },

  /** Opens an http(s) link in the system browser; anything else is refused. */
  openExternal: { input: z.object({ url: z.string().max(4096) }).strict(), output: out<null>() },
} as const;

/** Every event main sends to the page, with its payload type. */
export const events = {
  syncProgress: out<SyncProgress>(),
  syncFinished: out<SyncRun>(),
  connectivityChanged: out<Connectivity>(),
  /** The visible snapshot of a resource changed (a sync was published, the cache was cleared). */
  cacheChanged: out<{ profileId: string; resources: Resource[] }>(),
  profilesChanged: out<ProfileList>(),
  exportStarted: out<{ exportId: string; path: string }>(),
  exportProgress: out<ExportProgress>(),
  menuCommand: out<{ command: MenuCommand }>(),
  /** The active profile's saved views changed (created, renamed, deleted, a membership read). */
  viewsChanged: out<{ profileId: string }>(),
  /** A view's membership was read (or its read failed: the previous membership is kept). */
  viewRefreshed: out<ViewRefresh>(),
  /** Progress of reading a view's membership. */
  viewProgress: out<SyncProgress & { viewId: string }>(),
} as const;

export type Calls = typeof calls;
export type CallName = keyof Calls;
export type EventName = keyof typeof events;
export type CallInput<N extends CallName> = z.input<Calls[N]['input']>;
export type ParsedInput<N extends CallName> = z.output<Calls[N]['input']>;
export type CallOutput<N extends CallName> = Calls[N]['output'] extends Out<infer T> ? T : never;
export type EventPayload<E extends EventName> = (typeof events)[E] extends Out<infer T> ? T : never;

export const CALL_NAMES = Object.keys(calls) as CallName[];
export const EVENT_NAMES = Object.keys(events) as EventName[];

/** The IPC channel of a call or event. */
export const callChannel = (name: CallName): string => `letterdesk:${name}`;
export const eventChannel = (name: EventName): string => `letterdesk-event:${name}`;

/** The main-side handler table: one async function per call, taking the *validated* input. */
export type Handlers = { [N in CallName]: (input: ParsedInput<N>) => Promise<CallOutput<N>> };

/** What the page sees as `window.letterdesk`: one function per call, plus `on`. */
export type LetterdeskApi = { [N in CallName]: (input: CallInput<N>) => Promise<Result<CallOutput<N>>> } & {
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};
