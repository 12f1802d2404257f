/**
 * The templates and campaigns of the cached orders (shared/summaries.ts): a real cache synced from
 * the sample API over loopback, compared with a computation in plain JavaScript over the service's
 * own orders — groups by `template.id` and `campaign.id`, each described by its newest order, with
 * counts and sums — for every sort, a search, one by id, their orders (`templateId`, `campaignId`),
 * their CSV exports (parsed back with csv-parse), and the previews once a sync stored them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewPath } from '../../shared/previewKey.ts';
import { CAMPAIGN_SORT_COLUMNS, TEMPLATE_SORT_COLUMNS, type CampaignRow, type TemplateRow } from '../../shared/summaries.ts';
import type { Order } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { countOrders, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { getCampaign, getTemplate, queryCampaigns, queryTemplates } from '../../electron/main/cache/read/summaries.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { refreshPreviews } from '../../electron/main/previews/refresh.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
let orders: Order[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-summaries-'));
  api = await startSampleApi({ contacts: 1000, orders: 1500, seed: 17 });
  // Templates without a title or without a creator's name, which every sort lists last.
  for (const order of [...api.dataset.orders()] as Order[]) {
    const template = order.template;
    if (template.id.endsWith('3')) api.dataset.updateOrder(order.id, { template: { ...template, title: '' } });
    if (template.id.endsWith('7')) api.dataset.updateOrder(order.id, { template: { ...template, creator: { ...template.creator, fullName: '' } } });
  }
  db = openCache(join(dir, 'cache.sqlite'));
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), { resources: ['contacts', 'orders'], pageSize: 250 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  orders = [...api.dataset.orders()].map((o) => JSON.parse(JSON.stringify(o)) as Order);
}, 60_000);
afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Numeric order of digit-string ids (shorter first): what "newest" means for orders. */
const byId = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
const maxText = (values: (string | null)[]): string | null => values.filter((v): v is string => v !== null).sort().at(-1) ?? null;

/** The orders grouped by `key`, each group with its newest order first. */
function groups(key: (o: Order) => string): Map<string, Order[]> {
  const out = new Map<string, Order[]>();
  for (const o of orders) out.set(key(o), [...(out.get(key(o)) ?? []), o]);
  for (const list of out.values()) list.sort((a, b) => byId(b.id, a.id));
  return out;
}
const recipients = (list: Order[]) => list.reduce((n, o) => n + o.contacts.length, 0);
const delivered = (list: Order[]) => list.reduce((n, o) => n + o.contacts.filter((c) => c.isDelivered).length, 0);

function expectedTemplates(): TemplateRow[] {
  return [...groups((o) => o.template.id)].map(([id, list]) => {
    const t = list[0]!.template;
    return {
      id, title: t.title, templateType: t.templateType, templateUrl: t.templateUrl, thumbnailUrl: t.thumbnailUrl, previewPath: previewPath(t.thumbnailUrl), previewStored: false,
      creatorId: t.creator.id, creatorName: t.creator.fullName, orders: list.length, recipients: recipients(list), delivered: delivered(list),
      lastOrderId: list[0]!.id, lastDeliveryDate: maxText(list.map((o) => o.campaign.deliveryDate)),
    };
  });
}

function expectedCampaigns(): CampaignRow[] {
  return [...groups((o) => o.campaign.id)].map(([id, list]) => {
    const c = list[0]!.campaign;
    const r = recipients(list);
    return {
      id, name: c.name, description: c.description, campaignType: c.campaignType, scheduleType: c.scheduleType, useType: c.useType,
      orders: list.length, recipients: r, delivered: delivered(list), deliveredShare: r > 0 ? delivered(list) / r : null,
      lastOrderId: list[0]!.id, lastDeliveryDate: maxText(list.map((o) => o.campaign.deliveryDate)),
    };
  });
}

const collator = new Intl.Collator();

/** Whether a value is empty for a sort: NULL or '' (sorted last both ways). */
const isEmpty = (v: string | number | null): boolean => v === null || v === '';

/** Compares two non-empty values as the sorts do: text in the locale's order (Intl.Collator), numbers as numbers. */
function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === 'string' && typeof b === 'string') return collator.compare(a, b);
  return (a as number) - (b as number);
}

/**
 * `rows` sorted by `key` in `direction` as the lists sort: the non-empty values (ties by `id`)
 * ascending or in the exact reverse, then the empty ones, by id or in reverse.
 */
function sortedAs<R>(rows: R[], key: (r: R) => string | number | null, id: (r: R) => string, direction: 'asc' | 'desc'): R[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => Number(isEmpty(key(a))) - Number(isEmpty(key(b))) || ((isEmpty(key(a)) ? 0 : compare(key(a), key(b))) || byId(id(a), id(b))) * sign);
}

function all<R>(page: (offset: number) => { rows: R[]; total: { count: number } }): R[] {
  const rows: R[] = [];
  for (let offset = 0; ; offset += 1000) {
    const p = page(offset);
    rows.push(...p.rows);
    if (rows.length >= p.total.count) return rows;
  }
}

describe('templates of the cached orders', () => {
  it('equal the orders grouped by template.id, each as its newest order describes it', () => {
    const got = all((offset) => queryTemplates(db, {}, { offset, limit: 1000 }));
    expect([...got].sort((a, b) => byId(a.id, b.id))).toEqual(expectedTemplates().sort((a, b) => byId(a.id, b.id)));
    expect(got.length).toBeGreaterThan(20);
    // No sort: the most recently used first.
    expect(got.map((t) => t.id)).toEqual(expectedTemplates().sort((a, b) => byId(b.lastOrderId, a.lastOrderId)).map((t) => t.id));
    for (const t of got.slice(0, 5)) expect(getTemplate(db, t.id)).toEqual(t);
    expect(getTemplate(db, '999')).toBeNull();
  });

  it('sort by every column, both ways, ties by id', () => {
    const key: Record<(typeof TEMPLATE_SORT_COLUMNS)[number], (t: TemplateRow) => string | number> = {
      lastUsed: (t) => t.lastOrderId.padStart(20, '0'), title: (t) => t.title, type: (t) => t.templateType, creator: (t) => t.creatorName, orders: (t) => t.orders, recipients: (t) => t.recipients,
    };
    // Some columns hold empty values, which both directions list last.
    expect(TEMPLATE_SORT_COLUMNS.filter((column) => expectedTemplates().some((t) => isEmpty(key[column](t)))).length, 'templates with an empty value').toBeGreaterThan(0);
    for (const column of TEMPLATE_SORT_COLUMNS) {
      for (const direction of ['asc', 'desc'] as const) {
        const want = sortedAs(expectedTemplates(), key[column], (t) => t.id, direction).map((t) => t.id);
        expect(queryTemplates(db, { sort: { column, direction } }, { offset: 0, limit: 1000 }).rows.map((t) => t.id), `${column} ${direction}`).toEqual(want);
      }
    }
  });

  it('a search matches a word prefix of the id, title, type or creator; a window and its exact total', () => {
    const word = expectedTemplates()[0]!.title.split(' ')[0]!;
    const term = word.slice(0, 4).toLowerCase();
    const words = (t: TemplateRow) => [t.id, t.title, t.templateType, t.creatorName].join(' ').toLowerCase().split(/[^\p{L}\p{N}]+/u);
    const want = expectedTemplates().filter((t) => words(t).some((w) => w.startsWith(term))).sort((a, b) => byId(b.lastOrderId, a.lastOrderId)).map((t) => t.id);
    expect(want.length).toBeGreaterThan(0);
    const page = queryTemplates(db, { search: term.toUpperCase() }, { offset: 0, limit: 1000 });
    expect(page.rows.map((t) => t.id)).toEqual(want);
    expect(page.total).toEqual({ count: want.length, exact: true });
    expect(queryTemplates(db, {}, { offset: 3, limit: 2 }).rows.map((t) => t.id)).toEqual(expectedTemplates().sort((a, b) => byId(b.lastOrderId, a.lastOrderId)).slice(3, 5).map((t) => t.id));
  });

  it('list their orders through the orders query', () => {
    const template = expectedTemplates()[2]!;
    const want = orders.filter((o) => o.template.id === template.id).map((o) => o.id).sort((a, b) => byId(b, a));
    expect(queryOrders(db, { templateId: template.id }, { offset: 0, limit: 1000 }).rows.map((o) => o.id)).toEqual(want);
    expect(countOrders(db, { templateId: template.id }).count).toBe(template.orders);
    expect(countOrders(db, { templateId: '' }).count).toBe(0);
  });

  it('know which previews a sync stored', async () => {
    const result = await refreshPreviews(db, { enabled: true, profileBaseUrl: 'http://127.0.0.1:4100/api/v1' });
    expect(result.failed).toBe(0);
    const rows = queryTemplates(db, {}, { offset: 0, limit: 1000 }).rows;
    expect(rows.every((t) => t.previewStored)).toBe(true);
    for (const t of rows) expect(db.prepare('SELECT key FROM template_previews WHERE url = ?').pluck().get(t.thumbnailUrl)).toBe(t.previewPath?.slice('preview/'.length));
  });
});

describe('campaigns of the cached orders', () => {
  it('equal the orders grouped by campaign.id, with their delivered share', () => {
    const got = all((offset) => queryCampaigns(db, {}, { offset, limit: 1000 }));
    const want = expectedCampaigns();
    expect(got.length).toBe(want.length);
    expect([...got].sort((a, b) => byId(a.id, b.id))).toEqual(want.sort((a, b) => byId(a.id, b.id)));
    const one = got[7]!;
    expect(getCampaign(db, one.id)).toEqual(one);
    expect(queryOrders(db, { campaignId: one.id }, { offset: 0, limit: 1000 }).rows.map((o) => o.id)).toEqual(orders.filter((o) => o.campaign.id === one.id).map((o) => o.id).sort((a, b) => byId(b, a)));
  });

  it('sort by every column, both ways, ties by id', () => {
    const key: Record<(typeof CAMPAIGN_SORT_COLUMNS)[number], (c: CampaignRow) => string | number | null> = {
      lastUsed: (c) => c.lastOrderId.padStart(20, '0'), name: (c) => c.name, type: (c) => c.campaignType, scheduleType: (c) => c.scheduleType, deliveryDate: (c) => c.lastDeliveryDate,
      orders: (c) => c.orders, recipients: (c) => c.recipients, deliveredShare: (c) => c.deliveredShare,
    };
    expect(CAMPAIGN_SORT_COLUMNS.filter((column) => expectedCampaigns().some((c) => isEmpty(key[column](c)))).length, 'campaigns with an empty value').toBeGreaterThan(0);
    for (const column of CAMPAIGN_SORT_COLUMNS) {
      for (const direction of ['asc', 'desc'] as const) {
        const want = sortedAs(expectedCampaigns(), key[column], (c) => c.id, direction).map((c) => c.id);
        const got = all((offset) => queryCampaigns(db, { sort: { column, direction } }, { offset, limit: 1000 })).map((c) => c.id);
        expect(got, `${column} ${direction}`).toEqual(want);
      }
    }
  });
});

describe('CSV exports of the lists', () => {
  it('templates and campaigns: the rows of the list, in its order, parsed back', async () => {
    const options = { delimiter: 'semicolon' as const, bom: true, neutralizeFormulas: true };
    const file = join(dir, 'templates.csv');
    const query = { sort: { column: 'orders' as const, direction: 'desc' as const } };
    const { rows } = await runExport(db, { kind: 'templates', query, columns: null, options }, file);
    const parsed = parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), { columns: true, delimiter: ';' }) as Record<string, string>[];
    const list = queryTemplates(db, query, { offset: 0, limit: 1000 }).rows;
    expect(rows).toBe(list.length);
    expect(parsed.map((r) => [r['Template ID'], r.Template, r.Orders, r.Recipients, r.Delivered, r['Last order ID'], r['Last delivery date'], r.Creator])).toEqual(
      list.map((t) => [t.id, t.title, String(t.orders), String(t.recipients), String(t.delivered), t.lastOrderId, t.lastDeliveryDate ?? '', t.creatorName]),
    );

    const cfile = join(dir, 'campaigns.csv');
    const cquery = { search: 'a', sort: { column: 'deliveredShare' as const, direction: 'desc' as const } };
    await runExport(db, { kind: 'campaigns', query: cquery, columns: ['id', 'name', 'deliveredShare', 'orders'], options: { ...options, delimiter: 'comma', bom: false } }, cfile);
    const cparsed = parse(readFileSync(cfile, 'utf8'), { columns: true }) as Record<string, string>[];
    const clist = all((offset) => queryCampaigns(db, cquery, { offset, limit: 1000 }));
    expect(cparsed.map((r) => r['Campaign ID'])).toEqual(clist.map((c) => c.id));
    cparsed.forEach((r, i) => {
      const c = clist[i]!;
      expect(r.Campaign).toBe(c.name);
      expect(r.Orders).toBe(String(c.orders));
      if (c.deliveredShare === null) expect(r['Delivered share']).toBe('');
      else expect(Number(r['Delivered share'])).toBeCloseTo(c.deliveredShare, 4);
    });
  });
});
