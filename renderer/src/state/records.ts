/**
 * The page's reads of single records, for the components that show them: the detail panels'
 * reads, started ahead by the click or key that opens a record (lib/readAhead.ts) — `ahead(id)`
 * when the panel is about to show record `id`, `read(id)` in the panel — and the look-ups of a
 * record's name or recipients. Components call main only through state/, never lib/api.ts.
 */
import type { CallOutput } from '../../../shared/contract.ts';
import { call } from '../lib/api.ts';
import { contactOf } from '../lib/keptRecords.ts';
import { ReadAhead } from '../lib/readAhead.ts';

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

/** A contact with its orders, read now (not shared with a panel). @throws DisplayError */
export function readContact(id: string): Promise<CallOutput<'getContact'>> {
  return call('getContact', { id });
}

/** An order with its recipients, read now (not shared with a panel). @throws DisplayError */
export function readOrder(id: string): Promise<CallOutput<'getOrder'>> {
  return call('getOrder', { id });
}

/** What a strip calls a contact an orders view is scoped to: its full name, else `contact #<id>` (also when it cannot be read). */
export function contactName(id: string): Promise<string> {
  return readContact(id)
    .then((d) => contactOf(d).fullName || `contact #${id}`)
    .catch(() => `contact #${id}`);
}

/**
 * What a strip calls the template or campaign an orders view is scoped to: the template's title or
 * the campaign's name, else `template <id>` / `campaign <id>` (also when it cannot be read).
 */
export function summaryName(scope: { templateId: string } | { campaignId: string }): Promise<string> {
  const read = 'templateId' in scope ? call('getTemplate', { id: scope.templateId }).then((t) => t.title) : call('getCampaign', { id: scope.campaignId }).then((c) => c.name);
  const fallback = 'templateId' in scope ? `template ${scope.templateId}` : `campaign ${scope.campaignId}`;
  return read.then((n) => n.trim() || fallback).catch(() => fallback);
}

/** Opens an http(s) address in the system browser; failures are ignored (the link simply does nothing). */
export function openExternal(url: string): void {
  void call('openExternal', { url }).catch(() => undefined);
}
