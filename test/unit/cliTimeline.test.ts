/**
 * The observed history through the command line, against the sample API's own record of what it
 * changed: two syncs with the sample API's clock advanced between them (statuses progress,
 * recipients get delivered, addresses change). `letterdesk timeline` must print exactly the
 * changes the sample API made to a record, and `orders --delivered-since` exactly the orders with
 * a recipient delivered in between; both work offline, after the sample API stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../shared/contract.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import type { SampleClockAdvance } from '../../electron/main/sampleApi/dataset.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

let dir: string;
let api: SampleApi;
let advance: SampleClockAdvance;
const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, tokens);

/** A change as both sides can state it: field, recipient, from, to. */
const key = (o: { field: string; recipientId?: string | undefined; from: unknown; to: unknown }) => JSON.stringify([o.field, o.recipientId ?? '', o.from, o.to]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-timeline-'));
  api = await startSampleApi({ contacts: 600, orders: 300, seed: 12, clock: new Date('2026-11-01T00:00:00.000Z') });
  expect((await cli(['profile', 'add', 'History', '--base-url', api.baseUrl, '--page-size', '500'])).code).toBe(0);
  const first = await cli(['sync']);
  expect(first.code, first.stderr).toBe(0);
  advance = api.dataset.advanceClock(20);
  const second = await cli(['sync']);
  expect(second.code, second.stderr).toBe(0);
  await api.close();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('letterdesk timeline and orders --delivered-since, offline', () => {
  it('prints the changes the sample API made to a record, each between the two reads', async () => {
    const byRecord = (list: SampleClockAdvance['orders'] | SampleClockAdvance['contacts']) => {
      const out = new Map<string, string[]>();
      for (const c of list) out.set(c.id, [...(out.get(c.id) ?? []), key(c)]);
      return out;
    };
    const orders = byRecord(advance.orders);
    const contacts = byRecord(advance.contacts);
    // The advance moved every kind of change the history keeps.
    expect(advance.orders.some((c) => c.field === 'status')).toBe(true);
    expect(advance.orders.some((c) => c.field === 'isDelivered')).toBe(true);
    expect(contacts.size).toBeGreaterThan(0);
    const picks: ['orders' | 'contacts', string, string[]][] = [
      ...[...orders].filter(([, c]) => c.some((k) => k.includes('isDelivered'))).slice(0, 2).map(([id, c]) => ['orders', id, c] as ['orders', string, string[]]),
      ...[...orders].filter(([, c]) => c.some((k) => k.startsWith('["status"'))).slice(0, 1).map(([id, c]) => ['orders', id, c] as ['orders', string, string[]]),
      ...[...contacts].slice(0, 2).map(([id, c]) => ['contacts', id, c] as ['contacts', string, string[]]),
    ];
    let span: { after: string; atOrBefore: string } | null = null;
    for (const [resource, id, changes] of picks) {
      const run = await cli(['timeline', resource, id, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const printed = JSON.parse(run.stdout) as Observation[];
      expect(printed.map(key).sort(), `${resource} ${id}`).toEqual([...changes].sort());
      // One pair of reads: every change of the second sync has the same span, after the first read began.
      for (const o of printed) {
        span ??= { after: o.after, atOrBefore: o.atOrBefore };
        if (resource === 'orders') expect({ after: o.after, atOrBefore: o.atOrBefore }).toEqual(span);
        expect(o.after < o.atOrBefore).toBe(true);
      }
    }
    // Unchanged records have no history; a record id the cache never held neither.
    const untouched = (await cli(['timeline', 'orders', '1', '--json']));
    expect(untouched.code, untouched.stderr).toBe(0);
    expect(JSON.parse(untouched.stdout)).toEqual([]);
    const text = await cli(['timeline', 'orders', picks[0]![1]]);
    expect(text.stdout).toMatch(/isDelivered\s+\d+\s+false\s+true/);
  }, 120_000);

  it('lists exactly the orders with a recipient delivered between the syncs', async () => {
    const delivered = [...new Set(advance.orders.filter((c) => c.field === 'isDelivered' && c.to === true).map((c) => c.id))].sort();
    expect(delivered.length).toBeGreaterThan(0);
    const run = await cli(['orders', '--delivered-since', '7d', '--limit', '10000', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { id: string }[]).map((o) => o.id).sort()).toEqual(delivered);
    // A day after the second sync finds none; a bad value is refused with what it takes.
    const tomorrow = new Date(Date.now() + 2 * 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
    expect(JSON.parse((await cli(['orders', '--delivered-since', day, '--json'])).stdout)).toEqual([]);
    const bad = await cli(['orders', '--delivered-since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/7d, 30d or a day written YYYY-MM-DD/);
    const wrong = await cli(['timeline', 'campaigns', '1']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/letterdesk timeline contacts <id>/);
  }, 60_000);
});
