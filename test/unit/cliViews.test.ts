/**
 * Saved views and live queries on the command line, as a user runs them: the real CLI in child
 * processes against the sample API over loopback HTTP (in this process, so the expected answers
 * come from the dataset's hidden state, independently of the service's own filtering).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

let dir: string;
let api: SampleApi;
const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, tokens);

/** Ids of the service's contacts that pass `test` (given the record and its id). */
function contactsWhere(test: (id: string, state: string) => boolean): string[] {
  const ids: string[] = [];
  for (let i = 0; i < api.dataset.contactCount; i++) {
    const { id, state } = api.dataset.contactAt(i);
    if (test(id, state)) ids.push(id);
  }
  return ids.sort();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-views-'));
  api = await startSampleApi({ contacts: 1500, orders: 450, seed: 13 });
  expect((await cli(['profile', 'add', 'Shop', '--base-url', api.baseUrl, '--page-size', '200'])).code).toBe(0);
  const sync = await cli(['sync']);
  expect(sync.code, sync.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('letterdesk view and query', () => {
  const failed = () => contactsWhere((id) => api.dataset.contactHidden(id)?.addressStatus === 'Failed');

  it('view add reads the membership at once; --view lists exactly those contacts, offline', async () => {
    const add = await cli(['view', 'add', 'Failed addresses', '--resource', 'contacts', '--param', 'addressStatus=Failed', '--json']);
    expect(add.code, add.stderr).toBe(0);
    const view = JSON.parse(add.stdout) as { name: string; resource: string; params: unknown; members: number; refreshedAt: string; lastError: unknown };
    expect(view).toMatchObject({ name: 'Failed addresses', resource: 'contacts', params: { addressStatus: ['Failed'] }, members: failed().length, lastError: null });
    const listed = await cli(['contacts', '--view', 'failed addresses', '--limit', '5000', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((c) => c.id).sort()).toEqual(failed());
  });

  it('a view keeps its own local filters, and the command line narrows it further', async () => {
    const add = await cli(['view', 'add', 'Failed in Ohio', '--resource', 'contacts', '--param', 'addressStatus=Failed', '--state', 'Ohio']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^Saved view "Failed in Ohio" \(contacts\): \d+ members as of /);
    const inOhio = contactsWhere((id, state) => api.dataset.contactHidden(id)?.addressStatus === 'Failed' && state === 'Ohio');
    const listed = JSON.parse((await cli(['contacts', '--view', 'Failed in Ohio', '--limit', '5000', '--json'])).stdout) as { id: string; state: string }[];
    expect(listed.every((c) => c.state === 'Ohio')).toBe(true);
    expect(listed.every((c) => failed().includes(c.id))).toBe(true);
    expect(inOhio.length).toBeGreaterThan(0);
    expect(listed.map((c) => c.id).sort()).toEqual(inOhio);
  });

  it('an orders view by paymentStatus exports its rows; view list and status --json show it', async () => {
    expect((await cli(['view', 'add', 'Unpaid', '--resource', 'orders', '--param', 'paymentStatus=PENDING,NOT_CHARGED'])).code).toBe(0);
    const unpaid: string[] = [];
    for (let i = 0; i < api.dataset.orderCount; i++) {
      const { id } = api.dataset.orderAt(i);
      const paymentStatus = api.dataset.orderHidden(id)?.paymentStatus;
      if (paymentStatus === 'PENDING' || paymentStatus === 'NOT_CHARGED') unpaid.push(id);
    }
    expect(unpaid.length).toBeGreaterThan(0);
    const out = join(dir, 'unpaid.csv');
    const exported = await cli(['export', 'orders', '--view', 'Unpaid', '--out', out, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r['Order ID']).sort()).toEqual(unpaid.sort());

    const list = JSON.parse((await cli(['view', 'list', '--json'])).stdout) as { views: { name: string; resource: string; members: number | null }[] };
    expect(list.views.map((v) => [v.name, v.resource])).toEqual([
      ['Failed addresses', 'contacts'],
      ['Failed in Ohio', 'contacts'],
      ['Unpaid', 'orders'],
    ]);
    const status = JSON.parse((await cli(['status', '--json'])).stdout) as { views: { name: string; members: number | null }[] };
    expect(status.views.find((v) => v.name === 'Unpaid')?.members).toBe(unpaid.length);
  });

  it('sync reads every view again after the resources; a failed read keeps the members and says so', async () => {
    const sync = await cli(['sync']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain(`view "Failed addresses": ${failed().length} members.`);
    api.setFaults({ serverErrorRate: 1, endpoints: ['contacts'] });
    try {
      const refresh = await cli(['view', 'refresh', 'Failed addresses']);
      expect(refresh.code).toBe(5);
      expect(refresh.stdout).toMatch(/^"Failed addresses" \(contacts\): failed — /);
    } finally {
      api.setFaults({});
    }
    const status = JSON.parse((await cli(['status', '--json'])).stdout) as { views: { name: string; members: number; lastError: { code: string } | null }[] };
    expect(status.views.find((v) => v.name === 'Failed addresses')).toMatchObject({ members: failed().length, lastError: { code: 'SERVER_ERROR' } });
  }, 120_000);

  it('query reads every page live, or one page, and writes CSV', async () => {
    const live = await cli(['query', 'contacts', '--param', 'addressStatus=Failed', '--json']);
    expect(live.code, live.stderr).toBe(0);
    expect((JSON.parse(live.stdout) as { id: string }[]).map((c) => c.id).sort()).toEqual(failed());
    const page = await cli(['query', 'contacts', '--param', 'addressStatus=Failed', '--page', '1', '--page-size', '7', '--json']);
    expect(page.code, page.stderr).toBe(0);
    expect((JSON.parse(page.stdout) as unknown[]).length).toBe(7);
    const out = join(dir, 'live.csv');
    // a known value typed in other case is sent as the service's SDK spells it
    const paymentFailed = [...api.dataset.orderIds()].filter((id) => api.dataset.orderHidden(id)?.paymentStatus === 'PAYMENT_FAILED');
    expect(paymentFailed.length).toBeGreaterThan(0);
    const csv = await cli(['query', 'orders', '--param', 'paymentStatus=payment_failed', '--out', out]);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toMatch(new RegExp(`^Wrote ${paymentFailed.length} orders to `));
    expect((parse(readFileSync(out, 'utf8'), { columns: true }) as unknown[]).length).toBe(paymentFailed.length);
  }, 120_000);

  it('an unknown parameter or a bad value is a usage error that names it', async () => {
    const unknown = await cli(['query', 'contacts', '--param', 'colour=red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/colour/);
    const badDate = await cli(['view', 'add', 'Bad', '--resource', 'contacts', '--param', 'lastMailedDate=2024-02-30..']);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/2024-02-30 is not a date/);
    const badList = await cli(['view', 'add', 'Bad', '--resource', 'contacts', '--param', 'addressStatus=Pending']);
    expect(badList.code).toBe(2);
    expect(badList.stderr).toMatch(/addressStatus takes Failed, Verified/);
  });

  it('view remove deletes a view; the records stay', async () => {
    const removed = await cli(['view', 'remove', 'Failed in Ohio']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Removed view "Failed in Ohio" (contacts).\n');
    const missing = await cli(['contacts', '--view', 'Failed in Ohio']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/There is no contacts view "Failed in Ohio"/);
    const all = JSON.parse((await cli(['contacts', '--limit', '5000', '--json'])).stdout) as unknown[];
    expect(all.length).toBe(1500);
  });
});
