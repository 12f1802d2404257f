/**
 * Requirement: "Disk full during sync and during export: a clear error, the previous snapshot intact,
 * no partial export file."
 *
 * Sync: the sync's own connection gets SQLite's `PRAGMA max_page_count` set to the current size plus
 * a share (5 %–95 %) of what the next sync needs, so the database runs out of room while staging
 * pages, while building the search index, or while publishing. `runSync` takes its connection as an
 * argument, so no test hook is needed in the engine. Each time: the run fails with DISK_FULL and a
 * message that says to free space; the visible snapshot is exactly the previous one;
 * integrity_check = ok; and with room again, the next sync completes and equals the server.
 *
 * Export: a 1 MiB tmpfs (mounted by the test; it needs root) nearly filled, then `runExport` — and the
 * app's path, `CacheClient.exportFile` in the cache worker — writes into it: DISK_FULL, no file under
 * the target name (or the previous file there unchanged), no temporary file left behind. When the
 * mount is refused the export cases are skipped and say why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportRequest } from '../../shared/contract.ts';
import { isLetterdeskError } from '../../shared/errors.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { diffRecords, expectHealthyCache, readSnapshot, serverSnapshot } from '../reliability/cacheCheck.ts';

const source = (api: SampleApi) =>
  createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, retries: 1, backoffMs: 5 });

describe('disk full during a sync (SQLite max_page_count on the sync connection)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-full-'));
  const file = join(root, 'cache.sqlite');
  let api: SampleApi;

  /** Vacuums the cache, then measures the pages the next sync needs beyond its size by running it on a copy. */
  async function measureGrowth(): Promise<number> {
    const probeFile = join(root, `probe-${Date.now()}.sqlite`);
    const live = openCache(file, { skipCheck: true });
    // No free pages left from the previous sync's dropped tables: the next one must grow the file.
    live.exec('VACUUM');
    live.pragma('wal_checkpoint(TRUNCATE)');
    live.close();
    writeFileSync(probeFile, readFileSync(file));
    const probe = openCache(probeFile, { skipCheck: true });
    const pages = () => probe.pragma('page_count', { simple: true }) as number;
    const start = pages();
    let peak = start;
    try {
      const runs = await runSync(probe, source(api), { resources: ['contacts', 'orders'], pageSize: 100, progressIntervalMs: 0, onProgress: () => (peak = Math.max(peak, pages())) });
      expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      peak = Math.max(peak, pages());
    } finally {
      probe.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(probeFile + suffix, { force: true });
    }
    return peak - start;
  }

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 1000, orders: 40, seed: 21 });
    const db = openCache(file);
    const runs = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 100 });
    expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  });
  afterAll(async () => {
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const share of [0.05, 0.3, 0.6, 0.85, 0.95]) {
    it(`room for ${Math.round(share * 100)} % of what the sync needs: DISK_FULL, previous snapshot intact, then a full sync completes`, async () => {
      api.dataset.addContacts(5);
      const growth = await measureGrowth();
      expect(growth, 'a sync needs room to grow').toBeGreaterThan(10);
      const before = readSnapshot(file);
      const db = openCache(file, { skipCheck: true });
      let runs;
      let thrown: unknown = null;
      try {
        const current = db.pragma('page_count', { simple: true }) as number;
        db.pragma(`max_page_count = ${current + Math.max(1, Math.floor(growth * share))}`);
        runs = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 100 });
      } catch (error) {
        thrown = error;
      } finally {
        db.close();
      }
      expect(thrown, `runSync threw instead of recording the failure: ${String(thrown)}`).toBeNull();
      const failed = runs?.filter((r) => r.outcome !== 'succeeded') ?? [];
      expect(failed.length, `with room for ${share} of the ${growth} pages the sync needs: ${JSON.stringify(runs)}`).toBeGreaterThan(0);
      for (const run of failed) {
        expect(run.error?.code, `${run.resource}: ${run.error?.message}`).toBe('DISK_FULL');
        expect(run.error?.message).toMatch(/free/i);
      }
      const after = readSnapshot(file);
      for (const run of failed) expect(diffRecords(after[run.resource], before[run.resource]), `${run.resource} after DISK_FULL`).toBeNull();
      expectHealthyCache(file, `after DISK_FULL at ${share}`);

      // Room again: the next sync completes and equals the server.
      const again = openCache(file);
      try {
        const next = await runSync(again, source(api), { resources: ['contacts', 'orders'], pageSize: 100 });
        expect(next.map((r) => `${r.resource} ${r.outcome} ${r.error?.code ?? ''}`)).toEqual(['contacts succeeded ', 'orders succeeded ']);
      } finally {
        again.close();
      }
      const server = serverSnapshot(api.dataset);
      const synced = readSnapshot(file);
      expect(diffRecords(synced.contacts, server.contacts)).toBeNull();
      expect(diffRecords(synced.orders, server.orders)).toBeNull();
    });
  }
});

describe('disk full during an export (1 MiB tmpfs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-full-export-'));
  const file = join(root, 'cache.sqlite');
  const mountPoint = join(root, 'small-disk');
  let mounted = false;
  let whyNot = '';
  let api: SampleApi;

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 3000, orders: 10, seed: 23 });
    const db = openCache(file);
    await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 500 });
    db.close();
    try {
      execFileSync('mkdir', ['-p', mountPoint]);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'pipe' });
      mounted = true;
    } catch (error) {
      whyNot = `mount -t tmpfs was refused (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}); this needs root or CAP_SYS_ADMIN`;
      console.log(`reliabilityDiskFull: export cases NOT RUN: ${whyNot}`);
    }
  });
  afterAll(async () => {
    await api?.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(root, { recursive: true, force: true });
  });

  const request: ExportRequest = { kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: true, neutralizeFormulas: true } };

  /** Fills the tmpfs so that only about `freeBytes` remain. */
  function fill(freeBytes: number): void {
    for (const name of readdirSync(mountPoint)) rmSync(join(mountPoint, name), { force: true });
    const filler = join(mountPoint, 'filler.bin');
    try {
      writeFileSync(filler, Buffer.alloc(1024 * 1024 - freeBytes));
    } catch {
      // ENOSPC while filling: the disk is as full as it gets
    }
  }

  it('runExport into a nearly full disk: DISK_FULL, no file under the target name, no temporary file left', async (ctx) => {
    if (!mounted) return ctx.skip(whyNot);
    for (const free of [0, 4096, 100_000, 400_000]) {
      fill(free);
      const target = join(mountPoint, 'contacts.csv');
      const db = openCache(file, { skipCheck: true });
      let caught: unknown = null;
      try {
        await runExport(db, request, target, {});
      } catch (error) {
        caught = error;
      } finally {
        db.close();
      }
      expect(isLetterdeskError(caught), `free ${free}: ${String(caught)}`).toBe(true);
      expect((caught as { code: string }).code, `free ${free}: ${(caught as Error).message}`).toBe('DISK_FULL');
      expect((caught as Error).message).toMatch(/free some space/i);
      expect(existsSync(target), `free ${free}: a partial file under the target name`).toBe(false);
      expect(readdirSync(mountPoint), `free ${free}: leftovers`).toEqual(['filler.bin']);
    }
  });

  it('an existing file under the target name is left exactly as it was when the export runs out of space', async (ctx) => {
    if (!mounted) return ctx.skip(whyNot);
    fill(60_000);
    const target = join(mountPoint, 'contacts.csv');
    writeFileSync(target, 'the previous export\r\n');
    const db = openCache(file, { skipCheck: true });
    try {
      await expect(runExport(db, request, target, {})).rejects.toMatchObject({ code: 'DISK_FULL' });
    } finally {
      db.close();
    }
    expect(readFileSync(target, 'utf8')).toBe('the previous export\r\n');
    expect(readdirSync(mountPoint).sort()).toEqual(['contacts.csv', 'filler.bin']);
  });

  it('the app path (cache worker, CacheClient.exportFile) reports DISK_FULL across the worker boundary and leaves no file', async (ctx) => {
    if (!mounted) return ctx.skip(whyNot);
    fill(50_000);
    const target = join(mountPoint, 'via-worker.csv');
    const client = await CacheClient.open(file);
    try {
      await expect(client.exportFile(request, target)).rejects.toMatchObject({ code: 'DISK_FULL' });
      // The worker is still usable afterwards.
      expect((await client.countContacts({})).count).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(mountPoint)).toEqual(['filler.bin']);
  });
});
