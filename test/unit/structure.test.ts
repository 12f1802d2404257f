/**
 * House rules that keep the main side easy to change (docs/architecture.md): SQL lives in
 * electron/main/cache/ only, and no module grows past 400 lines. Read from the sources themselves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const main = join(root, 'electron', 'main');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

const files = sources(main).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));

describe('electron/main', () => {
  it('holds its modules', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it('keeps every module at 400 lines or fewer', () => {
    const long = files.map((f) => ({ file: f.path, lines: f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0) })).filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });

  it('runs SQL only in cache/: no prepare(), exec() of SQL or pragma() elsewhere', () => {
    const sql = /\.(prepare|pragma)\(|\.exec\(\s*['"`]/;
    const outside = files
      .filter((f) => !f.path.startsWith(join('electron', 'main', 'cache')))
      .flatMap((f) => f.text.split('\n').map((line, i) => ({ at: `${f.path}:${i + 1}`, line: line.trim() })))
      .filter(({ line }) => sql.test(line) && !line.startsWith('*') && !line.startsWith('//'));
    expect(outside).toEqual([]);
  });
});
