/**
 * A first sync whose contacts fail while the orders succeed: the page says at once that the
 * contacts were not downloaded (and why), keeps reading the orders, and then shows the orders it
 * has and, for the contacts, what to do — nothing pretends the contacts are there. The service is
 * the embedded sample API, its contacts answering server errors or changing while they are read
 * (real HTTP over loopback).
 */
import { expect, test } from './harness.ts';

test('first sync: contacts fail, orders arrive; the page says which is which', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await app.open();
  await app.core.sampleApi.ensure();
  app.core.sampleApi.server?.setFaults({ serverErrorRate: 1, endpoints: ['contacts'], latencyMs: 300 });
  await page.getByRole('button', { name: /Explore with sample data/ }).click();

  // Announced as soon as the contacts' run ends, while the orders are still being read.
  await expect(page.getByText(/Contacts not downloaded\. GET \/contacts failed: the service answered HTTP 50\d/)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(/previous copy/)).toHaveCount(0);
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });

  // The orders are there; the contacts view does not claim rows it does not have.
  await page.keyboard.press('Control+3');
  await expect(page.getByRole('grid', { name: 'Orders' }).locator('[role="row"][aria-rowindex="2"]')).toBeVisible();
  await page.keyboard.press('Control+2');
  await expect(page.getByRole('grid', { name: 'Contacts' }).locator('[role="row"][aria-rowindex="2"]')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Contacts/ })).not.toContainText(/[1-9]/);
  // The service answered, with errors: not "offline", and not "this account has no contacts".
  await expect(page.getByTestId('connectivity')).toContainText(/Service unavailable — showing data from/);
  await expect(page.getByTestId('offline-banner')).toContainText(/Service unavailable/);
  await expect(page.getByText('Service unavailable — no contacts cached yet')).toBeVisible();
  await expect(page.getByText(/HTTP 50\d after \d attempts/).first()).toBeVisible();
  await expect(page.getByText(/has no contacts/)).toHaveCount(0);
  await app.screenshot('21-first-sync-contacts-failed');

  // With the service well again, the next sync brings the contacts.
  app.core.sampleApi.server?.setFaults({});
  await page.keyboard.press('Control+r');
  await expect(page.getByRole('grid', { name: 'Contacts' }).locator('[role="row"][aria-rowindex="2"]')).toBeVisible({ timeout: 60_000 });
});

test('first sync: contacts keep changing while read; the contacts view says they were not downloaded, and why', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await app.open();
  await app.core.sampleApi.ensure();
  // A record is added after every page of contacts: no full read agrees with the one before, so
  // the contacts run fails (DRIFT) while the orders arrive. Every request was answered, so the
  // service is online: this is about the contacts' data, not about the service.
  app.core.sampleApi.server?.setFaults({ drift: { inserts: 1 }, endpoints: ['contacts'] });
  await app.exploreSampleData(60_000);
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/);
  await expect(page.getByTestId('offline-banner')).toBeHidden();
  await page.keyboard.press('Control+2');
  await expect(page.getByText('Contacts not downloaded', { exact: true })).toBeVisible();
  await expect(page.getByText(/The last sync could not read them: The service's contacts kept changing while they were read .* No contacts are cached yet\./)).toBeVisible();
  await expect(page.getByText(/Service unavailable|previous|cached before|has no contacts/)).toHaveCount(0);
  await app.screenshot('22-first-sync-contacts-drifted');
  // The Sync view's card for the contacts says the same, with no rows.
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('resource-contacts').locator('.c-err')).toContainText(/kept changing/);
  await expect(page.getByTestId('resource-contacts').locator('.c-rows')).toHaveText('0 rows');
  // With the service settled, the view's own button brings the contacts.
  app.core.sampleApi.server?.setFaults({});
  await page.keyboard.press('Control+2');
  await page.getByRole('main', { name: 'Contacts' }).getByRole('button', { name: 'Sync now' }).click();
  await expect(page.getByRole('grid', { name: 'Contacts' }).locator('[role="row"][aria-rowindex="2"]')).toBeVisible({ timeout: 60_000 });
});
