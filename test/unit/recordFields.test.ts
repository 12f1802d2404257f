/**
 * The detail's readable fields (renderer/src/lib/recordFields.ts): which fields §2 does not name,
 * field names and enum-like values in words, values made readable, and a contact's orders with the
 * addresses they used.
 */
import { describe, expect, it } from 'vitest';
import type { ContactAppearance } from '../../shared/contract.ts';
import type { OrderRow, RecipientRow } from '../../shared/query.ts';
import { recordFilterSections } from '../../renderer/src/lib/recordFilters.ts';
import { fieldValueText, humanizeKey, humanizeValue, ordersOfContact, otherContactFields, otherOrderFields } from '../../renderer/src/lib/recordFields.ts';

describe('field names and values in words', () => {
  it.each([
    ['lastMailedStatus', 'Last mailed status'],
    ['account_id', 'Account ID'],
    ['ContactLabels', 'Contact labels'],
    ['thumbnailURL', 'Thumbnail URL'],
    ['is-return-address', 'Is return address'],
    ['x', 'X'],
    ['__', '__'],
  ])('%s → %s', (key, words) => expect(humanizeKey(key)).toBe(words));

  it.each([
    ['certified_letter', 'Certified letter'],
    ['immediate', 'Immediate'],
    ['usps_certified', 'USPS certified'],
    ['json', 'JSON'],
    ['first-class', 'First class'],
    // Already words, or not identifiers: unchanged.
    ['8.5x11', '8.5x11'],
    ['#10 double window', '#10 double window'],
    ['In Transit', 'In Transit'],
    ['Certified letter', 'Certified letter'],
  ])('%s → %s', (value, words) => expect(humanizeValue(value)).toBe(words));

  it('reads values: dates in the local zone, booleans, JSON, empty', () => {
    expect(fieldValueText('2025-03-04T15:30:00.000Z').text).not.toContain('T15:30');
    expect(fieldValueText('2025-03-04T15:30:00.000Z').text).toMatch(/2025/);
    expect(fieldValueText('2025-03-04').text).toMatch(/2025/);
    expect(fieldValueText(true)).toEqual({ text: 'Yes', mono: false });
    expect(fieldValueText(null)).toEqual({ text: '—', mono: false });
    expect(fieldValueText('')).toEqual({ text: '—', mono: false });
    expect(fieldValueText({ a: 1 })).toEqual({ text: '{"a":1}', mono: true });
    expect(fieldValueText('in_transit')).toEqual({ text: 'In transit', mono: false });
    expect(fieldValueText('10000120')).toEqual({ text: '10000120', mono: true });
  });
});

describe('fields §2 does not name', () => {
  it('a contact: its own and its labels’, in the order sent', () => {
    const contact = { id: '1', fullName: 'A', lastMailedStatus: 'mailed', ContactLabels: [{ id: '9', title: 'VIP', colour: 'red' }], createdAt: 'x', extra: [1] };
    expect(otherContactFields(contact)).toEqual([
      { path: 'lastMailedStatus', label: 'Last mailed status', value: 'mailed' },
      { path: 'extra', label: 'Extra', value: [1] },
      { path: 'ContactLabels[0].colour', label: 'Label 1 · Colour', value: 'red' },
    ]);
    expect(otherContactFields({ id: '1', firstName: 'A' })).toEqual([]);
    expect(otherContactFields('not an object')).toEqual([]);
    expect(otherContactFields({ ContactLabels: 'VIP' })).toEqual([]);
  });

  it('an order: its own, its parts’ and each recipient’s, never inside meta', () => {
    const order = {
      id: '5', status: 1, meta: { account_id: 'a', custom: 1 }, priority: 'rush',
      campaign: { id: '1', name: 'C', channelCode: 'dm' },
      product: { id: '2', meta: { weight: 2 }, sku: 'P-1' },
      template: { id: '3', creator: { id: '4', fullName: 'T', email: 'x@y' }, version: 2 },
      contacts: [{ id: '7', contact: { id: '8', fullName: 'R', county: 'Ada' }, meta: {}, tracked: false }],
    };
    expect(otherOrderFields(order).map((f) => [f.path, f.label])).toEqual([
      ['priority', 'Priority'],
      ['campaign.channelCode', 'Campaign · Channel code'],
      ['product.sku', 'Product · Sku'],
      ['template.version', 'Template · Version'],
      ['template.creator.email', 'Creator · Email'],
      ['contacts[0].tracked', 'Recipient 1 · Tracked'],
      ['contacts[0].contact.county', 'Recipient 1 snapshot · County'],
    ]);
    // A kept order with parts of the wrong type: nothing breaks.
    expect(otherOrderFields({ id: '5', contacts: null, template: 'x', campaign: [1] })).toEqual([]);
  });
});

describe('a contact’s orders', () => {
  const order = (id: string): OrderRow => ({ id, status: 1, isLiveMode: true, campaignName: '', campaignType: '', scheduleType: '', deliveryDate: null, productName: '', productType: '', templateTitle: '', recipients: 2, delivered: 0, invalidReason: null, change: null, firstSeenAt: null });
  const recipient = (address1: string, addressChanged: boolean): RecipientRow => ({
    id: 'r', orderId: '', contactId: '1', firstName: '', lastName: '', fullName: '', companyName: '', email: '', phoneNo: '', address1, address2: '', city: 'Boise', zip: '83720',
    trackingCode: null, isDelivered: false, status: null, websiteUrl: '', contactInCache: true, changedSinceOrder: addressChanged ? ['address1'] : [], addressChanged,
  });

  it('one entry per order, each distinct address once, marked when it differs from the current one', () => {
    const appearances: ContactAppearance[] = [
      { order: order('2'), recipient: recipient('1 Elm St', true) },
      { order: order('2'), recipient: recipient('1 Elm St', true) },
      { order: order('2'), recipient: recipient('9 Oak Ave', false) },
      { order: order('1'), recipient: recipient('9 Oak Ave', false) },
    ];
    expect(ordersOfContact(appearances).map((o) => [o.order.id, o.addresses])).toEqual([
      ['2', [{ text: '1 Elm St, Boise, 83720', changed: true }, { text: '9 Oak Ave, Boise, 83720', changed: false }]],
      ['1', [{ text: '9 Oak Ave, Boise, 83720', changed: false }]],
    ]);
  });
});

describe('the filter groups both tables share', () => {
  const facets = { changed: [{ value: 'removed' as const, label: 'Removed', count: 2 }], invalid: 3 };

  it('offers every kind of change and the invalid filter with their counts', () => {
    const toggles: boolean[] = [];
    const [changed, invalid] = recordFilterSections(facets, { changed: ['removed'] }, (on) => toggles.push(on));
    expect(changed?.options).toEqual([
      { value: 'added', label: 'Added', count: 0 },
      { value: 'changed', label: 'Changed', count: 0 },
      { value: 'removed', label: 'Removed', count: 2 },
    ]);
    expect(changed?.selected).toEqual(['removed']);
    expect(invalid?.options).toEqual([{ value: 'yes', label: 'Only records kept as invalid', count: 3 }]);
    expect(invalid?.selected).toEqual([]);
    invalid?.toggle?.('yes');
    expect(toggles).toEqual([true]);
    const [, on] = recordFilterSections(facets, { invalidOnly: true }, (v) => toggles.push(v));
    on?.toggle?.('yes');
    expect(toggles).toEqual([true, false]);
  });

  it('before the first facets, lists only what is ticked, in words', () => {
    expect(recordFilterSections(null, {}, () => {}).map((s) => s.options)).toEqual([[], []]);
    const [changed, invalid] = recordFilterSections(null, { changed: ['added'], invalidOnly: true }, () => {});
    expect(changed?.options).toEqual([{ value: 'added', label: 'Added', count: 0 }]);
    expect(invalid?.options.map((o: { label: string }) => o.label)).toEqual(['Only records kept as invalid']);
  });
});
