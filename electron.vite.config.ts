import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { developmentCspPlugin } from './electron/main/app/devCsp.ts';

const root = import.meta.dirname;

/** The page's build, shared with the Playwright harness (test/e2e/globalSetup.ts). */
export const rendererConfig = {
  root: resolve(root, 'renderer'),
  base: './',
  // In development Vite injects styles as <style> elements: the dev server gives the page a policy
  // that allows them (electron/main/app/devCsp.ts); builds keep the strict one.
  plugins: [svelte(), developmentCspPlugin()],
  build: {
    outDir: resolve(root, 'out/renderer'),
    emptyOutDir: true,
    rollupOptions: { input: { index: resolve(root, 'renderer/index.html') } },
  },
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // zod and ky are bundled: loaded from node_modules they are about a hundred ES modules,
      // which every process that talks to the service (main, sync process, CLI) would load at start.
      externalizeDeps: { exclude: ['zod', 'ky'] },
      rollupOptions: {
        input: {
          index: resolve(root, 'electron/main/index.ts'),
          // The database worker thread and the sync process are entries of their own, found next
          // to the module that starts them (electron/main/cache/client.ts, electron/main/sync/controller.ts).
          dbWorker: resolve(root, 'electron/main/dbWorker.ts'),
          // The thread a large sync build fills its search index on (cache/searchIndexBuild.ts).
          searchIndexWorker: resolve(root, 'electron/main/searchIndexWorker.ts'),
          // The thread a large read writes its staged pages on (cache/stageWriterThread.ts).
          stageWriterWorker: resolve(root, 'electron/main/stageWriterWorker.ts'),
          syncProcess: resolve(root, 'electron/main/sync/processEntry.ts'),
          sampleApiWorker: resolve(root, 'electron/main/sampleApi/worker.ts'),
          cli: resolve(root, 'electron/main/cli/index.ts'),
        },
        // Native modules load from node_modules (unpacked from the asar by electron-builder).
        external: ['better-sqlite3', 'keytar', 'electron'],
        // Shared chunks sit beside the entries, so `new URL('./dbWorker.js', import.meta.url)`
        // resolves the same from any chunk.
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(root, 'electron/preload/index.ts') },
        // A sandboxed preload cannot be an ES module: one self-contained CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
      externalizeDeps: false,
    },
  },
  renderer: rendererConfig,
});
