import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = import.meta.dirname;

/** The page's build, shared with the Playwright harness (test/e2e/globalSetup.ts). */
export const rendererConfig = {
  root: resolve(root, 'renderer'),
  base: './',
  plugins: [svelte()],
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
      rollupOptions: {
        input: {
          index: resolve(root, 'electron/main/index.ts'),
          // The cache runs in a worker thread; it is its own entry (see electron/main/cache/client.ts).
          dbWorker: resolve(root, 'electron/main/cache/worker.ts'),
          cli: resolve(root, 'electron/main/cli/index.ts'),
        },
        // Native modules load from node_modules (unpacked from the asar by electron-builder).
        external: ['better-sqlite3', 'keytar', 'electron'],
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
