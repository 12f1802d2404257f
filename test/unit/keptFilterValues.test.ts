/**
 * The kept filters' values and date presets (shared/keptFilters.ts): which values can be kept, the
 * range each preset covers on a given day (across months, years and a leap day), the query a kept
 * value is read with, and the words it is shown in.
 */
import { describe, expect, it } from 'vitest';
import { KEPT_PARAMS, defaultKeptValues, keptServiceQuery, keptValueName, keptValueProblem, localDay, presetRange } from '../../shared/keptFilters.ts';

describe('date presets', () => {
  it('the last N days end today and include it', () => {
    expect(presetRange('7d', '2026-12-02')).toEqual({ startDate: '2026-11-26', endDate: '2026-12-02' });
    expect(presetRange('30d', '2026-03-01')).toEqual({ startDate: '2026-01-31', endDate: '2026-03-01' });
    expect(presetRange('30d', '2024-03-01')).toEqual({ startDate: '2024-02-01', endDate: '2024-03-01' });
    expect(presetRange('90d', '2027-01-15')).toEqual({ startDate: '2026-10-18', endDate: '2027-01-15' });
  });

  it('this year starts on 1 January, also on 1 January', () => {
    expect(presetRange('this-year', '2026-12-02')).toEqual({ startDate: '2026-01-01', endDate: '2026-12-02' });
    expect(presetRange('this-year', '2027-01-01')).toEqual({ startDate: '2027-01-01', endDate: '2027-01-01' });
  });

  it("the day is the person's local calendar day", () => {
    const at = new Date(2026, 0, 31, 23, 59);
    expect(localDay(at)).toBe('2026-01-31');
  });
});

describe('kept values', () => {
  it('lists take any typed value; presets and yes / no only their own', () => {
    expect(keptValueProblem('orders', 'orderStatus', 'AWAITING_REVIEW')).toBeNull();
    expect(keptValueProblem('contacts', 'lastMailedStatus', 'Returned to sender')).toBeNull();
    expect(keptValueProblem('orders', 'createdBy', '15')).toBeNull();
    expect(keptValueProblem('contacts', 'lastMailedDate', '45d')).toMatch(/Last mailed date is kept for 7d, 30d, 90d, this-year, not "45d"/);
    expect(keptValueProblem('contacts', 'isReturnAddress', 'maybe')).toMatch(/yes, no/);
    expect(keptValueProblem('contacts', 'tags', '7001')).toMatch(/cannot keep "tags"/);
    expect(keptValueProblem('orders', 'orderStatus', ' MAILED')).toMatch(/leading or trailing spaces/);
    expect(keptValueProblem('orders', 'orderStatus', 'x'.repeat(101))).toMatch(/at most 100/);
  });

  it('each value is read with one item, its range on the day of the read, or true / false', () => {
    expect(keptServiceQuery('contacts', 'addressStatus', 'Failed', '2026-12-02')).toEqual({ addressStatus: ['Failed'] });
    expect(keptServiceQuery('contacts', 'lastMailedDate', '30d', '2026-12-02')).toEqual({ lastMailedDate: { startDate: '2026-11-03', endDate: '2026-12-02' } });
    expect(keptServiceQuery('orders', 'processingDate', 'this-year', '2026-12-02')).toEqual({ processingDate: { startDate: '2026-01-01', endDate: '2026-12-02' } });
    expect(keptServiceQuery('contacts', 'isReturnAddress', 'no', '2026-12-02')).toEqual({ isReturnAddress: false });
    expect(() => keptServiceQuery('contacts', 'lastMailedDate', 'yesterday', '2026-12-02')).toThrow(/is kept for/);
  });

  it("values are shown in the service's published words", () => {
    expect(keptValueName('paymentStatus', 'PAYMENT_FAILED')).toBe('Payment failed');
    expect(keptValueName('orderStatus', 'ON_HOLD')).toBe('On hold');
    expect(keptValueName('sources', 'OLC_CLIENT')).toBe('Open Letter Connect');
    expect(keptValueName('lastMailedDate', '90d')).toBe('Last 90 days');
    expect(keptValueName('isReturnAddress', 'yes')).toBe('Yes');
    expect(keptValueName('orderStatus', 'AWAITING_REVIEW')).toBe('AWAITING_REVIEW');
  });

  it('the defaults are address status, last mailed in 30 days, order status and payment', () => {
    const defaults = defaultKeptValues();
    expect([...new Set(defaults.map((d) => d.param))]).toEqual(['addressStatus', 'lastMailedDate', 'orderStatus', 'paymentStatus']);
    expect(defaults).toHaveLength(13);
    for (const d of defaults) expect(keptValueProblem(d.resource, d.param, d.value)).toBeNull();
    expect(KEPT_PARAMS.contacts.map((p) => p.option)).toEqual(['--address-status', '--last-mailed-status', '--last-mailed-date', '--return-address']);
  });
});
