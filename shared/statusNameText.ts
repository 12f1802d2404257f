/**
 * What an order status code reads as (§2.3 `status`; §3 gives the codes no meaning): a profile's
 * name for it, else "Status N". Kept apart from statusNames.ts, which validates names with zod,
 * so that the page can use it without loading zod (whose startup check is an `eval` the page's
 * CSP refuses).
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
