import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';

/**
 * Specs that take minutes (the large shared samples, the longest journeys), longest first: they are
 * queued before the rest, so the run does not end on one long spec while the other workers sit idle.
 */
const LONG_SPECS = ['scale.spec.ts', 'views.spec.ts', 'journey.spec.ts'];

/**
 * Specs that assert how long the page's main thread was busy, which a neighbouring worker on the
 * same cores would stretch: the project `quiet`. `npm test` runs it on its own, with one worker,
 * after the other projects.
 */
export const QUIET_SPECS = ['tableScale.spec.ts'];

/** The projects whose tests can run beside each other: the long specs one by one, then the rest. */
const PARALLEL_PROJECTS = [...LONG_SPECS.map((spec) => ({ name: spec.replace('.spec.ts', ''), testMatch: spec })), { name: 'chromium', testIgnore: [...LONG_SPECS, ...QUIET_SPECS] }];
/** Names of {@link PARALLEL_PROJECTS}, for `--project`. */
export const PARALLEL_PROJECT_NAMES = PARALLEL_PROJECTS.map((project) => project.name);
/** The project of {@link QUIET_SPECS}. */
export const QUIET_PROJECT = 'quiet';

/** A whole number of at least 1 from the environment variable `name`, or `fallback` when unset. */
function positiveInteger(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === '') return fallback;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, not "${given}".`);
  return n;
}


/**
 * End-to-end tests of the built renderer in Debian's Chromium, with the real main-side handlers
 * bound into the page (harness.ts). Tests run in parallel workers, one per core unless
 * LETTERDESK_E2E_WORKERS says otherwise: each test has its own data directory, core and sample API,
 * and the large samples are built once per run and copied (harness.ts `prebuiltSample`).
 * CHROMIUM_PATH overrides the browser path.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../test-results/e2e',
  globalSetup: './globalSetup.ts',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: positiveInteger('LETTERDESK_E2E_WORKERS', availableParallelism()),
  fullyParallel: true,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../../test-results/e2e.json' }]] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    // Animations stand still (prefers-reduced-motion): each moving frame is drawn in software here,
    // and the specs check what the page shows, not how it moves.
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Debian's chromium turns GPU rasterization on (/etc/chromium.d/default-flags); without a GPU
      // that means an emulated one, which costs more than drawing in software.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu-rasterization', '--disable-gpu-compositing'],
    },
  },
  // Projects of the same browser only to order the queue (Playwright hands out tests project by
  // project): each long spec first, in the order above, then every other spec, the quiet ones last.
  projects: [...PARALLEL_PROJECTS, { name: QUIET_PROJECT, testMatch: QUIET_SPECS }],
});
