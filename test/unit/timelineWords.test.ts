/**
 * The observed history in words (renderer/src/lib/timeline.ts): each kind of observation reads as a
 * mailer would say it, with the span the sync saw it in, and a recipient's delivery is found by id.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../shared/contract.ts';
import { describeObservation, describeTimeline, latestByRecipient, spanText } from '../../renderer/src/lib/timeline.ts';
import { formatWhen } from '../../renderer/src/lib/format.ts';
import { STATUS_COLOURS } from '../../shared/statusCodes.ts';

const span = { after: '2026-12-01T18:02:00.000Z', atOrBefore: '2026-12-02T09:14:00.000Z' };
const o = (field: string, from: Observation['from'], to: Observation['to'], recipientId?: string): Observation => ({ field, from, to, ...(recipientId ? { recipientId } : {}), ...span });
const context = { statusNames: { '2': { name: 'Scheduled', colour: STATUS_COLOURS[0] }, '4': { name: 'Mailed', colour: STATUS_COLOURS[1] } }, recipientName: (id: string) => (id === '51' ? 'Ava García' : null) };

describe('describeObservation', () => {
  it('says each kind of change in words, between the two reads', () => {
    expect(spanText(span)).toBe(`between ${formatWhen(span.after)} and ${formatWhen(span.atOrBefore)}`);
    const words = (x: Observation) => describeObservation(x, context).what;
    expect(words(o('status', 2, 4))).toBe('Scheduled → Mailed');
    expect(words(o('status', 2, 9))).toBe('Scheduled → Status 9');
    expect(words(o('isDelivered', false, true, '51'))).toBe('Ava García delivered');
    expect(words(o('isDelivered', false, true, '77'))).toBe('Recipient #77 delivered');
    expect(words(o('trackingCode', null, '9400 1', '51'))).toBe('Ava García: tracking code 9400 1');
    expect(words(o('address1', '1 Oak St', '12 New Road'))).toBe('Address: 1 Oak St → 12 New Road');
    expect(words(o('address2', null, 'Apt 4'))).toBe('Line 2: — → Apt 4');
    expect(words(o('ContactLabels', [{ id: '1', title: 'Probate' }], [{ id: '1', title: 'Probate' }, { id: '2', title: 'Absentee' }]))).toBe('Labels: Probate → Probate, Absentee');
    expect(words(o('record', 'present', 'absent'))).toBe('No longer listed by the service');
    expect(words(o('record', 'absent', 'present'))).toBe('Listed by the service');
    expect(describeObservation(o('status', 2, 4), context).between).toBe(spanText(span));
  });

  it('makes one "Moved" entry of the address fields a sync saw change, newest sync first', () => {
    const later = { after: span.atOrBefore, atOrBefore: '2026-12-03T08:00:00.000Z' };
    const entries = describeTimeline([
      o('zip', '55480', '63126'), o('address1', '6129 Spring Ter', '5711 Ridge Ct'), o('city', 'Minneapolis', 'St. Louis'), o('ContactLabels', [], [{ id: '2', title: 'Absentee' }]),
      { ...o('address2', null, 'Apt 4'), ...later },
    ]);
    expect(entries.map((e) => e.what)).toEqual(['Line 2: — → Apt 4', 'Moved: 6129 Spring Ter · Minneapolis · 55480 → 5711 Ridge Ct · St. Louis · 63126', 'Labels: none → Absentee']);
    expect(entries[1]!.between).toBe(spanText(span));
  });

  it('finds the newest delivery of each recipient', () => {
    const later = { ...o('isDelivered', true, false, '51'), atOrBefore: '2026-12-05T00:00:00.000Z' };
    const map = latestByRecipient([o('isDelivered', false, true, '51'), o('trackingCode', null, 'x', '51'), later, o('isDelivered', false, true, '52')], 'isDelivered');
    expect(map.get('51')).toEqual(later);
    expect(map.get('52')?.to).toBe(true);
    expect(map.size).toBe(2);
  });
});
