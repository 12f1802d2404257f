/**
 * Matching Electronegativity findings against the reviewed baseline (electronegativityBaseline.ts).
 * A finding is identified by its check, its file and the code it points at (the source text from
 * the finding's position to the end of that line, blanks collapsed), not by its line number, which
 * moves with every edit. Each baseline entry covers as many findings as its `count`, so a second
 * identical call in a file that already has a reviewed one is a new, unreviewed finding.
 */
import type { BaselineEntry } from './electronegativityBaseline.ts';

/** One finding of a scan, as read from its SARIF report. */
export interface Finding {
  check: string;
  /** Path relative to the scanned folder, with `/`. */
  file: string;
  line: number;
  /** The source text at the finding, see {@link codeAt}. */
  code: string;
}

/** What {@link reviewFindings} found wrong. */
export interface Review {
  /** Findings no baseline entry covers (beyond their entries' counts). */
  unreviewed: Finding[];
  /** Baseline entries with fewer findings than they allow: the code changed or went away. */
  stale: { entry: BaselineEntry; found: number }[];
}

/**
 * The code a finding points at: `source` from line `line`, column `column` (both 1-based) to the
 * end of that line, trimmed, runs of blanks made one space. Empty when the position is outside.
 */
export function codeAt(source: string, line: number, column: number): string {
  const text = source.split(/\r?\n/)[line - 1];
  if (text === undefined) return '';
  return text.slice(Math.max(0, column - 1)).trim().replace(/\s+/g, ' ');
}

/**
 * Checks `findings` against `baseline`.
 * @param findings the scan's findings
 * @param baseline reviewed entries; an entry's `file` matches a finding whose path ends with it
 */
export function reviewFindings(findings: readonly Finding[], baseline: readonly BaselineEntry[]): Review {
  const used = new Map<BaselineEntry, number>();
  const unreviewed: Finding[] = [];
  for (const finding of findings) {
    const entry = baseline.find((b) => b.check === finding.check && finding.file.endsWith(b.file) && b.code === finding.code && (used.get(b) ?? 0) < (b.count ?? 1));
    if (entry) used.set(entry, (used.get(entry) ?? 0) + 1);
    else unreviewed.push(finding);
  }
  const stale = baseline.filter((b) => (used.get(b) ?? 0) < (b.count ?? 1)).map((entry) => ({ entry, found: used.get(entry) ?? 0 }));
  return { unreviewed, stale };
}
