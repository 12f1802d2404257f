/**
 * Shared pieces of the IPC fuzz tests (test/unit/reliabilityIpc.test.ts and
 * test/integration/reliabilityIpcCore.test.ts): the seed, one valid input per call, and the
 * fast-check arbitraries that turn it into malformed, wrong-typed, deep, oversized and non-plain inputs.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { calls, type CallName } from '../../shared/contract.ts';
import type { dispatchCall } from '../../electron/main/ipc/dispatch.ts';

export const SEED = process.env.LETTERDESK_FUZZ_SEED ? Number(process.env.LETTERDESK_FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
export const RUNS = process.env.LETTERDESK_FUZZ_RUNS ? Number(process.env.LETTERDESK_FUZZ_RUNS) : 60;
console.log(`IPC fuzz: seed ${SEED} (replay with LETTERDESK_FUZZ_SEED=${SEED}), ${RUNS} runs per property`);

/** One known-valid input per call: the base the mutations start from. */
export const VALID: { [N in CallName]: unknown } = {
  getAppInfo: {},
  listProfiles: {},
  saveProfile: { name: 'Work', environment: 'production', baseUrl: 'https://api.example.com/api/v1', accountId: null, pageSize: 500, statusNames: { '3': { name: 'Printed', colour: 'blue' } } },
  removeProfile: { profileId: 'p-1', purgeCache: false },
  useProfile: { profileId: 'p-1' },
  createSampleProfile: {},
  getCredentialStatus: { profileId: 'p-1' },
  setCredentials: { profileId: 'p-1', accessToken: 'tok', refreshToken: null, sessionOnly: true },
  clearCredentials: { profileId: 'p-1' },
  startSync: { resources: ['contacts'] },
  cancelSync: {},
  getSyncStatus: {},
  learnedStatusNames: {},
  keptSettings: { profileId: 'p-1' },
  setKeptValues: { profileId: 'p-1', resource: 'orders', param: 'createdBy', values: ['15'] },
  clearCacheAndResync: {},
  testConnection: { baseUrl: 'https://api.example.com/api/v1', accountId: null, tokens: { accessToken: 'tok', refreshToken: 'ref' } },
  listViews: { resource: 'contacts' },
  createView: { resource: 'contacts', name: 'Failed addresses', serviceQuery: { addressStatus: ['Failed'] }, settings: { query: { search: 'ann' } }, refreshAfterSync: true },
  updateView: { id: 'v-1', name: 'Renamed', settings: {} },
  duplicateView: { id: 'v-1' },
  deleteView: { id: 'v-1' },
  refreshViews: { ids: ['v-1'] },
  viewNewerIds: { id: 'v-1' },
  previewServiceQuery: { resource: 'orders', params: { paymentStatus: ['Unpaid'] } },
  queryContacts: { query: { search: 'ann', changed: ['added', 'removed'], sort: { column: 'name', direction: 'asc' } }, window: { offset: 0, limit: 50 } },
  countContacts: { query: { states: ['NY'] } },
  contactFacets: { query: {} },
  getContact: { id: '10000001' },
  queryOrders: { query: { statuses: [1], delivered: ['all'], invalidOnly: true, templateId: '6001' }, window: { offset: 0, limit: 50 } },
  countOrders: { query: {} },
  orderFacets: { query: { liveMode: ['live'] } },
  getOrder: { id: '50000001' },
  queryTemplates: { query: { search: 'letter', sort: { column: 'orders', direction: 'desc' } }, window: { offset: 0, limit: 50 } },
  getTemplate: { id: '6001' },
  queryCampaigns: { query: { sort: { column: 'deliveredShare', direction: 'asc' } }, window: { offset: 0, limit: 50 } },
  getCampaign: { id: '800001' },
  overview: {},
  duplicateGroups: { level: 'household', offset: 0, limit: 50 },
  exportColumns: { kind: 'contacts' },
  exportFile: { kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } },
  cancelExport: { exportId: 'x' },
  showInFolder: { path: '/tmp/x.csv' },
  labelAddresses: { source: 'contacts', query: {} },
  savePrintPdf: { what: 'labels' },
  saveChartImage: { fileName: 'orders-by-status', format: 'svg', data: '<svg></svg>' },
  openExternal: { url: 'https://example.com' },
};

export const isInvalid = (name: CallName, input: unknown): boolean => !calls[name].input.safeParse(input).success;

/** Values of every JSON-ish and non-JSON type, including ones structured clone can carry (Map, Date, typed arrays). */
export const anyValue = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

/** Keys that attack prototypes or look like fields. */
export const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', ''),
  fc.string({ maxLength: 20 }),
);

export function withOwnKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** Deeply nested arrays/objects (depth up to 5,000). */
export const deepValue = fc.tuple(fc.integer({ min: 50, max: 5000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** A mutation of a call's valid input that the contract must refuse. */
export function malformedFor(name: CallName): fc.Arbitrary<unknown> {
  const base = VALID[name] as Record<string, unknown>;
  const keys = Object.keys(base);
  const key = keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('x');
  return fc.oneof(
    // the whole input replaced by anything (objects without the right fields, primitives, Maps…)
    anyValue,
    // one field given a value of another type
    fc.tuple(key, anyValue).map(([k, v]) => ({ ...base, [k]: v })),
    // one field nested deeply
    fc.tuple(key, deepValue).map(([k, v]) => ({ ...base, [k]: v })),
    // an unknown (possibly prototype-named) own key next to the valid ones
    fc.tuple(hostileKey, anyValue).map(([k, v]) => withOwnKey(base, k, v)),
    // a required field missing
    key.map((k) => {
      const copy = { ...base };
      delete copy[k];
      return copy;
    }),
    // one field oversized: a long string, a long array
    fc.tuple(key, fc.integer({ min: 4097, max: 20_000 }), fc.boolean()).map(([k, n, asArray]) => ({ ...base, [k]: asArray ? Array.from({ length: n }, () => 'x') : 'x'.repeat(n) })),
  );
}

/** Inputs that are not plain data at all (Electron's structured clone can deliver some of these; the harness all). */
export function notPlainData(name: CallName): fc.Arbitrary<unknown> {
  const base = VALID[name] as Record<string, unknown>;
  return fc.constantFrom<() => unknown>(
    () => {
      const cyclic: Record<string, unknown> = { ...base };
      cyclic.self = cyclic;
      return cyclic;
    },
    () => ({ ...base, big: 10n }),
    () => Object.defineProperty({ ...base }, 'boom', { enumerable: true, get: () => { throw new Error('getter'); } }),
    () => new Map(Object.entries(base)),
    () => new Date(0),
    () => Object.assign(new (class Impostor {})(), base),
    () => [base],
    () => new Uint8Array(8),
    () => ({ ...base, when: new Date(0) }),
  ).map((make) => make());
}

export interface Observed {
  unhandled: unknown[];
}

export function watchProcess(): Observed & { stop(): void } {
  const observed: Observed = { unhandled: [] };
  const onUnhandled = (reason: unknown) => observed.unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  return { ...observed, unhandled: observed.unhandled, stop: () => process.off('unhandledRejection', onUnhandled) };
}

export function expectNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin', 'x', 'a', 'p']) expect(probe[key], `Object.prototype.${key}`).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_KEYS);
}
export const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

export function expectValidationError(result: Awaited<ReturnType<typeof dispatchCall>>, context: string): void {
  expect(result.ok, context).toBe(false);
  if (result.ok) return;
  expect(result.error.code, `${context}: ${result.error.message}`).toBe('VALIDATION');
  expect(typeof result.error.message).toBe('string');
  expect(result.error.message.length, `${context}: message of ${result.error.message.length} characters`).toBeLessThanOrEqual(2000);
}

export const describeInput = (input: unknown): string => {
  try {
    const s = JSON.stringify(input);
    return s === undefined ? String(input) : s.slice(0, 300);
  } catch {
    return Object.prototype.toString.call(input);
  }
};

