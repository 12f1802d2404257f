/**
 * The main bundle's extra entries: the threads and the process the main process starts from a
 * file of their own. electron.vite.config.ts builds each as `<name>.js` beside the main bundle's
 * chunks; run from the TypeScript sources (tests, the benchmark, the CLI in development) they
 * are the source files listed here.
 */

/** Each entry's name in the build → its source file, relative to `electron/main/`. */
export const ENTRIES = {
  /** The database worker thread (cache/worker/client.ts). */
  dbWorker: 'dbWorker.ts',
  /** The thread a large build or read fills its search index on (cache/build/searchIndexBuild.ts). */
  searchIndexWorker: 'searchIndexWorker.ts',
  /** The thread a large read writes its staged pages on (cache/build/stageWriter.ts). */
  stageWriterWorker: 'stageWriterWorker.ts',
  /** The sync process (sync/controller.ts). */
  syncProcess: 'syncProcess.ts',
  /** The embedded sample API's thread (core/sampleApiRuntime.ts). */
  sampleApiWorker: 'sampleApiWorker.ts',
} as const;

/** The name of an entry in {@link ENTRIES}. */
export type EntryName = keyof typeof ENTRIES;

/**
 * Where an entry's file is: its TypeScript source when this module runs from the sources, or
 * `<name>.js` beside the built chunk this module was bundled into (every chunk and entry of the
 * main bundle sits in one folder, so the same relative URL holds from any of them).
 */
export function entryUrl(name: EntryName): URL {
  return import.meta.url.endsWith('.ts') ? new URL(`./${ENTRIES[name]}`, import.meta.url) : new URL(`./${name}.js`, import.meta.url);
}
