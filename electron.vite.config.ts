import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { developmentCspPlugin } from './electron/main/app/devCsp.ts';
import { ENTRIES } from './electron/main/entries.ts';

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
          // The threads and the sync process the main process starts from files of their own,
          // found beside the chunks by electron/main/entries.ts `entryUrl`.
          ...Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, resolve(root, 'electron/main', source)])),
          cli: resolve(root, 'electron/main/cli/index.ts'),
        },
        // Native modules load from node_modules (unpacked from the asar by electron-builder).
        external: ['better-sqlite3', 'keytar', 'electron'],
        // Shared chunks sit beside the entries, so `new URL('./dbWorker.js', import.meta.url)`
        // resolves the same from any chunk (entries.ts).
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
