/**
 * Requirement: "Record text containing HTML and script is shown as text everywhere in the renderer;
 * `templateUrl`/`thumbnailUrl`/`websiteUrl` with `javascript:`, `file:` or `data:` schemes are never
 * opened or loaded."
 *
 * The sample API's records are edited to carry script payloads in every text field the contact and
 * order views show (names, company, city, email, labels, campaign, product, template title, creator,
 * recipients) and hostile URL schemes in the three URL fields. The real app (built renderer, real
 * handlers, production CSP; harness.ts) syncs them and shows them in the table and the details.
 * Observed in the page:
 *  - no payload ran (`window.__pwned` stays unset, no dialog opened);
 *  - the payload text is visible literally, and no element it describes exists in the DOM (no
 *    `img[src=x]`, `svg`/`iframe`/`script` from data, no `on*` attribute from data);
 *  - no request for a `javascript:`, `file:` or `data:` URL, no link or image with such a URL, and
 *    the OS was never asked to open one (platform log); the page's own openExternal call refuses them.
 */
import { expect, test } from './harness.ts';

const MARK = 'Xss';
const payload = (n: number) => `${MARK}${n} <img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n}</script><svg onload="window.__pwned=${n}">`;
const HOSTILE_URLS = ['javascript:window.__pwned=100', 'file:///etc/passwd', 'data:text/html,<script>window.__pwned=101</script>', 'data:image/svg+xml,<svg onload="window.__pwned=102"/>', 'JaVaScRiPt:window.__pwned=103', ' javascript:window.__pwned=104'];

test.use({ sampleContacts: 120, sampleOrders: 30 });

test('record text with HTML and script is shown as text; hostile URL schemes are never opened or loaded', async ({ app }) => {
  test.setTimeout(240_000);
  const { page, core } = app;
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));

  // Hostile records on the service side.
  await core.sampleApi.ensure();
  const dataset = core.sampleApi.server!.dataset;
  const contactId = [...dataset.contactIds()][0] as string;
  dataset.updateContact(contactId, {
    firstName: payload(1),
    lastName: payload(2),
    fullName: payload(3),
    companyName: payload(4),
    city: payload(5),
    address1: payload(6),
    email: `"><img src=x onerror=window.__pwned=7>@example.com`,
    websiteUrl: HOSTILE_URLS[0],
    ContactLabels: [{ id: '990001', title: payload(8) }],
  });
  const order = dataset.orderById([...dataset.orderIds()][0] as string)!;
  const recipients = order.contacts.map((entry, i) => (i === 0 ? { ...entry, contact: { ...entry.contact, fullName: payload(9), city: payload(10), websiteUrl: HOSTILE_URLS[2] }, trackingCode: payload(11) } : entry));
  dataset.updateOrder(order.id, {
    campaign: { ...order.campaign, name: payload(12), description: payload(13) },
    product: { ...order.product, name: payload(14), meta: { note: payload(15) } },
    template: { ...order.template, title: payload(16), templateUrl: HOSTILE_URLS[1], thumbnailUrl: HOSTILE_URLS[3], creator: { ...order.template.creator, fullName: payload(17) } },
    contacts: recipients,
    meta: { account_id: payload(18) },
  });
  const order2 = dataset.orderById([...dataset.orderIds()][1] as string)!;
  dataset.updateOrder(order2.id, { template: { ...order2.template, templateUrl: HOSTILE_URLS[4], thumbnailUrl: HOSTILE_URLS[5] } });

  await app.open();
  await app.exploreSampleData(90_000);

  const expectNothingRan = async (where: string) => {
    const state = await page.evaluate(() => {
      const w = window as unknown as { __pwned?: number };
      const fromData = [...document.querySelectorAll('img[src="x"], iframe, object, embed, svg[onload], script:not([src])')].map((e) => e.outerHTML.slice(0, 120));
      const handlers = [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name) && /__pwned/.test(a.value)).map((a) => `${e.tagName} ${a.name}`));
      const badLinks = [...document.querySelectorAll('a[href], img[src], iframe[src], [srcset]')]
        .map((e) => e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('srcset') ?? '')
        .filter((u) => /^\s*(javascript|file|data):/i.test(u));
      return { pwned: w.__pwned ?? null, fromData, handlers, badLinks };
    });
    expect(state, where).toEqual({ pwned: null, fromData: [], handlers: [], badLinks: [] });
    expect(dialogs, where).toEqual([]);
    expect(requests.filter((u) => /^(javascript|file|data):/i.test(u)), `${where}: requests`).toEqual([]);
    expect(app.platformLog.openedExternal.filter((u) => !/^https?:/i.test(u)), `${where}: URLs the OS was asked to open`).toEqual([]);
  };

  // Contacts: the table row, then the detail panel.
  const search = page.getByRole('searchbox', { name: 'Search contacts' });
  await search.fill(`${MARK}3`);
  const grid = page.getByRole('grid', { name: 'Contacts' });
  await expect(grid).toContainText(`${MARK}3 <img src=x onerror="window.__pwned=3">`);
  await expectNothingRan('contacts table');
  await grid.locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])').first().click();
  const detail = page.getByTestId('detail-panel');
  await expect(detail).toBeVisible();
  for (const n of [3, 4, 5]) await expect(detail).toContainText(`${MARK}${n} <img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n}</script>`);
  await expect(detail).toContainText(HOSTILE_URLS[0] as string); // shown as text…
  await expect(detail.getByRole('button', { name: HOSTILE_URLS[0] as string })).toHaveCount(0); // …not as something to click
  await expect(detail.getByRole('link')).toHaveCount(0);
  await expectNothingRan('contact detail');

  // Orders: search by the order id, open the detail with the hostile template and recipients.
  await page.keyboard.press('Escape');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Orders/ }).click();
  await page.getByRole('searchbox', { name: /Search orders/ }).fill(order.id);
  const orders = page.getByRole('grid', { name: 'Orders' });
  await expect(orders).toContainText(`${MARK}12`);
  await expectNothingRan('orders table');
  await orders.locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])').filter({ hasText: `${MARK}12` }).first().click();
  await expect(page.getByTestId('detail-panel')).toContainText(`#${order.id}`);
  const orderDetail = page.getByTestId('detail-panel');
  for (const n of [12, 14, 16, 17]) await expect(orderDetail).toContainText(`${MARK}${n} <img src=x onerror="window.__pwned=${n}">`);
  await expect(orderDetail.getByRole('button', { name: /Open template file/ })).toHaveCount(0);
  await expect(orderDetail.locator('img')).toHaveCount(0);
  await expectNothingRan('order detail');

  // The second order: mixed-case and space-prefixed javascript: URLs.
  await page.keyboard.press('Escape');
  await page.getByRole('searchbox', { name: /Search orders/ }).fill(order2.id);
  await orders.locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])').filter({ hasText: order2.id }).first().click();
  await expect(page.getByTestId('detail-panel')).toContainText(`#${order2.id}`);
  await expect(page.getByTestId('detail-panel').getByRole('button', { name: /Open template file/ })).toHaveCount(0);
  await expectNothingRan('second order detail');

  // Even the page itself cannot make the app open a hostile URL.
  const refused = await page.evaluate(async (urls) => {
    const api = (window as unknown as { letterdesk: { openExternal(i: { url: string }): Promise<{ ok: boolean; error?: { code: string } }> } }).letterdesk;
    return Promise.all(urls.map(async (url) => (await api.openExternal({ url })).error?.code ?? 'opened'));
  }, HOSTILE_URLS);
  expect(refused).toEqual(HOSTILE_URLS.map(() => 'VALIDATION'));
  await expectNothingRan('after direct openExternal calls');
  expect(app.platformLog.openedExternal).toEqual([]);
});
