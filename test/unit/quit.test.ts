/**
 * Quitting waits for the core to close (electron/main/app/quit.ts), with a fake of Electron's `app`
 * typed against its declarations (test/helpers/fakeElectron.ts; the Electron suite, test/electron,
 * runs the real one where an Electron binary is installed). The core here is a real one: its
 * cache's session marker must be gone when the quit goes through.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeBeforeQuit } from '../../electron/main/app/quit.ts';
import { sessionMarkerPath } from '../../electron/main/cache/store/db.ts';
import { createCore } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { cacheFilePath } from '../../electron/main/base/paths.ts';
import { FakeApp } from '../helpers/fakeElectron.ts';

describe('closeBeforeQuit', () => {
  it('holds the quit until a real core has closed its cache (the session marker is gone), then quits once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-quit-'));
    const core = createCore({
      dataDir: dir, version: 'test', logFile: null, emit: () => {}, keychain: 'session-only', autoSyncAfterMinutes: 0,
      sample: { contacts: 200, orders: 20, seed: 3 },
      platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
    });
    try {
      const made = await dispatchCall(createHandlers(core), 'createSampleProfile', {});
      const id = (made as { ok: true; value: { id: string } }).value.id;
      await core.cache();
      const marker = sessionMarkerPath(cacheFilePath(dir, id));
      expect(existsSync(marker)).toBe(true);

      const app = new FakeApp();
      closeBeforeQuit(app.app, () => core.close());
      app.app.quit();
      expect(app.prevented).toBe(1);
      app.app.quit(); // quitting again while closing changes nothing
      expect(app.prevented).toBe(2);
      await expect.poll(() => app.quits, { timeout: 10_000 }).toBe(3);
      // The quit that went through came after the close: the marker was already gone.
      expect(app.prevented).toBe(2);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await core.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quits anyway when closing fails or takes too long', async () => {
    const failing = new FakeApp();
    const errors: unknown[] = [];
    closeBeforeQuit(failing.app, () => Promise.reject(new Error('worker gone')), 5000, (e) => errors.push(e));
    failing.app.quit();
    await expect.poll(() => failing.quits).toBe(2);
    expect(String(errors[0])).toMatch(/worker gone/);

    const stuck = new FakeApp();
    const started = performance.now();
    closeBeforeQuit(stuck.app, () => new Promise(() => {}), 200, (e) => errors.push(e));
    stuck.app.quit();
    await expect.poll(() => stuck.quits).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(String(errors[1])).toMatch(/longer than 200 ms/);
  });
});
