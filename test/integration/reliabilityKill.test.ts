/**
 * Requirement: "Kill the syncing process at random points": a child process runs the app's sync path
 * (openCache + createHttpPageSource + runSync, see test/reliability/syncChild.ts) against the sample
 * API over loopback HTTP and is sent SIGKILL at a random point — a random phase (fetching,
 * verifying, indexing, publishing, done) of a random resource plus a random delay, or a random time.
 *
 * After every kill:
 *  - `PRAGMA integrity_check` = ok and the search index matches the rows;
 *  - the app's `openCache` (quick_check, migrations) opens the file: it is not "damaged";
 *  - per resource, the visible snapshot is exactly the previous one or exactly the new one (the
 *    server's records) — never a mix;
 * then an unkilled sync (same child; a new run, so it reads every page again instead of trusting
 * the killed one's staging) completes and the cache equals the server.
 *
 * Seeded: LETTERDESK_KILL_SEED replays a run; LETTERDESK_KILL_RUNS (default 8) sets the iterations.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRun } from '../../shared/contract.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { diffRecords, expectHealthyCache, readSnapshot, serverSnapshot } from '../reliability/cacheCheck.ts';
import { mulberry32 } from '../reliability/random.ts';

const SEED = process.env.LETTERDESK_KILL_SEED ? Number(process.env.LETTERDESK_KILL_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
const RUNS = Number(process.env.LETTERDESK_KILL_RUNS ?? 8);
console.log(`reliabilityKill: seed ${SEED} (replay with LETTERDESK_KILL_SEED=${SEED}), ${RUNS} kills`);

const CHILD = resolve(import.meta.dirname, '../reliability/syncChild.ts');
const PHASES = ['fetching', 'verifying', 'indexing', 'publishing', 'done'] as const;

interface ChildResult {
  killed: boolean;
  /** Progress lines seen before the end. */
  lines: string[];
  runs: SyncRun[] | null;
  code: number | null;
  stderr: string;
}

/** Where to kill: at the first progress line of `resource` in `phase` with at least `minPages` pages done, plus `delayMs`; or `delayMs` after the start when `phase` is null. */
interface KillPoint {
  resource: string;
  phase: string | null;
  minPages: number;
  delayMs: number;
}

/**
 * Runs the sync child. `killAt` = kill when a progress line for that resource and phase appears (after
 * `delayMs`), or after `delayMs` from the start when `phase` is null.
 */
function runChild(env: Record<string, string>, killAt: KillPoint | null): Promise<ChildResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CHILD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const result: ChildResult = { killed: false, lines: [], runs: null, code: null, stderr: '' };
    let buffer = '';
    let armed = false;
    const kill = () => {
      if (result.killed || child.exitCode !== null) return;
      result.killed = child.kill('SIGKILL');
    };
    if (killAt && killAt.phase === null) {
      armed = true;
      setTimeout(kill, killAt.delayMs);
    }
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('done ')) result.runs = JSON.parse(line.slice(5)) as SyncRun[];
        else result.lines.push(line);
        if (killAt && !armed && killAt.phase !== null && line.startsWith(`progress ${killAt.resource} ${killAt.phase} `) && Number(line.split(' ')[3]) >= killAt.minPages) {
          armed = true;
          if (killAt.delayMs === 0) kill();
          else setTimeout(kill, killAt.delayMs);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString('utf8')));
    child.on('error', fail);
    child.on('exit', (code) => {
      result.code = code;
      // Killed after it had already finished on its own counts as not killed.
      if (result.runs) result.killed = false;
      done(result);
    });
  });
}

describe('SIGKILL of the syncing process at random points', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-kill-'));
  const file = join(root, 'cache.sqlite');
  let api: SampleApi;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 1000, orders: 40, seed: SEED % 1000, faults: { latencyMs: 4 } });
    env = { SYNC_CACHE_FILE: file, SYNC_BASE_URL: api.baseUrl, SYNC_LOG_DIR: root, SYNC_PAGE_SIZE: '25', SYNC_CONCURRENCY: '2' };
    openCache(file).close();
    const first = await runChild(env, null);
    expect(first.runs?.map((r) => r.outcome), first.stderr).toEqual(['succeeded', 'succeeded']);
  });
  afterAll(async () => {
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(`${RUNS} kills: the cache stays intact and openable, shows the old or the new snapshot, and the next sync completes`, { timeout: 150_000 }, async () => {
    const rng = mulberry32(SEED);
    const killedIn: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Change the server so "old" and "new" snapshots differ.
      const d = api.dataset;
      const contactIds = [...d.contactIds()];
      for (let k = 0; k < 3; k++) d.deleteContact(contactIds[Math.floor(rng() * contactIds.length)] as string);
      d.addContacts(1 + Math.floor(rng() * 3));
      d.updateOrder([...d.orderIds()][Math.floor(rng() * d.orderCount)] as string, { status: 100 + i });
      const server = serverSnapshot(d);
      const before = readSnapshot(file);

      const kind = rng();
      const killAt: KillPoint =
        kind < 0.15
          ? { resource: '', phase: null, minPages: 0, delayMs: 300 + Math.floor(rng() * 1200) }
          : kind < 0.5
            ? { resource: 'contacts', phase: 'fetching', minPages: 1 + Math.floor(rng() * 38), delayMs: 0 }
            : { resource: rng() < 0.6 ? 'contacts' : 'orders', phase: PHASES[Math.floor(rng() * PHASES.length)] as string, minPages: 0, delayMs: rng() < 0.4 ? 0 : Math.floor(rng() * 20) };
      const context = `seed ${SEED} iteration ${i} (LETTERDESK_KILL_SEED=${SEED}), kill at ${JSON.stringify(killAt)}`;
      const killed = await runChild(env, killAt);
      killedIn.push(killed.killed ? `${killed.lines.at(-1) ?? 'before any progress'}` : 'finished before the kill');
      expect(killed.killed || killed.runs !== null, `${context}: the child died on its own: ${killed.stderr}`).toBe(true);

      // The file is intact and the app opens it.
      expectHealthyCache(file, context);
      expect(() => openCache(file).close(), `${context}: openCache after the kill`).not.toThrow();
      const after = readSnapshot(file);
      for (const resource of ['contacts', 'orders'] as const) {
        const old = diffRecords(after[resource], before[resource]);
        const fresh = diffRecords(after[resource], server[resource]);
        expect(old === null || fresh === null, `${context}: ${resource} is neither the previous snapshot (${old}) nor the server's (${fresh})`).toBe(true);
      }

      // The next sync completes (a new run: it reads every page again) and equals the server.
      const next = await runChild(env, null);
      expect(next.runs?.map((r) => r.outcome), `${context}: the next sync: ${next.stderr} ${JSON.stringify(next.runs)}`).toEqual(['succeeded', 'succeeded']);
      const synced = readSnapshot(file);
      expect(diffRecords(synced.contacts, server.contacts), `${context}: contacts after the next sync`).toBeNull();
      expect(diffRecords(synced.orders, server.orders), `${context}: orders after the next sync`).toBeNull();
      expectHealthyCache(file, `${context}, after the next sync`);
    }
    console.log(`reliabilityKill: seed ${SEED}: killed at ${JSON.stringify(killedIn)}`);
    expect(killedIn.filter((k) => k !== 'finished before the kill').length, `seed ${SEED}: at least a third of the iterations must really kill the sync`).toBeGreaterThanOrEqual(Math.ceil(RUNS / 3));
  });
});
