import { defineConfig } from '@playwright/test';

/**
 * Specs that take minutes (the large shared samples, the longest journeys), longest first: they are
 * queued before the rest, so the run does not end on one long spec while the other workers sit idle.
 */
const LONG_SPECS = ['scale.spec.ts', 'tableScale.spec.ts', 'views.spec.ts', 'journey.spec.ts'];

/**
 * LETTERDESK_E2E_WORKERS: how many tests run at once (each in a worker process of its own); 1 by
 * default, since on two cores a neighbour starves the page of tableScale.spec.ts, whose copy of
 * 100,000 rows must keep every main-thread task under a second.
 */
function workers(): number {
  const given = process.env.LETTERDESK_E2E_WORKERS;
  if (given === undefined || given === '') return 1;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new Error(`LETTERDESK_E2E_WORKERS must be a whole number of at least 1, not "${given}".`);
  return n;
}

/**
 * End-to-end tests of the built renderer in Debian's Chromium, with the real main-side handlers
 * bound into the page (harness.ts). Tests can run in parallel workers: each has its own data directory,
 * core and sample API, and the large samples are built once per run and copied (harness.ts
 * `prebuiltSample`). CHROMIUM_PATH overrides the browser path.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../test-results/e2e',
  globalSetup: './globalSetup.ts',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: workers(),
  fullyParallel: true,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../../test-results/e2e.json' }]] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  // Projects of the same browser only to order the queue (Playwright hands out tests project by
  // project): each long spec first, in the order above, then every other spec.
  projects: [...LONG_SPECS.map((spec) => ({ name: spec.replace('.spec.ts', ''), testMatch: spec })), { name: 'chromium', testIgnore: LONG_SPECS }],
});
