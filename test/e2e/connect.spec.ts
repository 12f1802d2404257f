/**
 * "Connect to your account" with a token the service rejects: the app says so plainly, keeps
 * working, and recovers once a good token is entered in Profiles. The service is the sample API
 * reached as an ordinary (custom) profile over loopback HTTP, so the real 401 path is exercised.
 */
import AxeBuilder from '@axe-core/playwright';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { expect, test } from './harness.ts';

test('a rejected token is explained and can be replaced', async ({ app }) => {
  test.setTimeout(240_000);
  const { page } = app;
  const baseUrl = await app.core.sampleApi.ensure();
  await app.open();

  await page.getByRole('button', { name: /Connect to your account/ }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  await form.getByLabel('Name').fill('Acme (staging)');
  await form.getByText('Custom', { exact: true }).click();
  await form.getByLabel('Base URL').fill(baseUrl);
  await form.getByLabel('Page size').fill('250');
  // The refresh token is asked for with the access token: the contact list sends it (§5).
  await form.getByLabel('Access token').fill('eyJhbGciOiJIUzI1NiJ9 .not-a-valid-token');
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(form.getByText('Paste the refresh token too: the service asks for it with the contact list.')).toBeVisible();
  await form.getByLabel('Refresh token').fill('rt-not-valid-either');
  // A token pasted with a space inside is refused in the form itself; no profile is created, so the
  // welcome screen (and what was typed) stays.
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(form.getByRole('alert')).toContainText('The access token contains spaces, line breaks or control characters. Paste only the token itself.');
  await expect(form.getByLabel('Name')).toHaveValue('Acme (staging)');
  expect(app.core.profiles.list().profiles).toEqual([]);
  await form.getByLabel('Access token').fill('eyJhbGciOiJIUzI1NiJ9.not-a-valid-token.x');
  await app.screenshot('30-connect-form');
  // The connection is tested before the profile is saved: the token is rejected, and the person
  // chooses to save the profile anyway.
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(form.getByTestId('connection-contacts')).toContainText('rejected');
  expect(app.core.profiles.list().profiles).toEqual([]);
  await form.getByRole('button', { name: 'Save anyway' }).click();

  // 401 → the banner and the status bar say what happened and what to do.
  const banner = page.getByTestId('auth-banner');
  await expect(banner).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('connectivity')).toContainText('Token rejected — open Profiles to enter a new one');
  await expect(page.getByText('The service rejected this profile’s token')).toBeVisible();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), colorScheme).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await app.screenshot('31-token-rejected');

  // Profiles: the stored token is never shown; a new one replaces it.
  await banner.getByRole('button', { name: 'Open Profiles' }).click();
  await expect(page.getByText('The service rejected the stored token. Enter a new one.')).toBeVisible();
  const token = page.getByLabel('Access token');
  await expect(token).toHaveValue('');
  await expect(token).toHaveAttribute('type', 'password');
  await app.screenshot('32-profile-token-rejected');
  await token.fill(SAMPLE_ACCESS_TOKEN);
  await page.getByLabel('Refresh token').fill(SAMPLE_REFRESH_TOKEN); // §5: the contact list also sends `refreshtoken`
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText(/Token stored · saved/)).toBeVisible();
  expect(await page.content()).not.toContain(SAMPLE_ACCESS_TOKEN);
  expect(await page.content()).not.toContain(SAMPLE_REFRESH_TOKEN);

  // Saving new tokens for the active profile syncs at once.
  await expect(banner).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/, { timeout: 60_000 });
  // The records are in; the sync ends once it has read the kept filters too.
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 120_000 });
  await page.keyboard.press('Control+2');
  await expect(page.getByRole('grid', { name: 'Contacts' }).locator('[role="row"][aria-rowindex="2"]')).toBeVisible();
  await page.keyboard.press('Control+7');
  await app.screenshot('33-profile-token-stored');

  // Pointing the profile at another address: the stored tokens are never sent there, the form
  // says so and asks for the new address's tokens, and saving removes the old ones.
  const other = baseUrl.replace('127.0.0.1', 'localhost');
  await page.getByLabel('Base URL').fill(other);
  await expect(page.getByTestId('tokens-address-changed')).toContainText('never sent to the new one');
  await expect(page.getByLabel('Access token')).toBeVisible();
  await app.screenshot('34-profile-address-changed');
  // The save reads the credential status when it has saved; held here, so that the new
  // address's token is typed while the form still says "Saving…": what is typed then stays.
  const credentials = app.core.credentials as { status: (id: string) => Promise<unknown> };
  const status = credentials.status.bind(credentials);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  credentials.status = async (id) => {
    await held;
    return status(id);
  };
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('button', { name: 'Saving…' })).toBeDisabled();
  await page.getByLabel('Access token').fill('typed-while-saving');
  release();
  credentials.status = status;
  await expect(page.getByText(/Token stored · saved/)).toBeHidden();
  await expect(page.getByRole('button', { name: 'Save changes' })).toBeEnabled();
  await expect(page.getByLabel('Access token')).toHaveValue('typed-while-saving');
  const profileId = app.core.profiles.list().profiles[0]?.id ?? '';
  expect((await app.core.credentials.status(profileId)).stored).toBe(false);

  // The copy is kept, and the window says which address it came from until a sync replaces it.
  const source = page.getByTestId('source-banner');
  await expect(source).toContainText(`This copy is from ${new URL(baseUrl).origin}.`);
  await expect(source).toContainText(other);
  await app.screenshot('35-copy-from-previous-address');
  await page.getByLabel('Access token').fill(SAMPLE_ACCESS_TOKEN);
  await page.getByLabel('Refresh token').fill(SAMPLE_REFRESH_TOKEN);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(source).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/, { timeout: 60_000 });
});

