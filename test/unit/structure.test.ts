/**
 * House rules that keep the code easy to change (docs/architecture.md): SQL lives in
 * electron/main/cache/ only, no module there or in the page's state/ grows past 400 lines, the page
 * never loads zod, its components call main only through state/, and the benchmark page stays a
 * reference page.
 * Read from the sources themselves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const main = join(root, 'electron', 'main');

function sources(dir: string, name = /\.(ts|js)$/): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path, name);
    return name.test(entry.name) ? [path] : [];
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

describe('renderer/src', () => {
  const rendererFiles = sources(join(root, 'renderer', 'src'), /\.(ts|svelte)$/);
  const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

  it('keeps every state module at 400 lines or fewer: state/ is composed of one-topic classes', () => {
    const state = sources(join(root, 'renderer', 'src', 'state'));
    const long = state.map((path) => ({ file: relative(root, path), lines: lineCount(readFileSync(path, 'utf8')) })).filter((f) => f.lines > 400);
    expect(state.length).toBeGreaterThan(15);
    expect(long).toEqual([]);
  });

  it('calls main from components only through state/: no component imports lib/api.ts or uses window.letterdesk', () => {
    const api = join(root, 'renderer', 'src', 'lib', 'api.ts');
    const components = rendererFiles.filter((f) => f.startsWith(join(root, 'renderer', 'src', 'components')));
    const importsApi = (path: string): boolean =>
      [...readFileSync(path, 'utf8').matchAll(/^\s*import\s[^;]*?from\s+'(\.[^']+)'/gms)].some(([, spec]) => resolve(dirname(path), spec!) === api);
    const offending = components.filter((f) => importsApi(f) || /window\.letterdesk/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(components.length).toBeGreaterThan(30);
    expect(offending).toEqual([]);
  });
  /** Relative modules a file imports values from (type-only imports are erased in the build). */
  const valueImports = (path: string): string[] =>
    [...readFileSync(path, 'utf8').matchAll(/^\s*import\s+(?!type\b)([^;]*?)\s+from\s+'(\.[^']+)'/gms)]
      .filter(([, names]) => !/^\{[^}]*\}$/s.test(names!.trim()) || names!.replace(/[{}\s]/g, '').split(',').some((n) => n !== '' && !n.startsWith('type')))
      .map(([, , spec]) => resolve(dirname(path), spec!));
  /** Whether loading `path` loads zod, through its value imports. */
  const loadsZod = (path: string, seen = new Set<string>()): boolean => {
    if (seen.has(path) || !path.endsWith('.ts')) return false;
    seen.add(path);
    if (/^\s*import\s+(?!type\b)[^;]*?from\s+'zod'/m.test(readFileSync(path, 'utf8'))) return true;
    return valueImports(path).some((p) => loadsZod(p, seen));
  };

  it('loads no module that loads zod: its start-up check is an eval the CSP refuses', () => {
    const shared = join(root, 'shared');
    const offending = rendererFiles.flatMap((file) =>
      valueImports(file)
        .filter((p) => p.startsWith(shared) && loadsZod(p))
        .map((p) => `${relative(root, file)} → ${relative(root, p)}`),
    );
    expect(rendererFiles.length).toBeGreaterThan(30);
    expect(offending).toEqual([]);
  });
});

describe('docs', () => {
  // A reference page a newcomer reads once: the history of tries belongs in commit bodies.
  it('keeps docs/benchmarks.md at 20,000 characters or fewer', () => {
    const page = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
    expect([...page].length).toBeLessThanOrEqual(20_000);
  });
});
