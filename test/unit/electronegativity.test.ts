import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASELINE, type BaselineEntry } from '../security/electronegativityBaseline.ts';
import { codeAt, reviewFindings, type Finding } from '../security/reviewFindings.ts';

const root = resolve(import.meta.dirname, '../..');

interface SarifResult {
  ruleId: string;
  locations?: { physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number; startColumn?: number } } }[];
}

/** A copy of the app's own sources (main, preload, renderer), scanned as one application. */
function copyApp(): string {
  const app = join(mkdtempSync(join(tmpdir(), 'ld-en-')), 'app');
  for (const folder of ['electron', 'renderer']) cpSync(join(root, folder), join(app, folder), { recursive: true, filter: (src) => !src.includes('node_modules') });
  return app;
}

/** Runs Electronegativity over `app` and reads its SARIF report, with the code at each finding. */
function scan(app: string): Finding[] {
  const out = join(app, '..', 'report.sarif');
  const run = spawnSync(process.execPath, [join(root, 'test/security/electronegativity.ts'), app, out], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  const sarif = JSON.parse(readFileSync(out, 'utf8')) as { runs: { results: SarifResult[] }[] };
  return sarif.runs.flatMap((r) =>
    r.results.map((x) => {
      const location = x.locations?.[0]?.physicalLocation;
      const file = (location?.artifactLocation?.uri ?? '').replace(/\\/g, '/').replace(/^\.?\//, '');
      const line = location?.region?.startLine ?? 0;
      let source = '';
      try {
        source = readFileSync(join(app, file), 'utf8');
      } catch {
        // no such file: no code to match
      }
      return { check: x.ruleId, file, line, code: codeAt(source, line, location?.region?.startColumn ?? 1) };
    }),
  );
}

const describeFindings = (findings: readonly Finding[]) => findings.map((f) => `${f.check} ${f.file}:${f.line} ${f.code}`).join('\n');

describe('Electronegativity static scan (SARIF)', () => {
  it('finds nothing in electron/ and renderer/ beyond the reviewed baseline, and the baseline is current', () => {
    const findings = scan(copyApp());
    expect(findings.length).toBeGreaterThan(0); // the scanner ran and saw the code
    const { unreviewed, stale } = reviewFindings(findings, BASELINE);
    expect(unreviewed, `unreviewed findings:\n${describeFindings(unreviewed)}`).toEqual([]);
    expect(
      stale.map((s) => `${s.entry.check} ${s.entry.file} (${s.found} of ${s.entry.count ?? 1} found): ${s.entry.code}`),
      'baseline entries whose code changed or went away',
    ).toEqual([]);
  });

  it('a second identical openExternal call in a file that already has a reviewed one fails the check', () => {
    const reviewed = BASELINE.find((b) => b.check === 'OPEN_EXTERNAL_JS_CHECK');
    expect(reviewed).toBeDefined();
    const app = copyApp();
    const file = join(app, 'electron', reviewed!.file);
    appendFileSync(file, `\nexport function openUnchecked(url: string): void {\n  ${reviewed!.code}\n}\n`);
    const { unreviewed } = reviewFindings(scan(app), BASELINE);
    expect(unreviewed.map((f) => [f.check, f.file, f.code])).toEqual([['OPEN_EXTERNAL_JS_CHECK', `electron/${reviewed!.file}`, reviewed!.code]]);
  });

  it('keeps every baseline entry justified', () => {
    for (const entry of BASELINE) {
      expect(entry.reason.length).toBeGreaterThan(30);
      expect(entry.code.length, `${entry.check} ${entry.file}`).toBeGreaterThan(0);
    }
  });
});

describe('matching findings against the baseline', () => {
  const entry: BaselineEntry = { check: 'OPEN_EXTERNAL_JS_CHECK', file: 'main/index.ts', code: 'shell.openExternal(url);', reason: 'behind isSafeExternalUrl, tested with hostile URLs' };
  const finding = (code: string, file = 'electron/main/index.ts'): Finding => ({ check: 'OPEN_EXTERNAL_JS_CHECK', file, line: 1, code });

  it('by check, file and code; each entry covers its count', () => {
    expect(reviewFindings([finding('shell.openExternal(url);')], [entry])).toEqual({ unreviewed: [], stale: [] });
    expect(reviewFindings([finding('shell.openExternal(url);'), finding('shell.openExternal(url);')], [entry]).unreviewed).toHaveLength(1);
    expect(reviewFindings([finding('shell.openExternal(url);'), finding('shell.openExternal(url);')], [{ ...entry, count: 2 }])).toEqual({ unreviewed: [], stale: [] });
    expect(reviewFindings([finding('shell.openExternal(target);')], [entry]).unreviewed).toHaveLength(1);
    expect(reviewFindings([finding('shell.openExternal(url);', 'electron/main/other.ts')], [entry]).unreviewed).toHaveLength(1);
    expect(reviewFindings([], [entry]).stale).toEqual([{ entry, found: 0 }]);
  });

  it('reads the code from the finding to the end of its line, blanks collapsed', () => {
    const source = 'line one\n    void   shell.openExternal(url); // why\r\nlast';
    expect(codeAt(source, 2, 10)).toBe('shell.openExternal(url); // why');
    expect(codeAt(source, 9, 1)).toBe('');
  });
});
