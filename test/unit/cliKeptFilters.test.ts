/**
 * The service's filters on the command line, as a user runs them: the real CLI in child processes
 * syncs from the sample API over loopback HTTP (the kept filters read after the records), then the
 * service stops, and `contacts --address-status Failed`, `--last-mailed-date 30d` and
 * `orders --order-status ON_HOLD --payment-status PAYMENT_FAILED` still answer, with the rows the
 * service returned for the same queries; a value that is not kept asks the service, and offline
 * says so with the network's exit code; `status --json` lists the kept filters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDay, presetRange } from '../../shared/keptFilters.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';
import { serviceIds as readServiceIds } from '../helpers/serviceIds.ts';

let dir: string;
let api: SampleApi;
const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, tokens);
const ids = (stdout: string): string[] => (JSON.parse(stdout) as { id: string }[]).map((r) => r.id).sort();

/** What the service returns for `query` (ids, sorted), asked with the API client before it stops. */
const expected: Record<string, string[]> = {};
const serviceIds = async (resource: Resource, query: Record<string, unknown>): Promise<string[]> => (await readServiceIds(api.baseUrl, resource, query)).sort();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-kept-'));
  api = await startSampleApi({ contacts: 800, orders: 300, seed: 9 });
  expect((await cli(['profile', 'add', 'Mailer', '--base-url', api.baseUrl, '--page-size', '200'])).code).toBe(0);
  const sync = await cli(['sync']);
  expect(sync.code, sync.stderr).toBe(0);
  const today = localDay(new Date());
  expected.failed = await serviceIds('contacts', { addressStatus: ['Failed'] });
  expected.failedRecent = await serviceIds('contacts', { addressStatus: ['Failed'], lastMailedDate: presetRange('30d', today) });
  expected.onHoldUnpaid = await serviceIds('orders', { orderStatus: ['ON_HOLD'], paymentStatus: ['PAYMENT_FAILED'] });
  expected.march = await serviceIds('contacts', { lastMailedDate: presetRange('90d', today) });
}, 120_000);

afterAll(async () => {
  // The offline tests have stopped it already.
  await api?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('letterdesk contacts and orders with the service filters', () => {
  it('a value that is not kept asks the service while it answers', async () => {
    const live = await cli(['contacts', '--last-mailed-date', `${presetRange('90d', localDay(new Date())).startDate}..`, '--limit', '10000', '--json']);
    expect(live.code, live.stderr).toBe(0);
    expect(ids(live.stdout)).toEqual(expected.march);
    expect(expected.march!.length).toBeGreaterThan(0);
  });

  it('status --json lists each kept filter with its members and when it was read', async () => {
    const status = await cli(['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const kept = (JSON.parse(status.stdout) as { keptFilters: { resource: string; param: string; value: string; members: number | null; readAt: string | null }[] }).keptFilters;
    expect(kept).toHaveLength(13);
    const failed = kept.find((k) => k.param === 'addressStatus' && k.value === 'Failed')!;
    expect(failed).toMatchObject({ resource: 'contacts', members: expected.failed!.length });
    expect(Date.parse(failed.readAt ?? '')).toBeGreaterThan(0);
    const text = await cli(['status']);
    expect(text.stdout).toMatch(/kept Address status \(contacts\): Failed \d+, Verified \d+, Corrected \d+/);
  });

  it('offline, kept values answer from the last sync', async () => {
    await api.close();
    const failed = await cli(['contacts', '--address-status', 'Failed', '--limit', '10000', '--json']);
    expect(failed.code, failed.stderr).toBe(0);
    expect(ids(failed.stdout)).toEqual(expected.failed);
    const recent = await cli(['contacts', '--address-status', 'Failed', '--last-mailed-date', '30d', '--limit', '10000', '--json']);
    expect(ids(recent.stdout)).toEqual(expected.failedRecent);
    const orders = await cli(['orders', '--order-status', 'ON_HOLD', '--payment-status', 'PAYMENT_FAILED', '--limit', '10000', '--json']);
    expect(orders.code, orders.stderr).toBe(0);
    expect(ids(orders.stdout)).toEqual(expected.onHoldUnpaid);
    expect(expected.onHoldUnpaid!.length).toBeGreaterThan(0);
  });

  it('offline, a value that is not kept is a network error that names it', async () => {
    const other = await cli(['orders', '--order-status', 'AWAITING_REVIEW', '--json']);
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/--order-status AWAITING_REVIEW: not kept offline, so the service was asked, and /);
    const bad = await cli(['contacts', '--last-mailed-date', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/7d, 30d, 90d, this-year/);
  });
});
