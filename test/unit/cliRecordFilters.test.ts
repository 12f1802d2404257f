/**
 * `--invalid-only` and `--changed` on `contacts`, `orders` and `export`, as a user runs them: the
 * real CLI in child processes, syncing twice from the sample API over loopback HTTP (in this
 * process, so the test edits the service's records between the syncs: one contact added, one
 * changed, one removed, one order made to break §2.3).
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
const ids = (stdout: string): string[] => (JSON.parse(stdout) as { id: string }[]).map((r) => r.id).sort();

let added: string;
let changed: string;
let removed: string;
let invalidOrder: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-filters-'));
  api = await startSampleApi({ contacts: 300, orders: 60, seed: 5 });
  expect((await cli(['profile', 'add', 'Shop', '--base-url', api.baseUrl, '--page-size', '100'])).code).toBe(0);
  const first = await cli(['sync']);
  expect(first.code, first.stderr).toBe(0);
  const contactIds = [...api.dataset.contactIds()];
  changed = contactIds[10] as string;
  removed = contactIds[20] as string;
  invalidOrder = [...api.dataset.orderIds()][3] as string;
  api.dataset.updateContact(changed, { city: 'Zanesville' });
  api.dataset.deleteContact(removed);
  added = api.dataset.addContacts(1)[0] as string;
  api.dataset.updateOrder(invalidOrder, { status: 'shipped' });
  const second = await cli(['sync']);
  expect(second.code, second.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('letterdesk --invalid-only and --changed', () => {
  it('contacts --changed lists the records of each kind of change, the removed one from its kept copy', async () => {
    const each = await Promise.all(['added', 'changed', 'removed', 'added,removed'].map((k) => cli(['contacts', '--changed', k, '--json'])));
    for (const r of each) expect(r.code, r.stderr).toBe(0);
    expect(each.map((r) => ids(r.stdout))).toEqual([[added], [changed], [removed], [added, removed].sort()]);
    expect((JSON.parse(each[2]!.stdout) as { id: string; city: string }[])[0]).toMatchObject({ id: removed });
  });

  it('orders --invalid-only lists the order kept as invalid; with --changed it is the changed one', async () => {
    const invalid = await cli(['orders', '--invalid-only', '--json']);
    expect(invalid.code, invalid.stderr).toBe(0);
    expect(ids(invalid.stdout)).toEqual([invalidOrder]);
    expect((JSON.parse(invalid.stdout) as { status: unknown }[])[0]?.status).toBe('shipped');
    const both = await cli(['orders', '--invalid-only', '--changed', 'changed', '--json']);
    expect(ids(both.stdout)).toEqual([invalidOrder]);
    expect(ids((await cli(['contacts', '--invalid-only', '--json'])).stdout)).toEqual([]);
  });

  it('export writes the removed and added contacts; a wrong kind of change is a usage error', async () => {
    const out = join(dir, 'changes.csv');
    const exp = await cli(['export', 'contacts', '--out', out, '--changed', 'removed,added', '--columns', 'id,city']);
    expect(exp.code, exp.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8')) as string[][];
    expect(rows.slice(1).map((r) => r[0]).sort()).toEqual([added, removed].sort());
    const orders = join(dir, 'invalid.csv');
    expect((await cli(['export', 'orders', '--out', orders, '--invalid-only', '--columns', 'id'])).code).toBe(0);
    expect((parse(readFileSync(orders, 'utf8')) as string[][]).slice(1)).toEqual([[invalidOrder]]);

    const wrong = await cli(['contacts', '--changed', 'added,gone']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/added, changed, removed \(not gone\)/);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
  });
});
