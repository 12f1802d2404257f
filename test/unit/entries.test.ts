/**
 * The main bundle's extra entries (electron/main/entries.ts): from the sources each is a file
 * that exists and that the build takes as the entry of that name (electron.vite.config.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTRIES, entryUrl, type EntryName } from '../../electron/main/entries.ts';

const root = resolve(import.meta.dirname, '../..');

describe('entries of the main bundle', () => {
  it.each(Object.keys(ENTRIES) as EntryName[])('%s: from the sources, its source file', (name) => {
    const url = entryUrl(name);
    expect(url.protocol).toBe('file:');
    expect(fileURLToPath(url)).toBe(resolve(root, 'electron/main', ENTRIES[name]));
    expect(existsSync(url)).toBe(true);
  });
});
