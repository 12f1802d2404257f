// Service queries through the API client: every §4.1/§4.2 parameter round-trips to the sample API
// over loopback HTTP in both forms and both date styles, and each answer equals a filter computed
// here, independently, over the dataset's records and hidden state. Also: the encoder's exact
// strings (a space is %20, never +), the exact request the editor shows, and refusals made before
// any request is sent.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, describeRequest, type ApiClient } from '../../electron/main/api/client.ts';
import { encodeContactParams, encodeOrderParams } from '../../electron/main/api/params.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import type { ContactHidden, OrderHidden, SampleContact, SampleOrder } from '../../electron/main/sampleApi/dataset.ts';
import { SAMPLE_STATUS_CODES } from '../../electron/main/sampleApi/timeline.ts';
import type { ContactServiceQuery, OrderServiceQuery, QueryEncoding, ServiceQuery } from '../../shared/serviceQuery.ts';
import { dayBefore, monthBefore } from '../helpers/sampleDays.ts';

const tokens = async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN });
const ENCODINGS: QueryEncoding[] = [
  { form: 'encoded', dateStyle: 'ymd' },
  { form: 'encoded', dateStyle: 'dmy' },
  { form: 'plain', dateStyle: 'ymd' },
  { form: 'plain', dateStyle: 'dmy' },
];

/** A day range test over an ISO timestamp or date, both ends inclusive UTC days. */
const within = (iso: string | null | undefined, start?: string, end?: string) => !!iso && (start === undefined || iso.slice(0, 10) >= start) && (end === undefined || iso.slice(0, 10) <= end);

describe('encoding: exact strings', () => {
  it('writes each §4.1 parameter in the encoded and the plain form, in both date styles', () => {
    const query: ContactServiceQuery = {
      search: "O'Brien & Sons+1 é",
      addressStatus: ['Failed', 'Verified'],
      lastMailedStatus: ['In Transit', 'Mailed'],
      lastMailedDate: { startDate: '2023-11-20', endDate: '2023-11-21' },
      tags: ['4', '5', '6'],
      withPropertyAddresses: true,
      isReturnAddress: false,
      'meta.account_id': 'acct 1',
      'meta.region': 'north/east',
    };
    const common = 'search=O%27Brien%20%26%20Sons%2B1%20%C3%A9';
    const tail = 'tags=[4,5,6]&withPropertyAddresses=true&isReturnAddress=false&meta.account_id=acct%201&meta.region=north%2Feast';
    const cases: [QueryEncoding, string][] = [
      [
        { form: 'encoded', dateStyle: 'ymd' },
        `page=0&pageSize=10&${common}&addressStatus=%22Failed%22,%22Verified%22&lastMailedStatus=%22In%20Transit%22,%22Mailed%22&lastMailedDate=%7B%22startDate%22%3A%222023-11-20%22%2C%22endDate%22%3A%222023-11-21%22%7D&${tail}`,
      ],
      [
        { form: 'encoded', dateStyle: 'dmy' },
        `page=0&pageSize=10&${common}&addressStatus=%22Failed%22,%22Verified%22&lastMailedStatus=%22In%20Transit%22,%22Mailed%22&lastMailedDate=%7B%22startDate%22%3A%2220-11-2023%22%2C%22endDate%22%3A%2221-11-2023%22%7D&${tail}`,
      ],
      [
        { form: 'plain', dateStyle: 'dmy' },
        `page=0&pageSize=10&${common}&addressStatus=[%22Failed%22,%22Verified%22]&lastMailedStatus=[%22In%20Transit%22,%22Mailed%22]&lastMailedDate={%22startDate%22:%2220-11-2023%22,%22endDate%22:%2221-11-2023%22}&${tail}`,
      ],
      [
        { form: 'plain', dateStyle: 'ymd' },
        `page=0&pageSize=10&${common}&addressStatus=[%22Failed%22,%22Verified%22]&lastMailedStatus=[%22In%20Transit%22,%22Mailed%22]&lastMailedDate={%22startDate%22:%222023-11-20%22,%22endDate%22:%222023-11-21%22}&${tail}`,
      ],
    ];
    for (const [encoding, expected] of cases) {
      const qs = encodeContactParams({ ...query, page: 0, pageSize: 10 }, encoding);
      expect(qs, JSON.stringify(encoding)).toBe(expected);
      expect(qs).not.toContain('+');
      // what the URL standard (and so fetch) sends for it is the same string, byte for byte
      expect(new URL(`http://h/api/v1/contacts?${qs}`).search).toBe(`?${qs}`);
      expect(describeRequest('contacts', query, 0, 10, encoding)).toBe(`/contacts?${expected}`);
    }
    // one item, one end, the defaults
    expect(encodeContactParams({ addressStatus: ['Failed'], lastMailedDate: { startDate: '2024-02-29' } })).toBe('addressStatus=%22Failed%22&lastMailedDate=%7B%22startDate%22%3A%222024-02-29%22%7D');
    expect(encodeContactParams({ addressStatus: ['Verified'], lastMailedDate: { endDate: '2024-02-29' } }, { form: 'plain', dateStyle: 'dmy' })).toBe('addressStatus=[%22Verified%22]&lastMailedDate={%22endDate%22:%2229-02-2024%22}');
    expect(encodeContactParams({ tags: ['007', '123456789012345678'] })).toBe('tags=[%22007%22,%22123456789012345678%22]');
    expect(encodeContactParams({})).toBe('');
    expect(describeRequest('contacts', {}, 0, 10)).toBe('/contacts?page=0&pageSize=10');
  });

  it('writes §4.2 parameters as comma lists and START,END ranges, in both date styles', () => {
    const query: OrderServiceQuery = {
      search: '50001',
      productTypes: ['letter', 'postcard'],
      sources: ['CSV import', 'Web'],
      orderStatus: ['3', 'on hold'],
      paymentStatus: ['Unpaid'],
      createdDate: { startDate: '2024-01-01' },
      scheduledDate: { startDate: '2024-02-02', endDate: '2024-02-02' },
      processingDate: { endDate: '2024-03-31' },
      createdBy: ['301', '302'],
      'meta.account_id': 'a-1',
      'meta.team': 'blue team',
    };
    const ymd = 'page=1&pageSize=50&search=50001&productTypes=letter,postcard&sources=CSV%20import,Web&orderStatus=3,on%20hold&paymentStatus=Unpaid&createdDate=2024-01-01,&scheduledDate=2024-02-02&processingDate=,2024-03-31&createdBy=301,302&meta.account_id=a-1&meta.team=blue%20team';
    const dmy = 'page=1&pageSize=50&search=50001&productTypes=letter,postcard&sources=CSV%20import,Web&orderStatus=3,on%20hold&paymentStatus=Unpaid&createdDate=01-01-2024,&scheduledDate=02-02-2024&processingDate=,31-03-2024&createdBy=301,302&meta.account_id=a-1&meta.team=blue%20team';
    for (const form of ['encoded', 'plain'] as const) {
      expect(encodeOrderParams({ ...query, page: 1, pageSize: 50 }, { form, dateStyle: 'ymd' })).toBe(ymd);
      expect(encodeOrderParams({ ...query, page: 1, pageSize: 50 }, { form, dateStyle: 'dmy' })).toBe(dmy);
    }
    expect(describeRequest('orders', query, 1, 50)).toBe(`/orders/?${ymd}`);
    expect(new URL(`http://h/orders/?${dmy}`).search).toBe(`?${dmy}`);
  });

  it('keeps what the sync sends byte-identical: page, pageSize and meta.account_id as a form encodes them, but a space as %20', () => {
    for (const accountId of ['acct-1001', 'A_B.c-9', 'x*y', 'ünï', "o'k(1)~!", 'a b']) {
      const before = new URLSearchParams({ page: '3', pageSize: '1000', 'meta.account_id': accountId }).toString();
      for (const qs of [encodeContactParams({ page: 3, pageSize: 1000, 'meta.account_id': accountId }), encodeOrderParams({ page: 3, pageSize: 1000, 'meta.account_id': accountId })]) {
        expect(qs, accountId).toBe(before.replaceAll('+', '%20'));
      }
    }
    expect(encodeContactParams({ page: 0, pageSize: 100 })).toBe('page=0&pageSize=100');
  });
});

describe('the exact request, as the service receives it', () => {
  it('the client sends exactly what describeRequest and requestUrl show, in the profile encoding; tokens are not in it', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'success', data: { count: 0, rows: [] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
    try {
      const queries: ServiceQuery[] = [
        { resource: 'contacts', params: { lastMailedStatus: ['In Transit'], lastMailedDate: { startDate: '2024-03-01', endDate: '2024-03-31' }, tags: ['7001'], 'meta.account_id': 'acct 1' } },
        { resource: 'orders', params: { sources: ['CSV import'], createdDate: { endDate: '2024-02-29' }, orderStatus: ['held'] } },
      ];
      for (const encoding of ENCODINGS) {
        const client = createApiClient({ baseUrl: base, getTokens: tokens, encoding });
        for (const query of queries) {
          seen.length = 0;
          await client.listQuery(query, 2, 25);
          const path = describeRequest(query.resource, query.params, 2, 25, encoding);
          expect(seen, JSON.stringify(encoding)).toEqual([`/api/v1${path}`]);
          expect(client.requestUrl(query, 2, 25)).toBe(`${base}${path}`);
          expect(seen[0]).not.toContain('+');
          expect(seen[0]).not.toContain(SAMPLE_ACCESS_TOKEN);
        }
      }
      // the default is the encoded form with year-month-day dates
      seen.length = 0;
      await createApiClient({ baseUrl: base, getTokens: tokens }).listQuery(queries[0]!, 0, 10);
      expect(seen).toEqual([`/api/v1${describeRequest('contacts', queries[0]!.params as ContactServiceQuery, 0, 10, ENCODINGS[0])}`]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('every §4 parameter round-trips to the sample API', () => {
  let api: SampleApi;
  let contacts: { row: SampleContact; hidden: ContactHidden }[];
  let orders: { row: SampleOrder; hidden: OrderHidden }[];

  // The sample data's dates are relative to its clock; this one puts 29 February 2028 inside the
  // year before it, so a leap day is sent in each date style.
  const CLOCK = new Date('2028-06-15T12:00:00.000Z');
  const LEAP_DAY = '2028-02-29';

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 3000, orders: 1200, seed: 11, clock: CLOCK });
    // metadata entries other than account_id, some with spaces (contacts carry only account_id)
    for (const [i, id] of [...api.dataset.contactIds()].entries()) if (i % 7 === 0) api.dataset.updateContact(id, { meta: { ...api.dataset.contactById(id)!.meta, region: i % 14 === 0 ? 'North East' : 'south' } });
    for (const [i, id] of [...api.dataset.orderIds()].entries()) if (i % 5 === 0) api.dataset.updateOrder(id, { meta: { ...api.dataset.orderById(id)!.meta, team: i % 10 === 0 ? 'blue team' : 'red' } });
    contacts = [...api.dataset.contactIds()].map((id) => ({ row: api.dataset.contactById(id)!, hidden: api.dataset.contactHidden(id)! }));
    orders = [...api.dataset.orderIds()].map((id) => ({ row: api.dataset.orderById(id)!, hidden: api.dataset.orderHidden(id)! }));
  });
  afterAll(() => api.close());

  /** Every id of a query, page by page through the client. */
  async function allIds(client: ApiClient, query: ServiceQuery): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 0; ; page++) {
      const p = await client.listQuery(query, page, 1000);
      ids.push(...p.records.map((r) => (r.ok ? r.record.id : String(r.id))));
      if (p.offset + p.records.length >= p.count) {
        expect(ids.length).toBe(p.count);
        return ids;
      }
    }
  }

  const contactCases = (): [ContactServiceQuery, (c: { row: SampleContact; hidden: ContactHidden }) => boolean][] => {
    const name = contacts[100]!.row.lastName;
    const month = monthBefore(api.dataset.asOf, 2);
    const [old, since] = [dayBefore(api.dataset.asOf, 300), dayBefore(api.dataset.asOf, 180)];
    return [
      [{ search: name.toUpperCase() }, ({ row: c }) => [c.firstName, c.lastName, c.fullName, c.companyName, c.email, c.phoneNo, c.city].some((v) => v.toLowerCase().includes(name.toLowerCase()))],
      [{ addressStatus: ['Failed'] }, ({ hidden }) => hidden.addressStatus === 'Failed'],
      [{ addressStatus: ['Failed', 'Verified'] }, ({ hidden }) => hidden.addressStatus === 'Failed' || hidden.addressStatus === 'Verified'],
      [{ addressStatus: ['Corrected'] }, ({ hidden }) => hidden.addressStatus === 'Corrected'],
      [{ lastMailedStatus: ['In Transit'] }, ({ hidden }) => hidden.lastMailedStatus === 'In Transit'],
      [{ lastMailedStatus: ['In Transit', 'Returned', 'Lost in the post'] }, ({ hidden }) => hidden.lastMailedStatus === 'In Transit' || hidden.lastMailedStatus === 'Returned'],
      [{ lastMailedDate: { startDate: month.start, endDate: month.end } }, ({ hidden }) => within(hidden.lastMailedDate, month.start, month.end)],
      [{ lastMailedDate: { startDate: LEAP_DAY } }, ({ hidden }) => within(hidden.lastMailedDate, LEAP_DAY)],
      [{ lastMailedDate: { endDate: old } }, ({ hidden }) => within(hidden.lastMailedDate, undefined, old)],
      [{ tags: ['7001', '7002'] }, ({ row }) => row.ContactLabels.some((l) => l.id === '7001' || l.id === '7002')],
      [{ isReturnAddress: true }, ({ hidden }) => hidden.isReturnAddress],
      [{ isReturnAddress: false }, ({ hidden }) => !hidden.isReturnAddress],
      [{ 'meta.account_id': 'acct-1003' }, ({ row }) => row.meta?.account_id === 'acct-1003'],
      [{ 'meta.region': 'North East' }, ({ row }) => (row.meta as Record<string, unknown> | undefined)?.region === 'North East'],
      [
        { addressStatus: ['Verified'], lastMailedStatus: ['Mailed', 'Delivered'], lastMailedDate: { startDate: since }, tags: ['7002', '7003', '7004'], 'meta.account_id': 'acct-1001' },
        ({ row, hidden }) =>
          hidden.addressStatus === 'Verified' &&
          (hidden.lastMailedStatus === 'Mailed' || hidden.lastMailedStatus === 'Delivered') &&
          within(hidden.lastMailedDate, since) &&
          row.ContactLabels.some((l) => ['7002', '7003', '7004'].includes(l.id)) &&
          row.meta?.account_id === 'acct-1001',
      ],
    ];
  };

  const orderCases = (): [OrderServiceQuery, (o: { row: SampleOrder; hidden: OrderHidden }) => boolean][] => {
    const word = orders[7]!.row.campaign.name.split(' ')[0]!;
    const day = orders[5]!.hidden.createdAt.slice(0, 10);
    const month = monthBefore(api.dataset.asOf, 3);
    const [soon, processedBy, since] = [dayBefore(api.dataset.asOf, 20), dayBefore(api.dataset.asOf, 200), dayBefore(api.dataset.asOf, 300)];
    const { PROCESSING, MAILED } = SAMPLE_STATUS_CODES;
    return [
      [{ search: word }, ({ row }) => row.id.includes(word.toLowerCase()) || row.campaign.name.toLowerCase().includes(word.toLowerCase())],
      [{ search: orders[9]!.row.id }, ({ row }) => row.id.includes(orders[9]!.row.id)],
      [{ productTypes: ['postcard', 'certified_letter'] }, ({ row }) => ['postcard', 'certified_letter'].includes(row.product.productType)],
      [{ sources: ['HUBSPOT'] }, ({ hidden }) => hidden.source === 'HUBSPOT'],
      [{ sources: ['ZAPIER', 'PODIO'] }, ({ hidden }) => hidden.source === 'ZAPIER' || hidden.source === 'PODIO'],
      [{ orderStatus: [String(PROCESSING), String(MAILED)] }, ({ row }) => row.status === PROCESSING || row.status === MAILED],
      [{ orderStatus: ['ON_HOLD', 'CANCELED'] }, ({ row }) => row.status === SAMPLE_STATUS_CODES.ON_HOLD || row.status === SAMPLE_STATUS_CODES.CANCELED],
      [{ paymentStatus: ['PAYMENT_FAILED'] }, ({ hidden }) => hidden.paymentStatus === 'PAYMENT_FAILED'],
      [{ paymentStatus: ['PENDING', 'NOT_CHARGED'] }, ({ hidden }) => hidden.paymentStatus === 'PENDING' || hidden.paymentStatus === 'NOT_CHARGED'],
      [{ createdDate: { startDate: month.start, endDate: month.end } }, ({ hidden }) => within(hidden.createdAt, month.start, month.end)],
      [{ createdDate: { startDate: day, endDate: day } }, ({ hidden }) => hidden.createdAt.startsWith(day)],
      [{ createdDate: { endDate: LEAP_DAY } }, ({ hidden }) => within(hidden.createdAt, undefined, LEAP_DAY)],
      [{ scheduledDate: { startDate: soon } }, ({ row }) => within(row.campaign.deliveryDate, soon)],
      [{ processingDate: { endDate: processedBy } }, ({ hidden }) => within(hidden.processedAt, undefined, processedBy)],
      [{ createdBy: ['301', '302'] }, ({ hidden }) => hidden.createdBy === '301' || hidden.createdBy === '302'],
      [{ 'meta.account_id': 'acct-1002' }, ({ row }) => row.meta.account_id === 'acct-1002'],
      [{ 'meta.team': 'blue team' }, ({ row }) => row.meta.team === 'blue team'],
      [
        { 'meta.account_id': 'acct-1001', orderStatus: ['MAILED'], paymentStatus: ['PAID'], sources: ['OLC_CLIENT', 'HUBSPOT'], createdDate: { startDate: since } },
        ({ row, hidden }) => row.meta.account_id === 'acct-1001' && row.status === MAILED && hidden.paymentStatus === 'PAID' && ['OLC_CLIENT', 'HUBSPOT'].includes(hidden.source) && within(hidden.createdAt, since),
      ],
    ];
  };

  for (const encoding of ENCODINGS) {
    it(`contacts, ${encoding.form} form, ${encoding.dateStyle} dates`, async () => {
      const client = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, encoding, retry: { baseDelayMs: 1 } });
      for (const [params, match] of contactCases()) {
        const expected = contacts.filter(match).map((c) => c.row.id);
        expect(expected.length, JSON.stringify(params)).toBeGreaterThan(0);
        expect(expected.length, JSON.stringify(params)).toBeLessThan(contacts.length);
        expect(await allIds(client, { resource: 'contacts', params }), JSON.stringify(params)).toEqual(expected);
      }
      // withPropertyAddresses selects nothing; it adds the property addresses to the records
      for (const withPropertyAddresses of [true, false]) {
        const page = await client.listQuery({ resource: 'contacts', params: { withPropertyAddresses } }, 0, 20);
        expect(page.count).toBe(contacts.length);
        for (const r of page.records) expect(r.ok && Array.isArray((r.raw as { propertyAddresses?: unknown }).propertyAddresses)).toBe(withPropertyAddresses);
      }
    });

    it(`orders, ${encoding.form} form, ${encoding.dateStyle} dates`, async () => {
      const client = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, encoding, retry: { baseDelayMs: 1 } });
      for (const [params, match] of orderCases()) {
        const expected = orders.filter(match).map((o) => o.row.id);
        expect(expected.length, JSON.stringify(params)).toBeGreaterThan(0);
        expect(expected.length, JSON.stringify(params)).toBeLessThan(orders.length);
        expect(await allIds(client, { resource: 'orders', params }), JSON.stringify(params)).toEqual(expected);
      }
      // orderStatus is text: a value that is no status name or code is sent and matches nothing
      expect((await client.listQuery({ resource: 'orders', params: { orderStatus: ['on hold'] } }, 0, 10)).count).toBe(0);
    });
  }

  it('refuses impossible dates and unknown parameters before any request, naming the parameter', async () => {
    const client = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, retry: { limit: 0 } });
    const before = api.stats().requests;
    const refusals: [() => Promise<unknown>, RegExp][] = [
      [() => client.listQuery({ resource: 'contacts', params: { lastMailedDate: { startDate: '2024-02-30' } } }, 0, 10), /lastMailedDate\.startDate: 2024-02-30 is not a date: February 2024 has 29 days/],
      [() => client.listQuery({ resource: 'orders', params: { createdDate: { endDate: '2023-02-29' } } }, 0, 10), /createdDate\.endDate: 2023-02-29 is not a date: February 2023 has 28 days/],
      [() => client.listOrders({ page: 0, pageSize: 5, processingDate: { startDate: '2024-04-31' } }), /April 2024 has 30 days/],
      [() => client.listContacts({ lastMailedDate: { startDate: '31-01-2024' } }), /lastMailedDate\.startDate: "31-01-2024" is not a date as YYYY-MM-DD/],
      [() => client.listContacts({ lastMailedDate: { startDate: '2024-03-02', endDate: '2024-03-01' } }), /startDate 2024-03-02 is after endDate 2024-03-01/],
      [() => client.listContacts({ addressStatus: ['Pending' as 'Failed'] }), /addressStatus/],
      [() => client.listContacts({ paymentStatus: ['Paid'] } as never), /unknown parameter "paymentStatus" for contacts/],
      [() => client.listOrders({ page: 0, pageSize: 5, sources: ['a,b'] }), /sources\.0: an item cannot contain a comma/],
      [() => client.listContacts({ page: -1 }), /page must be a whole number/],
    ];
    for (const [call, message] of refusals) {
      const error = await call().then(
        () => null,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(error?.code, String(message)).toBe('VALIDATION');
      expect(error?.message).toMatch(message);
    }
    expect(() => client.requestUrl({ resource: 'contacts', params: { lastMailedDate: { endDate: '2023-02-29' } } }, 0, 10)).toThrow(/February 2023 has 28 days/);
    expect(() => describeRequest('orders', { scheduledDate: { startDate: '2024-13-01' } }, 0, 10)).toThrow(/there is no month 13/);
    expect(api.stats().requests).toBe(before);
  });
});
