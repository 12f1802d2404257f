/**
 * Bounds a hostile service controls, on the real sync path (`createHttpPageSource` + `runSync` on
 * a real SQLite file) against a loopback server: an answer nested millions of levels deep is
 * refused before it is parsed (in a child process, so a crash could not take the test runner with
 * it), and a server that serves one row a page for a count of millions is refused after the first
 * page instead of being asked millions of times.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRun } from '../../shared/contract.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../electron/main/api/response.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { integrityCheck } from '../reliability/cacheCheck.ts';
import { createDataset } from '../reliability/hostileData.ts';
import { runSyncChild } from '../reliability/runSyncChild.ts';

const EMPTY_PAGE = '{"message":"success","data":{"count":0,"rows":[]}}';

/** A loopback service whose contacts answer `contacts(page, pageSize)`; orders are empty. Counts requests. */
async function startService(contacts: (page: number, pageSize: number) => string): Promise<{ baseUrl: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const isContacts = url.pathname.startsWith('/api/v1/contacts');
    if (isContacts) requests++;
    const body = isContacts ? contacts(Number(url.searchParams.get('page') ?? 0), Number(url.searchParams.get('pageSize') ?? 10)) : EMPTY_PAGE;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

const root = mkdtempSync(join(tmpdir(), 'ld-hostile-bounds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('nestsDeeperThan', () => {
  it.each<[string, string, number, boolean]>([
    ['an ordinary page', '{"message":"success","data":{"count":1,"rows":[{"id":"1","meta":{"a":[1,{"b":2}]}}]}}', 64, false],
    ['exactly the limit', `${'['.repeat(64)}${']'.repeat(64)}`, 64, false],
    ['one level more', `${'['.repeat(65)}${']'.repeat(65)}`, 64, true],
    ['objects one level more', `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`, 64, true],
    ['brackets inside strings do not count', `{"a":"${'['.repeat(100)}"}`, 3, false],
    ['an escaped quote does not end the string', `{"a":"\\"${'{'.repeat(100)}"}`, 3, false],
    ['an escaped backslash before the closing quote', `{"a":"\\\\","b":[[[[1]]]]}`, 3, true],
    ['siblings do not add up', `[${'[1],'.repeat(1000)}[1]]`, 2, false],
    ['empty text', '', 64, false],
  ])('%s', (_, text, max, deeper) => {
    expect(nestsDeeperThan(text, max)).toBe(deeper);
  });
});

describe('an answer nested millions of levels deep', () => {
  let service: Awaited<ReturnType<typeof startService>>;
  const depth = 5_000_000;
  const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  beforeAll(async () => {
    const data = createDataset(2, 0);
    // A 10 MB body: one contact whose unknown field nests 5,000,000 arrays.
    const row = (data.contacts[0] as string).replace(/^\{/, `{"deep":${deep},`);
    service = await startService(() => `{"message":"success","data":{"count":1,"rows":[${row}]}}`);
  });
  afterAll(() => service.close());

  it('is refused with a clear error before parsing, and the sync process ends normally (child process, 30 s limit)', { timeout: 60_000 }, async () => {
    const file = join(root, 'deep.sqlite');
    openCache(file).close();
    const outcome = await runSyncChild({ heapMb: 1024, timeoutMs: 30_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SYNC_CACHE_FILE: file, SYNC_BASE_URL: service.baseUrl, SYNC_LOG_DIR: root, SYNC_PAGE_SIZE: '1000', SYNC_RESOURCES: 'contacts' } });
    const where = `exit ${outcome.code} ${outcome.signal ?? ''}${outcome.timedOut ? ' (killed at the 30 s limit)' : ''}; stderr: ${outcome.err}`;
    expect(outcome.timedOut, where).toBe(false);
    expect(outcome.code, where).toBe(0);
    const line = outcome.out.split('\n').find((l) => l.startsWith('done '));
    expect(line, where).toBeDefined();
    const run = (JSON.parse((line as string).slice(5)) as SyncRun[])[0];
    expect(run?.outcome, where).toBe('failed');
    expect(run?.error?.code).toBe('BAD_RESPONSE');
    expect(run?.error?.message).toContain(`nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
    expect(run?.error?.message).toContain("Check that the profile's base URL");
    // Refused, not retried: the answer is the same every time.
    expect(service.requests()).toBe(1);
    expect(integrityCheck(file)).toBe('ok');
  });
});

describe('a count of millions served one row a page', () => {
  it('is refused after the first page, with a bounded number of requests', { timeout: 60_000 }, async () => {
    const data = createDataset(1, 0);
    const stop = new AbortController();
    const service = await startService(() => {
      // A bound for the test itself: a sync that kept asking is stopped (and the test fails below).
      return `{"message":"success","data":{"count":4999999,"rows":[${data.contacts[0] as string}]}}`;
    });
    const watch = setInterval(() => {
      if (service.requests() > 50) stop.abort();
    }, 5);
    const db = openCache(join(root, 'one-row.sqlite'));
    try {
      const runs = await runSync(db, createHttpPageSource({ baseUrl: service.baseUrl, tokens: { accessToken: 't0k3n-hostile', refreshToken: null }, retries: 1, backoffMs: 5, timeoutMs: 10_000 }), {
        resources: ['contacts'],
        pageSize: 500,
        signal: stop.signal,
      });
      const run = runs[0];
      expect(service.requests()).toBe(1);
      expect(run?.outcome).toBe('failed');
      expect(run?.error?.code).toBe('BAD_RESPONSE');
      expect(run?.error?.message).toContain('The service reported 4999999 contacts but served only 1 row of the 500 asked for a page');
      expect(run?.error?.message).toContain('so the sync stopped after the first page');
      expect(db.prepare('SELECT count(*) FROM contacts').pluck().get()).toBe(0);
    } finally {
      clearInterval(watch);
      db.close();
      await service.close();
    }
  });
});
