/**
 * WAL checkpoints on a worker thread while the sync stages pages (cache/checkpointer.ts): a real
 * cache file, a real thread. The WAL stays small although the writing connection's own
 * checkpoints are off, and the connection gets them back when the checkpointer stops or its
 * thread cannot work.
 */
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../electron/main/cache/checkpointer.ts';
import { openCache, useBulkWriteSettings } from '../../electron/main/cache/db.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-checkpointer-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WAL checkpoints on a worker thread', () => {
  it('keep the WAL small while pages are written, and go back to the connection on stop', async () => {
    const file = join(dir, 'staging.sqlite');
    const db = openCache(file);
    useBulkWriteSettings(db);
    const own = db.pragma('wal_autocheckpoint', { simple: true });
    db.exec('CREATE TABLE filler (b BLOB)');
    const checkpoints = startCheckpointer(db, 10);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const insert = db.prepare('INSERT INTO filler (b) VALUES (randomblob(65536))');
    let largest = 0;
    // 60 pages of 2 MiB, each its own transaction, with a moment between them as a fetch gives.
    for (let page = 0; page < 60; page++) {
      db.transaction(() => {
        for (let i = 0; i < 32; i++) insert.run();
      })();
      largest = Math.max(largest, statSync(`${file}-wal`).size);
      await sleep(20);
    }
    // With the connection's checkpoints off and none elsewhere, the WAL would hold all 120 MiB.
    expect(largest).toBeLessThan(40 * 1024 * 1024);
    checkpoints.stop();
    checkpoints.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(own);
    expect(db.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(60 * 32);
    db.close();
  });

  it('when its thread cannot open the cache, the connection checkpoints itself again', async () => {
    const file = join(dir, 'moved.sqlite');
    const db = openCache(file);
    const own = db.pragma('wal_autocheckpoint', { simple: true });
    // The connection keeps the file open; under its old name the thread finds nothing to open.
    renameSync(file, join(dir, 'moved-away.sqlite'));
    const checkpoints = startCheckpointer(db, 10);
    const deadline = Date.now() + 10_000;
    while (db.pragma('wal_autocheckpoint', { simple: true }) !== own && Date.now() < deadline) await sleep(20);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(own);
    checkpoints.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(own);
    db.close();
  });

  it('starts nothing for an in-memory database', () => {
    const db = new Database(':memory:');
    const own = db.pragma('wal_autocheckpoint', { simple: true });
    const checkpoints = startCheckpointer(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(own);
    checkpoints.stop();
    db.close();
  });
});
