/**
 * The templates and campaigns of the cached orders (shared/summaries.ts; docs/cache-schema.md
 * `order_templates`, `order_campaigns`), built at each publish of the orders (build/summaries.ts):
 * listed, searched, sorted and read one by one from those small tables, and exported
 * (exportRows.ts). Aliases: `t` = order_templates, `cm` = order_campaigns.
 */
import type Database from 'better-sqlite3';
import { previewPath } from '../../../../shared/previewKey.ts';
import type { RowPage, RowWindow, SortDirection } from '../../../../shared/query.ts';
import type { CampaignQuery, CampaignRow, TemplateQuery, TemplateRow } from '../../../../shared/summaries.ts';
import { read, stmt, str, type Row } from './rows.ts';
import { reverse, text, value, type Sortable } from '../store/positions.ts';
import { compileSearch } from './listParts.ts';

/** A list as SQL: `SELECT … FROM ${from} WHERE ${where} ORDER BY ${orderBy}` with `params` bound. */
export interface SummaryListSql {
  from: string;
  where: string;
  orderBy: string;
  params: Record<string, unknown>;
}

/**
 * The ORDER BY of a list's sort in `direction`, ties by id: the column's empty flag, which stays
 * ascending in both directions (empty values last, as in the contacts' and orders' lists,
 * store/positions.ts), then its order and the ties, each reversed for descending.
 */
function ordered(sort: Sortable, tie: string, direction: SortDirection): string {
  const terms = `${sort.order}, ${tie}`;
  return [...(sort.empty ? [sort.empty] : []), direction === 'desc' ? reverse(terms) : terms].join(', ');
}

const TEMPLATE_SORT: Record<string, Sortable> = {
  lastUsed: { order: 'length(t.last_order_id), t.last_order_id' },
  title: text('t.title'),
  type: text('t.template_type'),
  creator: text('t.creator_name'),
  orders: { order: 't.orders' },
  recipients: { order: 't.recipients' },
};

const CAMPAIGN_SORT: Record<string, Sortable> = {
  lastUsed: { order: 'length(cm.last_order_id), cm.last_order_id' },
  name: text('cm.name'),
  type: text('cm.campaign_type'),
  scheduleType: text('cm.schedule_type'),
  deliveryDate: value('cm.last_delivery_date'),
  orders: { order: 'cm.orders' },
  recipients: { order: 'cm.recipients' },
  // No recipients: no share to sort by.
  deliveredShare: { empty: '(coalesce(cm.recipients, 0) <= 0)', order: 'CASE WHEN cm.recipients > 0 THEN CAST(cm.delivered AS REAL) / cm.recipients END' },
};

function listSql(table: string, alias: string, idColumn: string, sorts: Record<string, Sortable>, query: TemplateQuery | CampaignQuery): SummaryListSql {
  const params: Record<string, unknown> = {};
  const sort = query.sort ?? { column: 'lastUsed', direction: 'desc' as const };
  const orderBy = ordered(sorts[sort.column] ?? (sorts.lastUsed as Sortable), `length(${alias}.${idColumn}), ${alias}.${idColumn}`, sort.direction);
  const match = compileSearch(query.search);
  if (match === null) return { from: `${table} ${alias}`, where: '1', orderBy, params };
  params.search = match;
  return { from: `${table}_fts JOIN ${table} ${alias} ON ${alias}.rowid = ${table}_fts.rowid`, where: `${table}_fts MATCH :search`, orderBy, params };
}

/** The SQL of the templates list (alias `t`). No sort: the most recently used first. */
export function templateListSql(query: TemplateQuery): SummaryListSql {
  return listSql('order_templates', 't', 'template_id', TEMPLATE_SORT, query);
}

/** The SQL of the campaigns list (alias `cm`). No sort: the most recently used first. */
export function campaignListSql(query: CampaignQuery): SummaryListSql {
  return listSql('order_campaigns', 'cm', 'campaign_id', CAMPAIGN_SORT, query);
}

const TEMPLATE_COLUMNS = `t.template_id, t.title, t.template_type, t.template_url, t.thumbnail_url, t.creator_id, t.creator_name, t.orders, t.recipients,
  t.delivered, t.last_order_id, t.last_delivery_date,
  EXISTS (SELECT 1 FROM template_previews p WHERE p.url = t.thumbnail_url AND p.content_type IS NOT NULL) AS preview_stored`;
const CAMPAIGN_COLUMNS = 'cm.campaign_id, cm.name, cm.description, cm.campaign_type, cm.schedule_type, cm.use_type, cm.orders, cm.recipients, cm.delivered, cm.last_order_id, cm.last_delivery_date';

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toTemplateRow(r: Row): TemplateRow {
  const thumbnailUrl = str(r.thumbnail_url);
  return {
    id: str(r.template_id), title: str(r.title), templateType: str(r.template_type), templateUrl: str(r.template_url), thumbnailUrl,
    previewPath: thumbnailUrl === '' ? null : previewPath(thumbnailUrl), previewStored: r.preview_stored === 1,
    creatorId: str(r.creator_id), creatorName: str(r.creator_name), orders: Number(r.orders ?? 0), recipients: Number(r.recipients ?? 0),
    delivered: Number(r.delivered ?? 0), lastOrderId: str(r.last_order_id), lastDeliveryDate: textOrNull(r.last_delivery_date),
  };
}

function toCampaignRow(r: Row): CampaignRow {
  const recipients = Number(r.recipients ?? 0);
  const delivered = Number(r.delivered ?? 0);
  return {
    id: str(r.campaign_id), name: str(r.name), description: str(r.description), campaignType: str(r.campaign_type), scheduleType: str(r.schedule_type),
    useType: textOrNull(r.use_type), orders: Number(r.orders ?? 0), recipients, delivered, deliveredShare: recipients > 0 ? delivered / recipients : null,
    lastOrderId: str(r.last_order_id), lastDeliveryDate: textOrNull(r.last_delivery_date),
  };
}

function windowOf<R>(db: Database.Database, list: SummaryListSql, columns: string, win: RowWindow, map: (r: Row) => R): RowPage<R> {
  return read(db, () => {
    const rows = stmt(db, `SELECT ${columns} FROM ${list.from} WHERE ${list.where} ORDER BY ${list.orderBy} LIMIT ${win.limit} OFFSET ${win.offset}`).all(list.params) as Row[];
    const count = stmt(db, `SELECT count(*) FROM ${list.from} WHERE ${list.where}`).pluck().get(list.params) as number;
    return { rows: rows.map(map), offset: win.offset, total: { count, exact: true } };
  });
}

/**
 * A window of the templates of the cached orders, with the exact number of templates the search
 * matches (the lists are small: tens of templates in most accounts).
 */
export function queryTemplates(db: Database.Database, query: TemplateQuery, win: RowWindow): RowPage<TemplateRow> {
  return windowOf(db, templateListSql(query), TEMPLATE_COLUMNS, win, toTemplateRow);
}

/** A window of the campaigns of the cached orders (grouped by `campaign.id`), with their exact number. */
export function queryCampaigns(db: Database.Database, query: CampaignQuery, win: RowWindow): RowPage<CampaignRow> {
  return windowOf(db, campaignListSql(query), CAMPAIGN_COLUMNS, win, toCampaignRow);
}

/** One template by its id ('' = the orders without one), or null when no cached order uses it. */
export function getTemplate(db: Database.Database, id: string): TemplateRow | null {
  const row = stmt(db, `SELECT ${TEMPLATE_COLUMNS} FROM order_templates t WHERE t.template_id = ?`).get(id) as Row | undefined;
  return row ? toTemplateRow(row) : null;
}

/** One campaign by its id ('' = the orders without one), or null when no cached order has it. */
export function getCampaign(db: Database.Database, id: string): CampaignRow | null {
  const row = stmt(db, `SELECT ${CAMPAIGN_COLUMNS} FROM order_campaigns cm WHERE cm.campaign_id = ?`).get(id) as Row | undefined;
  return row ? toCampaignRow(row) : null;
}
