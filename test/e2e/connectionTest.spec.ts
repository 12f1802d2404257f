/**
 * "Test connection" in the profile form, against the sample API reached as an ordinary profile over
 * loopback HTTP: good tokens answer with each resource's count; a wrong token is "rejected"; a
 * closed port is "connection refused", with the technical detail one click away; and a new profile
 * whose test fails can still be saved ("Save anyway"), as a person offline would.
 */
import { createServer, type AddressInfo } from 'node:net';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { expect, test } from './harness.ts';
import { expectAccessible } from './tableSpecs.ts';

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

test('the profile form tests the address and tokens, and a failed test can be saved anyway', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  const baseUrl = await app.core.sampleApi.ensure();
  await app.open();

  await page.getByRole('button', { name: /Connect to your account/ }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  await form.getByLabel('Name').fill('Acme (staging)');
  await form.getByText('Custom', { exact: true }).click();
  await form.getByLabel('Base URL').fill(baseUrl);
  await form.getByLabel('Access token').fill(SAMPLE_ACCESS_TOKEN);
  await form.getByLabel('Refresh token').fill(SAMPLE_REFRESH_TOKEN);

  // Good tokens: each resource answers with its count.
  await form.getByRole('button', { name: 'Test connection' }).click();
  const contacts = form.getByTestId('connection-contacts');
  const orders = form.getByTestId('connection-orders');
  await expect(contacts).toContainText('Contacts: ✓ 1,200 contacts');
  await expect(orders).toContainText('Orders: ✓ 360 orders');
  await expectAccessible(page, 'connection test passed');
  await app.screenshot('43-connection-test-ok');

  // A wrong token: rejected, in words, with the technical detail behind a disclosure.
  await form.getByLabel('Access token').fill('eyJhbGciOiJIUzI1NiJ9.wrong-token.x');
  await expect(form.getByTestId('connection-test')).toContainText('the settings changed since');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(contacts).toContainText('The service rejected the token');
  await expect(orders).toContainText('rejected');
  const detail = contacts.locator('code.detail');
  await expect(detail).toBeHidden();
  await contacts.getByText('Technical detail').click();
  await expect(detail).toBeVisible();
  await expect(detail).toContainText('AUTH_REJECTED');
  expect(await page.content()).not.toContain(SAMPLE_ACCESS_TOKEN);

  // A closed port: connection refused.
  await form.getByLabel('Access token').fill(SAMPLE_ACCESS_TOKEN);
  await form.getByLabel('Base URL').fill(`http://127.0.0.1:${await closedPort()}/api/v1`);
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(contacts).toContainText('connection refused');
  await expect(orders).toContainText('connection refused');
  await contacts.getByText('Technical detail').click();
  await expect(contacts.locator('code.detail')).toContainText('ECONNREFUSED');
  await expectAccessible(page, 'connection test failed');
  await app.screenshot('44-connection-test-failed');

  // Saving runs the test first; when it fails the person may still save, with a clear note.
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(form.getByTestId('save-anyway-note')).toContainText('The connection test failed');
  const anyway = form.getByRole('button', { name: 'Save anyway' });
  await expect(anyway).toBeFocused();
  expect(app.core.profiles.list().profiles).toEqual([]);
  // A change after the failed test takes the offer back until it is tested again.
  await form.getByLabel('Name').fill('Acme (offline)');
  await expect(anyway).toBeVisible();
  await form.getByLabel('Account id').fill('acct-1');
  await expect(anyway).toBeHidden();
  await form.getByLabel('Account id').fill('');
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(anyway).toBeFocused();
  await anyway.click();
  await expect.poll(() => app.core.profiles.list().profiles.map((p) => p.name)).toEqual(['Acme (offline)']);
  // The app opens on the new profile, and says the service cannot be reached.
  await expect(page.getByTestId('offline-banner')).toBeVisible({ timeout: 60_000 });
});

test('a profile that passes is saved at once; later it is tested with its stored tokens', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  const baseUrl = await app.core.sampleApi.ensure();
  await app.open();
  await page.getByRole('button', { name: /Connect to your account/ }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  await form.getByLabel('Name').fill('Acme');
  await form.getByText('Custom', { exact: true }).click();
  await form.getByLabel('Base URL').fill(baseUrl);
  await form.getByLabel('Access token').fill(SAMPLE_ACCESS_TOKEN);
  await form.getByLabel('Refresh token').fill(SAMPLE_REFRESH_TOKEN);
  await form.getByRole('button', { name: 'Connect and sync' }).click();
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/, { timeout: 60_000 });
  expect(app.core.profiles.list().profiles.map((p) => p.name)).toEqual(['Acme']);

  // The stored tokens are used for the address they were saved for; the page never holds them.
  await page.keyboard.press('Control+7');
  const edit = page.getByRole('form', { name: 'Edit profile Acme' });
  await expect(edit.getByText(/Token stored · saved/)).toBeVisible();
  await edit.getByRole('button', { name: 'Test connection' }).click();
  await expect(edit.getByTestId('connection-contacts')).toContainText('✓ 1,200 contacts');
  await expect(edit.getByTestId('connection-orders')).toContainText('✓ 360 orders');
  // Another address gets no stored token: the test says the address answers, and asks for tokens.
  await edit.getByLabel('Base URL').fill(baseUrl.replace('127.0.0.1', 'localhost'));
  await edit.getByRole('button', { name: 'Test connection' }).click();
  await expect(edit.getByTestId('connection-contacts')).toContainText('Enter the access token and refresh token');
  expect(await page.content()).not.toContain(SAMPLE_ACCESS_TOKEN);
});
