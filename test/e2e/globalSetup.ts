import { rmSync } from 'node:fs';
import { build } from 'vite';
import { rendererConfig } from '../../electron.vite.config.ts';
import { FIXTURE_DIR } from './harness.ts';

/**
 * Once per run, before any worker starts: empties the shared synced samples (harness.ts
 * `prebuiltSample`), so they are built by this run's code, and builds the renderer exactly as the
 * app does into out/renderer, unless LETTERDESK_SKIP_RENDERER_BUILD=1 says it was built already.
 */
export default async function globalSetup(): Promise<void> {
  rmSync(FIXTURE_DIR, { recursive: true, force: true });
  if (process.env.LETTERDESK_SKIP_RENDERER_BUILD === '1') return;
  await build({ ...rendererConfig, configFile: false, logLevel: 'warn' });
}
