/**
 * Naming order status codes in Chromium with the real handlers: in the profile form of a connected
 * profile and in the sample data's profile, two codes named with their colours are saved in the
 * profile (as the profiles file has it), shown again after a reload, and a row the contract would
 * refuse is pointed at, with the profile left as it was.
 */
import { expect, test } from './harness.ts';
import { expectAccessible, syncSample } from './tableSpecs.ts';
import type { Page } from '@playwright/test';

/** Adds a row to the status names table and fills it. */
async function nameStatus(page: Page, code: string, name: string, colour: string): Promise<void> {
  const table = page.getByTestId('status-names');
  await table.getByRole('button', { name: 'Name a status code' }).click();
  const rows = table.locator('tbody tr');
  const row = rows.last();
  // The new row's code field has the focus: typed, not clicked.
  await expect(row.getByRole('textbox').first()).toBeFocused();
  await page.keyboard.type(code);
  await page.keyboard.press('Tab');
  await page.keyboard.type(name);
  await row.getByRole('combobox').selectOption({ label: colour });
}

test('a connected profile’s form names two status codes; a bad code is pointed at', async ({ app }) => {
  const { page } = app;
  const acme = app.core.profiles.save({ name: 'Acme', environment: 'custom', baseUrl: 'https://acme.example.com/api/v1', accountId: null, pageSize: 100 });
  app.core.profiles.use(acme.id);
  await app.open();
  // Once the app has read its profiles it shows the page it remembers, which would overrule a
  // shortcut pressed before then.
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.keyboard.press('Control+7');
  const form = page.getByRole('form', { name: 'Edit profile Acme' });
  await expect(form).toBeVisible();
  await expect(form.getByTestId('status-names').locator('tbody tr')).toHaveCount(0);

  await nameStatus(page, '1', 'Received', 'Blue');
  await nameStatus(page, '5', 'Delivered', 'Green');
  await expectAccessible(page, 'the profile form with status names');
  await app.screenshot('54-profile-status-names');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => app.core.profiles.get(acme.id)?.statusNames).toEqual({ '1': { name: 'Received', colour: 'blue' }, '5': { name: 'Delivered', colour: 'green' } });
  // Nothing else of the profile changed.
  expect(app.core.profiles.get(acme.id)).toMatchObject({ name: 'Acme', baseUrl: 'https://acme.example.com/api/v1', pageSize: 100 });

  // After a reload the form shows them again, by code.
  await app.reload();
  await page.keyboard.press('Control+7');
  const table = page.getByTestId('status-names');
  await expect(table.getByRole('textbox', { name: 'Name of status 1' })).toHaveValue('Received');
  await expect(table.getByRole('textbox', { name: 'Name of status 5' })).toHaveValue('Delivered');
  await expect(table.getByRole('combobox', { name: 'Colour of status 5' })).toHaveValue('green');

  // A code that is not a whole number, and a duplicate: pointed at, nothing saved.
  await nameStatus(page, '2.5', 'Half', 'Red');
  await nameStatus(page, '5', 'Again', 'Grey');
  await form.getByRole('button', { name: 'Save changes' }).click();
  const bad = table.locator('tbody tr').nth(2).getByRole('textbox').first();
  await expect(bad).toBeFocused();
  await expect(bad).toHaveAttribute('aria-invalid', 'true');
  await expect(table).toContainText('A status code is a whole number such as 3 or -1.');
  await expect(table).toContainText('Status 5 is named twice.');
  await expect(page.getByTestId('form-error-summary')).toContainText('Order status names');
  await expectAccessible(page, 'status names refused');
  expect(Object.keys(app.core.profiles.get(acme.id)?.statusNames ?? {})).toEqual(['1', '5']);

  // Removing the bad rows and one name saves what is left.
  await table.getByRole('button', { name: 'Remove status 5' }).last().click();
  await table.getByRole('button', { name: 'Remove status 2.5' }).click();
  await table.getByRole('button', { name: 'Remove status 1' }).click();
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => app.core.profiles.get(acme.id)?.statusNames).toEqual({ '5': { name: 'Delivered', colour: 'green' } });

  // Template previews can be turned off in the same form, and the form shows the setting again.
  const previews = form.getByRole('checkbox', { name: 'Download template previews during a sync' });
  await expect(previews).toBeChecked();
  await previews.uncheck();
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => app.core.profiles.get(acme.id)?.previews).toBe(false);
  await app.reload();
  await page.keyboard.press('Control+7');
  await expect(page.getByRole('checkbox', { name: 'Download template previews during a sync' })).not.toBeChecked();
});

test('the sample data’s profile names status codes too', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  await page.keyboard.press('Control+7');
  const form = page.getByRole('form', { name: /^Status names of / });
  await expect(form).toBeVisible();
  await nameStatus(page, '0', 'Draft', 'Grey');
  await nameStatus(page, '-1', 'Cancelled', 'Red');
  await form.getByRole('button', { name: 'Save status names' }).click();
  const id = app.core.profiles.list().activeProfileId ?? '';
  await expect.poll(() => app.core.profiles.get(id)?.statusNames).toEqual({ '0': { name: 'Draft', colour: 'grey' }, '-1': { name: 'Cancelled', colour: 'red' } });
  expect(app.core.profiles.get(id)?.sampleData).toBe(true);
  await expectAccessible(page, 'the sample profile’s status names');
});
