/**
 * The parts the view SQL (list.ts) is assembled from: the compiled search, each filter of
 * shared/query.ts as a row condition or as filter tokens of the contacts' search index, and the
 * sort. Pure string building; the same parts serve the mirror, a saved view's members and the
 * members newer than the mirror, so a filter means the same thing in each.
 */
import { nationalDigits } from '../store/columns.ts';
import { emptyFlag, qualify } from '../store/positions.ts';
import { FILTER_TOKEN_MARK } from '../store/searchIndex.ts';
import type { ContactQuery, LocalDayRange, OrderQuery, RecordChange } from '../../../../shared/query.ts';
import { addDays } from '../../../../shared/serviceParams.ts';
import { deliveredSinceStart } from '../../../../shared/keptFilters.ts';
import { timesMailed } from './mailing.ts';
import { inDuplicateGroup } from './duplicates.ts';
import { DELIVERED_BETWEEN_IDS, DELIVERED_SINCE_IDS } from './timeline.ts';

/** Sort column of shared/query.ts → position column (see build/publish.ts); `rowid` = default order. */
export const CONTACT_SORT: Record<string, string> = {
  name: 'pos_name', company: 'pos_company', email: 'pos_email', phone: 'pos_phone', city: 'pos_city',
  state: 'pos_state', zip: 'pos_zip', labels: 'pos_labels', verified: 'pos_verified', createdAt: 'rowid',
};
export const ORDER_SORT: Record<string, string> = {
  id: 'rowid', campaign: 'pos_campaign', product: 'pos_product', template: 'pos_template', status: 'pos_status',
  recipients: 'pos_recipients', delivered: 'pos_delivered', liveMode: 'pos_live_mode', scheduleType: 'pos_schedule_type',
  deliveryDate: 'pos_delivery_date',
};

const PHONE_LIKE = /^[\d\s()+.\-/]+$/;

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/**
 * Turns what a person typed into an FTS5 MATCH expression: every word must match (AND), the last
 * token of each word as a prefix (typeahead); a word or a whole input that looks like a phone number
 * also matches its digits-only form ("(555) 123-4567" finds 555.123.4567). Diacritics fold in the
 * index (unicode61 remove_diacritics 2). Returns null when nothing searchable remains.
 */
export function compileSearch(input: string | undefined): string | null {
  // NUL ends a string inside FTS5's query parser ("unterminated string"); it is never searchable
  // text. Private-use characters are dropped too: they mark the filter tokens (FILTER_TOKEN_MARK).
  const text = (input ?? '').replaceAll(String.fromCharCode(0), ' ').replace(/\p{Co}/gu, ' ').trim();
  if (!text) return null;
  const terms = text.split(/\s+/).filter((t) => /[\p{L}\p{N}]/u.test(t));
  if (terms.length === 0) return null;
  // The index holds a phone's national digits (build/ingest.ts phoneDigits): "+1 404 …" typed in full is
  // looked up without its country code too.
  const digitForms = (digits: string): string => {
    const national = nationalDigits(digits);
    return national === digits ? `${quote(digits)}*` : `${quote(digits)}* OR ${quote(national)}*`;
  };
  const parts = terms.map((t) => {
    const digits = t.replace(/\D+/g, '');
    const phrase = `${quote(t)}*`;
    if (digits.length >= 2 && PHONE_LIKE.test(t) && (digits !== t || nationalDigits(digits) !== digits)) return `(${phrase} OR ${digitForms(digits)})`;
    return phrase;
  });
  const all = parts.join(' AND ');
  const allDigits = text.replace(/\D+/g, '');
  if (terms.length > 1 && PHONE_LIKE.test(text) && allDigits.length >= 3) return `(${digitForms(allDigits)} OR (${all}))`;
  return all;
}

/** Binds each value as `:<prefix><i>` and returns the placeholders, comma-separated. */
export function inList(params: Record<string, unknown>, prefix: string, values: readonly unknown[]): string {
  return values
    .map((v, i) => {
      params[`${prefix}${i}`] = v;
      return `:${prefix}${i}`;
    })
    .join(', ');
}

/**
 * ORDER BY of a view. A position column's ascending order already has the empty values last
 * (store/positions.ts); descending puts the column's empty flag first, so they stay last, and reverses
 * the positions within each part (emptyOrder.ts reads that order as two ranges of the position).
 * @param base the expression of the default order (the table's rowid, or an index's rowid that
 *   follows it): ascending = newest first
 */
export function orderClause(alias: string, base: string, sort: { column: string; direction: 'asc' | 'desc' } | undefined, map: Record<string, string>): string {
  if (!sort) return base;
  const col = map[sort.column] ?? 'rowid';
  // rowid order = newest first (contacts: createdAt desc; orders: id desc).
  if (col === 'rowid') return sort.direction === 'desc' ? base : `${base} DESC`;
  if (sort.direction !== 'desc') return `${alias}.${col} ASC`;
  const flag = emptyFlag(col);
  return flag ? `${qualify(flag, alias)}, ${alias}.${col} DESC` : `${alias}.${col} DESC`;
}

/** Whether a sort is the default order (rowid), in either direction. */
export function isDefaultOrder(sort: { column: string } | undefined, map: Record<string, string>): boolean {
  return !sort || (map[sort.column] ?? 'rowid') === 'rowid';
}

/** Lower-case hex of the UTF-8 bytes of `value` (what SQLite's `hex()` gives, case folded). */
function hexOf(value: string): string {
  return Array.from(new TextEncoder().encode(value), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Filter tokens of a contact in the hidden column `f` of `contacts_fts` (migrations 002 and 003;
 * written by build/publish.ts `buildNext`), so that a search combined with filters is one intersection
 * inside the search index instead of a lookup of every match's row (fast typeahead with filters).
 * With M = {@link FILTER_TOKEN_MARK}:
 *
 *   Ms<hex(state)>     state; no state, '' or NULL (a record kept invalid), gives `Ms`: both are
 *                      the one "(none)" option, which the row condition matches as '' or NULL
 *   Mv1 | Mv0 | Mvn    verified yes / no / unknown (NULL)
 *   Ml1 | Ml0          live mode / test mode
 *   Mb<hex(label id)>, Mt<hex(label title)>   one pair per label of the contact
 *
 * The hex keeps any value (spaces, punctuation, any script, case) one exact token. A person's
 * search never reaches these tokens: it is matched against every column except `f`.
 */
export const CONTACT_FILTER_TOKENS = {
  state: (state: string) => `${FILTER_TOKEN_MARK}s${hexOf(state)}`,
  verified: { yes: `${FILTER_TOKEN_MARK}v1`, no: `${FILTER_TOKEN_MARK}v0`, unknown: `${FILTER_TOKEN_MARK}vn` } as const,
  liveMode: { live: `${FILTER_TOKEN_MARK}l1`, test: `${FILTER_TOKEN_MARK}l0` } as const,
  labelId: (id: string) => `${FILTER_TOKEN_MARK}b${hexOf(id)}`,
  labelTitle: (title: string) => `${FILTER_TOKEN_MARK}t${hexOf(title)}`,
};

/** `{f} : ("t1" OR "t2")` — any of the tokens in the filter-token column. */
function filterTokens(tokens: readonly string[]): string {
  return `{f} : (${tokens.map(quote).join(' OR ')})`;
}

/**
 * Where a contact's labels are read for the label filter: the mirror's link table, or the record's
 * own `label_list` (the members newer than the mirror).
 */
export type LabelSource = 'mirror' | 'record';

/** A contact view's filters, each once: as filter tokens, or as row conditions on alias `c`. */
export interface ContactParts {
  /** The compiled search, or null. */
  match: string | null;
  /** Label, state, verified and live-mode filters as filter-token expressions (when asked as tokens). */
  tokens: string[];
  /** The same filters as row conditions (when asked as rows), then the Created conditions. */
  conditions: string[];
}

/**
 * The filters of a contact query. Label filter values match a label id or a label title.
 * @param omit a filter left out (facet counts of that filter's options)
 * @param asTokens put the label, state, verified and live-mode filters into `tokens` (for a MATCH)
 *   instead of `conditions`
 */
export function contactParts(query: ContactQuery, omit: keyof ContactQuery | undefined, params: Record<string, unknown>, asTokens: boolean, labels: LabelSource): ContactParts {
  const tokens: string[] = [];
  const conditions: string[] = [];
  const T = CONTACT_FILTER_TOKENS;
  if (omit !== 'labels' && query.labels?.length) {
    // Any: one set of alternatives; all: one per label, each a label id or title.
    const groups = query.labelsMode === 'all' ? [...new Set(query.labels)].map((v) => [v]) : [query.labels];
    groups.forEach((values, g) => {
      if (asTokens) tokens.push(filterTokens(values.flatMap((v) => [T.labelId(v), T.labelTitle(v)])));
      else {
        const ids = inList(params, `label${g}_`, values);
        conditions.push(labels === 'mirror'
          ? `EXISTS (SELECT 1 FROM contact_labels cl WHERE cl.contact_id = c.id AND cl.label_id IN (SELECT id FROM labels WHERE id IN (${ids}) OR title IN (${ids})))`
          : `EXISTS (SELECT 1 FROM json_each(c.label_list) j WHERE j.value ->> 'id' IN (${ids}) OR j.value ->> 'title' IN (${ids}))`);
      }
    });
  }
  if (omit !== 'states' && query.states?.length) {
    if (asTokens) tokens.push(filterTokens(query.states.map(T.state)));
    else {
      // "(none)" ('') also stands for NULL; the plain IN keeps the state index usable.
      const states = `c.state IN (${inList(params, 'state', query.states)})`;
      conditions.push(query.states.includes('') ? `(${states} OR c.state IS NULL)` : states);
    }
  }
  if (omit !== 'verified' && query.verified?.length) {
    const set = [...new Set(query.verified)];
    if (asTokens) tokens.push(filterTokens(set.map((v) => T.verified[v])));
    else conditions.push(`(${set.map((v) => (v === 'yes' ? 'c.is_verified = 1' : v === 'no' ? 'c.is_verified = 0' : 'c.is_verified IS NULL')).join(' OR ')})`);
  }
  if (omit !== 'liveMode' && query.liveMode?.length) {
    const set = new Set(query.liveMode);
    if (set.size === 1) {
      const live = set.has('live');
      if (asTokens) tokens.push(filterTokens([live ? T.liveMode.live : T.liveMode.test]));
      else conditions.push(live ? 'c.is_live_mode = 1' : 'c.is_live_mode = 0');
    }
  }
  if (query.createdFrom) {
    conditions.push('c.created_at >= :createdFrom');
    params.createdFrom = query.createdFrom;
  }
  if (query.createdTo) {
    conditions.push('c.created_at < :createdToEnd');
    params.createdToEnd = addDays(query.createdTo, 1);
  }
  if (omit !== 'changed' && query.changed?.length) conditions.push(changedCondition('c', 'contact_changes', query.changed, params));
  if (query.invalidOnly) conditions.push('c.invalid_reason IS NOT NULL');
  if (query.kept?.length) conditions.push(...keptConditions('c', 'contacts', query.kept, params));
  if (query.ids?.length) conditions.push(idsCondition('c', query.ids, params));
  if (omit !== 'duplicates' && query.duplicates) {
    params.dupLevel = query.duplicates.level;
    if (query.duplicates.key !== undefined) params.dupKey = query.duplicates.key;
    conditions.push(inDuplicateGroup('c', ':dupLevel', query.duplicates.key !== undefined ? ':dupKey' : undefined));
  }
  if (omit !== 'timesMailed' && query.timesMailed) {
    const { min, max } = query.timesMailed;
    if (min !== undefined) {
      params.mailedMin = min;
      conditions.push(`${timesMailed('c')} >= :mailedMin`);
    }
    if (max !== undefined) {
      params.mailedMax = max;
      conditions.push(`${timesMailed('c')} <= :mailedMax`);
    }
  }
  // Instants compare as text like the days above: both sides are ISO 8601 in UTC ("…Z").
  if (query.createdAfter) {
    conditions.push('c.created_at >= :createdAfter');
    params.createdAfter = query.createdAfter;
  }
  if (query.createdBefore) {
    conditions.push('c.created_at < :createdBefore');
    params.createdBefore = query.createdBefore;
  }
  return { match: compileSearch(query.search), tokens, conditions };
}

/**
 * The filters of an order query as row conditions on alias `o`.
 * @param recipients the table of the orders' recipients (the `contactId` filter)
 */
export function orderConditions(query: OrderQuery, omit: keyof OrderQuery | undefined, params: Record<string, unknown>, recipients: string): string[] {
  const where: string[] = [];
  if (omit !== 'statuses' && query.statuses?.length) where.push(`o.status IN (${inList(params, 'status', query.statuses)})`);
  if (omit !== 'productTypes' && query.productTypes?.length) where.push(`o.product_type IN (${inList(params, 'ptype', query.productTypes)})`);
  if (omit !== 'campaignTypes' && query.campaignTypes?.length) where.push(`o.campaign_type IN (${inList(params, 'ctype', query.campaignTypes)})`);
  if (omit !== 'scheduleTypes' && query.scheduleTypes?.length) where.push(`o.campaign_schedule_type IN (${inList(params, 'stype', query.scheduleTypes)})`);
  if (omit !== 'liveMode' && query.liveMode?.length) {
    const set = new Set(query.liveMode);
    if (set.size === 1) where.push(set.has('live') ? 'o.is_live_mode = 1' : 'o.is_live_mode = 0');
  }
  if (omit !== 'delivered' && query.delivered?.length) {
    const parts = [...new Set(query.delivered)].map((d) =>
      d === 'all' ? '(o.recipients > 0 AND o.delivered = o.recipients)' : d === 'some' ? '(o.delivered > 0 AND o.delivered < o.recipients)' : 'o.delivered = 0',
    );
    where.push(`(${parts.join(' OR ')})`);
  }
  if (omit !== 'deliveredSince' && query.deliveredSince !== undefined) {
    where.push(`o.id IN (${DELIVERED_SINCE_IDS})`);
    // Counted from now in this process's time zone, so "the last 7 days" rolls forward. The schema
    // refuses a spec that is not one; should one come through, it matches nothing.
    params.deliveredSince = deliveredSinceStart(query.deliveredSince, new Date()) ?? '9999';
  }
  if (omit !== 'envelopeTypes' && query.envelopeTypes?.length) where.push(noneOrIn('o.product_envelope_type', 'etype', query.envelopeTypes, params));
  if (omit !== 'postageTypes' && query.postageTypes?.length) where.push(noneOrIn('o.product_postage_type', 'pstype', query.postageTypes, params));
  if (omit !== 'deliveredBetween' && query.deliveredBetween) {
    where.push(`o.id IN (${DELIVERED_BETWEEN_IDS})`);
    Object.assign(params, localDayBounds(query.deliveredBetween, 'delivered'));
  }
  if (omit !== 'firstSeenBetween' && query.firstSeenBetween) {
    where.push('o.id IN (SELECT f.id FROM order_first_seen f WHERE f.first_seen_at >= :firstSeenFrom AND f.first_seen_at < :firstSeenTo)');
    Object.assign(params, localDayBounds(query.firstSeenBetween, 'firstSeen'));
  }
  if (query.contactId) {
    where.push(`o.id IN (SELECT r.order_id FROM ${recipients} r WHERE r.contact_id = :contactId)`);
    params.contactId = query.contactId;
  }
  if (query.templateId !== undefined) where.push(idCondition('o.template_id', 'templateId', query.templateId, params));
  if (query.campaignId !== undefined) where.push(idCondition('o.campaign_id', 'campaignId', query.campaignId, params));
  if (omit !== 'changed' && query.changed?.length) where.push(changedCondition('o', 'order_changes', query.changed, params));
  if (query.invalidOnly) where.push('o.invalid_reason IS NOT NULL');
  if (query.kept?.length) where.push(...keptConditions('o', 'orders', query.kept, params));
  if (query.ids?.length) where.push(idsCondition('o', query.ids, params));
  return where;
}

/**
 * The kept filters' conditions (shared/keptFilters.ts): per parameter, the row's id is among the
 * members the service returned for one of its values (kept_members). A value that is not kept
 * has no members and matches nothing.
 */
export function keptConditions(alias: string, resource: 'contacts' | 'orders', kept: readonly { param: string; values: readonly string[] }[], params: Record<string, unknown>): string[] {
  return kept.map((selection, i) => {
    params[`keptParam${i}`] = selection.param;
    const values = inList(params, `kept${i}_`, [...new Set(selection.values)]);
    return `${alias}.id IN (SELECT km.id FROM kept_members km WHERE km.fid IN (SELECT fid FROM kept_filters WHERE resource = '${resource}' AND param = :keptParam${i} AND value IN (${values})))`;
  });
}

/**
 * The `ids` filter: the row's id is one of the list, bound as one JSON array (`:ids`) so that a
 * selection of many thousands of rows is one parameter, looked up through the id index.
 */
function idsCondition(alias: string, ids: readonly string[], params: Record<string, unknown>): string {
  params.ids = JSON.stringify(ids);
  return `${alias}.id IN (SELECT value FROM json_each(:ids))`;
}

/** `column` is one of `values`; '' among them also matches NULL (the records that carry none). */
function noneOrIn(column: string, prefix: string, values: readonly string[], params: Record<string, unknown>): string {
  const among = `${column} IN (${inList(params, prefix, [...new Set(values)])})`;
  return values.includes('') ? `(${among} OR ${column} IS NULL)` : among;
}

/**
 * The instants (ISO 8601 UTC) that bound the local days of `range` in this process's time zone,
 * as the parameters `<name>From` (the first day's local midnight, included) and `<name>To` (the
 * local midnight after the last day, excluded): a day of 23 or 25 hours is covered whole. A day
 * the schema would refuse matches nothing.
 */
function localDayBounds(range: LocalDayRange, name: string): Record<string, string> {
  const now = new Date();
  return {
    [`${name}From`]: deliveredSinceStart(range.from, now) ?? '9999',
    [`${name}To`]: deliveredSinceStart(addDays(range.to, 1), now) ?? '0000',
  };
}

/** `column` equals `value`; '' also matches NULL (the group of orders that carry no such id). */
function idCondition(column: string, name: string, value: string, params: Record<string, unknown>): string {
  params[name] = value;
  return value === '' ? `(${column} IS NULL OR ${column} = '')` : `${column} = :${name}`;
}

/**
 * The change filter's condition on the mirror's rows: ids recorded as added or changed by the last
 * sync (build/changes.ts). The removed records are not in the mirror: list.ts adds their kept copies
 * (listRemoved.ts), and a filter of removed records alone matches no mirror row ('0').
 */
function changedCondition(alias: string, table: string, kinds: readonly RecordChange[], params: Record<string, unknown>): string {
  const inMirror = [...new Set(kinds)].filter((k) => k !== 'removed');
  if (inMirror.length === 0) return '0';
  return `${alias}.id IN (SELECT id FROM ${table} WHERE change IN (${inList(params, 'change', inMirror)}))`;
}
