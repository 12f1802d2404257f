/**
 * Names for the integer order status codes (§2.3 `status`), without any schema library: the
 * palette, the code rule and how a code reads, for the page (which must not load zod under its
 * strict CSP) as well as the main side. §3 gives the codes no meaning, so each profile may name
 * them: code → a name and a colour from a small fixed palette, which the page maps to its theme's
 * colours. An unnamed code reads "Status N" everywhere (tables, filters, details, CSV exports), so
 * a name is only ever added, never guessed. statusNames.ts holds the schema and re-exports all of
 * this.
 *
 * Pure module: no imports.
 */

/** The colours a status name can have; the page maps each to a colour of its light and dark themes. */
export const STATUS_COLOURS = ['grey', 'blue', 'teal', 'green', 'yellow', 'orange', 'red', 'purple'] as const;
export type StatusColour = (typeof STATUS_COLOURS)[number];

/** One named status code. */
export interface StatusName {
  /** 1–60 characters, trimmed. */
  name: string;
  colour: StatusColour;
}

/** Status code (decimal integer text, e.g. "3" or "-1") → its name; codes without an entry are unnamed. */
export type StatusNames = { [code: string]: StatusName };

/** Most codes a profile can name. */
export const MAX_STATUS_NAMES = 100;

/** Longest status name, in characters (after trimming). */
export const MAX_STATUS_NAME_LENGTH = 60;

/** A status code as a key: a decimal integer of at most 9 digits, no leading zeros, "-0" not allowed. */
export const STATUS_CODE_KEY = /^(0|-?[1-9]\d{0,8})$/;

/**
 * What a status code reads as: its name when the profile names it, else "Status N".
 * @param code the order's `status`; null (an order kept as invalid without one) reads as ''
 * @param names the profile's names, if any
 */
export function statusName(code: number | null, names?: StatusNames | null): string {
  if (code === null) return '';
  const named = names && Object.prototype.hasOwnProperty.call(names, String(code)) ? names[String(code)] : undefined;
  return named ? named.name : `Status ${code}`;
}

/**
 * Names the service's order statuses give the codes (the kept `orderStatus` filters,
 * shared/keptFilters.ts): a code whose orders all came back under one status is named by it; a
 * code whose orders came back under several is a conflict, reported and left unnamed.
 */
export interface LearnedStatusNames {
  /** Status code (decimal text) → the status's display name ("Mailed"). */
  names: { [code: string]: string };
  /** Codes whose orders fall under several statuses, each with how many orders. */
  conflicts: { code: number; statuses: { name: string; orders: number }[] }[];
}

/** A colour for a learned or typed name that has none: the same name always gets the same one. */
export function defaultStatusColour(name: string): StatusColour {
  let hash = 0;
  for (const ch of name.toLowerCase()) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return STATUS_COLOURS[1 + (hash % (STATUS_COLOURS.length - 1))] ?? 'grey';
}

/**
 * The names a code reads as: the profile's own, then the learned ones for the codes it leaves
 * unnamed, each with its default colour.
 */
export function withLearnedNames(own: StatusNames | null | undefined, learned: LearnedStatusNames['names'] | null | undefined): StatusNames {
  const out: StatusNames = {};
  for (const [code, name] of Object.entries(learned ?? {})) out[code] = { name, colour: defaultStatusColour(name) };
  return { ...out, ...(own ?? {}) };
}
