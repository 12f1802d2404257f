import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'electron-vite';
import { FIXTURE_DIR } from './harness.ts';

/**
 * Once per run, before any worker starts: empties the shared synced samples (harness.ts
 * `prebuiltSample`), so they are built by this run's code, and builds the app exactly as
 * `npm run build` does into out/ (the page, and the sync process and database worker the harness
 * starts), unless LETTERDESK_SKIP_BUILD=1 says this run's build is there already.
 */
export default async function globalSetup(): Promise<void> {
  rmSync(FIXTURE_DIR, { recursive: true, force: true });
  if (process.env.LETTERDESK_SKIP_BUILD === '1') return;
  await build({ configFile: resolve(import.meta.dirname, '../../electron.vite.config.ts'), logLevel: 'warn' });
}
