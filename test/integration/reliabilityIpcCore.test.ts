/**
 * the IPC fuzz of test/unit/reliabilityIpc.test.ts against the *real* handler table over a
 * real core (temp data dir, embedded sample API over loopback HTTP, real SQLite cache synced first).
 *
 *  - generated malformed / wrong-typed / non-plain inputs give VALIDATION for every call, with no
 *    unhandled rejection and no prototype pollution;
 *  - valid but hostile queries (FTS operators, quotes, SQL-looking and binary text, huge ids, every
 *    sort) reach the real cache and answer with a value (or NOT_FOUND for details), never INTERNAL.
 *
 * Seed printed at start; replay with LETTERDESK_FUZZ_SEED=<seed>.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_NAMES, type CallName, type EventName, type EventPayload, type Handlers } from '../../shared/contract.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall, isPlainData } from '../../electron/main/ipc/dispatch.ts';
import { describeInput, expectNoPollution, expectValidationError, isInvalid, malformedFor, notPlainData, RUNS, SEED, watchProcess } from '../reliability/fuzz.ts';

describe('IPC dispatch against generated inputs (real handler table over a real core)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-ipc-'));
  let core: Core;
  let handlers: Handlers;

  beforeAll(async () => {
    core = createCore({
      dataDir: join(root, 'data'),
      version: 'test',
      logFile: null,
      platform: {
        showSaveDialog: async (defaultPath) => join(root, defaultPath),
        showItemInFolder: () => {},
        openExternal: async () => {},
        setProgress: () => {},
      },
      emit: <E extends EventName>(_event: E, _payload: EventPayload<E>) => {},
      sample: { contacts: 300, orders: 80, seed: 3 },
      keychain: 'session-only',
      autoSyncAfterMinutes: 0,
    });
    handlers = createHandlers(core);
    const made = await dispatchCall(handlers, 'createSampleProfile', {});
    expect(made).toMatchObject({ ok: true });
    const started = await dispatchCall(handlers, 'startSync', { resources: ['contacts', 'orders'] });
    expect(started, JSON.stringify(started)).toMatchObject({ ok: true });
    for (let i = 0; i < 300 && core.syncs.running; i++) await new Promise((ok) => setTimeout(ok, 100));
    expect(core.syncs.running).toBe(false);
  });
  afterAll(async () => {
    await core?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('every call refuses generated malformed inputs with VALIDATION; no unhandled rejection, no pollution', async () => {
    const watch = watchProcess();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...CALL_NAMES).chain((name) => fc.tuple(fc.constant(name), fc.oneof(malformedFor(name), notPlainData(name)))),
          async ([name, input]) => {
            // Invalid per the contract, or not plain data (which dispatch refuses before the contract).
            fc.pre(isInvalid(name, input) || !isPlainData(input));
            const result = await dispatchCall(handlers, name, input);
            expectValidationError(result, `${name}(${describeInput(input)})`);
          },
        ),
        { seed: SEED, numRuns: RUNS * 4, verbose: 1 },
      );
      await new Promise((ok) => setTimeout(ok, 50));
      expect(watch.unhandled).toEqual([]);
      expectNoPollution();
    } finally {
      watch.stop();
    }
  });

  const hostileText = fc.oneof(
    fc.constantFrom('"', '""', '*', 'NEAR(a b)', 'a OR b', 'a AND', 'NOT', '(', ')', '^', 'col:val', "'; DROP TABLE contacts; --", '\u0000', '%', '_', '\\', '-', '+', '(555) 123-4567', 'Zoë Ångström'),
    fc.string({ maxLength: 200, unit: 'binary' }),
  );
  const contactQuery = fc.record(
    {
      search: hostileText,
      labels: fc.array(fc.string({ maxLength: 64 }), { maxLength: 5 }),
      states: fc.array(fc.string({ maxLength: 64 }), { maxLength: 5 }),
      verified: fc.uniqueArray(fc.constantFrom('yes', 'no', 'unknown'), { maxLength: 3 }),
      liveMode: fc.uniqueArray(fc.constantFrom('live', 'test'), { maxLength: 2 }),
      createdFrom: fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      sort: fc.record({ column: fc.constantFrom('name', 'company', 'email', 'phone', 'city', 'state', 'zip', 'labels', 'verified', 'createdAt'), direction: fc.constantFrom('asc', 'desc') }),
    },
    { requiredKeys: [] },
  );
  const orderQuery = fc.record(
    {
      search: hostileText,
      statuses: fc.array(fc.integer(), { maxLength: 5 }),
      productTypes: fc.array(fc.string({ maxLength: 128 }), { maxLength: 5 }),
      delivered: fc.uniqueArray(fc.constantFrom('all', 'some', 'none'), { maxLength: 3 }),
      contactId: fc.stringMatching(/^\d{1,40}$/),
      sort: fc.record({ column: fc.constantFrom('id', 'campaign', 'product', 'template', 'status', 'recipients', 'delivered', 'liveMode', 'scheduleType', 'deliveryDate'), direction: fc.constantFrom('asc', 'desc') }),
    },
    { requiredKeys: [] },
  );
  const window = fc.record({ offset: fc.oneof(fc.nat(400), fc.constant(100_000_000)), limit: fc.integer({ min: 1, max: 1000 }) });

  it('valid but hostile queries (FTS syntax, SQL-looking text, binary strings, huge ids) answer with values, never INTERNAL', async () => {
    const watch = watchProcess();
    const codes = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.tuple(fc.constant<CallName>('queryContacts'), fc.record({ query: contactQuery, window })),
            fc.tuple(fc.constant<CallName>('countContacts'), fc.record({ query: contactQuery })),
            fc.tuple(fc.constant<CallName>('contactFacets'), fc.record({ query: contactQuery })),
            fc.tuple(fc.constant<CallName>('queryOrders'), fc.record({ query: orderQuery, window })),
            fc.tuple(fc.constant<CallName>('countOrders'), fc.record({ query: orderQuery })),
            fc.tuple(fc.constant<CallName>('orderFacets'), fc.record({ query: orderQuery })),
            fc.tuple(fc.constant<CallName>('getContact'), fc.record({ id: fc.stringMatching(/^\d{1,40}$/) })),
            fc.tuple(fc.constant<CallName>('getOrder'), fc.record({ id: fc.stringMatching(/^\d{1,40}$/) })),
          ),
          async ([name, input]) => {
            fc.pre(!isInvalid(name, input));
            const result = await dispatchCall(handlers, name, input);
            if (!result.ok) {
              codes.add(result.error.code);
              expect(ERROR_CODES).toContain(result.error.code);
              expect(result.error.code, `${name}(${describeInput(input)}): ${result.error.message}`).not.toBe('INTERNAL');
              if (name !== 'getContact' && name !== 'getOrder') expect(result.error.code, `${name}(${describeInput(input)}): ${result.error.message}`).toBe('VALIDATION');
            }
          },
        ),
        { seed: SEED, numRuns: RUNS * 4, verbose: 1 },
      );
      expect(watch.unhandled).toEqual([]);
      expectNoPollution();
    } finally {
      watch.stop();
    }
  });
});
