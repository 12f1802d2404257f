/**
 * A CSV export of 1,000,000 contacts runs with bounded memory (the export memory
 * target: growth ≤ 150 MB). The rows are generated straight into a real cache file (a few seconds), the
 * export runs in a child process so its peak RSS is its own, and the time of the `sqlite3` shell's
 * `-csv` output of the same columns is printed next to it for reference (the benchmark owns the ratio).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportSql } from '../../electron/main/cache/read/exportRows.ts';

const CHILD = join(import.meta.dirname, 'fixtures', 'exportChild.ts');
const ROWS = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'ld-export-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exportChild ${args[0]} exited with ${code}`))));
  });
}

describe('large export', () => {
  it(`exports ${ROWS.toLocaleString('en-US')} contacts with bounded memory`, { timeout: 300_000 }, async () => {
    const cache = join(dir, 'big.sqlite');
    const target = join(dir, 'contacts.csv');
    const t0 = performance.now();
    await run(['fill', cache, String(ROWS)]);
    const fillMs = Math.round(performance.now() - t0);

    const out = await run(['export', cache, target]);
    const done = /done (\d+) (\d+) (\d+) (\d+)/.exec(out);
    expect(done).not.toBeNull();
    const [rows, ms, peakMb, baseMb] = (done as RegExpExecArray).slice(1, 5).map(Number) as [number, number, number, number];
    expect(rows).toBe(ROWS);
    const progress = out.split('\n').filter((l) => l.startsWith('progress '));
    expect(progress.length).toBeGreaterThan(2);

    // Lines = header + rows (+ the empty string after the last CRLF); count CRLFs without loading the file.
    let crlf = 0;
    const fd = openSync(target, 'r');
    const buf = Buffer.alloc(1 << 20);
    let n: number;
    let lastByte = 0;
    while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) {
      for (let i = 0; i < n; i++) if (buf[i] === 0x0a && (i > 0 ? buf[i - 1] : lastByte) === 0x0d) crlf++;
      lastByte = buf[n - 1] as number;
    }
    closeSync(fd);
    // Every 13th row holds one embedded CRLF (quoted), see exportChild.ts.
    expect(crlf).toBe(1 + ROWS + Math.floor(ROWS / 13));
    const head = readFileSync(target).subarray(0, 3);
    expect([...head]).toEqual([0xef, 0xbb, 0xbf]);

    // Reference: the sqlite3 shell's CSV output of the same columns and rows.
    const { select, params } = exportSql({ kind: 'contacts', query: null, columns: null });
    expect(Object.keys(params)).toEqual([]);
    let shellMs: number | null = null;
    const t1 = performance.now();
    const shell = spawnSync('sqlite3', ['-csv', cache, `${select};`], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 20 });
    if (shell.status === 0) shellMs = Math.round(performance.now() - t1);

    const size = statSync(target).size;
    console.log(
      `exportLarge: ${ROWS} rows, ${(size / 1048576).toFixed(0)} MiB in ${ms} ms (fill ${fillMs} ms); ` +
        `peak RSS ${peakMb} MB (at start ${baseMb} MB, growth ${peakMb - baseMb} MB); sqlite3 -csv to /dev/null: ${shellMs ?? 'n/a'} ms` +
        (shellMs ? ` (ratio ${(ms / shellMs).toFixed(2)})` : ''),
    );
    // The export memory target; an export that held the rows in memory would need over 1 GB.
    expect(peakMb - baseMb).toBeLessThan(150);
  });
});
