/**
 * One core, two front ends: the command line and the app's handlers, run on the same cache, answer
 * the same. The app syncs the sample data; the CLI (a real child process on the same data
 * directory) then reports the same status, lists the same records in the same order for the same
 * filters, and writes byte-identical CSV files.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, ExportRequest } from '../../shared/contract.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';


const root = mkdtempSync(join(tmpdir(), 'ld-cli-app-'));
const dataDir = join(root, 'data');
/** Where the app's save dialog "chooses" to write the next export. */
let nextSavePath = '';
let core: Core;
let handlers: ReturnType<typeof createHandlers>;

async function call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
  const result = await dispatchCall(handlers, name, input);
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
  return result.value as CallOutput<N>;
}

/** Runs the CLI on the app's data directory; no tokens, no keychain (the sample profile needs none to read). */
const cli = (args: string[]) => runCliProcess(dataDir, root, args);

beforeAll(async () => {
  core = createCore({
    dataDir,
    version: 'test',
    logFile: null,
    platform: { showSaveDialog: async () => nextSavePath, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
    emit: () => {},
    sample: { contacts: 2500, orders: 700, seed: 23 },
    sampleApiThread: 'main',
    keychain: 'session-only',
    autoSyncAfterMinutes: 0,
  });
  handlers = createHandlers(core);
  await call('createSampleProfile', {});
  await call('startSync', { resources: ['contacts', 'orders'] });
  for (let i = 0; i < 1200 && core.syncs.running; i++) await new Promise((ok) => setTimeout(ok, 50));
  const status = await call('getSyncStatus', {});
  expect(status.resources.contacts.rows).toBe(2500);
  expect(status.resources.orders.rows).toBe(700);
}, 120_000);

afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the command line and the app read one cache the same way', () => {
  it('status --json reports the resources the app reports', async () => {
    const [status, app] = await Promise.all([cli(['status', '--json']), call('getSyncStatus', {})]);
    expect(status.code, status.stderr).toBe(0);
    const printed = JSON.parse(status.stdout) as { profile: { id: string }; resources: unknown };
    expect(printed.profile.id).toBe(app.profileId);
    expect(printed.resources).toEqual(app.resources);
  });

  it.each([
    ['contacts', ['--sort', 'city:desc'], { sort: { column: 'city', direction: 'desc' } }],
    ['contacts', ['--search', 'an', '--verified', 'yes'], { search: 'an', verified: ['yes'] }],
    ['orders', [], {}],
    ['orders', ['--sort', 'id', '--status', '1'], { sort: { column: 'id', direction: 'asc' }, statuses: [1] }],
  ] as const)('%s %j --json lists the records of the app’s view, in its order', async (kind, flags, query) => {
    const listed = await cli([kind, ...flags, '--limit', '1000', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const records = JSON.parse(listed.stdout) as { id: string }[];
    const page = kind === 'contacts'
      ? await call('queryContacts', { query: query as CallInput<'queryContacts'>['query'], window: { offset: 0, limit: 1000 } })
      : await call('queryOrders', { query: query as CallInput<'queryOrders'>['query'], window: { offset: 0, limit: 1000 } });
    expect(records.length).toBeGreaterThan(0);
    expect(records.map((r) => r.id)).toEqual(page.rows.map((r) => r.id));
    // Each record exactly as cached (the app's detail holds the same JSON), with what Letterdesk
    // derives under one added key, as the app's row says it.
    const { letterdesk, ...first } = records[0] as { id: string; letterdesk: Record<string, unknown> };
    const detail = kind === 'contacts' ? (await call('getContact', { id: first.id })).contact : (await call('getOrder', { id: first.id })).order;
    expect(first).toEqual(detail);
    const row = page.rows[0] as unknown as Record<string, unknown>;
    if (kind === 'contacts') expect(letterdesk).toEqual({ timesMailed: row.timesMailed, deliveredCount: row.deliveredCount, lastOrderSeenAt: row.lastOrderSeenAt });
    else expect(letterdesk.firstSeenAt).toBe(row.firstSeenAt);
  });

  it('contacts --label A --label B --labels-all lists the app’s view of contacts with both labels', async () => {
    const facets = await call('contactFacets', { query: {} });
    const [a, b] = facets.labels.map((o) => o.value);
    expect(b).toBeDefined();
    const ids = async (flags: string[]) => {
      const listed = await cli(['contacts', '--label', a!, '--label', b!, ...flags, '--limit', '1000', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      return (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id);
    };
    const page = async (labelsMode: 'any' | 'all') => (await call('queryContacts', { query: { labels: [a!, b!], labelsMode }, window: { offset: 0, limit: 1000 } })).rows.map((r) => r.id);
    const all = await ids(['--labels-all']);
    expect(all).toEqual(await page('all'));
    expect(await ids([])).toEqual(await page('any'));
    expect(all.length).toBeLessThan((await page('any')).length);
    expect((await cli(['orders', '--labels-all'])).code).toBe(2);
  });

  it.each([
    ['contacts', ['--search', 'a', '--bom'], { kind: 'contacts', query: { search: 'a' }, columns: null, options: { delimiter: 'comma', bom: true, neutralizeFormulas: true } }],
    ['orders', ['--delimiter', 'semicolon'], { kind: 'orders', query: {}, columns: null, options: { delimiter: 'semicolon', bom: false, neutralizeFormulas: true } }],
    ['recipients', ['--columns', 'orderId,fullName,zip', '--delimiter', 'tab'], { kind: 'recipients', query: {}, columns: ['orderId', 'fullName', 'zip'], options: { delimiter: 'tab', bom: false, neutralizeFormulas: true } }],
  ] as const)('export %s %j writes the same bytes as the app’s export', async (kind, flags, request) => {
    const fromCli = join(root, `cli-${kind}.csv`);
    const exported = await cli(['export', kind, '--out', fromCli, ...flags, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ path: fromCli });
    nextSavePath = join(root, `app-${kind}.csv`);
    const app = await call('exportFile', request as unknown as ExportRequest);
    expect(app.rows).toBe((JSON.parse(exported.stdout) as { rows: number }).rows);
    expect(readFileSync(fromCli).equals(readFileSync(nextSavePath))).toBe(true);
  });
});
