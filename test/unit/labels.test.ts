/**
 * Mailing labels (shared/labelSheets.ts, cache/read/labels.ts): the sheets' geometry against the
 * dimensions Avery publishes for each (page, grid, label size, margins: every label on the page,
 * the grid centred across it), a label's place on a partly used sheet, the address block as USPS
 * Publication 28 writes it, and the addresses of a real cache synced from the sample API: a
 * contact view's in view order, an order view's recipients with their contact's state, and those
 * a label cannot hold (no street, a contact no longer cached) listed apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LABEL_SHEETS, PAGE_SIZES, addressLines, labelPlace, labelsPerSheet, pagesFor, sheetProblem, type LabelAddress, type LabelSheet,
} from '../../shared/labelSheets.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { labelAddresses } from '../../electron/main/cache/read/labels.ts';
import { queryContacts } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

const IN = 25.4;
const sheet = (id: string): LabelSheet => LABEL_SHEETS.find((s) => s.id === id)!;

describe('label sheets', () => {
  // Avery's published templates: labels a sheet, label size, and the page (in inches or mm).
  it.each([
    ['avery-5160', 30, 2.625 * IN, 1 * IN, 'letter'],
    ['avery-5163', 10, 4 * IN, 2 * IN, 'letter'],
    ['avery-5164', 6, 4 * IN, (10 / 3) * IN, 'letter'],
    ['avery-l7160', 21, 63.5, 38.1, 'a4'],
    ['avery-l7163', 14, 99.1, 38.1, 'a4'],
  ] as const)('%s: %i labels of %f × %f mm on %s, all on the page, centred across it', (id, count, width, height, page) => {
    const s = sheet(id);
    expect(labelsPerSheet(s)).toBe(count);
    expect(s.labelWidth).toBeCloseTo(width, 3);
    expect(s.labelHeight).toBeCloseTo(height, 3);
    expect(s.page).toBe(page);
    expect(sheetProblem(s)).toBeNull();
    const paper = PAGE_SIZES[s.page];
    const last = labelPlace(s, count - 1);
    expect(last.page).toBe(0);
    const right = paper.width - (last.x + s.labelWidth);
    expect(right).toBeCloseTo(s.left, 1); // the same margin left and right
    const bottom = paper.height - (last.y + s.labelHeight);
    expect(bottom).toBeGreaterThanOrEqual(0);
    expect(Math.abs(bottom - s.top)).toBeLessThan(1); // and top and bottom, within a millimetre
  });

  it('places labels row by row, after the used ones of a partly used first sheet', () => {
    const s = sheet('avery-5160');
    expect(labelPlace(s, 0)).toEqual({ page: 0, x: s.left, y: s.top });
    expect(labelPlace(s, 1)).toEqual({ page: 0, x: s.left + s.pitchX, y: s.top });
    expect(labelPlace(s, 3)).toEqual({ page: 0, x: s.left, y: s.top + s.pitchY });
    // Start at label 4: the first address takes the fourth place; the 28th goes to the next sheet.
    expect(labelPlace(s, 0, 3)).toEqual(labelPlace(s, 3));
    expect(labelPlace(s, 27, 3)).toEqual({ page: 1, x: s.left, y: s.top });
    expect(pagesFor(s, 27, 3)).toBe(1);
    expect(pagesFor(s, 28, 3)).toBe(2);
    expect(pagesFor(s, 0, 3)).toBe(0);
  });

  it('refuses a custom grid that runs off its page or overlaps itself, saying what to change', () => {
    const custom = { ...sheet('avery-5160'), id: 'custom' };
    expect(sheetProblem({ ...custom, columns: 4 })).toMatch(/run off the US Letter page/);
    expect(sheetProblem({ ...custom, pitchX: custom.labelWidth - 1 })).toMatch(/gap cannot be negative/);
    expect(sheetProblem({ ...custom, rows: 0 })).toMatch(/1 to 40 rows/);
    expect(sheetProblem({ ...custom, labelHeight: 5, pitchY: 5 })).toMatch(/at least 10 mm/);
    expect(sheetProblem({ ...custom, page: 'a4', columns: 2, rows: 5 })).toBeNull();
  });
});

describe('the address block (USPS Publication 28)', () => {
  const base: LabelAddress = { id: '1', fullName: 'Ava García', companyName: 'Acme Mail Co.', address1: '123 Main St', address2: 'Apt 4', city: 'Springfield', state: 'Illinois', zip: '62704' };
  it('name, company, the delivery line with its unit, CITY ST ZIP with the USPS code', () => {
    expect(addressLines(base)).toEqual(['Ava García', 'Acme Mail Co.', '123 Main St Apt 4', 'Springfield IL 62704']);
    expect(addressLines(base, true)).toEqual(['AVA GARCÍA', 'ACME MAIL CO.', '123 MAIN ST APT 4', 'SPRINGFIELD IL 62704']);
  });
  it('a long second line above the delivery line; blanks, repeats and spacing dropped; a foreign state as written', () => {
    expect(addressLines({ ...base, companyName: '', address2: 'Building Annex, East Wing', state: 'Ontario', zip: ' K1A 0B1 ', city: '  Ottawa ' })).toEqual([
      'Ava García', 'Building Annex, East Wing', '123 Main St', 'Ottawa Ontario K1A 0B1',
    ]);
    expect(addressLines({ ...base, companyName: 'Ava García', address2: '' })).toEqual(['Ava García', '123 Main St', 'Springfield IL 62704']);
  });
});

describe('the addresses of a view', () => {
  let dir: string;
  let db: Database.Database;
  let api: SampleApi;
  let movedOut = '';
  let noStreet = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ld-labels-'));
    api = await startSampleApi({ contacts: 200, orders: 60, seed: 41 });
    const ids = [...api.dataset.contactIds()];
    noStreet = ids[5]!;
    api.dataset.updateContact(noStreet, { address1: '' });
    // A recipient's contact that the service no longer lists: its state is unknown.
    const order = [...api.dataset.orders()][0]!;
    movedOut = order.contacts[0]!.contact.id;
    expect(api.dataset.deleteContact(movedOut)).toBe(true);
    db = openCache(join(dir, 'p.sqlite'));
    const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
    const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 100 });
    for (const run of runs) expect(run.outcome).toBe('succeeded');
  }, 120_000);

  afterAll(async () => {
    db?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a contact view’s contacts in its order, the one without a street listed apart', () => {
    const query = { sort: { column: 'city' as const, direction: 'asc' as const } };
    const got = labelAddresses(db, { source: 'contacts', query });
    const rows = queryContacts(db, query, { offset: 0, limit: 1000 }).rows;
    expect(got.addresses.map((a) => a.id)).toEqual(rows.filter((r) => r.id !== noStreet).map((r) => r.id));
    expect(got.skipped).toEqual([expect.objectContaining({ id: noStreet, reason: 'no street address' })]);
    expect(got.more).toBe(false);
    const first = rows.find((r) => r.id === got.addresses[0]!.id)!;
    expect(got.addresses[0]).toMatchObject({ fullName: first.fullName, address1: first.address1, city: first.city, state: first.state, zip: first.zip });
  });

  it('an order view’s recipients with their contact’s state; a recipient whose contact is gone is listed, not printed', () => {
    const got = labelAddresses(db, { source: 'recipients', query: {} });
    const recipients = [...api.dataset.orders()].reduce((n, o) => n + o.contacts.length, 0);
    expect(got.addresses.length + got.skipped.length).toBe(recipients);
    const gone = got.skipped.filter((s) => s.reason === 'its contact is no longer cached, so its state is unknown');
    expect(gone.length).toBeGreaterThan(0);
    const contactOf = new Map<string, string>([...api.dataset.orders()].flatMap((o) => o.contacts.map((r): [string, string] => [`${o.id}:${r.id}`, r.contact.id])));
    for (const a of got.addresses) expect(a.state, a.id).toBe(api.dataset.contactById(contactOf.get(a.id)!)?.state);
    expect(gone.map((g) => contactOf.get(g.id))).toContain(movedOut);
  });
});
