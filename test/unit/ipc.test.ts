import { afterEach, describe, expect, it, vi } from 'vitest';
import { CALL_NAMES, EVENT_NAMES, MAX_CHART_IMAGE_CHARS, callChannel, eventChannel, type Handlers } from '../../shared/contract.ts';
import { dispatchCall, MAX_INPUT_CHARS } from '../../electron/main/ipc/dispatch.ts';
import { isTrustedSender } from '../../electron/main/ipc/electronTransport.ts';
import { LetterdeskError } from '../../shared/errors.ts';
import { describeIssues } from '../../shared/zodIssues.ts';
import { z } from 'zod';

// The Electron binary cannot exist on the build machines, so the preload is loaded against a
// stand-in `electron` module that records what it exposes and sends.
const exposed: Record<string, unknown> = {};
const invoked: { channel: string; input: unknown }[] = [];
const listeners = new Map<string, ((event: unknown, payload: unknown) => void)[]>();
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
  ipcRenderer: {
    invoke: async (channel: string, input: unknown) => {
      invoked.push({ channel, input });
      return { ok: true, value: null };
    },
    on: (channel: string, listener: (event: unknown, payload: unknown) => void) => listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
    removeListener: (channel: string, listener: unknown) => listeners.set(channel, (listeners.get(channel) ?? []).filter((l) => l !== listener)),
  },
}));

describe('preload', () => {
  it('exposes exactly the contract calls plus on(), each sending on its own channel', async () => {
    await import('../../electron/preload/index.ts');
    const api = exposed.letterdesk as Record<string, (input?: unknown) => Promise<unknown>>;
    expect(Object.keys(exposed)).toEqual(['letterdesk']);
    expect(Object.keys(api).sort()).toEqual([...CALL_NAMES, 'on'].sort());
    expect(Object.isFrozen(api)).toBe(true);
    for (const name of CALL_NAMES) await api[name]!({ probe: name });
    expect(invoked.map((i) => i.channel)).toEqual(CALL_NAMES.map(callChannel));
    expect(invoked.every((i, n) => (i.input as { probe: string }).probe === CALL_NAMES[n])).toBe(true);
  });
  it('delivers event payloads without the Electron event, and unsubscribes', async () => {
    const api = exposed.letterdesk as { on: (e: string, l: (p: unknown) => void) => () => void };
    const got: unknown[] = [];
    const off = api.on('syncProgress', (p) => got.push(p));
    const channel = eventChannel('syncProgress');
    listeners.get(channel)?.forEach((l) => l({ sender: 'secret' }, { rowsDone: 5 }));
    off();
    listeners.get(channel)?.forEach((l) => l({ sender: 'secret' }, { rowsDone: 6 }));
    expect(got).toEqual([{ rowsDone: 5 }]);
    expect(() => api.on('not-an-event', () => {})).toThrow(/Unknown Letterdesk event/);
    expect(EVENT_NAMES).toContain('syncProgress');
  });
});

describe('dispatchCall', () => {
  const seen: unknown[] = [];
  const handlers = new Proxy({} as Handlers, {
    get: (_t, name) => async (input: unknown) => {
      seen.push(input);
      if (name === 'getContact') throw new LetterdeskError('NOT_FOUND', 'No contact 5 in the cache.');
      if (name === 'getOrder') throw new Error('boom');
      return { echoed: input };
    },
  });
  afterEach(() => void (seen.length = 0));

  it('passes validated input to the handler and wraps the value', async () => {
    const result = await dispatchCall(handlers, 'countContacts', { query: { search: 'ann' } });
    expect(result).toEqual({ ok: true, value: { echoed: { query: { search: 'ann' } } } });
  });
  it.each([
    ['unknown call', 'dropTables', {}],
    ['inherited name', 'toString', {}],
    ['missing field', 'queryContacts', { query: {} }],
    ['wrong type', 'queryContacts', { query: {}, window: { offset: '0', limit: 10 } }],
    ['negative window', 'queryContacts', { query: {}, window: { offset: -1, limit: 10 } }],
    ['unknown key', 'countContacts', { query: {}, extra: 1 }],
    ['unknown sort column', 'countContacts', { query: { sort: { column: 'password', direction: 'asc' } } }],
    ['not an object', 'getAppInfo', 'hello'],
    ['null', 'listProfiles', null],
    ['oversized', 'countContacts', { query: { search: 'x'.repeat(MAX_INPUT_CHARS + 1) } }],
    ['an oversized chart image', 'saveChartImage', { fileName: 'map', format: 'png', data: 'A'.repeat(MAX_CHART_IMAGE_CHARS + 1) }],
    ['bad profile id', 'useProfile', { profileId: '../../etc' }],
    ['empty record id', 'getContact', { id: '' }],
    ['record id with a control character', 'getOrder', { id: '1\u0000' }],
    ['oversized record id', 'getContact', { id: '1'.repeat(1025) }],
  ])('rejects %s with a VALIDATION error and never calls the handler', async (_label, name, input) => {
    const result = await dispatchCall(handlers, name, input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('VALIDATION');
      expect(result.error.message.length).toBeGreaterThan(10);
    }
    expect(seen).toEqual([]);
  });
  it('takes a chart image of a few megabytes, which is more than any other call may send', async () => {
    const data = 'A'.repeat(4 * MAX_INPUT_CHARS);
    expect(await dispatchCall(handlers, 'saveChartImage', { fileName: 'map', format: 'png', data })).toMatchObject({ ok: true });
    expect(seen).toHaveLength(1);
  });
  it('says where in the input each problem is (shared/zodIssues.ts): the first five, each cut short', async () => {
    const wrong = await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: '0', limit: 10 } });
    expect(wrong).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^Invalid input for queryContacts: window\.offset: /) } });
    const many = z.object(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, z.number()]))).safeParse({});
    expect(many.success).toBe(false);
    if (!many.success) expect(describeIssues(many.error).split('; ').map((part) => part.split(':')[0])).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
    const long = z.object({ a: z.literal('x'.repeat(500)) }).safeParse({ a: 'y' });
    expect(long.success).toBe(false);
    if (!long.success) expect(describeIssues(long.error)).toMatch(/^a: .{197}…$/);
    expect(describeIssues({ issues: [{ path: [], message: 'Expected an object' }] })).toBe('input: Expected an object');
  });
  it('rejects input that is not plain data', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const result = await dispatchCall(handlers, 'countContacts', cyclic);
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });
  it('turns handler errors into values: known codes kept, unknown errors INTERNAL and logged', async () => {
    const logged: string[] = [];
    expect(await dispatchCall(handlers, 'getContact', { id: '5' })).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No contact 5 in the cache.' } });
    const internal = await dispatchCall(handlers, 'getOrder', { id: '5' }, (m) => logged.push(m));
    expect(internal).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(logged).toEqual(['call getOrder failed']);
  });
});

describe('sender check', () => {
  const app = 'file:///opt/app/out/renderer/index.html';
  const frame = (url: string, parent: unknown = null) => ({ senderFrame: { url, parent } }) as unknown as Parameters<typeof isTrustedSender>[0];
  it('accepts only the top-level app page', () => {
    expect(isTrustedSender(frame(app), app)).toBe(true);
    expect(isTrustedSender(frame('https://evil.example/'), app)).toBe(false);
    expect(isTrustedSender(frame(app, {}), app)).toBe(false);
    expect(isTrustedSender({ senderFrame: null } as unknown as Parameters<typeof isTrustedSender>[0], app)).toBe(false);
  });
});
