/**
 * The service-query editor's form as plain data: one value per parameter of the resource's table
 * (shared/serviceParams.ts `SERVICE_PARAMS`), read from a saved query and turned back into one,
 * with every problem a person can type tied to the input it is in. No zod: the page loads only
 * the zod-free half of the service-query rules.
 */
import {
  calendarDayProblem,
  formatServiceParams,
  isMetaParamName,
  MAX_LIST_ITEM,
  MAX_META_KEYS,
  MAX_PARAM_TEXT,
  SERVICE_PARAMS,
  type ServiceParamSpec,
  type ServiceResource,
} from '../../../shared/serviceParams.ts';
import type { JsonValue, ViewServiceQuery } from '../../../shared/views.ts';

/** A tri-state parameter's choice: not sent, `true` or `false`. */
export type TriState = 'any' | 'yes' | 'no';

/** One `meta.<key>` row: the key without `meta.` and its value. */
export interface MetaRow {
  /** Stable id of the row (its inputs' ids and error keys). */
  id: number;
  key: string;
  value: string;
}

/** A date range as typed: YYYY-MM-DD text, '' for an open end. */
export interface DateRangeInput {
  start: string;
  end: string;
}

/** Every value of the form, by the spec's parameter names. */
export interface QueryForm {
  text: Record<string, string>;
  lists: Record<string, string[]>;
  dates: Record<string, DateRangeInput>;
  flags: Record<string, TriState>;
  meta: MetaRow[];
}

/** The result of reading a form: the query it sends, and what is wrong, by input key ({@link inputKey}). */
export interface FormReading {
  query: ViewServiceQuery;
  errors: Record<string, string>;
}

/**
 * The key of one input of the form, for its error and its element id: the parameter's name, with
 * `.startDate` / `.endDate` for a date range's ends and `meta.<row id>.key` / `.value` for a meta row.
 */
export function inputKey(name: string, part?: 'startDate' | 'endDate'): string {
  return part ? `${name}.${part}` : name;
}

/** The key of a meta row's key or value input. */
export function metaInputKey(row: MetaRow, part: 'key' | 'value'): string {
  return `meta#${row.id}.${part}`;
}

/** The parameters the form has a control for, in the spec's order (the `meta.<key>` row last). */
export function formParams(resource: ServiceResource): readonly ServiceParamSpec[] {
  return SERVICE_PARAMS[resource];
}

let nextRow = 1;

/** A new, empty meta row. */
export function newMetaRow(key = '', value = ''): MetaRow {
  return { id: nextRow++, key, value };
}

/** The form of an empty query. */
export function emptyForm(resource: ServiceResource): QueryForm {
  const form: QueryForm = { text: {}, lists: {}, dates: {}, flags: {}, meta: [] };
  for (const p of SERVICE_PARAMS[resource]) {
    if (p.kind === 'text') form.text[p.name] = '';
    else if (p.kind === 'list' || p.kind === 'labelIds') form.lists[p.name] = [];
    else if (p.kind === 'dateRange') form.dates[p.name] = { start: '', end: '' };
    else if (p.kind === 'boolean') form.flags[p.name] = 'any';
  }
  return form;
}

const textOf = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** The form showing a saved query (values of a shape the form does not know are left out). */
export function formFromQuery(resource: ServiceResource, query: ViewServiceQuery | null): QueryForm {
  const form = emptyForm(resource);
  if (!query) return form;
  const named = new Set<string>();
  for (const p of SERVICE_PARAMS[resource]) {
    if (p.kind === 'meta') continue;
    named.add(p.name);
    const v = query[p.name];
    if (v === undefined || v === null) continue;
    if (p.kind === 'text') form.text[p.name] = textOf(v);
    else if (p.kind === 'list' || p.kind === 'labelIds') form.lists[p.name] = Array.isArray(v) ? v.map(textOf).filter((s) => s !== '') : [textOf(v)].filter((s) => s !== '');
    else if (p.kind === 'dateRange' && typeof v === 'object' && !Array.isArray(v)) form.dates[p.name] = { start: textOf(v.startDate), end: textOf(v.endDate) };
    else if (p.kind === 'boolean') form.flags[p.name] = v === true ? 'yes' : v === false ? 'no' : 'any';
  }
  for (const [name, v] of Object.entries(query)) {
    if (!named.has(name) && name.startsWith('meta.')) form.meta.push(newMetaRow(name.slice(5), textOf(v)));
  }
  return form;
}

/** Splits typed text into list items: commas separate them (as on the command line). */
export function splitItems(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Reads the form: the query it sends (absent values left out, text trimmed, in the spec's order)
 * and every problem, tied to its input's key.
 */
export function readForm(resource: ServiceResource, form: QueryForm): FormReading {
  const query: ViewServiceQuery = {};
  const errors: Record<string, string> = {};
  for (const p of SERVICE_PARAMS[resource]) {
    const name = p.name;
    if (p.kind === 'text') {
      const v = (form.text[name] ?? '').trim();
      if (v.length > MAX_PARAM_TEXT) errors[inputKey(name)] = `${name} is at most ${MAX_PARAM_TEXT} characters (this is ${v.length}).`;
      else if (v !== '') query[name] = v;
    } else if (p.kind === 'list' || p.kind === 'labelIds') {
      const items = (form.lists[name] ?? []).map((s) => s.trim()).filter((s) => s !== '');
      const long = items.find((s) => s.length > MAX_LIST_ITEM);
      const closed = !p.open ? items.find((s) => !p.values.includes(s)) : undefined;
      if (long !== undefined) errors[inputKey(name)] = `A ${name} value is at most ${MAX_LIST_ITEM} characters.`;
      else if (closed !== undefined) errors[inputKey(name)] = `${name} takes ${p.values.join(' or ')}, not “${closed}”.`;
      else if (items.length > 0) query[name] = [...new Set(items)];
    } else if (p.kind === 'dateRange') {
      const range = form.dates[name] ?? { start: '', end: '' };
      const start = range.start.trim();
      const end = range.end.trim();
      const startProblem = start === '' ? null : calendarDayProblem(start);
      const endProblem = end === '' ? null : calendarDayProblem(end);
      if (startProblem) errors[inputKey(name, 'startDate')] = sentence(startProblem);
      if (endProblem) errors[inputKey(name, 'endDate')] = sentence(endProblem);
      if (!startProblem && !endProblem && start !== '' && end !== '' && start > end) {
        errors[inputKey(name, 'endDate')] = `The range ends before it starts: ${end} is before ${start}. Choose an end on or after the start.`;
      }
      if (!startProblem && !endProblem && (start !== '' || end !== '') && !errors[inputKey(name, 'endDate')]) {
        query[name] = { ...(start ? { startDate: start } : {}), ...(end ? { endDate: end } : {}) };
      }
    } else if (p.kind === 'boolean') {
      const v = form.flags[name] ?? 'any';
      if (v !== 'any') query[name] = v === 'yes';
    }
  }
  const seen = new Set<string>(Object.keys(query));
  let metas = 0;
  for (const row of form.meta) {
    const key = row.key.trim().replace(/^meta\./, '');
    const value = row.value.trim();
    if (key === '' && value === '') continue;
    const name = `meta.${key}`;
    if (key === '') errors[metaInputKey(row, 'key')] = 'Give the meta key (the part after “meta.”).';
    else if (!isMetaParamName(name)) errors[metaInputKey(row, 'key')] = 'A meta key holds letters, digits, _ . or - (up to 64), and starts with a letter, digit or _.';
    else if (SERVICE_PARAMS[resource].some((p) => p.name === name)) errors[metaInputKey(row, 'key')] = `${name} has a field of its own above.`;
    else if (seen.has(name)) errors[metaInputKey(row, 'key')] = `${name} is given twice; give it once.`;
    if (value === '') errors[metaInputKey(row, 'value')] = `Give the value ${key ? `meta.${key}` : 'this key'} must equal.`;
    else if (value.length > MAX_PARAM_TEXT) errors[metaInputKey(row, 'value')] = `A meta value is at most ${MAX_PARAM_TEXT} characters.`;
    if (!errors[metaInputKey(row, 'key')] && !errors[metaInputKey(row, 'value')]) {
      seen.add(name);
      query[name] = value;
      metas++;
    }
  }
  if (metas > MAX_META_KEYS) {
    const last = form.meta.at(-1);
    if (last) errors[metaInputKey(last, 'key')] = `At most ${MAX_META_KEYS} meta.<key> filters.`;
  }
  return { query, errors };
}

/** A problem as a sentence: capital first letter, full stop. */
function sentence(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The query's parameters as `NAME=VALUE` texts, as the command line writes them. */
export function queryWords(resource: ServiceResource, query: ViewServiceQuery | null): string[] {
  if (!query) return [];
  return formatServiceParams(resource, query as never);
}

/** True when the query sends no filter. */
export function isEmptyQuery(query: ViewServiceQuery | null): boolean {
  return !query || Object.keys(query).length === 0;
}
