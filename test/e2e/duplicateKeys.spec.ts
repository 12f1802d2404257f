/**
 * Ordinary service data that repeats itself must not break a view: a contact with two labels of the
 * same title, one with two labels of the same id, one with the same label twice, an order whose
 * recipients repeat an entry id and a contact id, and two orders without a product type (one
 * sending "", one null), which the filter pane offers as one "(none)". The sample API's records
 * are edited to carry them; the real app (built renderer, real handlers; harness.ts) syncs them and
 * shows them in the tables, the filter pane and the details. Observed in the page: each repeated
 * label is on screen as often as the service sent it, a contact that is twice a recipient of an
 * order is listed twice, and the page raised no error.
 */
import type { OrderContact } from '../../shared/serviceRecords.ts';
import { expect, test } from './harness.ts';

test.use({ sampleContacts: 120, sampleOrders: 30 });

test('labels and recipients that repeat a title or an id show in the tables and the details', async ({ app }) => {
  test.setTimeout(180_000);
  const { page, core } = app;
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await core.sampleApi.ensure();
  const dataset = core.sampleApi.server!.dataset;
  const [sameTitleId, sameIdId, identicalId] = [...dataset.contactIds()].slice(0, 3) as [string, string, string];
  // Two labels of one title (the table keyed its chips by title).
  dataset.updateContact(sameTitleId, {
    firstName: 'Zyxtwin', lastName: 'Title', fullName: 'Zyxtwin Title',
    ContactLabels: [{ id: '990001', title: 'Twin' }, { id: '990002', title: 'Twin' }, { id: '990003', title: 'Other' }],
  });
  // Two labels of one id (the detail keyed its chips by id).
  dataset.updateContact(sameIdId, {
    firstName: 'Zyxtwin', lastName: 'Ident', fullName: 'Zyxtwin Ident',
    ContactLabels: [{ id: '990004', title: 'Alpha' }, { id: '990004', title: 'Beta' }],
  });
  // The same label twice: same id and same title.
  dataset.updateContact(identicalId, {
    firstName: 'Zyxtwin', lastName: 'Both', fullName: 'Zyxtwin Both',
    ContactLabels: [{ id: '990005', title: 'Echo' }, { id: '990005', title: 'Echo' }],
  });

  // An order whose recipients repeat an entry id and a contact id.
  const order = dataset.orderById([...dataset.orderIds()][0] as string)!;
  const base = order.contacts[0] as OrderContact;
  const snapshot = (fullName: string, contactId: string) => ({ ...base.contact, id: contactId, firstName: 'Zyxtwin', lastName: fullName.split(' ')[1] ?? '', fullName });
  const recipients: OrderContact[] = [
    { ...base, id: '880001', contact: snapshot('Zyxtwin Repeated', sameTitleId), isDelivered: true },
    { ...base, id: '880002', contact: snapshot('Zyxtwin Repeated', sameTitleId), isDelivered: false },
    { ...base, id: '880003', contact: snapshot('Zyxtwin Entry', sameIdId), isDelivered: false },
    { ...base, id: '880003', contact: snapshot('Zyxtwin Entry', sameIdId), isDelivered: false },
  ];
  dataset.updateOrder(order.id, { contacts: recipients });
  // Two orders without a product type, one saying so with "" and one with null: the filter pane
  // offers a single "(none)" for both.
  for (const [i, productType] of (['', null] as const).entries()) {
    const other = dataset.orderById([...dataset.orderIds()][i + 1] as string)!;
    dataset.updateOrder(other.id, { product: { ...other.product, productType } });
  }

  await app.open();
  await app.exploreSampleData(90_000);

  // Contacts table: the three contacts with their labels as chips.
  await page.keyboard.press('Control+2');
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill('Zyxtwin');
  const grid = page.getByRole('grid', { name: 'Contacts' });
  const rowOf = (name: string) => grid.getByRole('row').filter({ hasText: name });
  await expect(rowOf('Zyxtwin Title')).toHaveCount(1);
  await expect(rowOf('Zyxtwin Title').getByText('Twin', { exact: true })).toHaveCount(2);
  await expect(rowOf('Zyxtwin Title')).toContainText('+1');
  await expect(rowOf('Zyxtwin Ident').getByText('Alpha', { exact: true })).toHaveCount(1);
  await expect(rowOf('Zyxtwin Ident').getByText('Beta', { exact: true })).toHaveCount(1);
  await expect(rowOf('Zyxtwin Both').getByText('Echo', { exact: true })).toHaveCount(2);

  // Contact details: every label the service sent.
  const detail = page.getByTestId('detail-panel');
  const labelsOf = async (name: string) => {
    await rowOf(name).click();
    await expect(detail.getByRole('heading', { name, level: 2 })).toBeVisible();
    return detail.getByLabel('Labels');
  };
  let labels = await labelsOf('Zyxtwin Title');
  await expect(labels.getByText('Twin', { exact: true })).toHaveCount(2);
  await expect(labels.getByText('Other', { exact: true })).toHaveCount(1);
  labels = await labelsOf('Zyxtwin Ident');
  await expect(labels.getByText('Alpha', { exact: true })).toHaveCount(1);
  await expect(labels.getByText('Beta', { exact: true })).toHaveCount(1);
  labels = await labelsOf('Zyxtwin Both');
  await expect(labels.getByText('Echo', { exact: true })).toHaveCount(2);
  await app.screenshot('40-contacts-repeated-labels');

  // The contact that is twice a recipient of the order lists that order.
  await rowOf('Zyxtwin Title').click();
  const ordersOfContact = detail.getByRole('list', { name: 'Orders of this contact' });
  await expect(ordersOfContact.locator(`[data-order-id="${order.id}"]`)).toHaveCount(1);

  // Orders table and the order's detail: its recipients, the repeated ones included.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+3');
  const productTypes = page.getByRole('group', { name: 'Product type' });
  const showAll = productTypes.getByRole('button', { name: /Show all/ });
  if (await showAll.count()) await showAll.click();
  const none = productTypes.locator('label').filter({ hasText: '(none)' });
  await expect(none).toHaveCount(1);
  await expect(none.locator('.count')).toHaveText('2');
  await page.getByRole('searchbox', { name: 'Search orders' }).fill(order.id);
  const orders = page.getByRole('grid', { name: 'Orders' });
  const orderRow = orders.getByRole('row').filter({ hasText: order.id });
  await expect(orderRow).toHaveCount(1);
  await expect(orderRow).toContainText(`1 of ${recipients.length}`);
  await orderRow.click();
  await expect(detail).toContainText(`#${order.id}`);
  const list = detail.getByRole('grid', { name: 'Recipients of this order' });
  await expect(list.getByRole('button', { name: 'Open contact Zyxtwin Repeated' })).toHaveCount(2);
  await expect(list.getByRole('button', { name: 'Open contact Zyxtwin Entry' }).first()).toBeVisible();
  await app.screenshot('41-order-repeated-recipients');

  // A recipient opens its contact.
  await list.getByRole('button', { name: 'Open contact Zyxtwin Repeated' }).first().click();
  await expect(page.getByRole('grid', { name: 'Contacts' })).toBeVisible();
  await expect(detail.getByRole('heading', { name: 'Zyxtwin Title', level: 2 })).toBeVisible();

  expect(pageErrors).toEqual([]);
});
