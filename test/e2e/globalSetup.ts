import { build } from 'vite';
import { rendererConfig } from '../../electron.vite.config.ts';

/** Builds the renderer exactly as the app does, once per run, into out/renderer. */
export default async function globalSetup(): Promise<void> {
  if (process.env.LETTERDESK_SKIP_RENDERER_BUILD === '1') return;
  await build({ ...rendererConfig, configFile: false, logLevel: 'warn' });
}
