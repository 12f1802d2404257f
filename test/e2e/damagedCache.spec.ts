/**
 * Requirement: "A damaged cache file … detected at open, moved aside (never deleted), the user told, and
 * a fresh sync offered" — as the person at the window sees it (built renderer, real handlers,
 * Chromium): the sample profile's cache is overwritten with random bytes while the app is closed;
 * on start the window shows the CACHE_DAMAGED message (where the file went, that nothing was
 * deleted, to sync again), "Sync now" rebuilds the cache, the contacts come back, and the damaged
 * bytes are still on disk next to the new cache. And with two profiles: switching to the one whose
 * cache is damaged shows nothing of the other (counts, status), its error goes when switching back,
 * its sync shows as running, and a switch refused meanwhile leaves the profile menu as it was.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { cacheFilePath } from '../../electron/main/base/paths.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { expect, test } from './harness.ts';

test.use({ sampleContacts: 150, sampleOrders: 20 });

test('a damaged cache is reported in the window, kept aside, and a sync rebuilds it', async ({ app }) => {
  test.setTimeout(120_000);
  const { page, core } = app;
  const made = await dispatchCall(createHandlers(core), 'createSampleProfile', {});
  expect(made).toMatchObject({ ok: true });
  const file = cacheFilePath(app.dataDir, (made as { value: { id: string } }).value.id);
  mkdirSync(dirname(file), { recursive: true });
  const damaged = randomBytes(96 * 1024);
  writeFileSync(file, damaged);

  await app.open();
  // The person is told what happened and what to do.
  await expect(page.getByText(/cache file was damaged/i).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/nothing was deleted/i).first()).toBeVisible();
  // The view offers the action that fixes it (a sync builds a fresh cache), not a retry of the same read.
  const strip = page.getByRole('alert').filter({ hasText: /cache file was damaged/i });
  await expect(strip.getByRole('button', { name: 'Sync now' })).toBeVisible();
  await expect(strip.getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await app.screenshot('reliability-damaged-cache');

  // The fresh sync the message offers.
  await strip.getByRole('button', { name: 'Sync now' }).click();
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Contacts/ }).click();
  await expect(page.getByRole('grid', { name: 'Contacts' }).locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])').first()).toBeVisible({ timeout: 30_000 });

  // Nothing was deleted: the damaged bytes sit next to the rebuilt cache.
  const aside = readdirSync(dirname(file)).filter((n) => n.includes('.damaged-') && !n.endsWith('-wal') && !n.endsWith('-shm'));
  expect(aside.some((n) => readFileSync(join(dirname(file), n)).equals(damaged)), `files: ${readdirSync(dirname(file)).join(', ')}`).toBe(true);
});

test('switching to a profile whose cache is damaged shows nothing of the previous one; its sync shows as running', async ({ app }) => {
  test.setTimeout(120_000);
  const { page, core } = app;
  await app.open();
  await app.exploreSampleData(60_000);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('button', { name: /Contacts/ })).toContainText('150');

  // A second profile on the same service, whose cache file is random bytes.
  const handlers = createHandlers(core);
  const saved = await dispatchCall(handlers, 'saveProfile', {
    name: 'Branch office', environment: 'custom', baseUrl: await core.sampleApi.ensure(), accountId: null, pageSize: 100,
    credentials: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN, sessionOnly: true },
  });
  expect(saved).toMatchObject({ ok: true });
  const file = cacheFilePath(app.dataDir, (saved as { value: { id: string } }).value.id);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, randomBytes(64 * 1024));

  const select = page.getByLabel('Active profile');
  await select.selectOption({ label: 'Branch office' });
  // Nothing of the sample profile's cache is shown under this profile's name. (The switch lands
  // first: it opens the profile on the page it was last on, which a key pressed earlier would lose.)
  await expect(nav.getByRole('button', { name: /Contacts/ })).not.toContainText(/\d/);
  await page.keyboard.press('Control+6');
  await expect(page.getByRole('alert').filter({ hasText: /cache file was damaged/i })).toBeVisible();
  await expect(page.getByText(/150 contacts/)).toHaveCount(0);

  // Back on the sample profile, its status is read again and the other profile's error is gone.
  await select.selectOption({ label: 'Sample data' });
  await expect(nav.getByRole('button', { name: /Contacts/ })).toContainText('150');
  await expect(page.getByText(/cache file was damaged/i)).toHaveCount(0);

  // The damaged profile's sync, which replaces its cache, shows as running while it runs.
  await select.selectOption({ label: 'Branch office' });
  await expect(page.getByRole('alert').filter({ hasText: /cache file was damaged/i })).toBeVisible();
  core.sampleApi.server?.setFaults({ latencyMs: 1000 });
  await nav.getByRole('button', { name: 'Sync now' }).click();
  await expect(page.getByTestId('status-sync')).toBeVisible();
  await expect(nav.getByRole('button', { name: 'Syncing…' })).toBeDisabled();
  // A switch is refused while it runs, and the profile menu goes on naming the active profile.
  await select.selectOption({ label: 'Sample data' });
  await expect(page.getByText('A sync is running. Wait for it or cancel it before switching profiles.')).toBeVisible();
  await expect(select.locator('option:checked')).toHaveText('Branch office');
  core.sampleApi.server?.setFaults({});
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  await expect(nav.getByRole('button', { name: /Contacts/ })).toContainText('150');
  await expect(page.getByText(/cache file was damaged/i)).toHaveCount(0);
});
