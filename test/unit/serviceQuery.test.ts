// The service query (shared/serviceQuery.ts): the schemas, the calendar check, the parameter table
// and the CLI's NAME=VALUE parsing, with the messages a person reads; and the service's
// vocabularies (shared/vocabularies.ts) they offer.
import { describe, expect, it } from 'vitest';
import {
  calendarDayProblem,
  canonicalServiceQuery,
  checkServiceQuery,
  contactServiceQuerySchema,
  DEFAULT_QUERY_ENCODING,
  formatServiceParams,
  isCalendarDay,
  orderServiceQuerySchema,
  parseServiceParam,
  parseServiceParams,
  queryEncodingSchema,
  SERVICE_PARAMS,
  serviceParamSpec,
  serviceQuerySchema,
} from '../../shared/serviceQuery.ts';
import { ADDRESS_STATUSES, ORDER_SOURCES, ORDER_STATUSES, PAYMENT_STATUSES, VOCABULARIES, vocabularyName } from '../../shared/vocabularies.ts';

/** The error a call throws (fails the test when it does not throw). */
function thrown(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected an error');
}

describe('calendar days', () => {
  it('accepts real days and refuses impossible ones with the reason', () => {
    for (const day of ['2024-02-29', '2000-02-29', '2023-12-31', '2024-01-01', '1999-04-30']) expect(isCalendarDay(day), day).toBe(true);
    const cases: [string, string][] = [
      ['2024-02-30', '2024-02-30 is not a date: February 2024 has 29 days'],
      ['2023-02-29', '2023-02-29 is not a date: February 2023 has 28 days'],
      ['1900-02-29', '1900-02-29 is not a date: February 1900 has 28 days'],
      ['2024-04-31', '2024-04-31 is not a date: April 2024 has 30 days'],
      ['2024-13-01', '2024-13-01 is not a date: there is no month 13 (months are 01 to 12)'],
      ['2024-00-10', '2024-00-10 is not a date: there is no month 00 (months are 01 to 12)'],
      ['2024-01-00', '2024-01-00 is not a date: January 2024 has 31 days'],
      ['31-01-2024', '"31-01-2024" is not a date as YYYY-MM-DD (e.g. 2024-03-31)'],
      ['2024-1-5', '"2024-1-5" is not a date as YYYY-MM-DD (e.g. 2024-03-31)'],
      ['', '"" is not a date as YYYY-MM-DD (e.g. 2024-03-31)'],
    ];
    for (const [day, message] of cases) {
      expect(isCalendarDay(day), day).toBe(false);
      expect(calendarDayProblem(day)).toBe(message);
    }
  });
});

describe('the query schemas', () => {
  it('take every §4.1 and §4.2 parameter but page and pageSize, with their types', () => {
    const contacts = {
      search: 'smith',
      addressStatus: ['Failed', 'Verified'],
      lastMailedStatus: ['In Transit', 'Lost in the post'],
      lastMailedDate: { startDate: '2024-03-01' },
      tags: ['7001', '7002'],
      withPropertyAddresses: true,
      isReturnAddress: false,
      'meta.account_id': 'acct-1',
      'meta.region': 'north',
    };
    expect(contactServiceQuerySchema.parse(contacts)).toEqual(contacts);
    const orders = {
      search: '5000',
      productTypes: ['letter'],
      sources: ['Web', 'CSV import'],
      orderStatus: ['3', 'cancelled'],
      paymentStatus: ['Unpaid'],
      createdDate: { startDate: '2024-01-01', endDate: '2024-01-31' },
      scheduledDate: { endDate: '2024-12-31' },
      processingDate: { startDate: '2024-02-29', endDate: '2024-02-29' },
      createdBy: ['301'],
      'meta.account_id': 'acct-2',
      'meta.campaign_ref': 'X-9',
    };
    expect(orderServiceQuerySchema.parse(orders)).toEqual(orders);
    expect(contactServiceQuerySchema.parse({})).toEqual({});
    // Corrected is an address status too (the service's documentation), alone or with the others
    expect(contactServiceQuerySchema.parse({ addressStatus: ['Corrected'] })).toEqual({ addressStatus: ['Corrected'] });
    expect(contactServiceQuerySchema.parse({ addressStatus: ['Failed', 'Verified', 'Corrected'] })).toEqual({ addressStatus: ['Failed', 'Verified', 'Corrected'] });
    // the order vocabularies are known values, not closed sets: the SDK's names and typed values alike
    const named = { orderStatus: ['MAILED', 'ON_HOLD'], paymentStatus: ['PAYMENT_FAILED', 'Chargeback'], sources: ['HUBSPOT', 'Web'] };
    expect(orderServiceQuerySchema.parse(named)).toEqual(named);
    // text is trimmed
    expect(contactServiceQuerySchema.parse({ search: '  smith ', 'meta.team': ' a ' })).toEqual({ search: 'smith', 'meta.team': 'a' });
  });

  it('refuse what the spec does not allow, naming the parameter', () => {
    const refusals: [unknown, RegExp][] = [
      [{ page: 0 }, /page: unknown parameter "page" for contacts/],
      [{ addressStatus: ['Pending'] }, /addressStatus\.0: an address status is Failed, Verified, Corrected/],
      [{ addressStatus: ['corrected'] }, /addressStatus\.0/],
      [{ addressStatus: [] }, /addressStatus: give one or more of Failed, Verified, Corrected/],
      [{ addressStatus: ['Failed', 'Verified', 'Corrected', 'Failed'] }, /addressStatus: at most 3 address statuses/],
      [{ lastMailedDate: { startDate: '2024-02-30' } }, /lastMailedDate\.startDate: 2024-02-30 is not a date: February 2024 has 29 days/],
      [{ lastMailedDate: {} }, /lastMailedDate: a date range needs a startDate, an endDate or both/],
      [{ lastMailedDate: { startDate: '2024-03-02', endDate: '2024-03-01' } }, /startDate 2024-03-02 is after endDate 2024-03-01/],
      [{ lastMailedDate: { from: '2024-03-02' } }, /lastMailedDate/],
      [{ tags: ['VIP'] }, /tags\.0: a tag is a label id: digits/],
      [{ lastMailedStatus: ['Mailed,Returned'] }, /an item cannot contain a comma/],
      [{ isReturnAddress: 'yes' }, /isReturnAddress/],
      [{ 'meta.': 'x' }, /unknown parameter "meta\."/],
      [{ 'meta.a b': 'x' }, /A meta key holds letters, digits/],
      [{ 'meta.team': '' }, /meta\.team takes text/],
      [{ addressstatus: ['Failed'] }, /Did you mean "addressStatus"\?/],
    ];
    for (const [query, message] of refusals) {
      const error = thrown(() => checkServiceQuery('contacts', query));
      expect(error.code, JSON.stringify(query)).toBe('VALIDATION');
      expect(error.message, JSON.stringify(query)).toMatch(message);
    }
    // a contact parameter is not an order parameter and the other way round
    expect(thrown(() => checkServiceQuery('orders', { addressStatus: ['Failed'] })).message).toMatch(/unknown parameter "addressStatus" for orders/);
    expect(thrown(() => checkServiceQuery('contacts', { paymentStatus: ['Paid'] })).message).toMatch(/unknown parameter "paymentStatus" for contacts/);
    expect(thrown(() => checkServiceQuery('orders', { createdDate: { endDate: '2023-02-29' } })).message).toMatch(/February 2023 has 28 days/);
  });

  it('serviceQuerySchema is discriminated by resource', () => {
    expect(serviceQuerySchema.parse({ resource: 'orders', params: { paymentStatus: ['Paid'] } })).toEqual({ resource: 'orders', params: { paymentStatus: ['Paid'] } });
    expect(serviceQuerySchema.safeParse({ resource: 'orders', params: { addressStatus: ['Failed'] } }).success).toBe(false);
    expect(serviceQuerySchema.safeParse({ resource: 'labels', params: {} }).success).toBe(false);
    expect(serviceQuerySchema.safeParse({ resource: 'contacts', params: {}, extra: 1 }).success).toBe(false);
  });

  it('the encoding setting defaults to the encoded form with year-month-day dates', () => {
    expect(DEFAULT_QUERY_ENCODING).toEqual({ form: 'encoded', dateStyle: 'ymd' });
    expect(queryEncodingSchema.safeParse({ form: 'plain', dateStyle: 'dmy' }).success).toBe(true);
    expect(queryEncodingSchema.safeParse({ form: 'json', dateStyle: 'dmy' }).success).toBe(false);
  });
});

describe('the parameter table', () => {
  it('lists every spec parameter once per resource, spelled as the spec spells it', () => {
    expect(SERVICE_PARAMS.contacts.map((p) => p.name)).toEqual(['search', 'addressStatus', 'lastMailedStatus', 'lastMailedDate', 'tags', 'withPropertyAddresses', 'isReturnAddress', 'meta.account_id', 'meta.<key>']);
    expect(SERVICE_PARAMS.orders.map((p) => p.name)).toEqual(['search', 'productTypes', 'sources', 'orderStatus', 'paymentStatus', 'createdDate', 'scheduledDate', 'processingDate', 'createdBy', 'meta.account_id', 'meta.<key>']);
    expect(serviceParamSpec('contacts', 'addressStatus')).toMatchObject({ kind: 'list', values: ['Failed', 'Verified', 'Corrected'], open: false });
    expect(serviceParamSpec('contacts', 'lastMailedStatus')).toMatchObject({ kind: 'list', values: ['In Transit', 'Mailed', 'Scheduled'], open: true });
    expect(serviceParamSpec('contacts', 'tags')?.kind).toBe('labelIds');
    expect(serviceParamSpec('contacts', 'isReturnAddress')?.kind).toBe('boolean');
    expect(serviceParamSpec('orders', 'orderStatus')).toMatchObject({ kind: 'list', values: ['ON_HOLD', 'SCHEDULED', 'PROCESSING', 'MAILED', 'CANCELED'], open: true });
    expect(serviceParamSpec('orders', 'paymentStatus')).toMatchObject({ kind: 'list', values: ['PENDING', 'PAID', 'PAYMENT_FAILED', 'NOT_CHARGED'], open: true });
    expect(serviceParamSpec('orders', 'sources')).toMatchObject({ kind: 'list', values: ['OLC_CLIENT', 'ZAPIER', 'HUBSPOT', 'SALESFORCE', 'PODIO', 'GOHIGHLEVEL'], open: true });
    expect(serviceParamSpec('orders', 'paymentStatus')?.accepts).toBe('values such as PENDING, PAID, PAYMENT_FAILED, NOT_CHARGED, or any other (comma-separated)');
    expect(serviceParamSpec('orders', 'processingDate')?.kind).toBe('dateRange');
    expect(serviceParamSpec('orders', 'meta.team')?.name).toBe('meta.<key>');
    expect(serviceParamSpec('orders', 'meta.account_id')?.kind).toBe('text');
    expect(serviceParamSpec('orders', 'tags')).toBeNull();
    for (const p of [...SERVICE_PARAMS.contacts, ...SERVICE_PARAMS.orders]) {
      expect(p.help.length, p.name).toBeGreaterThan(5);
      expect(p.accepts.length, p.name).toBeGreaterThan(5);
    }
  });
});

describe('parseServiceParam (the CLI --param NAME=VALUE)', () => {
  it('reads each kind of value', () => {
    const cases: [('contacts' | 'orders'), string, unknown][] = [
      ['contacts', 'addressStatus=Failed,Verified', ['Failed', 'Verified']],
      ['contacts', 'addressStatus=failed', ['Failed']],
      ['contacts', 'addressStatus=corrected,Verified', ['Corrected', 'Verified']],
      ['contacts', 'lastMailedStatus=in transit, Mailed ,Lost', ['In Transit', 'Mailed', 'Lost']],
      ['contacts', 'lastMailedDate=2024-03-01..2024-03-31', { startDate: '2024-03-01', endDate: '2024-03-31' }],
      ['contacts', 'lastMailedDate=2024-03-01..', { startDate: '2024-03-01' }],
      ['contacts', 'lastMailedDate=..2024-02-29', { endDate: '2024-02-29' }],
      ['contacts', 'lastMailedDate=2024-03-05', { startDate: '2024-03-05', endDate: '2024-03-05' }],
      ['contacts', 'tags=7001,7002', ['7001', '7002']],
      ['contacts', 'withPropertyAddresses=true', true],
      ['contacts', 'isReturnAddress=FALSE', false],
      ['contacts', 'search= Ångström ', 'Ångström'],
      ['contacts', 'meta.account_id=acct-1', 'acct-1'],
      ['orders', 'meta.campaign_ref=a=b', 'a=b'],
      ['orders', 'orderStatus=3', ['3']],
      ['orders', 'orderStatus=cancelled', ['cancelled']],
      ['orders', 'paymentStatus=Unpaid,Refunded', ['Unpaid', 'Refunded']],
      ['orders', 'sources=CSV import', ['CSV import']],
      // the SDK's names are written as the SDK writes them; other values pass as typed
      ['orders', 'orderStatus=mailed,On_Hold', ['MAILED', 'ON_HOLD']],
      ['orders', 'paymentStatus=payment_failed,Refunded', ['PAYMENT_FAILED', 'Refunded']],
      ['orders', 'sources=hubspot,GoHighLevel', ['HUBSPOT', 'GOHIGHLEVEL']],
      ['orders', 'createdBy=301', ['301']],
      ['orders', 'createdDate=..2024-12-31', { endDate: '2024-12-31' }],
      ['orders', 'productTypes=letter,postcard', ['letter', 'postcard']],
    ];
    for (const [resource, text, value] of cases) {
      const name = text.slice(0, text.indexOf('='));
      expect(parseServiceParam(resource, text), text).toEqual({ name, value });
    }
  });

  it('refuses an unknown name or a bad value, naming the parameter and what it accepts', () => {
    const cases: [('contacts' | 'orders'), string, string][] = [
      ['contacts', 'addressStatus=Pending', 'addressStatus takes Failed, Verified, Corrected (comma-separated); got "Pending": "Pending" is not one of them.'],
      ['contacts', 'addressStatus=', 'addressStatus takes Failed, Verified, Corrected (comma-separated); got "": no value.'],
      ['orders', 'orderStatus=', 'orderStatus takes values such as ON_HOLD, SCHEDULED, PROCESSING, MAILED, CANCELED, or any other (comma-separated); got "": no value.'],
      ['contacts', 'isReturnAddress=yes', 'isReturnAddress takes true or false; got "yes".'],
      ['contacts', 'tags=VIP', 'tags takes label ids (digits), comma-separated, e.g. 7001,7002; got "VIP": "VIP" is not a label id; use the label\'s id, not its title.'],
      [
        'contacts',
        'lastMailedDate=2024-02-30..2024-03-31',
        'lastMailedDate takes a date range START..END as YYYY-MM-DD, either end optional (2024-03-01..2024-03-31, 2024-03-01.., ..2024-03-31; one date alone is that day); got "2024-02-30..2024-03-31": 2024-02-30 is not a date: February 2024 has 29 days.',
      ],
      ['orders', 'processingDate=..2023-02-29', 'February 2023 has 28 days.'],
      ['orders', 'createdDate=31-01-2024', '"31-01-2024" is not a date as YYYY-MM-DD'],
      ['orders', 'createdDate=2024-03-31..2024-03-01', 'the start is after the end.'],
      ['orders', 'createdDate=..', 'give at least one end.'],
      ['contacts', 'search=', 'search takes any text; got "": must not be empty.'],
      ['contacts', 'pageSize=5', 'Unknown parameter "pageSize" for contacts. Contacts take search, addressStatus, lastMailedStatus, lastMailedDate, tags, withPropertyAddresses, isReturnAddress, meta.account_id, meta.<key>.'],
      ['orders', 'addressStatus=Failed', 'Unknown parameter "addressStatus" for orders. Orders take search, productTypes'],
      ['contacts', 'LastMailedStatus=Mailed', 'Did you mean "lastMailedStatus"?'],
      ['contacts', 'addressStatus', 'Write a service parameter as NAME=VALUE, e.g. addressStatus=Failed (got "addressStatus").'],
      ['contacts', '=Failed', 'Write a service parameter as NAME=VALUE'],
    ];
    for (const [resource, text, message] of cases) {
      const error = thrown(() => parseServiceParam(resource, text));
      expect(error.code, text).toBe('VALIDATION');
      expect(error.message, text).toContain(message);
    }
  });

  it('parseServiceParams builds a whole query, refuses a name given twice, and round-trips with formatServiceParams', () => {
    const texts = ['lastMailedDate=2024-03-01..2024-03-31', 'addressStatus=Failed', 'meta.team=north', 'isReturnAddress=false', 'lastMailedStatus=Mailed,In Transit'];
    const query = parseServiceParams('contacts', texts);
    expect(query).toEqual({ lastMailedDate: { startDate: '2024-03-01', endDate: '2024-03-31' }, addressStatus: ['Failed'], 'meta.team': 'north', isReturnAddress: false, lastMailedStatus: ['Mailed', 'In Transit'] });
    const formatted = formatServiceParams('contacts', query);
    expect(formatted).toEqual(['addressStatus=Failed', 'lastMailedStatus=Mailed,In Transit', 'lastMailedDate=2024-03-01..2024-03-31', 'isReturnAddress=false', 'meta.team=north']);
    expect(parseServiceParams('contacts', formatted)).toEqual(query);
    expect(JSON.stringify(canonicalServiceQuery('contacts', query))).toBe(JSON.stringify(canonicalServiceQuery('contacts', parseServiceParams('contacts', [...texts].reverse()))));
    const orders = parseServiceParams('orders', ['createdDate=2024-01-05', 'scheduledDate=..2024-02-01', 'orderStatus=3,held']);
    expect(formatServiceParams('orders', orders)).toEqual(['orderStatus=3,held', 'createdDate=2024-01-05', 'scheduledDate=..2024-02-01']);
    expect(thrown(() => parseServiceParams('contacts', ['addressStatus=Failed', 'addressStatus=Verified'])).message).toBe('addressStatus is given twice; give it once (lists take comma-separated values).');
  });
});

describe('the service vocabularies', () => {
  it('name each value as the service’s SDK spells it, with its display name', () => {
    const named = (v: { values: readonly string[]; names: Readonly<Record<string, string>> }) => v.values.map((value) => [value, vocabularyName(v, value)]);
    expect(named(VOCABULARIES.orderStatus)).toEqual([['ON_HOLD', 'On hold'], ['SCHEDULED', 'Scheduled'], ['PROCESSING', 'Processing'], ['MAILED', 'Mailed'], ['CANCELED', 'Canceled']]);
    expect(named(VOCABULARIES.paymentStatus)).toEqual([['PENDING', 'Pending'], ['PAID', 'Paid'], ['PAYMENT_FAILED', 'Payment failed'], ['NOT_CHARGED', 'Not charged']]);
    expect(named(VOCABULARIES.sources)).toEqual([['OLC_CLIENT', 'Open Letter Connect'], ['ZAPIER', 'Zapier'], ['HUBSPOT', 'HubSpot'], ['SALESFORCE', 'Salesforce'], ['PODIO', 'Podio'], ['GOHIGHLEVEL', 'GoHighLevel']]);
    expect(named(VOCABULARIES.addressStatus)).toEqual([['Failed', 'Failed'], ['Verified', 'Verified'], ['Corrected', 'Corrected']]);
    expect([VOCABULARIES.orderStatus.values, VOCABULARIES.paymentStatus.values, VOCABULARIES.sources.values, VOCABULARIES.addressStatus.values]).toEqual([ORDER_STATUSES, PAYMENT_STATUSES, ORDER_SOURCES, ADDRESS_STATUSES]);
  });

  it('read a value outside the vocabulary as itself (a person may type any)', () => {
    expect(vocabularyName(VOCABULARIES.paymentStatus, 'Chargeback')).toBe('Chargeback');
    expect(vocabularyName(VOCABULARIES.orderStatus, 'mailed')).toBe('mailed');
    expect(vocabularyName(VOCABULARIES.sources, 'toString')).toBe('toString');
  });
});
