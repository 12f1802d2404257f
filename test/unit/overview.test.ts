/**
 * The overview (`letterdesk overview --json`, cache/read/overview.ts) against the sample API's own
 * data: contacts per state by USPS code (a few contacts given states outside the US, in other
 * spellings or none), orders per status with the sample API's names, the recipients and their
 * deliveries, and the campaigns; offline, after the sample API stops. And the USPS codes of every
 * state name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Overview } from '../../shared/contract.ts';
import { USPS_STATE_CODES, uspsStateCode } from '../../shared/usStates.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { sampleStatusName } from '../../electron/main/sampleApi/timeline.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

/** The USPS codes of the states the sample data uses, written out here (Publication 28, Appendix B). */
const CODES: Record<string, string> = {
  'New York': 'NY', California: 'CA', Illinois: 'IL', Texas: 'TX', Arizona: 'AZ', Pennsylvania: 'PA', Florida: 'FL', Ohio: 'OH',
  Indiana: 'IN', 'North Carolina': 'NC', Washington: 'WA', Colorado: 'CO', Massachusetts: 'MA', Tennessee: 'TN', Michigan: 'MI',
  Oregon: 'OR', Nevada: 'NV', Kentucky: 'KY', Maryland: 'MD', Wisconsin: 'WI', 'New Mexico': 'NM', Missouri: 'MO', Georgia: 'GA',
  Nebraska: 'NE', Minnesota: 'MN', Louisiana: 'LA', Utah: 'UT', Alabama: 'AL', Virginia: 'VA', Idaho: 'ID', Iowa: 'IA', Alaska: 'AK',
  Hawaii: 'HI', Vermont: 'VT', Maine: 'ME', 'South Carolina': 'SC',
  // The contacts edited below.
  il: 'IL', ' new  york ': 'NY', Ontario: 'other', '': 'other',
};

let dir: string;
let api: SampleApi;
let printed: Overview;
const expected = { byState: {} as Record<string, number>, byStatus: new Map<number, number>(), recipients: 0, delivered: 0, campaigns: new Map<string, { recipients: number; delivered: number }>() };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-overview-'));
  api = await startSampleApi({ contacts: 500, orders: 150, seed: 23 });
  const ids = [...api.dataset.contactIds()];
  for (const [i, state] of [[0, 'il'], [1, ' new  york '], [2, 'Ontario'], [3, '']] as const) api.dataset.updateContact(ids[i]!, { state });
  for (const c of api.dataset.contacts()) {
    const code = CODES[c.state];
    if (code === undefined) throw new Error(`the test has no code for the sample state "${c.state}"`);
    expected.byState[code] = (expected.byState[code] ?? 0) + 1;
  }
  for (const o of api.dataset.orders()) {
    expected.byStatus.set(o.status, (expected.byStatus.get(o.status) ?? 0) + 1);
    const delivered = o.contacts.filter((r) => r.isDelivered).length;
    expected.recipients += o.contacts.length;
    expected.delivered += delivered;
    const c = expected.campaigns.get(o.campaign.id) ?? { recipients: 0, delivered: 0 };
    expected.campaigns.set(o.campaign.id, { recipients: c.recipients + o.contacts.length, delivered: c.delivered + delivered });
  }
  const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
  const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, tokens);
  expect((await cli(['profile', 'add', 'Overview', '--base-url', api.baseUrl, '--page-size', '500'])).code).toBe(0);
  const synced = await cli(['sync']);
  expect(synced.code, synced.stderr).toBe(0);
  await api.close();
  const run = await cli(['overview', '--json']);
  expect(run.code, run.stderr).toBe(0);
  printed = JSON.parse(run.stdout) as Overview;
  const text = await cli(['overview']);
  expect(text.stdout).toMatch(/500 contacts, 150 orders/);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('letterdesk overview --json, offline', () => {
  it('counts the contacts per state by USPS code, other spellings too, and the rest as other', () => {
    expect(printed.contacts.total).toBe(500);
    expect(printed.contacts.byState).toEqual(expected.byState);
    expect(printed.contacts.byState.other).toBe(2);
  });

  it('counts the orders per status, named as the sample API names them, and the recipients', () => {
    expect(printed.orders.total).toBe(150);
    const byCode = new Map(printed.orders.byStatus.map((s) => [s.code, s]));
    expect(new Map([...byCode].map(([code, s]) => [code, s.count]))).toEqual(expected.byStatus);
    // The names come from the kept order-status reads of the sync (the sample API's vocabulary).
    for (const [code, s] of byCode) expect(s.name?.toUpperCase().replace(/ /g, '_'), String(code)).toBe(sampleStatusName(code ?? -1));
    expect(printed.recipients).toEqual({ total: expected.recipients, delivered: expected.delivered });
  });

  it('lists every campaign with its recipients and deliveries, most delivered first', () => {
    expect(new Map(printed.campaigns.map((c) => [c.id, { recipients: c.recipients, delivered: c.delivered }]))).toEqual(expected.campaigns);
    const delivered = printed.campaigns.map((c) => c.delivered);
    expect(delivered).toEqual([...delivered].sort((a, b) => b - a));
    // No sync observed a delivery yet: one sync only.
    expect(printed.deliveriesByDay).toEqual([]);
  });
});

describe('letterdesk overview --json keys', () => {
  it('keeps the keys the issue fixes and adds the Overview page’s', () => {
    expect(Object.keys(printed).sort()).toEqual(['campaigns', 'computedAt', 'contacts', 'deliveriesByDay', 'kept', 'orders', 'recipients', 'templates']);
    expect(Object.keys(printed.contacts).sort()).toEqual(['byState', 'invalid', 'stateValues', 'total']);
    expect(Object.keys(printed.orders).sort()).toEqual(['byEnvelope', 'byPostage', 'byProductType', 'byStatus', 'firstSeenByDay', 'invalid', 'total']);
    expect(Object.keys(printed.orders.byStatus[0]!).sort()).toEqual(['code', 'count', 'name']);
    expect(Object.keys(printed.recipients).sort()).toEqual(['delivered', 'total']);
    expect(Object.keys(printed.campaigns[0]!).sort()).toEqual(['delivered', 'id', 'name', 'recipients']);
    expect(Object.keys(printed.templates[0]!).sort()).toEqual(['id', 'orders', 'recipients', 'title']);
    expect(printed.kept.length).toBeGreaterThan(0);
    expect(Object.keys(printed.kept[0]!).sort()).toEqual(['members', 'param', 'readAt', 'resource', 'value']);
    expect(printed.computedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('uspsStateCode', () => {
  it('gives the code of every state, DC and territory by name, and of each code itself', () => {
    expect(new Set(Object.values(USPS_STATE_CODES)).size).toBe(56);
    for (const [name, code] of Object.entries(USPS_STATE_CODES)) {
      expect(uspsStateCode(name)).toBe(code);
      expect(uspsStateCode(name.toUpperCase())).toBe(code);
      expect(uspsStateCode(code.toLowerCase())).toBe(code);
    }
    for (const other of ['Ontario', 'Bavaria', '', null, 'XX', 'New']) expect(uspsStateCode(other)).toBeNull();
  });
});
