import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run at once: one per core (vitest's own default leaves one core free), or
 * LETTERDESK_VITEST_WORKERS. Most files spend their time in child processes, loopback servers and
 * SQLite files of their own, so they share the cores well.
 */
function maxWorkers(): number {
  const given = process.env.LETTERDESK_VITEST_WORKERS;
  if (given === undefined || given === '') return Math.max(2, availableParallelism());
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new Error(`LETTERDESK_VITEST_WORKERS must be a whole number of at least 1, not "${given}".`);
  return n;
}

export default defineConfig({
  root: `${import.meta.dirname}/..`,
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests open real SQLite files, worker threads and loopback servers; forks isolate them best.
    pool: 'forks',
    maxWorkers: maxWorkers(),
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
  },
});
