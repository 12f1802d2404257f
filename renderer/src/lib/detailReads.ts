/**
 * The reads of the detail panels, started ahead by the click or key that opens a record
 * (readAhead.ts): `ahead(id)` when the panel is about to show record `id`, `read(id)` in the panel.
 */
import type { CallOutput } from '../../../shared/contract.ts';
import { call } from './api.ts';
import { ReadAhead } from './readAhead.ts';

/** A detail panel's reads: started ahead, and taken (or started) by the panel. */
export interface DetailReads<T> {
  ahead(id: string): void;
  read(id: string): Promise<T>;
}

function detailReads<T>(read: (id: string) => Promise<T>): DetailReads<T> {
  const reads = new ReadAhead<T>();
  return {
    ahead: (id) => reads.start(id, () => read(id)),
    read: (id) => reads.take(id, () => read(id)),
  };
}

/** A contact with its orders (`getContact`). */
export const contactReads: DetailReads<CallOutput<'getContact'>> = detailReads((id) => call('getContact', { id }));
/** An order with its recipients (`getOrder`). */
export const orderReads: DetailReads<CallOutput<'getOrder'>> = detailReads((id) => call('getOrder', { id }));
