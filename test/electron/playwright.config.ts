import { defineConfig } from '@playwright/test';

/** The real app under Playwright's `_electron` (needs an Electron binary and `npm run build`). */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../test-results/electron',
  timeout: 120_000,
  workers: 1,
  reporter: [['list']],
});
