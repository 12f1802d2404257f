/**
 * Text in the person's locale order for the sort positions (build/publish.ts, positions.ts): SQLite has
 * no locale collation and better-sqlite3 cannot register one, so the cache sorts text by a binary
 * key whose byte order follows `Intl.Collator` — `locale_key(text)`, a deterministic SQL function
 * registered on every connection the cache opens (db.ts, snapshot.ts).
 *
 * The key is built from per-character weights that the collator itself ranks: every character of
 * the Basic Multilingual Plane sorted by the collator, then numbered at three strengths (base
 * letter, accent, case), so "Łukasz" sorts with the L's, before "Zachary", and "é" right after
 * "e". The key is the base weights of the text's characters, then their accent weights, then
 * their case weights, each run ended by 0 — the multi-level comparison the Unicode Collation
 * Algorithm makes. Characters the collator ignores are left out; characters outside the BMP sort
 * after it by code point. Contractions and expansions of a locale (Spanish "ch" of old, "ß" as
 * "ss") are approximated by the single character's place.
 */
import type Database from 'better-sqlite3';

/** The SQL function that gives a text's sort key (a BLOB; NULL for NULL). */
export const LOCALE_KEY_FUNCTION = 'locale_key';

interface Weights {
  primary: Uint16Array;
  secondary: Uint16Array;
  tertiary: Uint16Array;
}

let weights: Weights | null = null;
let weightsLocale = '';

/** The locale whose order the keys follow: the process's own (the system's, or the app's in Electron). */
export function sortLocale(): string {
  return new Intl.Collator().resolvedOptions().locale;
}

function buildWeights(locale: string): Weights {
  const full = new Intl.Collator(locale, { sensitivity: 'variant', usage: 'sort' });
  const base = new Intl.Collator(locale, { sensitivity: 'base', usage: 'sort' });
  const accent = new Intl.Collator(locale, { sensitivity: 'accent', usage: 'sort' });
  const chars: string[] = [];
  for (let cp = 0; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue; // surrogates: not characters on their own
    const ch = String.fromCharCode(cp);
    if (full.compare(ch, '') !== 0) chars.push(ch);
  }
  chars.sort((a, b) => full.compare(a, b) || a.charCodeAt(0) - b.charCodeAt(0));
  const primary = new Uint16Array(0x10000);
  const secondary = new Uint16Array(0x10000);
  const tertiary = new Uint16Array(0x10000);
  let p = 0;
  let s = 0;
  let t = 0;
  let prev = '';
  for (const ch of chars) {
    if (prev === '' || base.compare(prev, ch) !== 0) {
      p++;
      s = 1;
      t = 1;
    } else if (accent.compare(prev, ch) !== 0) {
      s++;
      t = 1;
    } else if (full.compare(prev, ch) !== 0) t++;
    const cp = ch.charCodeAt(0);
    primary[cp] = Math.min(p, 0xfffe);
    secondary[cp] = s;
    tertiary[cp] = t;
    prev = ch;
  }
  return { primary, secondary, tertiary };
}

function currentWeights(locale: string): Weights {
  if (!weights || weightsLocale !== locale) {
    weights = buildWeights(locale);
    weightsLocale = locale;
  }
  return weights;
}

/** Scratch space for keys: SQLite copies a function's BLOB result, so one buffer serves every call. */
let scratch = Buffer.allocUnsafe(4096);

/**
 * The sort key of `text` in `locale`'s order: compare two keys byte by byte (SQLite's BLOB
 * order) to compare the texts as the collator does at its three strengths. The bytes are valid
 * until the next call (copy them to keep them).
 * @param locale a BCP 47 tag; default {@link sortLocale}
 */
export function localeKey(text: string, locale: string = sortLocale()): Buffer {
  const { primary, secondary, tertiary } = currentWeights(locale);
  const n = text.length;
  if (scratch.length < n * 7 + 8) scratch = Buffer.allocUnsafe(n * 7 + 8);
  const out = scratch;
  let o = 0;
  // Base weights, two bytes each; a character outside the BMP as 0xFFFF and its code point.
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const cp = text.codePointAt(i) as number;
      out[o++] = 0xff;
      out[o++] = 0xff;
      out[o++] = (cp >> 16) & 0xff;
      out[o++] = (cp >> 8) & 0xff;
      out[o++] = cp & 0xff;
      i++;
      continue;
    }
    const p = primary[c] as number;
    if (p === 0) continue;
    out[o++] = p >> 8;
    out[o++] = p & 0xff;
  }
  out[o++] = 0;
  out[o++] = 0;
  for (let i = 0; i < n; i++) {
    const v = secondary[text.charCodeAt(i)] as number;
    if (v !== 0) out[o++] = v > 0xff ? 0xff : v;
  }
  out[o++] = 0;
  for (let i = 0; i < n; i++) {
    const v = tertiary[text.charCodeAt(i)] as number;
    if (v !== 0) out[o++] = v > 0xff ? 0xff : v;
  }
  out[o++] = 0;
  return out.subarray(0, o);
}

const LOCALE_KEY_CALL = new RegExp(`\\b${LOCALE_KEY_FUNCTION}\\((?:(\\w+)\\.)?(\\w+)\\)`, 'g');

/**
 * `exprs` with each locale key of a column of `table` (`locale_key(col)`, `locale_key(alias.col)`)
 * replaced by the rank of the column's value among the table's values in the same order: one key
 * per distinct value (a state, a city, a last name repeat across many rows) instead of one per row,
 * and the ranks looked up inside SQLite. `rank()` gives values with equal keys equal ranks, so the
 * order is exactly the expression's. The ranks are temporary tables of the connection: drop them
 * with {@link dropLocaleRanks} once the expressions have been used.
 * @param direct columns whose values are nearly all distinct (an email): their keys are left as
 *   they are, since a rank table would hold one row per row and cost more than the keys it saves
 */
export function withLocaleRanks(db: Database.Database, table: string, exprs: readonly string[], direct: ReadonlySet<string>): string[] {
  const columns = new Set<string>();
  for (const expr of exprs) for (const m of expr.matchAll(LOCALE_KEY_CALL)) if (!direct.has(m[2] as string)) columns.add(m[2] as string);
  for (const c of columns) {
    db.exec(`DROP TABLE IF EXISTS temp.locale_rank_${c}`);
    db.exec(`CREATE TEMP TABLE locale_rank_${c} (lr_value TEXT PRIMARY KEY, lr_rank INTEGER NOT NULL) WITHOUT ROWID`);
    db.exec(`INSERT INTO temp.locale_rank_${c} SELECT v, rank() OVER (ORDER BY ${LOCALE_KEY_FUNCTION}(v)) FROM (SELECT DISTINCT ${c} AS v FROM ${table} WHERE ${c} IS NOT NULL)`);
  }
  return exprs.map((expr) =>
    expr.replace(LOCALE_KEY_CALL, (call, alias: string | undefined, c: string) =>
      columns.has(c) ? `(SELECT lr_rank FROM temp.locale_rank_${c} WHERE lr_value = ${alias ? `${alias}.` : ''}${c})` : call,
    ),
  );
}

/** Drops the rank tables of {@link withLocaleRanks}. */
export function dropLocaleRanks(db: Database.Database): void {
  const tables = db.prepare("SELECT name FROM temp.sqlite_master WHERE type = 'table' AND name LIKE 'locale_rank_%'").pluck().all() as string[];
  for (const t of tables) db.exec(`DROP TABLE temp.${t}`);
}

/**
 * Registers `locale_key(text)` on a connection: the sort key of {@link localeKey} in the
 * process's locale, NULL for NULL, the text of a number or a BLOB's bytes for those.
 */
export function registerLocaleKey(db: Database.Database): void {
  const locale = sortLocale();
  db.function(LOCALE_KEY_FUNCTION, { deterministic: true }, (value: unknown) => {
    if (value === null || value === undefined) return null;
    return localeKey(typeof value === 'string' ? value : String(value), locale);
  });
}
